//! One run loop over several devices: two independent devices replayed in
//! one simulated time give exactly the reports of two separate runs.

use crate::{preset, scheme, traces_dir};
use rainsim_model::run::{capacity_bytes, simulate, simulate_together, DeviceRun};
use rainsim_model::{Config, RunOptions};
use rainsim_trace::Trace;

fn setup(name: &str, scheme_name: &str, file: &str) -> (Config, Trace) {
    let mut cfg = preset(name);
    cfg.policy = scheme(scheme_name).policy;
    crate::gc_from_start(&mut cfg);
    let path = traces_dir().join(file);
    let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes)
        .unwrap_or_else(|e| panic!("{e}"));
    (cfg, trace)
}

fn json(r: &rainsim_model::Report) -> serde_json::Value {
    let mut v = serde_json::to_value(r).unwrap();
    v.as_object_mut().unwrap().remove("timing");
    v
}

#[test]
fn two_devices_in_one_loop_report_as_two_separate_runs() {
    // Both traces start at time 0, so the devices' events interleave; the
    // degraded scheme and GC from the start exercise every event kind.
    let a = setup("degraded-mode-8ch", "degraded", "msr.cut.per_10k.rw_20_80.105.trace");
    let b = setup("adaptive-parity-6ch", "adaptive", "umass_financial1_head10k.ssdsim.ascii");
    let alone: Vec<serde_json::Value> = [&a, &b]
        .iter()
        .map(|(cfg, t)| json(&simulate(cfg, &t.requests, RunOptions::new("s", true, &mut |_| {})).unwrap()))
        .collect();
    let runs = [&a, &b]
        .iter()
        .map(|(cfg, t)| DeviceRun { config: cfg, requests: &t.requests, scheme: "s", trace: serde_json::Value::Null })
        .collect();
    let together: Vec<serde_json::Value> = simulate_together(runs, true).unwrap().iter().map(json).collect();
    assert_eq!(together.len(), 2);
    for (i, (t, s)) in together.iter().zip(&alone).enumerate() {
        assert!(t == s, "device {i} reports differently when run beside another");
        let reads = s.pointer("/raid/degraded_reads").and_then(|v| v.as_u64()).unwrap();
        let gcs = s.pointer("/gc/count").and_then(|v| v.as_u64()).unwrap();
        assert!(gcs > 0, "device {i}: GC ran");
        if i == 0 {
            assert!(reads > 0, "the degraded device served degraded reads");
        }
    }
    let (ta, tb) = (&a.1.requests, &b.1.requests);
    let overlap = ta.last().unwrap().time_ns.min(tb.last().unwrap().time_ns);
    assert!(overlap > 1_000_000_000, "the two replays overlap in time by more than a second");
}
