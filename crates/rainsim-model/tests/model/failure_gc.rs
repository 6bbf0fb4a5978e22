//! Failed units and GC: a die that fails amid GC-heavy writes, and failed
//! dies and channels below the GC trigger: what they still collect for
//! (the programs they drain), what they never collect for (reads, a drained
//! die), and where their chunks go.

use super::failure::run;
use super::*;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::{SimError, Ssd};
use rainsim_trace::Request;

/// 5 channels of 2 dies with 4+1 stripes, a tenth free (GC from the first
/// writes) at the given (valid, invalid) fractions; die 9 (channel 4's
/// second) fails at 20 ms for good.
fn die_9_fails_at_20_ms((valid, invalid): (f64, f64)) -> Config {
    let mut c = tiny(5, 2, 1, 48, 16, Some(5));
    gc_from_start(&mut c);
    c.geometry.over_provisioning = 0.2;
    (c.precondition.valid, c.precondition.invalid) = (valid, invalid);
    (c.fault.die, c.fault.at_ns, c.fault.rebuild) = (Some(9), 20_000_000, false);
    c
}

/// Erases of die `d` of a device of 48 blocks a die (the tests below).
fn die_erases(ssd: &Ssd<Collector>, d: usize) -> u64 {
    ssd.ftl.blocks[d * 48..(d + 1) * 48].iter().map(|b| b.erases as u64).sum()
}

/// 3,000 one-page writes 0.2 ms apart over logical pages `0..pages`.
fn random_writes(pages: u64) -> Vec<Request> {
    let mut x = 99u64;
    (0..3_000u64)
        .map(|i| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let page = (x >> 33) % pages;
            Request { time_ns: i * 200_000, offset: page * 4096, size: 4096, device: 0, op: Op::Write }
        })
        .collect()
}

/// A die that fails amid GC-heavy writes and is never replaced: its
/// channel's other die takes its writes, the healthy dies keep collecting and
/// every write completes; the failed die does no GC once drained, even as
/// rewrites of its chunks (on the other die) invalidate its pages: its blocks
/// are erased as often as in a run of only the requests before the failure.
#[test]
fn healthy_dies_keep_collecting_while_a_die_stays_failed() {
    // 30 % valid and writes over an eighth of the space: the channel's other
    // die has room for all of the channel's data.
    let c = die_9_fails_at_20_ms((0.3, 0.6));
    let failed_at = c.fault.at_ns;
    let reqs = random_writes(rainsim_model::run::capacity_bytes(&c) / 4096 / 8);
    // Erases by die (48 blocks each).
    let erases = |ssd: &Ssd<Collector>| -> Vec<u64> { (0..10).map(|d| die_erases(ssd, d)).collect() };
    let (ssd, f) = run(&c, &reqs);
    assert_eq!(f.replaced_at_ns, None);
    assert_eq!(ssd.totals().completed, reqs.len() as u64);
    let before: Vec<Request> = reqs.iter().copied().filter(|r| r.time_ns < failed_at).collect();
    let (until_failure, _) = run(&c, &before);
    let (all, cut) = (erases(&ssd), erases(&until_failure));
    assert!((0..9).all(|d| all[d] > cut[d]), "healthy dies collect on: {all:?} against {cut:?}");
    assert!(cut[9] > 0 && all[9] == cut[9], "erases on the failed die {} against {} before it failed", all[9], cut[9]);
}

/// The same at half full: the failed die's channel cannot hold its data on
/// its one other die, which fills with valid data; the run stops naming the
/// channel full (a failed die takes no writes, whatever room it has). The
/// same with channel 0's second die failing instead (die 1; die 0 fills).
#[test]
fn a_channel_whose_other_die_fills_after_a_die_failure_is_reported_full() {
    for (die, channel) in [(9, 4), (1, 0)] {
        let mut c = die_9_fails_at_20_ms((0.5, 0.4));
        c.fault.die = Some(die);
        let reqs = random_writes(rainsim_model::run::capacity_bytes(&c) / 4096 - 4);
        let mut ssd = Ssd::for_requests(&c, Collector::new(5), true, &reqs).unwrap();
        match ssd.run(&reqs, &mut |_| {}) {
            Err(e @ SimError::ChannelFull { channel: ch, waiting, .. }) if ch == channel => {
                // The cause named is the failed die, not the placement of updates.
                assert!(waiting > 0 && e.to_string().contains("its failed die's chunks"), "die {die}: {e}");
            }
            other => panic!("die {die}: {other:?}"),
        }
        let other = (die ^ 1) as usize;
        let full = &ssd.ftl.blocks[other * 48..(other + 1) * 48];
        assert_eq!(
            full.iter().filter(|b| b.written == 16 && b.valid == 16).count(),
            47,
            "die {die}: all but the reserve valid"
        );
        assert!(ssd.ftl.die_takes_writes(die), "the failed die {die} has room it may not use");
    }
}

/// Die 8 (channel 4's first) fails at time 0 while every plane sits below
/// the GC trigger (30 % free against a 30 % trigger), and is never replaced:
/// its channel's programs go to die 9, and die 8, once it has finished the
/// collection it began at time 0, never collects again, though each program
/// queued on its channel asks it to: it erases as often as in a run of one
/// request, and its plane stays below the trigger.
#[test]
fn a_drained_failed_die_below_the_gc_trigger_never_collects() {
    let mut c = die_9_fails_at_20_ms((0.3, 0.6));
    (c.fault.die, c.fault.at_ns) = (Some(8), 0);
    (c.ftl.gc_threshold, c.geometry.over_provisioning) = (0.3, 0.4);
    let mut reqs = random_writes(rainsim_model::run::capacity_bytes(&c) / 4096 / 8);
    reqs.iter_mut().for_each(|r| r.time_ns += 1_000);
    let (ssd, f) = run(&c, &reqs);
    let (one, _) = run(&c, &reqs[..1]);
    assert_eq!((f.replaced_at_ns, ssd.totals().completed), (None, reqs.len() as u64));
    assert!(
        die_erases(&ssd, 9) > die_erases(&one, 9),
        "die 9 collects for both: {} against {}",
        die_erases(&ssd, 9),
        die_erases(&one, 9)
    );
    assert_eq!(die_erases(&ssd, 8), die_erases(&one, 8), "die 8 collects only what it began before failing");
    assert!(ssd.ftl.die_needs_gc(8).is_some(), "die 8 stays below the trigger");
}

/// Channel 2 of a device whose every plane sits below the GC trigger (30 %
/// free against 30 %) fails at 0.1 ms and is never replaced.
fn channel_2_fails_below_the_trigger() -> Config {
    let mut c = tiny(5, 1, 1, 48, 16, Some(5));
    (c.precondition.valid, c.precondition.invalid) = (0.3, 0.6);
    (c.ftl.gc_threshold, c.geometry.over_provisioning) = (0.3, 0.4);
    (c.fault.channel, c.fault.at_ns, c.fault.rebuild) = (Some(2), 100_000, false);
    c
}

/// The erases on channel 2 after `reqs` on `c`, every request completed.
fn channel_2_erases(c: &Config, reqs: &[Request]) -> u64 {
    let (ssd, _) = run(c, reqs);
    assert_eq!(ssd.totals().completed, reqs.len() as u64);
    die_erases(&ssd, 2)
}

/// A failed channel still collects while the programs queued on it before
/// the failure drain and its plane sits below the trigger: twenty full
/// stripes written at once just before channel 2 fails make it erase more
/// than when it fails with nothing queued.
#[test]
fn a_failed_channel_collects_for_the_programs_it_drains() {
    let c = channel_2_fails_below_the_trigger();
    let burst = [Request { time_ns: 1_000, offset: 0, size: 80 * 4096, device: 0, op: Op::Write }];
    let late_read = [Request { time_ns: 1_000_000_000, offset: 0, size: 4096, device: 0, op: Op::Read }];
    let (drained, idle) = (channel_2_erases(&c, &burst), channel_2_erases(&c, &late_read));
    assert!(drained > idle, "{drained} erases with twenty programs to drain against {idle} with none");
}

/// Reads queued on a channel when it fails leave for their stripes'
/// partners without the failed channel collecting first: with reads of
/// every chunk queued behind the collection each die began at time 0,
/// channel 2 erases as often as with nothing queued.
#[test]
fn a_failed_channel_does_not_collect_for_the_reads_queued_on_it() {
    let c = channel_2_fails_below_the_trigger();
    let reads = [Request { time_ns: 1_000, offset: 0, size: 80 * 4096, device: 0, op: Op::Read }];
    let late_read = [Request { time_ns: 1_000_000_000, offset: 0, size: 4096, device: 0, op: Op::Read }];
    assert_eq!(channel_2_erases(&c, &reads), channel_2_erases(&c, &late_read));
}

/// On dies of two planes, a die's chunks are those whose page lies on either
/// of its planes (counted from the mapping), and fresh dies in its place
/// hold none of them, every block erased and free.
#[test]
fn a_die_of_two_planes_holds_and_loses_the_chunks_of_both() {
    let mut c = tiny(3, 2, 2, 8, 4, Some(3));
    c.precondition.valid = 0.5;
    let mut ssd = Ssd::new(&c, Collector::new(3), false).unwrap();
    let l = ssd.layout().clone();
    let chunks = ssd.stripe_layout().chunks() as u32;
    let on_die = |ssd: &Ssd<Collector>, d: u32| -> Vec<u32> {
        let mut v: Vec<u32> = (0..chunks).filter(|&k| ssd.ftl.lookup(k).is_some_and(|p| l.die_of(p) == d)).collect();
        v.sort_unstable();
        v
    };
    let want = on_die(&ssd, 3);
    let planes_used: std::collections::BTreeSet<u32> =
        want.iter().map(|&k| l.plane_of_block(l.block_of(ssd.ftl.lookup(k).unwrap()))).collect();
    assert_eq!(planes_used.into_iter().collect::<Vec<u32>>(), [6, 7], "the chunks lie on both planes of die 3");
    let mut held = ssd.ftl.chunks_on_dies(3, 1);
    held.sort_unstable();
    assert_eq!(held, want);
    let mut lost = ssd.ftl.replace_dies(3, 1);
    lost.sort_unstable();
    assert_eq!(lost, want);
    assert!(on_die(&ssd, 3).is_empty() && want.iter().all(|&k| ssd.ftl.lookup(k).is_none()));
    assert!(ssd.ftl.blocks[3 * 16..4 * 16].iter().all(|b| b.written == 0 && b.valid == 0));
    assert!(ssd.ftl.planes[6..8].iter().all(|p| p.free.len() == 8 && p.active.is_none()));
    assert_eq!(on_die(&ssd, 2).len(), ssd.ftl.chunks_on_dies(2, 1).len(), "die 2 keeps its chunks");
}
