//! `ftl.rotating_gc`: off leaves reports as they were (no key, no counter);
//! on, the report and the summary carry its counters and `gc-tolerant-read`
//! turns it on.

use crate::support::*;

#[test]
fn off_leaves_reports_unchanged_and_on_reports_its_counters() {
    let dir = TempDir::new("rotating-gc");
    let t = trace("msr.cut.per_10k.rw_40_60.1370.trace");
    for scheme in ["baseline", "degraded", "bpu", "adaptive"] {
        let base = ["--trace", p(&t), "--config", "degraded-mode-8ch", "--scheme", scheme];
        let a = without_timing(run_report(&dir, &format!("{scheme}-a"), &base));
        let mut off = base.to_vec();
        off.extend(["--set", "ftl.rotating_gc=false"]);
        let b = without_timing(run_report(&dir, &format!("{scheme}-b"), &off));
        assert!(a == b, "{scheme}: explicit off differs in {:?}", differing_keys(&a, &b));
        assert!(a.get("rotating_gc").is_none(), "{scheme}: counters reported while off");
        assert!(at(&a, "config.ftl").get("rotating_gc").is_none(), "{scheme}: key in the report's config while off");
    }
    // The gc-tolerant-read scheme turns it on; off gives the bare routing.
    // Every plane starts below the GC trigger (no free margin), so the short sample meets GC.
    let base = [
        "--trace",
        p(&t),
        "--config",
        "degraded-mode-8ch",
        "--scheme",
        "gc-tolerant-read",
        "--set",
        "precondition.free_margin=default",
        "--set",
        "precondition.invalid=0.62",
    ];
    let on = run_report(&dir, "gctr-on", &base);
    assert_eq!(at(&on, "config.ftl.rotating_gc"), &serde_json::Value::Bool(true));
    assert!(u(&on, "rotating_gc.deferred") > 0, "aged run without a deferral");
    assert_eq!(u(&on, "rotating_gc.forced_overlaps"), 0);
    let mut off = base.to_vec();
    off.extend(["--set", "ftl.rotating_gc=false"]);
    let off = run_report(&dir, "gctr-off", &off);
    assert!(off.get("rotating_gc").is_none());

    let text =
        rainsim(["run", "--trace", p(&t), "--config", "degraded-mode-8ch", "--scheme", "gc-tolerant-read"]).ok().stdout;
    assert!(text.contains("rotating GC: ") && text.contains(" forced overlaps"), "no rotating GC line:\n{text}");
    let plain = rainsim(["run", "--trace", p(&t), "--config", "degraded-mode-8ch"]).ok().stdout;
    assert!(!plain.contains("rotating GC"), "rotating GC line while off:\n{plain}");
}

#[test]
fn config_show_shows_the_key_either_way() {
    let off = rainsim(["config", "show"]).ok().stdout;
    assert!(off.contains("# rotating_gc = false"), "{off}");
    let on = rainsim(["config", "show", "--scheme", "gc-tolerant-read"]).ok().stdout;
    assert!(on.contains("\nrotating_gc = true\n"), "{on}");
}
