//! Fuzzing the configuration layer with proptest: random `--set KEY=VALUE`
//! overrides (known keys with plausible, extreme and ill-typed values, and
//! misspelt keys) through the CLI's settings resolution, then the device
//! setup and the memory estimate. No input may panic; an error must name a
//! configuration key or the `--set` at fault.
//!
//! Then random overrides of any key on any preset and scheme, run whole.
//!
//! The normal test run tries a few dozen cases (seconds); for a long run:
//! `PROPTEST_CASES=100000 cargo test -p rainsim --test fuzz`.

use proptest::prelude::*;
use rainsim::settings::{resolve, Request};
use rainsim_model::setup::{memory_estimate, DeviceSetup};

const KEYS: &[&str] = &[
    "seed",
    "geometry.channels",
    "geometry.chips_per_channel",
    "geometry.dies_per_chip",
    "geometry.planes_per_die",
    "geometry.blocks_per_plane",
    "geometry.pages_per_block",
    "geometry.page_bytes",
    "geometry.over_provisioning",
    "timing.read_ns",
    "timing.program_ns",
    "timing.erase_ns",
    "timing.channel_mb_s",
    "timing.xor_ns",
    "controller.cores",
    "ftl.gc_threshold",
    "ftl.pe_cycle_limit",
    "ftl.wear_level_spread",
    "raid.level",
    "raid.stripe_width",
    "precondition.valid",
    "precondition.invalid",
    "warmup.device_writes",
    "host.queue_depth",
    "report.cdf_points",
    "trace.repeat",
    "trace.max_requests",
    "trace.time_scale",
    "workload.requests",
    "run.ignore_memory_budget",
    "run.huge_pages",
    "geometry.chanels",
    "no_such.key",
];

fn cases() -> u32 {
    cases_or(64)
}

/// `PROPTEST_CASES` when set, else `default`.
fn cases_or(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u64..600).prop_map(|v| v.to_string()),
        2 => (0.0f64..1.2).prop_map(|v| format!("{v}")),
        1 => any::<u32>().prop_map(|v| v.to_string()),
        1 => any::<u64>().prop_map(|v| v.to_string()),
        1 => any::<i64>().prop_map(|v| v.to_string()),
        1 => prop_oneof![
            Just("true"), Just("\"raid5\""), Just("none"), Just("default"), Just("3e17"), Just("nan"),
            Just("[1, 2]"), Just("{x = 1}"), Just(""), Just("-0.5"), Just("18446744073709551616"),
        ]
        .prop_map(str::to_string),
        1 => "[ -~]{0,10}",
    ]
}

fn sets() -> impl Strategy<Value = Vec<(String, String)>> {
    proptest::collection::vec((proptest::sample::select(KEYS).prop_map(str::to_string), value()), 1..5)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_overrides_never_panic_and_errors_name_a_key(kv in sets()) {
        let sets: Vec<String> = kv.iter().map(|(k, v)| format!("{k}={v}")).collect();
        match resolve(&Request { sets: &sets, ..Default::default() }) {
            Ok(cfg) => {
                let _ = memory_estimate(&cfg, cfg.workload.requests, true);
                if let Err(e) = DeviceSetup::resolve(&cfg) {
                    prop_assert!(e.to_string().contains('.') || e.to_string().contains("capacity"), "{e}");
                }
            }
            Err(e) => {
                let msg = e.to_string();
                let named = kv.iter().any(|(k, _)| {
                    let last = k.rsplit('.').next().unwrap_or(k);
                    msg.contains(k.as_str()) || msg.contains(last)
                }) || msg.contains("--set")
                    || KEYS.iter().any(|k| k.contains('.') && msg.contains(k));
                prop_assert!(named, "error names no key: {msg}\nsets: {sets:?}");
            }
        }
    }
}

/// Extreme geometries found by the fuzzer: refused, never an overflow panic.
#[test]
fn extreme_geometry_products_are_refused() {
    for sets in [
        vec!["geometry.chips_per_channel=4096".to_string()],
        vec!["geometry.chips_per_channel=4294967295".into(), "geometry.dies_per_chip=4294967295".into()],
        vec![
            "geometry.planes_per_die=4294967295".into(),
            "geometry.blocks_per_plane=4294967295".into(),
            "geometry.pages_per_block=65535".into(),
        ],
    ] {
        let e = resolve(&Request { sets: &sets, ..Default::default() }).unwrap_err().to_string();
        assert!(e.contains("geometry."), "{e}");
    }
}

/// The `[array]` keys and their likely values (a few devices, so a case
/// stays fast), beside the generic values of [`value`].
const ARRAY_SETS: &[(&str, &[&str])] = &[
    ("array.devices", &["2", "3", "4", "5", "8"]),
    ("array.chunk_kib", &["0", "2", "4", "8", "3"]),
    ("array.allocation", &["\"static\"", "\"rr\"", "\"egs\"", "\"dls\""]),
    ("array.spare", &["0", "0.05", "0.5", "0.95"]),
    ("array.replay", &["\"open\"", "\"closed\""]),
    ("array.queue_depth", &["1", "4", "64"]),
    ("array.egs_theta", &["0", "0.1", "5"]),
    ("array.dls_batch", &["1", "4", "64"]),
    ("array.parity", &["false", "true"]),
    ("array.delay_scope", &["\"outstanding\"", "\"cumulative\"", "\"window\""]),
    ("array.delay_window_ns", &["1", "1000000", "4611686018427387904"]),
    ("array.fail_device", &["0", "1", "3"]),
    ("array.fail_at_ns", &["0", "2000000"]),
    ("array.replace_after_ns", &["0", "1000000"]),
    ("array.rebuild_stripes", &["1", "16"]),
    ("raid.level", &["\"raid5\"", "\"none\""]),
    ("raid.stripe_width", &["2", "4", "16"]),
];

fn array_sets() -> impl Strategy<Value = Vec<(String, String)>> {
    let one = (0..ARRAY_SETS.len()).prop_flat_map(|i| {
        let (key, values) = ARRAY_SETS[i];
        let listed = proptest::sample::select(values).prop_map(str::to_string);
        (Just(key.to_string()), prop_oneof![3 => listed, 1 => value()])
    });
    proptest::collection::vec(one, 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Random `[array]` overrides on a small `dls-4ssd`: resolved, then the
    /// whole array built and run on 150 requests. Nothing may panic; a
    /// refused configuration names a key.
    #[test]
    fn random_array_overrides_run_or_name_a_key(kv in array_sets()) {
        let mut sets: Vec<String> = vec!["geometry.blocks_per_plane=16".into(), "workload.requests=150".into()];
        sets.extend(kv.iter().map(|(k, v)| format!("{k}={v}")));
        let cfg = match resolve(&Request { config: Some("dls-4ssd"), sets: &sets, ..Default::default() }) {
            Ok(cfg) => cfg,
            Err(e) => {
                let msg = e.to_string();
                let named = kv.iter().any(|(k, _)| msg.contains(k.as_str()) || msg.contains(k.rsplit('.').next().unwrap()))
                    || msg.contains("--set");
                prop_assert!(named, "error names no key: {msg}\nsets: {sets:?}");
                return Ok(());
            }
        };
        let cap = rainsim_model::run::capacity_bytes(&cfg);
        let Ok(trace) = rainsim_trace::generate(&cfg.workload, cap, cfg.seed) else { return Ok(()) };
        if cfg.array.is_some() {
            if let Err(e) = rainsim::simulate_array(&cfg, &trace, "baseline", false, &mut |_| {}, None) {
                prop_assert!(!e.to_string().is_empty());
            }
        }
    }
}

/// Every key `config show` prints, with every value a preset or scheme
/// gives it: draws that mostly resolve and run, over the whole
/// configuration rather than the keys listed above.
struct Pool {
    presets: Vec<String>,
    schemes: Vec<String>,
    keys: Vec<(String, Vec<String>)>,
}

/// Configurations that set the optional keys, for their keys and values.
const OPTIONAL: &[(&str, &[&str])] = &[
    (
        "default",
        &[
            "fault.channel=1",
            "fault.at_ns=2000000",
            "fault.replace_after_ns=1000000",
            "fault.rebuild_priority=\"background\"",
            "fault.second_channel=2",
            "fault.second_at_ns=9000000",
        ],
    ),
    ("default", &["fault.die=3", "fault.at_ns=1000000", "fault.rebuild=false"]),
    (
        "default",
        &["precondition.free_margin=2", "precondition.hot_utilization=default", "precondition.target_moves_per_gc=4"],
    ),
    ("dls-4ssd", &["array.delay_scope=\"window\"", "array.delay_window_ns=50000", "array.allocation=\"dls\""]),
    (
        "dls-4ssd",
        &[
            "array.fail_device=1",
            "array.fail_at_ns=5000000",
            "array.replace_after_ns=9000000",
            "array.rebuild=\"written\"",
            "array.rebuild_stripes=4",
        ],
    ),
];

fn pool() -> &'static Pool {
    static POOL: std::sync::OnceLock<Pool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let configs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
        let stems = |dir: std::path::PathBuf| -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .filter_map(|e| {
                    let p = e.ok()?.path();
                    (p.extension()? == "toml").then(|| p.file_stem()?.to_str().map(str::to_string))?
                })
                .collect();
            names.sort();
            names
        };
        let (presets, schemes) = (stems(configs.clone()), stems(configs.join("schemes")));
        assert!(presets.len() >= 10 && schemes.len() >= 10, "presets {presets:?}, schemes {schemes:?}");
        let mut values = std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new();
        for p in &presets {
            for s in &schemes {
                let cfg = resolve(&Request { config: Some(p), scheme: Some(s), ..Default::default() })
                    .unwrap_or_else(|e| panic!("{p} with {s}: {e}"));
                let table = toml::Table::try_from(&cfg).expect("a configuration is a table");
                leaves(&table, "", &mut values);
            }
        }
        // The optional keys, once set (failures, rebuilds, array options).
        for (preset, sets) in OPTIONAL {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let cfg = resolve(&Request { config: Some(preset), sets: &sets, ..Default::default() })
                .unwrap_or_else(|e| panic!("{preset} with {sets:?}: {e}"));
            leaves(&toml::Table::try_from(&cfg).expect("a configuration is a table"), "", &mut values);
        }
        let keys = values.into_iter().map(|(k, v)| (k, v.into_iter().collect())).collect();
        Pool { presets, schemes, keys }
    })
}

fn leaves(
    t: &toml::Table,
    prefix: &str,
    out: &mut std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
) {
    for (k, v) in t {
        match v {
            toml::Value::Table(sub) => leaves(sub, &format!("{prefix}{k}."), out),
            v => {
                out.entry(format!("{prefix}{k}")).or_default().insert(v.to_string());
            }
        }
    }
}

/// One case: a preset, a scheme, and up to five overrides of any key with
/// a value some preset or scheme gives it (mostly) or an arbitrary one.
fn whole_sets() -> impl Strategy<Value = (String, String, Vec<String>, bool)> {
    let p = pool();
    let one = (0..p.keys.len()).prop_flat_map(|i| {
        let (key, values) = &pool().keys[i];
        let listed = proptest::sample::select(values.clone());
        (Just(key.clone()), prop_oneof![7 => listed, 1 => value()]).prop_map(|(k, v)| format!("{k}={v}"))
    });
    (
        proptest::sample::select(p.presets.clone()),
        proptest::sample::select(p.schemes.clone()),
        proptest::collection::vec(one, 1..5),
        any::<bool>(),
    )
}

proptest! {
    // A case is a whole run (about 0.3 s): fewer of them in the normal test run.
    #![proptest_config(ProptestConfig { cases: cases_or(24), failure_persistence: None, ..ProptestConfig::default() })]

    /// Random overrides of any key on any preset and scheme, run on a small
    /// device (16 blocks a plane, so GC runs from the first requests) for
    /// at most 2,000 requests, under `--verify` half the time. Nothing may
    /// panic; a run stops with a message or completes; a verification
    /// failure is a modelling bug, never an acceptable outcome.
    #[test]
    fn any_key_on_any_preset_runs_or_stops_with_a_message(case in whole_sets()) {
        let (preset, scheme, fuzzed, verify) = case;
        // The workload's size last: a drawn one would mostly be too long.
        let mut sets = vec!["geometry.blocks_per_plane=64".to_string()];
        sets.extend(fuzzed);
        sets.push("workload.requests=300".to_string());
        let command = format!(
            "--config {preset} --scheme {scheme} {}{}",
            sets.iter().map(|s| format!("--set '{s}' ")).collect::<String>(),
            if verify { "--verify" } else { "" }
        );
        let spec = rainsim::RunSpec {
            config: Some(preset.clone()),
            scheme: Some(scheme.clone()),
            sets: sets.clone(),
            ..Default::default()
        };
        // A refusal names a key: one drawn, or the one it clashes with.
        let names_a_key = |msg: &str| {
            pool().keys.iter().any(|(k, _)| msg.contains(k.as_str()))
                || sets.iter().any(|s| {
                    let key = s.split('=').next().unwrap_or(s);
                    msg.contains(key.rsplit('.').next().unwrap_or(key))
                })
        };
        let cfg = match spec.resolve(Some(&scheme), &[]) {
            Ok(cfg) => cfg,
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(names_a_key(&msg), "a refusal names no key: {msg}\n{command}");
                return Ok(());
            }
        };
        let small = rainsim_model::run::capacity_bytes(&cfg) <= 64 << 30
            && cfg.array.as_ref().is_none_or(|a| a.devices <= 8);
        prop_assume!(small);
        if let Err(e) = rainsim::run_any_watched(&spec, verify, None, &mut |_| {}, None) {
            let msg = e.to_string();
            prop_assert!(!msg.trim().is_empty(), "an error without a message\n{command}");
            prop_assert!(!msg.contains("verification failed"), "{msg}\n{command}");
        }
    }
}
