//! The parity-update schemes from the command line: `--scheme bpu` and
//! `--scheme adaptive` on the adaptive paper's preset, with verification.

use crate::config::{show, tv};
use crate::report::check_report;
use crate::support::*;
use std::path::Path;

/// Each scheme runs verified on the 5+1 preset; only bpu and adaptive leave
/// the fewest-pre-reads routine, and the summary states their decisions.
#[test]
fn every_parity_scheme_runs_verified_on_the_adaptive_preset() {
    let dir = TempDir::new("schemes");
    let t = trace("msr_hm_0_slice1000.csv");
    let requests = readme_row("msr_hm_0_slice1000.csv").requests;
    for (scheme, kind) in [("baseline", "fewest-prereads"), ("bpu", "bpu"), ("adaptive", "adaptive")] {
        let out = dir.join(&format!("{scheme}.json"));
        let args = ["run", "--verify", "--config", "adaptive-parity-6ch", "--scheme", scheme, "--trace", p(&t)];
        // The policies need queues to weigh: the worst-case ageing.
        let o = rainsim([&args[..], &WORST_AGEING, &["--out", p(&out)]].concat()).ok();
        let r = read_json(&out);
        check_report(&r, requests);
        assert_eq!(s(&r, "scheme"), scheme);
        assert_eq!(s(&r, "config.policy.parity_update"), kind, "{scheme}");
        assert!(o.stdout.contains("verify: passed"), "{scheme}:\n{}", o.stdout);
        let adjusted = u(&r, "raid.adjusted");
        if scheme == "baseline" {
            assert_eq!(adjusted, 0, "the baseline adjusted a routine");
        } else {
            assert!(adjusted > 0, "{scheme} never left fewest pre-reads on hm_0");
        }
        let line = o.stdout.lines().find(|l| l.starts_with("raid:")).unwrap_or_else(|| panic!("no raid line"));
        assert!(line.contains(&format!("adjusted {adjusted} (to RMW ")), "{scheme}: {line}");
    }
}

/// `config show --scheme NAME` carries every `[policy]` value of the scheme
/// file, its parameter tables included.
#[test]
fn show_applies_each_scheme_file() {
    for name in ["bpu", "adaptive"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../configs/schemes/{name}.toml"));
        let scheme: toml::Table = std::fs::read_to_string(&path).expect("scheme file").parse().expect("TOML");
        let t = show(&["--scheme", name]);
        for (k, v) in scheme["policy"].as_table().expect("[policy]") {
            assert_eq!(tv(&t, &format!("policy.{k}")), v, "{name}: policy.{k}");
        }
    }
}

/// Bad parameters name their key.
#[test]
fn bad_parity_parameters_name_their_key() {
    for (set, words) in [
        ("policy.bpu.alpha=-1", &["policy.bpu.alpha"][..]),
        ("policy.bpu.min_skew=-3", &["policy.bpu.min_skew"]),
        ("policy.adaptive.scope=chip", &["policy.adaptive.scope", "channel", "die"]),
        ("policy.parity_update=cheapest", &["cheapest", "adaptive", "bpu"]),
        ("policy.degraded.arrival_window=1", &["policy.degraded.arrival_window", "two arrivals"]),
        ("policy.degraded.gc_history=0", &["policy.degraded.gc_history"]),
        ("policy.gc_tolerant.scope=plane", &["policy.gc_tolerant.scope", "die", "channel"]),
        ("ldpc.retry_step_ns=100000000", &["ldpc.retry_step_ns", "1 s"]),
    ] {
        let err = rainsim(["run", "--quiet", "--set", "workload.requests=10", "--set", set]).fails();
        for w in words {
            assert!(err.contains(w), "`--set {set}`: message lacks `{w}`:\n{err}");
        }
    }
}

/// The degraded-mode schemes from the command line, verified on the 8-channel
/// preset: each rebuilds reads its own way, the degraded scheme pays its
/// decision time, and the summary and report agree.
#[test]
fn degraded_mode_schemes_run_verified_and_count_their_rebuilds() {
    let dir = TempDir::new("dm-schemes");
    let t = trace("msr.cut.per_10k.rw_40_60.1370.trace");
    let mut reports = Vec::new();
    for scheme in ["baseline", "gc-tolerant-read", "degraded"] {
        let out = dir.join(&format!("{scheme}.json"));
        let args = ["run", "--verify", "--config", "degraded-mode-8ch", "--scheme", scheme, "--trace", p(&t)];
        // No free margin and a little more invalid data: every plane starts
        // below the GC trigger, so the short sample meets GC.
        let aged = ["--set", "precondition.free_margin=default", "--set", "precondition.invalid=0.62"];
        let o = rainsim([&args[..], &aged, &["--out", p(&out)]].concat()).ok();
        assert!(o.stdout.contains("verify: passed"), "{scheme}:\n{}", o.stdout);
        let r = read_json(&out);
        let (gct, deg, upd) =
            (u(&r, "raid.gc_tolerant_reads"), u(&r, "raid.degraded_reads"), u(&r, "raid.degraded_updates"));
        match scheme {
            "baseline" => assert_eq!((gct, deg, upd), (0, 0, 0)),
            "gc-tolerant-read" => assert!(gct > 0 && deg == 0 && upd == 0, "{gct} {deg} {upd}"),
            _ => assert!(gct == 0 && deg > 0 && upd > 0, "{gct} {deg} {upd}"),
        }
        // A rebuilt read reads the other written chunks of its 3+1 stripe:
        // the parity at least, at most all three.
        let rebuild = u(&r, "raid.rebuild_reads");
        assert!(gct + deg <= rebuild && rebuild <= 3 * (gct + deg), "{scheme}: {rebuild} for {}", gct + deg);
        assert_eq!(u(&r, "flash_ops.degraded_read"), u(&r, "raid.rebuild_reads"), "{scheme}");
        let line = o.stdout.lines().find(|l| l.starts_with("raid:")).expect("raid line");
        assert!(line.contains(&format!("GC-tolerant reads {gct}, degraded updates {upd}")), "{line}");
        reports.push(r);
    }
    assert_eq!(u(&reports[2], "config.policy.degraded.decision_ns"), 4_900);
}

/// The decision time is charged per request: an unloaded read costs 4.9 µs
/// more under `degraded` than under the baseline.
#[test]
fn degraded_decision_time_is_charged_per_request() {
    let dir = TempDir::new("dm-decision");
    let mut mean = Vec::new();
    for scheme in ["baseline", "degraded"] {
        let out = dir.join(&format!("{scheme}.json"));
        let sets = ["workload.requests=1", "workload.read_ratio=1.0", "precondition.invalid=0.0"];
        let mut args = vec!["run", "--quiet", "--config", "degraded-mode-8ch", "--scheme", scheme, "--out", p(&out)];
        for s in &sets {
            args.extend(["--set", s]);
        }
        rainsim(args).ok();
        mean.push(f(&read_json(&out), "latency.read.mean_ns"));
    }
    assert_eq!(mean[1] - mean[0], 4_900.0, "{mean:?}");
}

/// Runs say once what a configuration keeps a policy from doing.
#[test]
fn notes_say_when_a_policy_cannot_apply() {
    for (sets, words) in [
        (&["raid.stripe_width=8"][..], "degraded updates need a channel outside the stripe"),
        (&["raid.level=none"][..], "raid.level = none"),
    ] {
        let mut args =
            vec!["run", "--config", "degraded-mode-8ch", "--scheme", "degraded", "--set", "workload.requests=200"];
        for s in sets {
            args.extend(["--set", s]);
        }
        let o = rainsim(args).ok();
        assert_eq!(o.stdout.matches(words).count(), 1, "{sets:?}:\n{}", o.stdout);
    }
}
