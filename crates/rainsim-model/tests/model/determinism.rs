//! Same config, trace and seed ⇒ the same report, `timing` aside.

use crate::{preset, traces_dir};
use rainsim_model::metrics::report::RunTiming;
use rainsim_model::run::{capacity_bytes, simulate, RunOptions};

fn report_json(seed: u64) -> String {
    report_with(seed, |_| {})
}

fn report_with(seed: u64, tweak: impl Fn(&mut rainsim_model::config::Config)) -> String {
    let mut cfg = preset("degraded-mode-8ch");
    cfg.seed = seed;
    tweak(&mut cfg);
    let path = traces_dir().join("msr.cut.per_10k.rw_40_60.1370.trace");
    let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes).unwrap();
    let mut r = simulate(
        &cfg,
        &trace.requests,
        RunOptions {
            trace: serde_json::to_value(&trace.info).unwrap(),
            ..RunOptions::new("baseline", false, &mut |_| {})
        },
    )
    .unwrap();
    assert_eq!(r.latency.all.count, trace.requests.len() as u64, "every request completed");
    r.timing = RunTiming::default();
    serde_json::to_string_pretty(&r).unwrap()
}

#[test]
fn identical_runs_give_identical_reports() {
    let a = report_json(5);
    let b = report_json(5);
    assert!(a == b, "two identical runs differ");
    // The seed matters (preconditioning layout), so a different seed differs.
    assert_ne!(a, report_json(6));
}

/// Huge pages under the mapping tables (`run.huge_pages`; this preset's
/// reverse map is 16 MiB, so they are asked for) change how memory is
/// backed, never a result: the report with them is the one without, but
/// for the setting itself in its `config`.
#[test]
fn huge_pages_change_no_result() {
    let off = report_json(5);
    let mut on: serde_json::Value = serde_json::from_str(&report_with(5, |c| c.run.huge_pages = true)).unwrap();
    let run = on["config"].as_object_mut().unwrap().remove("run");
    assert_eq!(run, Some(serde_json::json!({"ignore_memory_budget": false, "huge_pages": true})));
    assert!(!off.contains("huge_pages"), "the default is left out of reports");
    let off: serde_json::Value = serde_json::from_str(&off).unwrap();
    assert!(on == off, "a report moved with run.huge_pages");
}
