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

/// The summary of a run with a failure says what happened: when, the
/// replacement and rebuild, the chunks, the latency by phase (the same
/// numbers as the report's `fault` section), and a second failure's outcome.
#[test]
fn the_summary_shows_the_failure() {
    let dir = TempDir::new("failure-summary");
    let out = dir.join("r.json");
    let o = rainsim([
        "run",
        "--config",
        "degraded-mode-8ch",
        "--set",
        "workload.requests=20000",
        "--set",
        "fault.channel=3",
        "--set",
        "fault.at_ns=1000000000",
        "--set",
        "fault.replace_after_ns=100000000",
        "--set",
        "fault.rebuild_stripes=4",
        "--set",
        "fault.second_channel=2",
        "--set",
        "fault.second_at_ns=2000000000",
        "--out",
        p(&out),
    ])
    .ok();
    let r = read_json(&out);
    let line = o.stdout.lines().find(|l| l.starts_with("fault: channel 3 failed at 1.000 s")).unwrap_or_else(|| {
        panic!("no fault line:\n{}", o.stdout);
    });
    assert!(line.contains("replaced at 1.100 s"), "{line}");
    assert!(line.contains(&format!("chunks lost {} at the failure", u(&r, "fault.chunks_lost_at_failure"))), "{line}");
    assert!(line.contains(&format!("{} host reads reconstructed", u(&r, "fault.reads_reconstructed"))), "{line}");
    let before = o.stdout.lines().find(|l| l.trim_start().starts_with("before ")).expect("a before row");
    let count: u64 = before.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert_eq!(count, u(&r, "fault.before.read.count"), "{before}");
    assert!(
        o.stdout.contains(&format!(
            "second failure: channel 2 at 2.000 s before the rebuild ended: {} chunks in {} stripes lost",
            u(&r, "fault.second.chunks_lost"),
            u(&r, "fault.second.stripes_lost")
        )),
        "{}",
        o.stdout
    );
}

/// Reads queued on the failing unit that start after a write of their chunk
/// was absorbed in parity, as found by fuzzing: on the default device, 1 µs
/// apart, channel 2 failing at 5 ms once returned the old page (`--verify`
/// stopped the run; without it the run passed), and die 1 failing at 0 with
/// programs bound to dies stopped the run with "queued read of chunk 472712
/// finds it unmapped" (its stale page on a living die was dropped). Such a
/// read is now rebuilt from its stripe. Without read priority (5 µs apart),
/// two more runs found such a read starting while the RAID layer itself was
/// dispatching (degraded update placement and a failed channel; degraded
/// read routing and a failed die that static allocation binds chunks to):
/// it is now handed to its stripe by an event at the same instant.
#[test]
fn reads_racing_absorbed_writes_return_the_latest_version() {
    let dir = TempDir::new("failure-race");
    let fast = ["workload.mean_interarrival_ns=1000", "workload.requests=10000"];
    let slow = ["workload.mean_interarrival_ns=5000", "workload.requests=15000", "policy.read_priority=false"];
    let cases: [(&str, Vec<&str>); 4] = [
        ("channel", [&fast[..], &["fault.channel=2", "fault.at_ns=5000000"]].concat()),
        (
            "die",
            [&fast[..], &["fault.die=1", "fault.rebuild=false", "ftl.allocation=\"static-channel-first\""]].concat(),
        ),
        (
            "placement",
            [
                &slow[..],
                &[
                    "geometry.planes_per_die=1",
                    "geometry.pages_per_block=32",
                    "precondition.valid=0.6",
                    "precondition.map_trace=\"none\"",
                    "policy.update_placement=\"degraded\"",
                    "fault.channel=1",
                    "fault.at_ns=10000000",
                ],
            ]
            .concat(),
        ),
        (
            "routing",
            [
                &slow[..],
                &[
                    "geometry.chips_per_channel=1",
                    "geometry.dies_per_chip=2",
                    "ftl.allocation=\"static-channel-first\"",
                    "raid.stripe_width=5",
                    "precondition.valid=0",
                    "precondition.invalid=0",
                    "policy.read_routing=\"degraded\"",
                    "fault.die=2",
                    "fault.rebuild=false",
                ],
            ]
            .concat(),
        ),
    ];
    for (name, sets) in cases {
        let mut args = vec!["--verify"];
        for s in sets {
            args.extend(["--set", s]);
        }
        let r = run_report(&dir, name, &args);
        assert!(
            u(&r, "fault.reads_reconstructed") > 0 && u(&r, "fault.writes_absorbed") > 0,
            "{name}: {}",
            at(&r, "fault")
        );
    }
}

/// A failure while the controller decides a job's routine (the adaptive
/// parity update's decision time): the failure at 0 comes right after the
/// first request's job was planned, the replacement goes in at once and takes
/// the lost chunks' pages, and the job's pre-reads, issued after the
/// decision, once found a member gone and panicked (found by fuzzing). The
/// job is now planned again around the lost position (its stripe write
/// counted once, at the first planning); every request completes, verified.
#[test]
fn a_failure_during_a_routine_decision_replans_the_job() {
    let dir = TempDir::new("failure-decision");
    for (name, fault) in [("channel", "fault.channel=0"), ("die", "fault.die=3")] {
        let args = ["--verify", "--scheme", "adaptive", "--set", fault, "--set", "workload.requests=2000"];
        let r = run_report(&dir, name, &args);
        assert_eq!(u(&r, "latency.all.count"), 2000, "{name}");
        assert!(at(&r, "fault.rebuilt_at_ns").is_u64(), "{name}: {}", at(&r, "fault"));
    }
}
