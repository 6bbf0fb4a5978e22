//! Item 8: each preset's effective configuration (`config show`) has what its
//! file comment cites, and each preset runs.

use crate::config::{show, tf, ti, tv};
use crate::report::check_report;
use crate::support::*;
use std::path::Path;

/// What a preset's comment claims.
struct Claim {
    name: &'static str,
    /// channels, chips per channel, dies per chip, planes per die, blocks per plane, pages per block, page bytes
    geometry: [i64; 7],
    /// RAID-5 stripe width (data + 1 parity).
    stripe_width: i64,
    /// precondition (valid, invalid); None when the comment gives no numbers.
    precondition: Option<(f64, f64)>,
    /// read, program, erase, XOR latency (ns)
    latencies: [i64; 4],
    /// software latency per stripe update (ns), when cited.
    stripe_overhead_ns: Option<i64>,
    /// The read-retry model is on (the paper's latency runs priced LDPC levels).
    ldpc: bool,
    /// How the aged pages lie in blocks (`precondition.layout`), as the header says.
    layout: &'static str,
}

const PAPER_LAT: [i64; 4] = [45_000, 700_000, 3_500_000, 19_000];

// "16 channels × 4 chips × 4 planes × 256 blocks × 128 pages × 8 KiB ... 3 data + 1 parity"
const DM16: Claim = Claim {
    name: "degraded-mode-16ch",
    geometry: [16, 4, 1, 4, 256, 128, 8192],
    stripe_width: 4,
    precondition: Some((0.3, 0.6)),
    latencies: PAPER_LAT,
    ldpc: false,
    layout: "steady-state",
    stripe_overhead_ns: None,
};

// "8 channels × 4 chips × 4 planes × 512 blocks × 64 pages × 8 KiB = 32 GiB ... 5 data + 1 parity"
const AP8: Claim = Claim {
    name: "adaptive-parity-8ch",
    geometry: [8, 4, 1, 4, 512, 64, 8192],
    stripe_width: 6,
    precondition: Some((0.3, 0.6)),
    latencies: PAPER_LAT,
    ldpc: true,
    layout: "steady-state",
    stripe_overhead_ns: None,
};

const CLAIMS: [Claim; 9] = [
    // "an 8-channel, 32 GiB RAID-5 (3+1) SSD ... Geometry and latencies follow degraded-mode-scheduling Table 2"
    Claim {
        name: "default",
        geometry: [8, 4, 1, 4, 256, 128, 8192],
        stripe_width: 4,
        precondition: None,
        latencies: PAPER_LAT,
        ldpc: false,
        layout: "steady-state",
        stripe_overhead_ns: None,
    },
    // "8 channels × 4 chips × 4 planes × 512 blocks × 256 pages × 8 KiB ... software latency 1.82 ms ... 80 % and 10 %"
    Claim {
        name: "rep-raid-8ch",
        geometry: [8, 4, 1, 4, 512, 256, 8192],
        stripe_width: 4,
        precondition: Some((0.8, 0.1)),
        latencies: PAPER_LAT,
        ldpc: false,
        layout: "packed",
        stripe_overhead_ns: Some(1_820_000),
    },
    // "8 channels × 4 chips × 4 planes × 256 blocks × 128 pages × 8 KiB ... 3 data + 1 parity", SSDsim ageing
    Claim { name: "degraded-mode-8ch", geometry: [8, 4, 1, 4, 256, 128, 8192], ..DM16 },
    DM16,
    // "6 channels × 4 chips × 4 planes × 512 blocks × 64 pages × 8 KiB = 24 GiB ... 5 data + 1 parity"
    Claim { name: "adaptive-parity-6ch", geometry: [6, 4, 1, 4, 512, 64, 8192], ..AP8 },
    AP8,
    // Variants (`extends`): the base preset with another stripe width.
    Claim { name: "adaptive-parity-8ch-7p1", stripe_width: 8, ..AP8 },
    Claim { name: "degraded-mode-16ch-5p1", stripe_width: 6, ..DM16 },
    Claim { name: "degraded-mode-16ch-7p1", stripe_width: 8, ..DM16 },
];

/// The leading `#` comment of a preset file.
fn comment(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../configs/{name}.toml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The number right before the first occurrence of `suffix` in `text`.
fn number_before(text: &str, suffix: &str) -> Option<u64> {
    let i = text.find(suffix)?;
    let digits: String = text[..i].trim_end().chars().rev().take_while(|c| c.is_ascii_digit()).collect();
    digits.chars().rev().collect::<String>().parse().ok()
}

#[test]
fn presets_have_the_geometry_their_comments_cite() {
    for c in &CLAIMS {
        let t = show(&["--config", c.name]);
        let keys = [
            "channels",
            "chips_per_channel",
            "dies_per_chip",
            "planes_per_die",
            "blocks_per_plane",
            "pages_per_block",
            "page_bytes",
        ];
        for (k, want) in keys.iter().zip(c.geometry) {
            assert_eq!(ti(&t, &format!("geometry.{k}")), want, "{}: geometry.{k}", c.name);
        }
        assert_eq!(ti(&t, "raid.stripe_width"), c.stripe_width, "{}: raid.stripe_width", c.name);
        assert_eq!(t["raid"]["level"].as_str(), Some("raid5"), "{}: raid.level", c.name);
        for (k, want) in ["read_ns", "program_ns", "erase_ns", "xor_ns"].iter().zip(c.latencies) {
            assert_eq!(ti(&t, &format!("timing.{k}")), want, "{}: timing.{k}", c.name);
        }
        assert_eq!(
            ti(&t, "timing.stripe_overhead_ns"),
            c.stripe_overhead_ns.unwrap_or(0),
            "{}: stripe_overhead_ns",
            c.name
        );
        let ldpc = tv(&t, "ldpc.enabled").as_bool();
        assert_eq!(ldpc, Some(c.ldpc), "{}: ldpc.enabled", c.name);
        if c.ldpc {
            // 0.045 ms + 0.024 ms per retry (adaptive-parity §IV-A), 7 levels.
            assert_eq!(ti(&t, "ldpc.retry_step_ns"), 24_000, "{}: ldpc.retry_step_ns", c.name);
            let levels = tv(&t, "ldpc.retries").as_array().map(Vec::len);
            assert_eq!(levels, Some(7), "{}: 7 LDPC levels", c.name);
        }
        // Common choices the comments state: GC threshold 10 %, over-provisioning 15 %, bus 400 MB/s.
        assert_eq!(tf(&t, "ftl.gc_threshold"), 0.10, "{}: ftl.gc_threshold", c.name);
        assert_eq!(tf(&t, "geometry.over_provisioning"), 0.15, "{}: over_provisioning", c.name);
        assert_eq!(ti(&t, "timing.channel_mb_s"), 400, "{}: channel_mb_s", c.name);
        let (valid, invalid) = (tf(&t, "precondition.valid"), tf(&t, "precondition.invalid"));
        assert_eq!(tv(&t, "precondition.layout").as_str(), Some(c.layout), "{}: precondition.layout", c.name);
        match c.precondition {
            Some((v, i)) => assert_eq!((valid, invalid), (v, i), "{}: precondition", c.name),
            None => assert!(valid > 0.0, "{}: claims to be aged, precondition.valid = {valid}", c.name),
        }

        // Cross-check against the comment text itself: its capacity in GiB and
        // its data + parity split.
        let text = comment(c.name);
        let gib = number_before(&text, " GiB").unwrap_or_else(|| panic!("{}: comment cites no GiB: {text}", c.name));
        let physical: i64 = c.geometry.iter().product();
        assert_eq!(physical as u64, gib << 30, "{}: geometry gives {} bytes, comment says {gib} GiB", c.name, physical);
        let data = number_before(&text, " data + 1 parity")
            .or_else(|| number_before(&text, "+1)"))
            .unwrap_or_else(|| panic!("{}: comment cites no data + parity split: {text}", c.name));
        assert_eq!(c.stripe_width as u64, data + 1, "{}: comment says {data} data + 1 parity", c.name);
        if c.ldpc {
            assert!(text.contains("LDPC (7 levels)") || text.contains("7-level LDPC"), "{}: comment: {text}", c.name);
        }
        for part in [format!("{} channels", c.geometry[0]), format!("{} pages", c.geometry[5])] {
            if c.name != "default" {
                assert!(text.contains(&part), "{}: comment does not cite `{part}`: {text}", c.name);
            }
        }
    }
}

/// Every preset runs a small synthetic workload with a consistent report
/// whose `config` is the preset's.
#[test]
fn every_preset_runs() {
    let dir = TempDir::new("presets");
    for c in &CLAIMS {
        let r = run_report(&dir, c.name, &["--config", c.name, "--set", "workload.requests=1000"]);
        check_report(&r, 1000);
        assert_eq!(u(&r, "config.geometry.channels") as i64, c.geometry[0], "{}", c.name);
        assert_eq!(u(&r, "config.raid.stripe_width") as i64, c.stripe_width, "{}", c.name);
        assert_eq!(r["channels"].as_array().map(|a| a.len() as i64), Some(c.geometry[0]), "{}", c.name);
    }
}
