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
        let o = rainsim([&args[..], &["--out", p(&out)]].concat()).ok();
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
    ] {
        let err = rainsim(["run", "--quiet", "--set", "workload.requests=10", "--set", set]).fails();
        for w in words {
            assert!(err.contains(w), "`--set {set}`: message lacks `{w}`:\n{err}");
        }
    }
}
