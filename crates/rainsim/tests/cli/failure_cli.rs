//! Channel failure through the CLI: the run that found a lost wake-up.

use crate::support::*;

/// On `degraded-mode-8ch` (4 dies a channel) the failed channel drained with
/// a GC on one of its dies, and the replacement waited for an operation on
/// that channel that never came: no rebuild, every chunk lost to the end. The
/// drain is now checked after every operation and GC while it is pending.
#[test]
fn a_drain_that_ends_with_a_gc_lets_the_replacement_in() {
    let dir = TempDir::new("failure-drain");
    let r = run_report(
        &dir,
        "r",
        &[
            "--config",
            "degraded-mode-8ch",
            "--scheme",
            "baseline",
            "--set",
            "seed=1",
            "--set",
            "workload.requests=1500000",
            "--set",
            "fault.channel=3",
            "--set",
            "fault.at_ns=180000000000",
            "--set",
            "fault.rebuild_stripes=2",
        ],
    );
    assert!(at(&r, "fault.replaced_at_ns").is_u64(), "{}", at(&r, "fault"));
    assert!(at(&r, "fault.rebuilt_at_ns").is_u64(), "{}", at(&r, "fault"));
    assert_eq!(u(&r, "fault.chunks_lost_at_end"), 0);
    assert_eq!(
        u(&r, "fault.pages_rebuilt") + u(&r, "fault.rewritten_by_host"),
        u(&r, "fault.chunks_lost_at_failure") + u(&r, "fault.chunks_lost_after_failure")
    );
}
