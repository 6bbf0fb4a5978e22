//! `--workload NAME|FILE`: profiles from `configs/workloads/` on run,
//! compare, config show and trace stats, and their errors.

use crate::support::*;

/// The smallest profile (1,000,000 requests) runs whole on the default preset,
/// and the report says so.
#[test]
fn run_with_a_profile_reports_its_request_count() {
    let dir = TempDir::new("workload-run");
    let r = run_report(&dir, "stg_0", &["--workload", "rep-raid-stg_0"]);
    assert_eq!(u(&r, "config.workload.requests"), 1_000_000);
    assert_eq!(u(&r, "trace.requests"), 1_000_000);
    assert_close("update_ratio key", f(&r, "config.workload.update_ratio"), 0.819, 0.0);
    crate::report::check_report(&r, 1_000_000);
}

#[test]
fn trace_stats_of_a_profile_matches_its_row() {
    let args = ["trace", "stats", "--json", "--workload", "degraded-mode-hm_1", "--config", "degraded-mode-8ch"];
    let o = rainsim(args).ok();
    let v: serde_json::Value =
        serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("not JSON: {e}\n{}", o.stdout));
    assert_eq!(u(&v, "stats.requests"), 1_218_622, "2 × Req # of Table 3's hm_1");
    assert_eq!(u(&v, "stats.page_bytes"), 8192, "the preset's page size");
    assert_close("write ratio", f(&v, "stats.write_ratio"), 0.046, 0.046 * 0.05);
    assert_close("avg size", f(&v, "stats.avg_size_bytes"), 15.1 * 1024.0, 15.1 * 1024.0 * 0.05);
    assert_close("update ratio", f(&v, "stats.update_ratio"), 0.671, 0.001);
    assert_eq!(s(&v, "trace.format"), "synthetic");
    let table = rainsim(["trace", "stats", "--workload", "degraded-mode-hm_1", "--config", "degraded-mode-8ch"]).ok();
    assert!(table.stdout.starts_with("synthetic workload degraded-mode-hm_1 on degraded-mode-8ch"), "{}", table.stdout);
    assert!(table.stdout.contains("Upd R") && table.stdout.contains("1218622"), "{}", table.stdout);
}

#[test]
fn workload_errors_are_explained() {
    let e = rainsim(["run", "--workload", "no-such-profile"]).fails();
    assert!(e.contains("unknown workload 'no-such-profile'") && e.contains("rep-raid-wdev_0"), "{e}");
    let e = rainsim(["trace", "stats", "--workload", "no-such-profile"]).fails();
    assert!(e.contains("workloads: "), "{e}");
    // 27 GiB footprint on the default 20.40 GiB device: both numbers named.
    let e = rainsim(["run", "--workload", "rep-raid-src1_2"]).fails();
    assert!(e.contains("footprint_gib = 27 GiB") && e.contains("(20.40 GiB)"), "{e}");
    let e = rainsim(["run", "--workload", "rep-raid-stg_0", "--set", "workload.update_ratio=1.5"]).fails();
    assert!(e.contains("update_ratio must be in [0, 1], got 1.5"), "{e}");
    let e = rainsim(["run", "--workload", "rep-raid-stg_0", "--trace", "x.csv"]).fails();
    assert!(e.contains("--workload") && e.contains("--trace"), "{e}");
    // A file without a [workload] table.
    let dir = TempDir::new("workload-file");
    let file = dir.join("empty.toml");
    std::fs::write(&file, "# nothing but a comment\n").unwrap();
    let e = rainsim(["config", "show", "--workload", p(&file)]).fails();
    assert!(e.contains("no [workload] table"), "{e}");
    // `[expect]` is checked against its schema although no run reads it: a
    // misspelt column would otherwise go unchecked by the profile tests.
    let good = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/workloads/rep-raid-stg_0.toml"),
    )
    .unwrap();
    let bad = good.replace("write_ratio =", "write_ration =");
    assert_ne!(bad, good);
    let file = dir.join("misspelt.toml");
    std::fs::write(&file, bad).unwrap();
    let e = rainsim(["run", "--workload", p(&file)]).fails();
    assert!(e.contains("misspelt.toml: [expect]") && e.contains("write_ration"), "{e}");
    let e = rainsim(["config", "show", "--workload", p(&file)]).fails();
    assert!(e.contains("[expect]") && e.contains("write_ration"), "{e}");
    let file = dir.join("copy.toml");
    std::fs::write(&file, good).unwrap();
    let shown = rainsim(["config", "show", "--workload", p(&file)]).ok().stdout;
    assert!(shown.contains("update_ratio = 0.819"), "{shown}");
}

#[test]
fn config_show_and_list_know_workloads() {
    let plain = rainsim(["config", "show"]).ok().stdout;
    for key in ["update_ratio", "footprint_gib", "read_sizes", "write_sizes"] {
        assert!(!plain.contains(key), "the default config shows {key}:\n{plain}");
    }
    let sets = ["config", "show", "--workload", "adaptive-parity-hm_0", "--set", "workload.requests=5"];
    let shown = rainsim(sets).ok().stdout;
    for want in ["update_ratio = 0.978", "footprint_gib = 1.0", "requests = 5", "[[workload.read_sizes]]"] {
        assert!(shown.contains(want), "missing {want}:\n{shown}");
    }
    let list = rainsim(["config", "list"]).ok().stdout;
    assert!(list.contains("workloads (--workload NAME") && list.contains("degraded-mode-lun1"), "{list}");
    // A profile given as a file works like its name.
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs/workloads/adaptive-parity-hm_0.toml");
    let by_file = rainsim(["config", "show", "--workload", p(&file), "--set", "workload.requests=5"]).ok().stdout;
    assert_eq!(by_file, shown);
}

#[test]
fn compare_takes_a_workload() {
    let o = rainsim([
        "compare",
        "--workload",
        "degraded-mode-wdev_0",
        "--set",
        "workload.requests=3000",
        "--schemes",
        "baseline,degraded",
    ])
    .ok();
    assert!(o.stdout.contains("baseline") && o.stdout.contains("degraded"), "{}", o.stdout);
}

/// The header's capacity is the `--config` preset's (16.99 GiB, the
/// profile's `[expect] capacity_gib`), not the default device's 20.40 GiB.
#[test]
fn trace_stats_of_a_profile_names_its_presets_capacity() {
    let o = rainsim(["trace", "stats", "--workload", "adaptive-parity-Ali_0", "--config", "adaptive-parity-6ch"]).ok();
    let head = o.stdout.lines().next().unwrap();
    let bytes: u64 =
        head.split(" (").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok()).expect(head);
    let gib = bytes as f64 / (1u64 << 30) as f64;
    assert_close("capacity GiB", gib, 16.99, 0.01);
    assert!(head.contains(&format!("({bytes} bytes = {gib:.2} GiB logical capacity, ")), "{head}");
}
