//! A seeded synthetic workload: Poisson arrivals, a read/write mix, a size
//! distribution and a two-region (hot/cold) address skew.
//!
//! Model: the footprint is the first `footprint × capacity` bytes, cut into
//! slots of `align_bytes`. The hot region is its first `hot_fraction` of the
//! slots and receives `hot_access` of the requests; within a region the start
//! slot is uniform. A request that would run past the footprint end is moved
//! back to end inside it. Gaps between arrivals are exponential with mean
//! `mean_interarrival_ns`, rounded to ns; the first request is at 0 ns. All
//! requests are on device 0. The output depends only on the spec, the
//! capacity and the seed (PCG-64 MCG from `rand_pcg`).
//!
//! **Profile keys** (all off by default; with every one off the request
//! sequence is exactly the one described above):
//!
//! - `footprint_gib`: the footprint in absolute GiB (2^30 bytes) instead of
//!   the `footprint` fraction; an error if it exceeds the capacity.
//! - `read_sizes` / `write_sizes`: a size distribution per direction (an
//!   empty list falls back to `sizes`), so that a profile can hit a table's
//!   mean request size or mean write size.
//! - `update_ratio` = u: the fraction of write requests that touch a page an
//!   earlier write touched — the "Update R" column of the Rep-RAID paper's
//!   Table 3 ("the update ratio of write requests") and of the
//!   adaptive-parity paper's Table III ("the ratio of update (write) requests
//!   to all write requests"), computed by `stats::stats` as `update_ratio`.
//!
//! Update model (only when `update_ratio` is set): the direction is drawn
//! first, then the size from that direction's list. Writes fill the
//! footprint from its start: `cursor` is the high-water mark of written
//! slots. The k-th write (k = 1, 2, …) is an *update* iff
//! `updates < ⌊u·k⌋` (a deterministic quota, so the ratio is ⌊u·W⌋/W for W
//! writes, not a binomial draw) and something has been written; an update
//! starts at a slot below `cursor`, in the first `hot_fraction` of the
//! written slots with probability `hot_access`, else in the rest; a *fresh*
//! write starts at `cursor`. Either way `cursor` moves to the write's end
//! slot if that is beyond it. Every slot below `cursor` has its first byte
//! written (a write of `need` slots covers more than `need − 1` of them), so
//! an update always touches a written page, and a fresh write touches only
//! pages no write has touched — exactly so when the counting page size
//! divides `align_bytes` (profiles use `align_bytes` = page size = 8 KiB).
//! Reads start at a slot of the whole footprint with the hot/cold skew above.
//! If the fresh writes reach the footprint end, generation fails with the
//! numbers (raise `footprint_gib` or `update_ratio`).

use crate::reader::{hex, Trace, TraceInfo};
pub use crate::stream::Stream;
use crate::{transform, TraceError};
use rand::RngExt;
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One entry of the request size distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeWeight {
    /// Request size in bytes (> 0).
    pub bytes: u32,
    /// Relative weight (> 0; weights need not sum to 1).
    pub weight: f64,
}

/// Parameters of the synthetic workload. Every field has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyntheticSpec {
    /// Number of requests (≥ 1).
    pub requests: u64,
    /// Mean gap between arrivals in ns (exponential gaps = Poisson arrivals).
    pub mean_interarrival_ns: u64,
    /// Fraction of requests that are reads, in [0, 1].
    pub read_ratio: f64,
    /// Size distribution (at least one entry).
    pub sizes: Vec<SizeWeight>,
    /// Fraction of the capacity that is addressed, in (0, 1] (unused when
    /// `footprint_gib` is set).
    pub footprint: f64,
    /// Fraction of the footprint that is hot, in [0, 1].
    pub hot_fraction: f64,
    /// Fraction of requests that go to the hot region, in [0, 1].
    pub hot_access: f64,
    /// Alignment of request offsets in bytes (> 0).
    pub align_bytes: u32,
    /// Footprint in GiB (2^30 bytes), in (0, capacity]; replaces
    /// `footprint` when set. Off (None) by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub footprint_gib: Option<f64>,
    /// Size distribution of reads; empty (default) = `sizes`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub read_sizes: Vec<SizeWeight>,
    /// Size distribution of writes; empty (default) = `sizes`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub write_sizes: Vec<SizeWeight>,
    /// Fraction of write requests that update already-written data, in
    /// [0, 1]; turns on the update model (module docs). Off (None) by default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update_ratio: Option<f64>,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        let sw = |kib: u32, weight: f64| SizeWeight { bytes: kib * 1024, weight };
        SyntheticSpec {
            requests: 100_000,
            // 2,000 IOPS: the aged 128 GiB rep-raid-8ch device (WAF ≈ 9) runs
            // at about 60 % die utilisation; at 5,000 IOPS its queues grow
            // without bound.
            mean_interarrival_ns: 500_000,
            read_ratio: 0.3,
            sizes: vec![sw(4, 0.4), sw(8, 0.3), sw(16, 0.2), sw(64, 0.1)],
            footprint: 0.8,
            hot_fraction: 0.2,
            hot_access: 0.8,
            align_bytes: 4096,
            footprint_gib: None,
            read_sizes: Vec::new(),
            write_sizes: Vec::new(),
            update_ratio: None,
        }
    }
}

pub(crate) fn invalid(msg: String) -> TraceError {
    TraceError::Invalid(format!("synthetic workload: {msg}"))
}

impl SyntheticSpec {
    /// Checks every parameter; the error names the field and its valid range.
    pub fn validate(&self) -> Result<(), TraceError> {
        if self.requests == 0 {
            return Err(invalid("requests must be ≥ 1".into()));
        }
        // The last arrival is near requests × the mean gap (a sum of many
        // exponential gaps stays close to its mean): half of 2^62 ns is margin.
        if (self.requests as f64) * (self.mean_interarrival_ns as f64) > (crate::MAX_TIME_NS / 2) as f64 {
            return Err(invalid(format!(
                "requests = {} at mean_interarrival_ns = {} would span about {:.0} years; the simulated time \
                 supports 2^62 ns (146 years), so keep requests × mean_interarrival_ns below 2^61 ns (73 years)",
                self.requests,
                self.mean_interarrival_ns,
                self.requests as f64 * self.mean_interarrival_ns as f64 / 1e9 / 31_557_600.0
            )));
        }
        for (name, v) in
            [("read_ratio", self.read_ratio), ("hot_fraction", self.hot_fraction), ("hot_access", self.hot_access)]
        {
            if !(0.0..=1.0).contains(&v) {
                return Err(invalid(format!("{name} must be in [0, 1], got {v}")));
            }
        }
        if !(self.footprint > 0.0 && self.footprint <= 1.0) {
            return Err(invalid(format!("footprint must be in (0, 1], got {}", self.footprint)));
        }
        if self.sizes.is_empty() {
            return Err(invalid("sizes must list at least one size".into()));
        }
        for (name, list) in
            [("sizes", &self.sizes), ("read_sizes", &self.read_sizes), ("write_sizes", &self.write_sizes)]
        {
            for s in list {
                if s.bytes == 0 {
                    return Err(invalid(format!("every size must be > 0 bytes (in {name})")));
                }
                if !(s.weight.is_finite() && s.weight > 0.0) {
                    return Err(invalid(format!(
                        "{name}: size {} bytes has weight {}; weights must be finite and > 0",
                        s.bytes, s.weight
                    )));
                }
            }
            // A draw scales by the sum: an infinite one would pick the last size always.
            let sum: f64 = list.iter().map(|s| s.weight).sum();
            if !sum.is_finite() {
                return Err(invalid(format!(
                    "{name}: the weights sum to {sum}; scale them down (only their ratios count)"
                )));
            }
        }
        if self.align_bytes == 0 {
            return Err(invalid("align_bytes must be > 0".into()));
        }
        if let Some(g) = self.footprint_gib {
            if !(g.is_finite() && g > 0.0) {
                return Err(invalid(format!(
                    "footprint_gib must be > 0 GiB and at most the device's capacity, got {g}"
                )));
            }
        }
        if let Some(u) = self.update_ratio {
            if !(0.0..=1.0).contains(&u) {
                return Err(invalid(format!("update_ratio must be in [0, 1], got {u}")));
            }
        }
        Ok(())
    }

    /// A canonical text of the spec (for hashing).
    fn canonical(&self) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(|s| format!("{}:{:?}", s.bytes, s.weight)).collect();
        let mut text = format!(
            "requests={};mean_interarrival_ns={};read_ratio={:?};sizes=[{}];footprint={:?};hot_fraction={:?};hot_access={:?};align_bytes={}",
            self.requests,
            self.mean_interarrival_ns,
            self.read_ratio,
            sizes.join(","),
            self.footprint,
            self.hot_fraction,
            self.hot_access,
            self.align_bytes
        );
        // The profile keys only when set, so the hash of a spec without them is unchanged.
        if let Some(g) = self.footprint_gib {
            text += &format!(";footprint_gib={g:?}");
        }
        for (name, list) in [("read_sizes", &self.read_sizes), ("write_sizes", &self.write_sizes)] {
            if !list.is_empty() {
                let l: Vec<String> = list.iter().map(|s| format!("{}:{:?}", s.bytes, s.weight)).collect();
                text += &format!(";{name}=[{}]", l.join(","));
            }
        }
        if let Some(u) = self.update_ratio {
            text += &format!(";update_ratio={u:?}");
        }
        text
    }
}

/// Picks one size from a weighted list (one uniform draw).
pub(crate) fn pick_size(rng: &mut Pcg64Mcg, sizes: &[SizeWeight], total_weight: f64) -> u32 {
    let mut u = rng.random::<f64>() * total_weight;
    let mut size = sizes[sizes.len() - 1].bytes;
    for s in sizes {
        if u < s.weight {
            size = s.bytes;
            break;
        }
        u -= s.weight;
    }
    size
}

/// A slot in [0, slots) with the hot/cold skew (hot = the first `hot` slots).
pub(crate) fn pick_slot(rng: &mut Pcg64Mcg, hot: u64, slots: u64, hot_access: f64) -> u64 {
    let in_hot = if hot == 0 {
        false
    } else if hot == slots {
        true
    } else {
        rng.random_bool(hot_access)
    };
    if in_hot {
        rng.random_range(0..hot)
    } else {
        rng.random_range(hot..slots)
    }
}

/// Generates `spec.requests` requests within `capacity_bytes`, deterministically
/// from `seed`. `TraceInfo::sha256` hashes the canonical spec, capacity and seed.
pub fn generate(spec: &SyntheticSpec, capacity_bytes: u64, seed: u64) -> Result<Trace, TraceError> {
    let stream = Stream::new(spec, capacity_bytes, seed)?;
    let mut requests = Vec::new();
    usize::try_from(spec.requests)
        .ok()
        .and_then(|n| requests.try_reserve_exact(n).ok())
        .ok_or_else(|| invalid(format!("{} requests do not fit in memory; lower workload.requests", spec.requests)))?;
    for r in stream {
        requests.push(r?);
    }
    let info = info(spec, capacity_bytes, seed, requests.len() as u64, transform::span_ns(&requests));
    Ok(Trace { requests, info })
}

/// The [`TraceInfo`] of [`generate`]'s trace without holding it: one pass
/// over the stream, which also finds any error generation would report.
pub fn stream_info(spec: &SyntheticSpec, capacity_bytes: u64, seed: u64) -> Result<TraceInfo, TraceError> {
    let (mut n, mut first, mut last) = (0u64, 0u64, 0u64);
    for r in Stream::new(spec, capacity_bytes, seed)? {
        let r = r?;
        if n == 0 {
            first = r.time_ns;
        }
        last = r.time_ns;
        n += 1;
    }
    Ok(info(spec, capacity_bytes, seed, n, last.saturating_sub(first)))
}

/// The [`TraceInfo`] of [`generate`]'s trace without reading the stream,
/// for a spec whose stream cannot fail once created (no `update_ratio`):
/// `span_ns` is left 0 for the caller to fill from the requests it reads.
pub fn stream_identity(spec: &SyntheticSpec, capacity_bytes: u64, seed: u64) -> Option<TraceInfo> {
    spec.update_ratio.is_none().then(|| info(spec, capacity_bytes, seed, spec.requests, 0))
}

fn info(spec: &SyntheticSpec, capacity_bytes: u64, seed: u64, requests: u64, span_ns: u64) -> TraceInfo {
    let mut h = Sha256::new();
    h.update(format!("{};capacity_bytes={capacity_bytes};seed={seed}", spec.canonical()).as_bytes());
    TraceInfo {
        path: format!("synthetic (seed {seed})"),
        format: "synthetic".to_string(),
        time_unit: None,
        file_bytes: 0,
        sha256: hex(&h.finalize()),
        records_read: spec.requests,
        skipped_no_direction: 0,
        skipped: Default::default(),
        filtered_out_device: 0,
        unsorted_inversions: 0,
        requests,
        repeat: 1,
        span_ns,
        detection: None,
        stopped_at_line: None,
        beyond_capacity: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;

    #[test]
    fn validation_names_the_field() {
        let bad = |f: fn(&mut SyntheticSpec), want: &str| {
            let mut s = SyntheticSpec::default();
            f(&mut s);
            let e = generate(&s, 1 << 30, 1).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        };
        bad(|s| s.read_ratio = 1.5, "read_ratio");
        bad(|s| s.hot_access = -0.1, "hot_access");
        bad(|s| s.footprint = 0.0, "footprint");
        bad(|s| s.sizes.clear(), "at least one size");
        bad(|s| s.sizes[0].weight = 0.0, "weight");
        bad(
            |s| s.sizes = vec![SizeWeight { bytes: 4096, weight: 1e308 }, SizeWeight { bytes: 8192, weight: 1e308 }],
            "sum to inf",
        );
        bad(|s| s.sizes[0].bytes = 0, "> 0 bytes");
        bad(|s| s.requests = 0, "requests");
        bad(|s| s.align_bytes = 0, "align_bytes");
        bad(|s| s.update_ratio = Some(1.01), "update_ratio must be in [0, 1]");
        bad(|s| s.mean_interarrival_ns = u64::MAX / 2, "would span about");
        bad(|s| s.footprint_gib = Some(0.0), "footprint_gib must be > 0");
        bad(|s| s.write_sizes = vec![SizeWeight { bytes: 0, weight: 1.0 }], "(in write_sizes)");
        bad(|s| s.read_sizes = vec![SizeWeight { bytes: 4096, weight: -1.0 }], "read_sizes: size 4096");
        // A footprint larger than the device names both numbers.
        let s = SyntheticSpec { footprint_gib: Some(2.0), ..Default::default() };
        let e = generate(&s, 1 << 30, 1).unwrap_err().to_string();
        assert!(
            e.contains("footprint_gib = 2 GiB (2147483648 bytes)") && e.contains("1073741824 bytes (1.00 GiB)"),
            "{e}"
        );
        // Fresh writes that outgrow the footprint say so.
        let s = SyntheticSpec { footprint_gib: Some(1.0 / 1024.0), update_ratio: Some(0.0), ..Default::default() };
        let e = generate(&s, 1 << 30, 1).unwrap_err().to_string();
        assert!(e.contains("fresh (non-update) writes filled the footprint of 256 4096-byte slots"), "{e}");
        let e = generate(&SyntheticSpec::default(), 4096, 1).unwrap_err().to_string();
        assert!(e.contains("too small"), "{e}");
    }

    /// The update quota by hand: 8 writes of 4 KiB in 8 KiB slots, u = 0.25.
    /// Write k is an update iff updates < ⌊k/4⌋: writes 4 and 8; the others
    /// are fresh and go to slots 0, 1, 2, then 3, 4, 5 (offsets × 8192).
    #[test]
    fn update_quota_by_hand() {
        let s = SyntheticSpec {
            requests: 8,
            read_ratio: 0.0,
            sizes: vec![SizeWeight { bytes: 4096, weight: 1.0 }],
            footprint_gib: Some(1.0),
            align_bytes: 8192,
            update_ratio: Some(0.25),
            ..Default::default()
        };
        let t = generate(&s, 1 << 30, 5).unwrap();
        let offs: Vec<u64> = t.requests.iter().map(|r| r.offset / 8192).collect();
        assert_eq!([offs[0], offs[1], offs[2], offs[4], offs[5], offs[6]], [0, 1, 2, 3, 4, 5], "{offs:?}");
        assert!(offs[3] < 3 && offs[7] < 6, "updates land on written slots: {offs:?}");
        for page in [4096, 8192] {
            assert_eq!(crate::stats(&t.requests, page).update_ratio, 0.25, "page {page}");
        }
        // u = 0: nothing repeats; u = 1: every write but the first is an update.
        for (u, want) in [(0.0, 0.0), (1.0, 7.0 / 8.0)] {
            let t = generate(&SyntheticSpec { update_ratio: Some(u), ..s.clone() }, 1 << 30, 5).unwrap();
            assert_eq!(crate::stats(&t.requests, 8192).update_ratio, want, "u = {u}");
        }
    }

    /// Per-direction sizes: reads and writes draw from their own lists.
    #[test]
    fn read_and_write_sizes_are_separate() {
        let s = SyntheticSpec {
            requests: 2000,
            read_sizes: vec![SizeWeight { bytes: 4096, weight: 1.0 }],
            write_sizes: vec![SizeWeight { bytes: 65536, weight: 1.0 }],
            ..Default::default()
        };
        let t = generate(&s, 1 << 30, 9).unwrap();
        assert!(t.requests.iter().all(|r| r.size == if r.op == Op::Read { 4096 } else { 65536 }));
        assert_eq!(generate(&s, 1 << 30, 9).unwrap(), t, "same seed, same requests");
        assert_ne!(generate(&s, 1 << 30, 10).unwrap().requests, t.requests);
    }

    /// The span bound is requests × mean gap ≤ 2^61 ns (half the time limit),
    /// at it and one step past it, each factor's share counted.
    #[test]
    fn the_span_bound_is_the_product_at_half_the_time_limit() {
        let spec =
            |requests: u64, gap: u64| SyntheticSpec { requests, mean_interarrival_ns: gap, ..Default::default() };
        assert!(spec(1 << 20, 1 << 41).validate().is_ok(), "2^20 × 2^41 = 2^61 is allowed");
        assert!(spec(1, 1 << 61).validate().is_ok());
        for (n, gap) in [(1 << 20, (1 << 41) + 1), ((1 << 20) + 1, 1 << 41), (2, 1 << 61)] {
            let e = spec(n, gap).validate().unwrap_err().to_string();
            assert!(e.contains("would span about") && e.contains(&format!("requests = {n}")), "{n} × {gap}: {e}");
        }
    }

    /// The footprint fraction is in (0, 1]: 1 is the whole device, more is refused.
    #[test]
    fn the_footprint_fraction_is_at_most_one() {
        let with = |f: f64| SyntheticSpec { footprint: f, ..Default::default() }.validate();
        assert!(with(1.0).is_ok() && with(1e-9).is_ok());
        for f in [1.0 + 1e-9, 1.5, 0.0, -0.5, f64::NAN] {
            let e = with(f).unwrap_err().to_string();
            assert!(e.contains("footprint must be in (0, 1]"), "{f}: {e}");
        }
    }

    /// Weights count by their ratios, not their sum: 1 : 3 picks the first
    /// size a quarter of the time (40,000 draws, within 5 standard errors).
    #[test]
    fn size_weights_need_not_sum_to_one() {
        use rand::SeedableRng;
        let sizes = [SizeWeight { bytes: 4096, weight: 1.0 }, SizeWeight { bytes: 8192, weight: 3.0 }];
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let n = 40_000;
        let small = (0..n).filter(|_| pick_size(&mut rng, &sizes, 4.0) == 4096).count() as f64 / n as f64;
        let se = (0.25f64 * 0.75 / n as f64).sqrt();
        assert!((small - 0.25).abs() < 5.0 * se, "share of 4 KiB {small}");
    }

    /// The identity known without a pass over the stream is the pass's,
    /// but for the span (left to the caller); with updates the stream may
    /// fail, so there is none.
    #[test]
    fn the_identity_without_a_pass_is_the_passs() {
        let spec = SyntheticSpec { requests: 500, ..Default::default() };
        let passed = stream_info(&spec, 1 << 30, 4).unwrap();
        assert!(passed.span_ns > 0);
        assert_eq!(stream_identity(&spec, 1 << 30, 4), Some(TraceInfo { span_ns: 0, ..passed.clone() }));
        assert_eq!(generate(&spec, 1 << 30, 4).unwrap().info, passed);
        assert_eq!(stream_identity(&SyntheticSpec { update_ratio: Some(0.5), ..spec }, 1 << 30, 4), None);
    }

    #[test]
    fn edge_regions_work() {
        for hf in [0.0, 1.0] {
            let s = SyntheticSpec { requests: 1000, hot_fraction: hf, ..Default::default() };
            let t = generate(&s, 1 << 30, 3).unwrap();
            assert_eq!(t.requests.len(), 1000);
        }
    }
}
