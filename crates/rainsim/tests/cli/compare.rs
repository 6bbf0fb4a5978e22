//! Item 7: `rainsim compare` prints runs side by side and writes one report each.

use crate::report::check_report;
use crate::support::*;

#[test]
fn scheme_and_variant_side_by_side() {
    let dir = TempDir::new("compare");
    let out_dir = dir.join("reports");
    let t = trace("msr.cut.per_10k.rw_40_60.1370.trace");
    let o = rainsim([
        "compare",
        "--schemes",
        "baseline",
        "--variant",
        "raid.stripe_width=3",
        "--trace",
        p(&t),
        "--config",
        "degraded-mode-8ch",
        "--out-dir",
        p(&out_dir),
    ])
    .ok();
    let text = &o.stdout;

    // The table: a header naming both columns, then rows with two values each.
    let header = text.lines().next().unwrap_or_else(|| panic!("no output"));
    let cols: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(cols, ["metric", "baseline", "raid.stripe_width=3"], "table header: {header}");
    let row = |name: &str| -> Vec<String> {
        let line = text.lines().find(|l| l.starts_with(name)).unwrap_or_else(|| panic!("no `{name}` row:\n{text}"));
        line[name.len()..].split_whitespace().map(str::to_string).collect()
    };
    for name in ["read mean", "read p99.9", "write mean", "all mean", "IOPS", "WAF"] {
        let v = row(name);
        assert!(v.len() >= 2, "`{name}` row lacks a column: {v:?}");
    }
    // Progress lines go to stderr, one per run.
    assert!(
        o.stderr.contains("[1/2] baseline") && o.stderr.contains("[2/2] raid.stripe_width=3"),
        "stderr:\n{}",
        o.stderr
    );

    // Two reports, in run order.
    let mut files: Vec<_> = std::fs::read_dir(&out_dir)
        .expect("out dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 2, "expected two JSON reports, got {files:?}");
    let reports: Vec<_> = files.iter().map(|f| read_json(f)).collect();
    let widths: Vec<u64> = reports.iter().map(|r| u(r, "config.raid.stripe_width")).collect();
    assert_eq!(widths, [4, 3], "stripe widths of {files:?}");
    for r in &reports {
        check_report(r, 10_000);
        assert_eq!(s(r, "scheme"), "baseline");
        assert_eq!(s(r, "trace.format"), "msr-window");
    }
    // With 2 data chunks an RCW (1 pre-read) always beats an RMW (2).
    assert_eq!(u(&reports[1], "raid.rmw"), 0, "RMW chosen with stripe width 3 under fewest-prereads");

    // The integer rows of the table are the reports' numbers, column by column.
    type Get = fn(&serde_json::Value) -> u64;
    let ints: [(&str, Get); 6] = [
        ("full-stripe writes", |r| u(r, "raid.full_stripe_writes")),
        ("RMW", |r| u(r, "raid.rmw")),
        ("RCW", |r| u(r, "raid.rcw")),
        ("adjusted", |r| u(r, "raid.adjusted")),
        ("pre-reads", |r| u(r, "raid.prereads")),
        ("GC count", |r| r["channels"].as_array().expect("channels").iter().map(|c| u(c, "gc_count")).sum()),
    ];
    for (name, get) in ints {
        let cells: Vec<u64> =
            row(name).iter().map(|c| c.parse().unwrap_or_else(|_| panic!("`{name}` cell {c}"))).collect();
        let want: Vec<u64> = reports.iter().map(get).collect();
        assert_eq!(cells, want, "table row `{name}` vs the JSON reports");
    }
    let waf: Vec<String> = reports.iter().map(|r| format!("{:.3}", f(r, "waf"))).collect();
    assert_eq!(row("WAF"), waf, "table row `WAF`");

    // Each compare run equals the corresponding single `run`.
    let base = ["--trace", p(&t), "--config", "degraded-mode-8ch"];
    let single = [
        without_timing(run_report(&dir, "single-baseline", &base)),
        without_timing(run_report(&dir, "single-w3", &[&base[..], &["--set", "raid.stripe_width=3"]].concat())),
    ];
    for (i, (a, b)) in single.iter().zip(reports).enumerate() {
        let b = without_timing(b);
        assert!(*a == b, "compare run {i} differs from `rainsim run` in: {:?}", differing_keys(a, &b));
    }
}

/// Variants that change the page size reload the trace; results equal single runs.
#[test]
fn variants_changing_geometry_match_single_runs() {
    let dir = TempDir::new("compare-geometry");
    let out_dir = dir.join("reports");
    let t = trace("msr_hm_0_slice1000.csv");
    rainsim([
        "compare",
        "--variant",
        "geometry.page_bytes=4096",
        "--variant",
        "raid.stripe_width=5,seed=3",
        "--trace",
        p(&t),
        "--out-dir",
        p(&out_dir),
    ])
    .ok();
    let mut files: Vec<_> = std::fs::read_dir(&out_dir).expect("out dir").map(|e| e.expect("entry").path()).collect();
    files.sort();
    assert_eq!(files.len(), 2, "{files:?}");
    let sets: [&[&str]; 2] =
        [&["--set", "geometry.page_bytes=4096"], &["--set", "raid.stripe_width=5", "--set", "seed=3"]];
    for (i, (file, set)) in files.iter().zip(sets).enumerate() {
        let c = without_timing(read_json(file));
        let single = without_timing(run_report(&dir, &format!("single{i}"), &[&["--trace", p(&t)][..], set].concat()));
        assert!(c == single, "variant {i} differs from `rainsim run` in: {:?}", differing_keys(&c, &single));
    }
}

/// Variants that change the requests themselves (seed, workload, trace
/// options) must each get their own requests, not the first run's.
#[test]
fn variants_that_change_the_workload_reload_it() {
    let dir = TempDir::new("compare-reload");
    let out_dir = dir.join("reports");
    rainsim([
        "compare",
        "--set",
        "workload.requests=500",
        "--variant",
        "seed=1",
        "--variant",
        "seed=2",
        "--variant",
        "workload.read_ratio=1.0",
        "--out-dir",
        p(&out_dir),
    ])
    .ok();
    let mut files: Vec<_> = std::fs::read_dir(&out_dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let reports: Vec<_> = files.iter().map(|f| read_json(f)).collect();
    assert_eq!(reports.len(), 3);
    assert_ne!(s(&reports[0], "trace.sha256"), s(&reports[1], "trace.sha256"), "seed variants share a trace");
    assert_eq!(u(&reports[2], "latency.write.count"), 0, "read_ratio = 1 replayed writes");
    assert_eq!(u(&reports[2], "latency.read.count"), 500);
}

/// Seed variants of one trace file share its load: its detection warning is
/// printed once, and each report is `run`'s with that seed.
#[test]
fn seed_variants_of_a_trace_load_it_once() {
    let dir = TempDir::new("compare-trace-seeds");
    let out_dir = dir.join("reports");
    let t = trace("umass_financial1_head10k.ssdsim.ascii");
    let out = rainsim([
        "compare",
        "--set",
        "trace.max_requests=300",
        "--variant",
        "seed=1",
        "--variant",
        "seed=2",
        "--trace",
        p(&t),
        "--out-dir",
        p(&out_dir),
    ])
    .ok();
    assert_eq!(out.stderr.matches("times read as ns").count(), 1, "{}", out.stderr);
    let mut files: Vec<_> = std::fs::read_dir(&out_dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), 2);
    for (i, f) in files.iter().enumerate() {
        let seed = format!("seed={}", i + 1);
        let set = ["--trace", p(&t), "--set", "trace.max_requests=300", "--set", seed.as_str()];
        let single = without_timing(run_report(&dir, &format!("single{i}"), &set));
        let c = without_timing(read_json(f));
        assert!(c == single, "seed {}: {:?}", i + 1, differing_keys(&c, &single));
    }
}

/// A comma inside a TOML value does not split a variant.
#[test]
fn variant_values_may_hold_commas() {
    let dir = TempDir::new("compare-commas");
    let out_dir = dir.join("reports");
    rainsim([
        "compare",
        "--set",
        "workload.requests=300",
        "--variant",
        "workload.sizes=[{bytes=8192,weight=1.0}],seed=4",
        "--out-dir",
        p(&out_dir),
    ])
    .ok();
    let f = std::fs::read_dir(&out_dir).unwrap().next().unwrap().unwrap().path();
    let r = read_json(&f);
    assert_eq!(u(&r, "seed"), 4);
    assert_eq!(u(&r, "host.bytes_read") + u(&r, "host.bytes_written"), 300 * 8192);
}

/// Runs side by side (three at once, or all four taking turns on the cores
/// by default, each long enough to report its progress and yield) give the
/// reports one at a time gives, byte for byte (timing aside), with a mix of
/// shared and reloaded workloads.
#[test]
fn parallel_runs_give_the_reports_of_one_at_a_time() {
    let dir = TempDir::new("compare-jobs");
    let args = |jobs: &str, out: &std::path::Path| {
        let jobs: &[&str] = if jobs.is_empty() { &[] } else { &["--jobs", jobs] };
        let o = rainsim(
            [
                "compare",
                "--set",
                "workload.requests=9000",
                "--schemes",
                "baseline,bpu",
                "--variant",
                "seed=2",
                "--variant",
                "raid.stripe_width=5",
                "--out-dir",
                p(out),
            ]
            .iter()
            .chain(jobs),
        )
        .ok();
        let mut files: Vec<_> = std::fs::read_dir(out).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        let reports: Vec<_> = files.iter().map(|f| without_timing(read_json(f))).collect();
        (o.stdout, reports)
    };
    let (one, r1) = args("1", &dir.join("one"));
    let (three, r3) = args("3", &dir.join("three"));
    let (turns, rt) = args("", &dir.join("turns"));
    assert_eq!(r1.len(), 4);
    for (i, ((a, b), c)) in r1.iter().zip(&r3).zip(&rt).enumerate() {
        assert!(a == b, "run {i} differs with --jobs 3 in: {:?}", differing_keys(a, b));
        assert!(a == c, "run {i} differs taking turns in: {:?}", differing_keys(a, c));
    }
    // The side-by-side table has no timing in it: the same text.
    assert_eq!(one, three);
    assert_eq!(one, turns);
    let err = rainsim(["compare", "--schemes", "baseline", "--jobs", "0"]).fails();
    assert!(err.contains("--jobs must be at least 1"), "{err}");
}

/// Two default devices (~70 MiB each) do not fit in 100 MiB: one run at a
/// time, and a note says why.
#[test]
fn the_memory_budget_caps_the_runs_at_once() {
    let o = std::process::Command::new(BIN)
        .args(["compare", "--set", "workload.requests=50", "--schemes", "baseline,bpu", "--jobs", "2"])
        .env("RAINSIM_MEMORY_AVAILABLE", (100u64 << 20).to_string())
        .output()
        .expect("run rainsim");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("note: 1 run at once (not 2)"), "{err}");
}

/// Runs side by side each say when they are done (their lines interleave);
/// one at a time they do not (the next run's line says it). With memory
/// for both, no note says the runs at once were capped.
#[test]
fn runs_side_by_side_say_when_each_is_done() {
    let stderr = |jobs: &str| {
        let o = std::process::Command::new(BIN)
            .args(["compare", "--set", "workload.requests=50", "--schemes", "baseline,bpu", "--jobs", jobs])
            .env("RAINSIM_MEMORY_AVAILABLE", (8u64 << 30).to_string())
            .output()
            .expect("run rainsim");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        err
    };
    let one = stderr("1");
    assert!(one.contains("[1/2] baseline") && !one.contains("done in"), "{one}");
    let two = stderr("2");
    assert!(two.contains("[1/2] baseline: done in") && two.contains("[2/2] bpu: done in"), "{two}");
    for err in [one, two] {
        assert!(!err.contains("runs at once"), "{err}");
    }
}
