//! A channel failure and its rebuild on hand-built 4+1 devices: the latency
//! of a read through XOR, the rebuild's exact work and duration, the chunks a
//! second failure loses, and the conservation of lost chunks under load.

use super::*;
use rainsim_model::config::RebuildPriority;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::metrics::fault_report::FaultReport;
use rainsim_model::Ssd;
use rainsim_trace::Request;

const T_R: u64 = 20_000;
const T_PROG: u64 = 500_000;
const T_XOR: u64 = 19_000;
const XFER: u64 = 10_240 + 300;

/// An idle, half-written device of 5 single-die channels with 4+1 stripes.
fn four_plus_one() -> Config {
    let mut c = tiny(5, 1, 1, 64, 16, Some(5));
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    (c.timing.read_ns, c.timing.program_ns, c.timing.command_ns, c.timing.xor_ns) = (T_R, T_PROG, 300, T_XOR);
    c
}

/// The chunks on channel `ch` of the device `c` builds, in order, counted
/// from the blocks (not from the failure code).
fn chunks_on(c: &Config, ch: u32) -> Vec<u32> {
    let ssd = Ssd::new(c, Collector::new(c.geometry.channels), false).unwrap();
    let l = ssd.layout().clone();
    let mut v: Vec<u32> = (0..ssd.stripe_layout().chunks() as u32)
        .filter(|&k| ssd.ftl.lookup(k).is_some_and(|p| l.channel_of(p) == ch))
        .collect();
    v.sort_unstable();
    v
}

pub(super) fn run(c: &Config, reqs: &[Request]) -> (Ssd<Collector>, FaultReport) {
    let mut ssd = Ssd::for_requests(c, Collector::new(c.geometry.channels), true, reqs).unwrap();
    ssd.run(reqs, &mut |_| {}).unwrap();
    let f = ssd.fault_report().expect("a channel failed");
    (ssd, f)
}

/// The 4+1 device whose channel holding the first data chunk of a full
/// stripe fails at time 0 for good: (config, stripe, chunk, its page).
fn failed_with_first_chunk() -> (Config, u32, u32, u32) {
    let mut c = four_plus_one();
    let probe = Ssd::new(&c, Collector::new(5), false).unwrap();
    let s = full_stripe(&probe);
    let chunk = s * 5 + probe.stripe_layout().data_pos(s, 0);
    let ppn = probe.ftl.lookup(chunk).unwrap();
    (c.fault.channel, c.fault.at_ns, c.fault.rebuild) = (Some(probe.layout().channel_of(ppn)), 0, false);
    (c, s, chunk, ppn)
}

#[test]
fn a_read_of_a_failed_channel_is_one_partner_read_plus_xor() {
    let (c, s, _, _) = failed_with_first_chunk();
    let offset = s as u64 * 4 * 4096;
    let reqs = [Request { time_ns: 1_000, offset, size: 4096, device: 0, op: Op::Read }];
    let (ssd, f) = run(&c, &reqs);
    // The four partners are read in parallel on their channels, then XORed.
    assert_eq!(ssd.obs.latency[0].max, T_R + XFER + T_XOR);
    assert_eq!((f.reads_reconstructed, f.during.read.count), (1, 1));
    assert_eq!(f.replaced_at_ns, None);
    assert_eq!(f.chunks_lost_at_end, f.chunks_lost_at_failure);
}

/// A write of a chunk of a failed channel lives in parity alone; its old
/// page, on the failed channel, no longer holds it.
#[test]
fn an_absorbed_write_drops_the_old_page_on_the_failed_channel() {
    let (c, s, chunk, old) = failed_with_first_chunk();
    let reqs = [Request { time_ns: 1_000, offset: s as u64 * 4 * 4096, size: 4096, device: 0, op: Op::Write }];
    let probe = Ssd::new(&c, Collector::new(5), false).unwrap();
    assert_eq!(probe.ftl.lookup(chunk), Some(old));
    let (ssd, f) = run(&c, &reqs);
    assert_eq!(f.writes_absorbed, 1);
    assert_eq!(ssd.ftl.lookup(chunk), None);
}

/// A host read queued on a channel before it fails drains there; if a write
/// of its chunk is absorbed in parity meanwhile, the read, starting after
/// that, must return the new version: it is rebuilt from the stripe (once
/// the write's parity is in). It once read the old page (`--verify` caught
/// it only under load).
#[test]
fn a_read_queued_before_the_failure_sees_a_write_absorbed_after_it() {
    let mut c = four_plus_one();
    let probe = Ssd::new(&c, Collector::new(5), false).unwrap();
    let l = probe.stripe_layout().clone();
    let full: Vec<u32> =
        (0..l.stripes).filter(|&s| (0..l.width).all(|j| probe.ftl.lookup(s * l.width + j).is_some())).collect();
    let ch = |k: u32| probe.layout().channel_of(probe.ftl.lookup(k).unwrap());
    let data = |s: u32| s * l.width + l.data_pos(s, 0);
    let parity = |s: u32| ch(l.parity_chunk(s));
    // Stripes s and s2 with their first data chunk on one channel and
    // parity on one other, so that s's write reads from channels s2's
    // write leaves idle.
    let s = full[0];
    let s2 = *full[1..].iter().find(|&&t| ch(data(t)) == ch(data(s)) && parity(t) == parity(s)).expect("two stripes");
    let f = ch(data(s));
    // 0: a write of s2's chunk on channel f keeps f's die programming until
    // about 560 µs; 100 µs: a read of s's chunk on f queues behind it;
    // 150 µs: f fails; 200 µs: a write of that chunk is absorbed (by about
    // 260 µs: its partners' reads and the XOR).
    let w = |t: u64, s: u32, op: Op| Request { time_ns: t, offset: s as u64 * 4 * 4096, size: 4096, device: 0, op };
    let reqs = [w(0, s2, Op::Write), w(100_000, s, Op::Read), w(200_000, s, Op::Write)];
    (c.fault.channel, c.fault.at_ns, c.fault.rebuild) = (Some(f), 150_000, false);
    let (ssd, rep) = run(&c, &reqs);
    assert_eq!((rep.writes_absorbed, rep.reads_reconstructed), (1, 1), "{rep:?}");
    // The read ends after the absorbing write's parity program (it waits for
    // the stripe), so after 200 µs + a program: over 600 µs after it arrived.
    let read_max = ssd.obs.latency[0].max;
    assert!(read_max > T_PROG + 100_000 && read_max < 2 * T_PROG + 200_000, "{read_max}");
}

#[test]
fn the_rebuild_rewrites_exactly_the_failed_channels_chunks_one_stripe_at_a_time() {
    let mut c = four_plus_one();
    let ch = 2;
    let before = chunks_on(&c, ch);
    assert!(before.len() > 20, "{} chunks on the channel", before.len());
    (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns) = (Some(ch), 5_000, 10_000);
    let (ssd, f) = run(&c, &[]);
    assert_eq!(f.chunks_lost_at_failure, before.len() as u64);
    assert_eq!(f.pages_rebuilt, before.len() as u64);
    assert_eq!((f.chunks_lost_at_end, f.rewritten_by_host, f.chunks_lost_after_failure), (0, 0, 0));
    let mut after = ssd.ftl.chunks_on_channel(ch);
    after.sort_unstable();
    assert_eq!(after, before, "the replacement holds the same chunks");
    // Each stripe: its other chunks read in parallel, XOR, one program.
    let per_stripe = T_R + XFER + T_XOR + XFER + T_PROG;
    assert_eq!(f.replaced_at_ns, Some(15_000));
    assert_eq!(f.rebuilt_at_ns, Some(15_000 + before.len() as u64 * per_stripe));
    // --verify passed: every stripe is whole again (checked at the end).
    assert!(ssd.totals().stripes_verified > 0);
}

/// A channel failing while the controller decides a write's routine (the
/// adaptive parity update spends 5.7 µs on it before the pre-reads): a
/// one-page write at 0 to a full stripe is decided by 5,700 ns, and the
/// channel of one of the stripe's chunks (the one written, another data
/// chunk, or parity) fails at 1,000 ns. When the decision is made the stripe
/// has a lost position, and the write is planned again around it: it
/// completes, the stripe verifies (the parity holds the write), and it is one
/// stripe write, counted when first planned. With the replacement put in at
/// once, the rebuild then restores every lost chunk.
#[test]
fn a_failure_during_a_routine_decision_replans_the_write_counted_once() {
    let mut c = four_plus_one();
    c.policy = scheme("adaptive").policy;
    assert_eq!(c.policy.adaptive.decision_ns, 5_700);
    let probe = Ssd::new(&c, Collector::new(5), false).unwrap();
    let l = probe.stripe_layout().clone();
    // A full stripe other than stripe 0.
    let s = (1..l.stripes).find(|&s| (0..5).all(|j| probe.ftl.lookup(s * 5 + j).is_some())).expect("a full stripe");
    let ch = |pos: u32| probe.layout().channel_of(probe.ftl.lookup(s * 5 + pos).unwrap());
    let write = Request { time_ns: 0, offset: s as u64 * 4 * 4096, size: 4096, device: 0, op: Op::Write };
    let cases = [
        ("the written chunk", l.data_pos(s, 0)),
        ("another data chunk", l.data_pos(s, 1)),
        ("parity", l.parity_pos(s)),
    ];
    for (rebuild, (what, pos)) in [false, false, false, true].into_iter().zip(cases.into_iter().chain([cases[1]])) {
        let mut c = c.clone();
        (c.fault.channel, c.fault.at_ns, c.fault.rebuild, c.fault.replace_after_ns) =
            (Some(ch(pos)), 1_000, rebuild, 0);
        let (ssd, f) = run(&c, &[write]);
        let at = format!("{what} lost, rebuild {rebuild}");
        assert_eq!(ssd.totals().completed, 1, "{at}");
        let r = ssd.obs.raid;
        assert_eq!(r.full + r.rmw + r.rcw + r.fresh + r.plain, 1, "{at}: one write, one stripe write: {r:?}");
        assert_eq!(
            (f.writes_absorbed, f.parity_skipped),
            ((pos == l.data_pos(s, 0)) as u64, (pos == l.parity_pos(s)) as u64),
            "{at}"
        );
        if rebuild {
            assert_eq!(f.chunks_lost_at_end, 0, "{at}: {f:?}");
        }
        assert!(ssd.totals().stripes_verified > 0, "{at}");
    }
}

#[test]
fn two_rebuild_stripes_at_once_halve_the_rebuild() {
    let mut c = four_plus_one();
    (c.fault.channel, c.fault.at_ns, c.fault.rebuild_stripes) = (Some(1), 0, 2);
    let (_, f2) = run(&c, &[]);
    c.fault.rebuild_stripes = 1;
    let (_, f1) = run(&c, &[]);
    let (t1, t2) = (f1.rebuilt_at_ns.unwrap(), f2.rebuilt_at_ns.unwrap());
    // Two stripes share the die of the replacement: the programs serialise,
    // the reads of the second overlap the first's program.
    assert!(t2 < t1 && t2 * 10 > t1 * 5, "one at a time {t1} ns, two {t2} ns");
    assert_eq!(f1.pages_rebuilt, f2.pages_rebuilt);
}

#[test]
fn a_second_failure_before_the_rebuild_ends_loses_the_stripes_on_both() {
    let mut c = four_plus_one();
    let (a, b) = (0, 3);
    (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns) = (Some(a), 0, 1_000_000_000);
    (c.fault.second_channel, c.fault.second_at_ns) = (Some(b), 1_000);
    // Independently: stripes with a chunk on both channels; their data chunks.
    let probe = Ssd::new(&c, Collector::new(5), false).unwrap();
    let (l, sl) = (probe.layout().clone(), probe.stripe_layout().clone());
    let on = |k: u32, ch: u32| probe.ftl.lookup(k).is_some_and(|p| l.channel_of(p) == ch);
    let mut want = Vec::new();
    let mut stripes = 0;
    for s in 0..sl.stripes {
        let ks: Vec<u32> = (s * 5..s * 5 + 5).collect();
        let (ka, kb) = (ks.iter().find(|&&k| on(k, a)), ks.iter().find(|&&k| on(k, b)));
        if let (Some(&ka), Some(&kb)) = (ka, kb) {
            stripes += 1;
            want.extend([ka, kb].into_iter().filter(|&k| !sl.is_parity(k)));
        }
    }
    want.sort_unstable();
    assert!(stripes > 5);
    let reqs = [Request { time_ns: 5_000, offset: 0, size: 4096, device: 0, op: Op::Read }];
    let (ssd, f) = run(&c, &reqs);
    let second = f.second.expect("the second failure happened");
    assert_eq!(second.outcome, "data_loss");
    assert_eq!((second.chunks_lost, second.stripes_lost), (want.len() as u64, stripes));
    assert_eq!(second.first_chunks, want[..want.len().min(20)]);
    let lost = format!("ended: {} chunks of {stripes} stripes are lost for good; the run stopped there", want.len());
    assert!(ssd.notes.iter().any(|n| n.contains(&lost)), "{lost}: {:?}", ssd.notes);
    assert!(ssd.obs.latency_all().count() == 0, "the run stopped at the loss, before the read");
}

/// Two channels of stripe groups apart (4-wide stripes over 8 channels,
/// each stripe within channels 0-3 or 4-7) share no stripe: a second
/// failure before the rebuild ends loses nothing, and says so rather than
/// "data_loss"; two failed channels at once are not modelled, so the run
/// still stops.
#[test]
fn a_second_failure_sharing_no_stripe_loses_nothing() {
    let mut c = tiny(8, 1, 1, 64, 16, Some(4));
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    let (a, b) = (1, 6);
    (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns) = (Some(a), 0, 1_000_000_000);
    (c.fault.second_channel, c.fault.second_at_ns) = (Some(b), 1_000);
    // Independently: no stripe has a chunk on both channels (and some on each).
    let probe = Ssd::new(&c, Collector::new(8), false).unwrap();
    let (l, sl) = (probe.layout().clone(), probe.stripe_layout().clone());
    let on = |k: u32, ch: u32| probe.ftl.lookup(k).is_some_and(|p| l.channel_of(p) == ch);
    let both = (0..sl.stripes).filter(|s| (s * 4..s * 4 + 4).any(|k| on(k, a)) && (s * 4..s * 4 + 4).any(|k| on(k, b)));
    assert_eq!(both.count(), 0, "the premise: stripe groups apart");
    assert!((0..sl.chunks() as u32).any(|k| on(k, a)) && (0..sl.chunks() as u32).any(|k| on(k, b)));
    let reqs = [Request { time_ns: 5_000, offset: 0, size: 4096, device: 0, op: Op::Read }];
    let (ssd, f) = run(&c, &reqs);
    let second = f.second.expect("the second failure happened");
    assert_eq!(second.outcome, "no_shared_stripe");
    assert_eq!((second.chunks_lost, second.stripes_lost), (0, 0));
    assert!(f.chunks_lost_at_end > 0, "the first channel's chunks were still lost");
    let notes = &ssd.notes;
    assert!(notes.iter().any(|n| n.contains("nothing is lost") && n.contains("not modelled")), "{notes:?}");
    assert!(ssd.obs.latency_all().count() == 0, "the run stopped at the second failure");
}

/// Under a write-heavy load with GC, a failure, a replacement and a rebuild:
/// every chunk that was or became lost is rebuilt, rewritten by the host or
/// still lost; and `--verify` sees every read return its latest version.
#[test]
fn lost_chunks_are_conserved_under_load_with_gc() {
    let mut c = tiny(5, 2, 1, 48, 16, Some(5));
    gc_from_start(&mut c);
    c.geometry.over_provisioning = 0.2;
    c.precondition.valid = 0.7;
    c.precondition.invalid = 0.1;
    (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns, c.fault.rebuild_stripes) =
        (Some(4), 2_000_000, 3_000_000, 2);
    let cap = rainsim_model::run::capacity_bytes(&c);
    let mut reqs = Vec::new();
    let mut x = 12345u64;
    for i in 0..3_000u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let page = (x >> 33) % (cap / 4096 - 4);
        let op = if (x >> 20).is_multiple_of(3) { Op::Read } else { Op::Write };
        let pages = 1 + (x >> 40) % 3;
        // One request in four writes pages in part (a sector in, a sector short).
        let part = if (x >> 50).is_multiple_of(4) { 512 } else { 0 };
        let size = pages as u32 * 4096 - part as u32;
        reqs.push(Request { time_ns: i * 20_000, offset: page * 4096 + part, size, device: 0, op });
    }
    let (ssd, f) = run(&c, &reqs);
    assert_eq!(
        f.chunks_lost_at_failure + f.chunks_lost_after_failure,
        f.pages_rebuilt + f.rewritten_by_host + f.chunks_lost_at_end
    );
    assert_eq!(f.chunks_lost_at_end, 0);
    assert!(f.reads_reconstructed > 0 && f.writes_absorbed + f.parity_skipped > 0, "{f:?}");
    assert_eq!(ssd.totals().completed, reqs.len() as u64);
}

/// Every scheme (each of its policy axes) survives a failure, a replacement
/// and a rebuild under `--verify`, with stripes narrower than the channels
/// (3+1 on 8) and as wide (4+1 on 5), of a channel or of one die. Schemes
/// that replicate are refused with `[fault]` (replicas have no rebuild), and
/// the refusal must say so rather than run a wrong model.
#[test]
fn every_scheme_runs_through_a_failure_and_its_rebuild_under_verify() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs/schemes");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    let priorities = [RebuildPriority::Low, RebuildPriority::High, RebuildPriority::Background];
    for (i, name) in names.iter().enumerate() {
        for (j, (m, k, die)) in [(8, 4, false), (5, 5, false), (5, 5, true)].into_iter().enumerate() {
            let mut c = tiny(m, 2, 1, 48, 16, Some(k));
            gc_from_start(&mut c);
            c.geometry.over_provisioning = 0.2;
            (c.precondition.valid, c.precondition.invalid) = (0.6, 0.1);
            c.policy = scheme(name).policy;
            (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns, c.fault.rebuild_stripes) =
                (Some(m - 2), 3_000_000, 2_000_000, 4);
            // Every scheme under each priority of the rebuild's reads.
            c.fault.rebuild_priority = priorities[(i + j) % 3];
            if die {
                // The second die of that channel instead.
                (c.fault.channel, c.fault.die) = (None, Some((m - 2) * 2 + 1));
            }
            let cap = rainsim_model::run::capacity_bytes(&c);
            let reqs: Vec<Request> = (0..2_000u64)
                .map(|i| {
                    let page = (i * 7919) % (cap / 4096 - 2);
                    let op = if i % 3 == 0 { Op::Write } else { Op::Read };
                    Request { time_ns: i * 15_000, offset: page * 4096, size: 4096, device: 0, op }
                })
                .collect();
            if !c.policy.replication.is_none() {
                let e = Ssd::for_requests(&c, Collector::new(m), true, &reqs).err().expect("refused");
                assert!(e.to_string().contains("[fault]"), "scheme {name}: {e}");
                continue;
            }
            let mut ssd = Ssd::for_requests(&c, Collector::new(m), true, &reqs).unwrap();
            ssd.run(&reqs, &mut |_| {}).unwrap_or_else(|e| panic!("scheme {name}, {k} of {m}, die {die}: {e}"));
            let f = ssd.fault_report().unwrap();
            assert_eq!(f.chunks_lost_at_end, 0, "scheme {name}, {k} of {m}: {f:?}");
            assert!(f.reads_reconstructed > 0 && f.pages_rebuilt > 0, "scheme {name}, {k} of {m}: {f:?}");
        }
    }
}

/// A die fails instead of its channel: reads of its chunks are rebuilt (one
/// partner read + XOR on an idle device), writes go to the channel's other
/// die (nothing absorbed in parity), and the rebuild puts exactly the die's
/// chunks back on its channel.
#[test]
fn a_failed_die_loses_only_its_chunks_and_its_channel_keeps_taking_writes() {
    let mut c = tiny(5, 2, 1, 48, 16, Some(5));
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    (c.timing.read_ns, c.timing.program_ns, c.timing.command_ns, c.timing.xor_ns) = (T_R, T_PROG, 300, T_XOR);
    let probe = Ssd::new(&c, Collector::new(5), false).unwrap();
    let s = full_stripe(&probe);
    let chunk = s * 5 + probe.stripe_layout().data_pos(s, 0);
    let die = probe.layout().die_of(probe.ftl.lookup(chunk).unwrap());
    let ch = probe.layout().channel_of_die(die);
    let on_die = probe.ftl.chunks_on_dies(die, 1);
    assert!(on_die.len() > 10 && on_die.len() < probe.ftl.chunks_on_channel(ch).len());
    drop(probe);
    // Idle: the read costs one partner read and the XOR.
    (c.fault.die, c.fault.at_ns, c.fault.rebuild) = (Some(die), 0, false);
    let offset = s as u64 * 4 * 4096;
    let read = [Request { time_ns: 1_000, offset, size: 4096, device: 0, op: Op::Read }];
    let (ssd, f) = run(&c, &read);
    assert_eq!(ssd.obs.latency[0].max, T_R + XFER + T_XOR);
    assert_eq!((f.die, f.channel, f.chunks_lost_at_failure), (Some(die), ch, on_die.len() as u64));
    // A write of the lost chunk lands on the channel's other die at once.
    let write = [Request { time_ns: 1_000, offset, size: 4096, device: 0, op: Op::Write }];
    let (ssd, f) = run(&c, &write);
    assert_eq!((f.writes_absorbed, f.parity_skipped, f.chunks_lost_at_end), (0, 0, on_die.len() as u64 - 1));
    let p = ssd.ftl.lookup(chunk).unwrap();
    assert_eq!(ssd.layout().channel_of(p), ch);
    assert_ne!(ssd.layout().die_of(p), die);
    // The rebuild: exactly the die's chunks, back on its channel.
    c.fault.rebuild = true;
    let (ssd, f) = run(&c, &[]);
    assert_eq!((f.pages_rebuilt, f.chunks_lost_at_end), (on_die.len() as u64, 0));
    for &k in &on_die {
        assert_eq!(ssd.layout().channel_of(ssd.ftl.lookup(k).unwrap()), ch, "chunk {k}");
    }
}

#[test]
fn fault_keys_are_checked() {
    let c = four_plus_one();
    let bad = |f: &dyn Fn(&mut Config)| {
        let mut c = c.clone();
        f(&mut c);
        c.validate().unwrap_err().0
    };
    assert!(bad(&|c| c.fault.channel = Some(5)).contains("fault.channel = 5"));
    assert!(bad(&|c| c.fault.die = Some(5)).contains("fault.die = 5"));
    assert!(bad(&|c| (c.fault.channel, c.fault.die) = (Some(1), Some(1))).contains("both set"));
    assert!(bad(&|c| c.fault.second_channel = Some(1)).contains("needs fault.channel"));
    assert!(bad(&|c| (c.fault.channel, c.fault.second_channel) = (Some(1), Some(1))).contains("first failure"));
    assert!(bad(&|c| (c.fault.channel, c.fault.rebuild_stripes) = (Some(1), 0)).contains("rebuild_stripes"));
    assert!(bad(&|c| {
        c.fault.channel = Some(1);
        c.raid.level = RaidLevel::None;
    })
    .contains("raid5"));
}

/// Programs queued on a channel when it fails still complete (the drain),
/// even when they need GC on it first: under a write-heavy load on an aged
/// device, failures at many moments never leave a request unfinished.
#[test]
fn failures_at_any_moment_drain_and_finish_every_request() {
    for seed in 0..96u64 {
        // Two dies a channel: one may still collect when the other drains.
        let mut c = tiny(4, 1 + (seed % 2) as u32, 1, 24, 16, Some(4));
        gc_from_start(&mut c);
        c.geometry.over_provisioning = 0.2;
        (c.precondition.valid, c.precondition.invalid) = (0.72, 0.1);
        let at = 1_000_000 + seed * 397_000;
        (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns, c.fault.rebuild_stripes) =
            (Some((seed % 4) as u32), at, (seed % 3) * 1_000_000, 1 + (seed % 4) as u32);
        c.fault.rebuild_priority =
            [RebuildPriority::Low, RebuildPriority::High, RebuildPriority::Background][(seed / 4 % 3) as usize];
        let pages = rainsim_model::run::capacity_bytes(&c) / 4096 - 2;
        let x0 = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let reqs = crate::xorshift_requests(x0, 1_500, 8_000, pages, 5, |x| 4096 * (1 + (x >> 60) as u32 % 2));
        let mut ssd = Ssd::for_requests(&c, Collector::new(4), true, &reqs).unwrap();
        ssd.run(&reqs, &mut |_| {}).unwrap_or_else(|e| panic!("seed {seed}, failure at {at} ns: {e}"));
        let f = ssd.fault_report().unwrap();
        assert!(f.replaced_at_ns.is_some() && f.chunks_lost_at_end == 0, "seed {seed}: {f:?}");
    }
}

/// `fault.rebuild_priority = "high"` puts the rebuild's reads at the queue
/// heads: with host reads queued on every channel when the replacement goes
/// in, the rebuild ends sooner than with its reads at the tails (`"low"`,
/// the default), and the host reads end later.
#[test]
fn a_high_priority_rebuild_reads_ahead_of_queued_host_reads() {
    let mut ends = Vec::new();
    for priority in [RebuildPriority::Low, RebuildPriority::High] {
        let mut c = four_plus_one();
        (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns) = (Some(2), 0, 5_000);
        c.fault.rebuild_priority = priority;
        let read = |p: u64| Request { time_ns: 4_000, offset: p * 4096, size: 4096, device: 0, op: Op::Read };
        let reqs: Vec<Request> = (0..60).map(read).collect();
        let (ssd, f) = run(&c, &reqs);
        assert_eq!(f.replaced_at_ns, Some(5_000), "{priority:?}");
        assert_eq!(f.chunks_lost_at_end, 0, "{priority:?}");
        ends.push((f.rebuilt_at_ns.unwrap(), ssd.obs.latency[0].max));
    }
    let [(low_rebuilt, low_read), (high_rebuilt, high_read)] = ends[..] else { unreachable!() };
    assert!(high_rebuilt < low_rebuilt, "rebuilt at {high_rebuilt} ns (high) against {low_rebuilt} ns (low)");
    assert!(high_read > low_read, "slowest read {high_read} ns (high) against {low_read} ns (low)");
}

/// `fault.rebuild_priority = "background"` lets host programs pass the
/// rebuild's reads, which under read priority (the default) the tails
/// (`"low"`) do not: with full-stripe host writes queued on every channel
/// when the replacement goes in, the rebuild ends later and the writes end
/// sooner than at the tails; every lost chunk is rebuilt all the same.
#[test]
fn a_background_rebuild_lets_host_programs_pass() {
    let mut ends = Vec::new();
    for priority in [RebuildPriority::Low, RebuildPriority::Background] {
        let mut c = four_plus_one();
        (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns, c.fault.rebuild_stripes) = (Some(2), 0, 5_000, 8);
        c.fault.rebuild_priority = priority;
        // Programs as fast as reads: the rebuild waits on its reads, not on
        // the replacement's programs.
        c.timing.program_ns = T_R;
        // Full stripes (4 data pages): no pre-reads, programs only.
        let write = |s: u64| Request { time_ns: 5_000, offset: s * 4 * 4096, size: 4 * 4096, device: 0, op: Op::Write };
        let reqs: Vec<Request> = (0..20).map(write).collect();
        let (ssd, f) = run(&c, &reqs);
        assert_eq!(f.replaced_at_ns, Some(5_000), "{priority:?}");
        assert_eq!(f.chunks_lost_at_end, 0, "{priority:?}");
        assert_eq!(ssd.obs.latency[1].count(), 20, "{priority:?}");
        ends.push((f.rebuilt_at_ns.unwrap(), ssd.obs.latency[1].max));
    }
    let [(low_rebuilt, low_write), (bg_rebuilt, bg_write)] = ends[..] else { unreachable!() };
    assert!(bg_rebuilt > low_rebuilt, "rebuilt at {bg_rebuilt} ns (background) against {low_rebuilt} ns (low)");
    assert!(bg_write < low_write, "slowest write {bg_write} ns (background) against {low_write} ns (low)");
}

/// The replacement goes in `fault.replace_after_ns` after the failure, not
/// earlier when the failed channel has drained and other I/O completes.
#[test]
fn the_replacement_waits_for_its_time_while_other_io_completes() {
    let mut c = four_plus_one();
    (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns) = (Some(2), 5_000, 1_000_000);
    let reqs: Vec<Request> = (0..8)
        .map(|p| Request { time_ns: 10_000 + p * 50_000, offset: p * 4096, size: 4096, device: 0, op: Op::Read })
        .collect();
    let (ssd, f) = run(&c, &reqs);
    assert!(
        ssd.obs.latency[0].count() == 8 && ssd.obs.latency[0].max < 200_000,
        "the reads end before the replacement"
    );
    assert_eq!(f.replaced_at_ns, Some(1_005_000));
}

/// A failed channel's replacement waits for the programs queued on it before
/// the failure: five full stripes written at once queue five programs on
/// every channel, and the channel failing while the first runs is replaced
/// only after the fifth.
#[test]
fn a_replacement_waits_for_the_programs_queued_on_the_failed_channel() {
    let mut c = four_plus_one();
    (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns) = (Some(2), 100_000, 0);
    let reqs = [Request { time_ns: 1_000, offset: 0, size: 20 * 4096, device: 0, op: Op::Write }];
    let (_, f) = run(&c, &reqs);
    let replaced = f.replaced_at_ns.unwrap();
    assert!(replaced > 100_000 + 4 * T_PROG, "replaced at {replaced} ns");
}

/// A second failure after the rebuild ended loses nothing: the outcome says
/// the first was rebuilt, and the run goes on (the later read completes).
#[test]
fn a_second_failure_after_the_rebuild_loses_nothing() {
    let mut c = four_plus_one();
    (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns) = (Some(0), 0, 0);
    (c.fault.second_channel, c.fault.second_at_ns) = (Some(3), 400_000_000);
    let reqs = [Request { time_ns: 500_000_000, offset: 0, size: 4096, device: 0, op: Op::Read }];
    let (ssd, f) = run(&c, &reqs);
    assert!(f.rebuilt_at_ns.is_some_and(|t| t < 400_000_000), "{f:?}");
    let second = f.second.expect("the second failure happened");
    assert_eq!(second.outcome, "rebuilt_first");
    assert_eq!((second.chunks_lost, second.stripes_lost), (0, 0));
    assert_eq!(ssd.obs.latency_all().count(), 1, "the run went on");
}
