//! Item 2: identical arguments give identical reports (but for `timing`);
//! a different seed gives a different run; `--verify` and config round trips
//! do not change results.

use crate::support::*;

#[test]
fn identical_runs_give_identical_reports_and_seed_matters() {
    let dir = TempDir::new("determinism");
    let args = ["--set", "workload.requests=5000"];
    let a = run_report(&dir, "a", &args);
    let b = run_report(&dir, "b", &args);
    assert!(at(&a, "timing").is_object() && at(&b, "timing").is_object());
    let (a, b) = (without_timing(a), without_timing(b));
    assert!(a == b, "identical runs differ in: {:?}", differing_keys(&a, &b));

    let c = without_timing(run_report(&dir, "c", &["--set", "workload.requests=5000", "--set", "seed=2"]));
    assert_eq!(u(&c, "seed"), 2, "--set seed=2 not reported");
    assert_eq!(u(&c, "config.seed"), 2);
    let diff = differing_keys(&a, &c);
    // The seed drives the synthetic workload: the trace and the results change,
    // not just the echoed seed.
    for key in ["trace", "latency", "flash_ops"] {
        assert!(diff.iter().any(|k| k == key), "seed 1 vs 2: `{key}` unchanged (differences: {diff:?})");
    }
    assert_ne!(s(&a, "trace.sha256"), s(&c, "trace.sha256"), "synthetic trace identity ignores the seed");
}

#[test]
fn trace_runs_are_deterministic_and_verify_does_not_change_results() {
    let dir = TempDir::new("trace-determinism");
    let t = trace("msr.cut.per_10k.rw_40_60.1370.trace");
    let args = ["--trace", p(&t), "--config", "degraded-mode-8ch"];
    let a = without_timing(run_report(&dir, "a", &args));
    let b = without_timing(run_report(&dir, "b", &args));
    assert!(a == b, "identical trace runs differ in: {:?}", differing_keys(&a, &b));
    let mut with_verify = args.to_vec();
    with_verify.push("--verify");
    let v = without_timing(run_report(&dir, "v", &with_verify));
    assert!(a == v, "--verify changed the results in: {:?}", differing_keys(&a, &v));
}

/// `config show` output, saved to a file and given back with `--config FILE`,
/// reproduces the preset + `--set` run exactly; the report's `config` object
/// is the shown TOML.
#[test]
fn config_show_round_trips_through_a_file() {
    let dir = TempDir::new("roundtrip");
    let sets = ["--set", "raid.stripe_width=5", "--set", "workload.requests=2000", "--set", "seed=7"];
    let mut show = vec!["config", "show", "--config", "adaptive-parity-6ch"];
    show.extend(sets);
    let text = rainsim(&show).ok().stdout;
    let file = dir.join("shown.toml");
    std::fs::write(&file, &text).expect("write shown config");

    let mut direct = vec!["--config", "adaptive-parity-6ch"];
    direct.extend(sets);
    let a = without_timing(run_report(&dir, "direct", &direct));
    let b = without_timing(run_report(&dir, "file", &["--config", p(&file)]));
    assert!(a == b, "run from `config show` output differs in: {:?}", differing_keys(&a, &b));
    assert_eq!(u(&a, "config.raid.stripe_width"), 5);
    assert_eq!(u(&a, "seed"), 7);

    // The report's config is the shown config (TOML has no null: drop JSON nulls).
    fn drop_nulls(v: serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => serde_json::Value::Object(
                m.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k, drop_nulls(v))).collect(),
            ),
            other => other,
        }
    }
    let shown: toml::Table = text.parse().unwrap_or_else(|e| panic!("config show is not TOML: {e}\n{text}"));
    let shown = serde_json::to_value(shown).expect("TOML to JSON");
    assert_eq!(drop_nulls(at(&a, "config").clone()), shown, "report.config != config show");
}
