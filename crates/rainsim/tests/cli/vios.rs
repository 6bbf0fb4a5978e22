//! The vios-variation-aware-scheduler schemes from the command line: NOOP,
//! PIQ and VIOS run verified with process variation on, on the paper's
//! preset and on an aged RAID-5 device whose GC runs from the start.

use crate::report::check_report;
use crate::support::*;

/// Each scheme with process variation on passes `--verify`; requests wait
/// at the host (queue depth 4) so that the scheduler orders them; the report
/// has the process-variation and conflict sections, and programs and GC
/// moves are counted by speed.
#[test]
fn noop_piq_and_vios_run_verified_with_process_variation() {
    let dir = TempDir::new("vios");
    let t = trace("msr_hm_0_slice1000.csv");
    let requests = readme_row("msr_hm_0_slice1000.csv").requests;
    let aged =
        [&WORST_AGEING[..], &["--set", "process_variation.enabled=true", "--set", "host.queue_depth=4"]].concat();
    for scheme in ["noop", "piq", "vios"] {
        let out = dir.join(&format!("{scheme}.json"));
        let args = ["run", "--verify", "--config", "adaptive-parity-6ch", "--scheme", scheme, "--trace", p(&t)];
        let o = rainsim([&args[..], &aged, &["--out", p(&out)]].concat()).ok();
        assert!(o.stdout.contains("verify: passed"), "{scheme}:\n{}", o.stdout);
        assert!(o.stdout.contains("process variation (12000 P/E)") && o.stdout.contains("conflicts (Table 1)"));
        let r = read_json(&out);
        check_report(&r, requests);
        assert_eq!(s(&r, "config.policy.host_scheduler"), scheme);
        assert!(u(&r, "host.held_by_queue_depth") > 0, "{scheme}: requests waited at the host");
        assert_eq!(u(&r, "conflicts.reads") + u(&r, "conflicts.writes"), requests, "{scheme}");
        let classes = at(&r, "process_variation.classes").as_array().unwrap();
        let sum = |k: &str| classes.iter().map(|c| c[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(sum("programs"), u(&r, "flash_ops.host_program") + u(&r, "flash_ops.parity_program"));
        assert_eq!(sum("gc_programs"), u(&r, "flash_ops.gc_program"));
        assert!(u(&r, "gc.count") > 0, "{scheme}: GC ran");
    }
}

/// The paper's device (vios-128g: 8 × 8 chips, static channel-first
/// allocation, process variation at 12 K cycles, queue depth 32) replays a
/// trace verified under each scheme; only the baseline scheme (FIFO host
/// scheduler) leaves the conflict section out.
#[test]
fn the_vios_preset_runs_each_scheme_verified() {
    let dir = TempDir::new("vios128");
    let t = trace("msr.cut.per_10k.rw_20_80.105.trace");
    for scheme in ["baseline", "noop", "piq", "vios"] {
        let out = dir.join(&format!("{scheme}.json"));
        let args = ["run", "--verify", "--config", "vios-128g", "--scheme", scheme, "--trace", p(&t), "--out", p(&out)];
        let o = rainsim(args).ok();
        assert!(o.stdout.contains("verify: passed"), "{scheme}:\n{}", o.stdout);
        let r = read_json(&out);
        assert_eq!(u(&r, "process_variation.initial_pe_cycles"), 12_000);
        assert_eq!(r.get("conflicts").is_some(), scheme != "baseline", "{scheme}");
        assert_eq!(u(&r, "config.geometry.page_bytes"), 2048);
    }
}
