//! The synthetic workload: determinism and statistical shape.

use rainsim_trace::{generate, stats, Op, SizeWeight, SyntheticSpec};

const CAP: u64 = 16 << 30;

#[test]
fn deterministic_per_seed() {
    let spec = SyntheticSpec::default();
    let a = generate(&spec, CAP, 7).unwrap();
    let b = generate(&spec, CAP, 7).unwrap();
    assert_eq!(a, b);
    let c = generate(&spec, CAP, 8).unwrap();
    assert_ne!(a.requests, c.requests);
    assert_ne!(a.info.sha256, c.info.sha256);
    assert_eq!(a.info.format, "synthetic");
    assert_eq!(a.info.requests, 100_000);
}

#[test]
fn shape_matches_the_spec() {
    let spec = SyntheticSpec::default();
    let t = generate(&spec, CAP, 42).unwrap();
    let s = stats(&t.requests, 4096);
    assert_eq!(s.requests, 100_000);
    // Binomial sd of the read fraction ≈ 0.0014; allow > 5 sd.
    assert!((1.0 - s.write_ratio - 0.3).abs() < 0.01, "read ratio {}", 1.0 - s.write_ratio);
    // Exponential gaps: sd of the mean ≈ 500 µs / √1e5 ≈ 1.6 µs.
    assert!((s.inter_arrival.mean_ns - 500_000.0).abs() < 10_000.0, "mean gap {}", s.inter_arrival.mean_ns);
    // Median of an exponential = mean × ln 2.
    let median = s.inter_arrival.p50_ns as f64;
    assert!((median / 500_000.0 - std::f64::consts::LN_2).abs() < 0.02, "median {median}");
    let footprint = (CAP as f64 * 0.8) as u64;
    assert!(t.requests.iter().all(|r| r.offset + u64::from(r.size) <= footprint));
    assert!(t.requests.iter().all(|r| r.offset % 4096 == 0 && r.device == 0));
    assert!(t.requests.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
    assert_eq!(t.requests[0].time_ns, 0);
    // Size mix: 4 KiB ≈ 40 %, 64 KiB ≈ 10 %.
    let frac = |b: u32| t.requests.iter().filter(|r| r.size == b).count() as f64 / 1e5;
    assert!((frac(4096) - 0.4).abs() < 0.01 && (frac(65536) - 0.1).abs() < 0.01);
    // Skew: ≈ 80 % of requests start in the first 20 % of the footprint.
    let hot = t.requests.iter().filter(|r| r.offset < footprint / 5).count() as f64 / 1e5;
    assert!((hot - 0.8).abs() < 0.01, "hot share {hot}");
}

#[test]
fn small_capacity_and_custom_spec_stay_inside() {
    let spec = SyntheticSpec {
        requests: 5_000,
        mean_interarrival_ns: 0,
        read_ratio: 1.0,
        sizes: vec![SizeWeight { bytes: 3000, weight: 1.0 }, SizeWeight { bytes: 12_288, weight: 2.0 }],
        footprint: 1.0,
        hot_fraction: 0.5,
        hot_access: 1.0,
        align_bytes: 512,
        ..Default::default()
    };
    let cap = 1 << 20;
    let t = generate(&spec, cap, 1).unwrap();
    assert!(t.requests.iter().all(|r| r.offset + u64::from(r.size) <= cap && r.op == Op::Read));
    assert!(t.requests.iter().all(|r| r.time_ns == 0));
    assert_eq!(t.info.span_ns, 0);
}

#[test]
fn spec_deserializes_with_defaults() {
    let s: SyntheticSpec = toml::from_str("requests = 10\n[[sizes]]\nbytes = 4096\nweight = 1.0\n").unwrap();
    assert_eq!(s.requests, 10);
    assert_eq!(s.sizes.len(), 1);
    assert_eq!(s.read_ratio, SyntheticSpec::default().read_ratio);
    assert!(toml::from_str::<SyntheticSpec>("reqs = 1").is_err());
}

/// The default workload's request sequence is part of the contract (reports
/// and golden numbers depend on it): a digest of every field of the first
/// 100,000 requests, taken before the profile keys existed.
#[test]
fn default_sequence_is_unchanged() {
    let t = generate(&SyntheticSpec::default(), CAP, 42).unwrap();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for r in &t.requests {
        for v in [r.time_ns, r.offset, u64::from(r.size), u64::from(r.device), u64::from(r.op == Op::Write)] {
            h = (h ^ v).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    assert_eq!(h, DEFAULT_DIGEST, "digest {h:#x}");
    assert_eq!(t.info.sha256, DEFAULT_SHA256);
}
const DEFAULT_DIGEST: u64 = 0x7409_cc08_bd44_43aa;
const DEFAULT_SHA256: &str = "8c77b5fea3d601da1931da76763db26ef36e675065fd85ddb831ec84abbcec1c";
