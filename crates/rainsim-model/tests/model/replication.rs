//! The replication axis (rep-raid and its baselines): Eq. 2's threshold and
//! Eq. 3's window by hand, a replica write's exact latency against the RMW it
//! replaces, CR5M's whole-stripe conversion, FusionRAID's idle conversion,
//! GC-time reorganisation kept consistent, and verification mode for the
//! four schemes on every shared trace.

use super::*;
use crate::{preset, run_verified, scheme, trace_files};
use rainsim_model::flash::op::Origin;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::policy::rep_raid::{threshold, window_len, Matching, RepRaid, RepRaidParams, WindowSums};
use rainsim_model::policy::{Replication, ReplicationKind};
use rainsim_model::run::capacity_bytes;
use rainsim_model::testkit::Bench;
use rainsim_trace::Request;

const T_R: u64 = 20_000;
const T_PROG: u64 = 500_000;
const T_XOR: u64 = 19_000;
const T_SOFT: u64 = 1_820_000;
const XFER: u64 = 10_240 + 300;

/// Eq. 2 on per-replicated-chunk estimates: (δ·t̄_GC + α·t̄_Reorg − t̄_R) /
/// (t_XOR + t_Soft), clamped to the 2-bit counter's [1, 4]; T* = T / f* (Eq. 3).
#[test]
fn eq2_threshold_and_eq3_window_by_hand() {
    let ms = 1e6;
    // 10 replicated chunks: 30 ms of GC on their pages, 5 ms of
    // reorganisation, 1 ms saved by replica reads; t_XOR + t_Soft = 1.839 ms.
    let s = WindowSums { replicated: 10, gc_ns: 30.0 * ms, reorg_ns: 5.0 * ms, saved_ns: 1.0 * ms };
    let f = threshold(&s, 1.839 * ms).unwrap();
    assert!((f - (3.0 + 0.5 - 0.1) / 1.839).abs() < 1e-9, "f* = {f}");
    assert_eq!(window_len(1024, f), 554, "1024 / 1.8488 = 553.9 requests");
    // Clamped: a huge GC cost stops replication (f* = 4 > any 2-bit count);
    // savings larger than the costs replicate every update (f* = 1).
    let big = WindowSums { gc_ns: 1e6 * ms, ..s };
    assert_eq!(threshold(&big, 1.839 * ms), Some(4.0));
    let cheap = WindowSums { saved_ns: 100.0 * ms, ..s };
    assert_eq!(threshold(&cheap, 1.839 * ms), Some(1.0));
    // Nothing replicated: no estimate, f* stays.
    assert_eq!(threshold(&WindowSums::default(), 1.839 * ms), None);
    assert_eq!(window_len(1024, 4.0), 256);
}

/// Counters count a chunk's updates in the current window only: with f* = 2
/// over windows of T* = 4 / 2 = 2 requests, the second update in a window
/// replicates and a new window starts from zero (no sweep).
#[test]
fn a_window_roll_resets_the_update_counters() {
    let b = Bench::new(4, 1);
    let p = RepRaidParams { window: 4, initial_threshold: 2.0, ..Default::default() };
    let mut m = RepRaid::new(&p, 64, 1_839_000);
    assert_eq!(m.window_len(), 2);
    let view = b.view();
    m.on_request();
    assert!(!m.replicate(&view, 5, 4096), "first update: count 1 < f* = 2");
    m.on_request();
    assert!(m.replicate(&view, 5, 4096), "second update in the window: count 2");
    assert_eq!(m.count(5), 2);
    m.on_request(); // the third request opens a new window
    assert_eq!(m.count(5), 0, "the roll cleared the count");
    // The roll re-estimated f* from a window that replicated one chunk at no
    // GC, reorganisation or read cost: Eq. 2 gives 0, clamped to 1.
    assert_eq!(m.threshold(), Some(1.0));
    assert_eq!(m.window_len(), 4);
    assert!(m.replicate(&view, 6, 4096), "f* = 1: a first update replicates");
    assert_eq!((m.count(5), m.count(6)), (0, 1), "each chunk counts on its own");
    // The counter saturates at 3 (2 bits).
    for _ in 0..5 {
        m.replicate(&view, 7, 4096);
    }
    assert_eq!(m.count(7), 3);
}

/// [`crate::three_plus_one`] with the timings this file's hand counts use.
fn three_plus_one(kind: &str, dies: u32) -> Config {
    let mut c = crate::three_plus_one(kind, dies);
    (c.timing.read_ns, c.timing.program_ns, c.timing.command_ns) = (T_R, T_PROG, 300);
    (c.timing.xor_ns, c.timing.stripe_overhead_ns) = (T_XOR, T_SOFT);
    c
}

fn write(time_ns: u64, page: u64) -> Request {
    Request { time_ns, offset: page * 4096, size: 4096, device: 0, op: Op::Write }
}

/// The logical page of data index `d` of the first fully written stripe.
fn page_of(c: &Config, d: u64) -> u64 {
    let probe = Ssd::new(c, Collector::new(c.geometry.channels), false).unwrap();
    full_stripe(&probe) as u64 * 3 + d
}

/// A one-page update: RMW reads old data and parity, XORs (t_XOR + t_Soft),
/// programs both; Rep-RAID at f* = 1 programs two copies on two channels in
/// parallel, with no pre-read, XOR or software time.
#[test]
fn a_replica_write_is_two_parallel_programs_without_preread_or_xor() {
    let base = three_plus_one("baseline", 1);
    let p = page_of(&base, 0);
    let rmw = run_verified(&base, &[write(1_000, p)]);
    assert_eq!(rmw.obs.latency[1].max, (T_R + XFER) + (T_XOR + T_SOFT) + (XFER + T_PROG));
    assert_eq!(rmw.obs.raid.xors, 1);
    let rep = run_verified(&three_plus_one("rep-raid", 1), &[write(1_000, p)]);
    assert_eq!(rep.obs.latency[1].max, XFER + T_PROG, "two programs on two channels at once");
    let r = rep.obs.replication;
    assert_eq!((r.replica_writes, r.new_replicas), (1, 1));
    assert_eq!((rep.obs.raid.rmw, rep.obs.raid.rcw, rep.obs.raid.prereads, rep.obs.raid.xors), (0, 0, 0, 0));
}

/// `policy.replicas.max_request_bytes` bounds CR5M's and FusionRAID's
/// "small" updates: at 4 KiB a one-page update replicates, a two-page one
/// (still a partial-stripe update of a 3+1 stripe) is a stripe write.
#[test]
fn cr5m_and_fusionraid_replicate_only_requests_up_to_max_request_bytes() {
    for (kind, dies) in [("cr5m", 2), ("fusionraid", 1)] {
        let mut c = three_plus_one(kind, dies);
        c.policy.replicas.max_request_bytes = 4096;
        let p = page_of(&c, 0);
        let one = run_verified(&c, &[write(1_000, p)]);
        assert_eq!((one.obs.replication.replica_writes, one.obs.raid.rmw + one.obs.raid.rcw), (1, 0), "{kind}");
        let two = run_verified(&c, &[Request { size: 8192, ..write(1_000, p) }]);
        assert_eq!((two.obs.replication.replica_writes, two.obs.raid.rmw + two.obs.raid.rcw), (0, 1), "{kind}");
    }
}

/// On an idle device every channel ties for copy B: the tie goes to the
/// channel after the slot's, so copies B spread as the slots do. One-page
/// updates of every data chunk of 8 written 3+1 stripes over 8 channels,
/// 2 ms apart, each replicated: channel c programs the copies A of the
/// chunks at home on c and the copies B of those at home on c − 1 (ties to
/// the lowest index gave channel 0 every copy B).
#[test]
fn copies_b_of_an_idle_device_spread_over_the_channels() {
    let mut c = tiny(8, 1, 1, 64, 16, Some(4));
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    c.policy = scheme("fusionraid").policy;
    let probe = Ssd::new(&c, Collector::new(8), false).unwrap();
    let l = probe.stripe_layout().clone();
    let written: Vec<u32> =
        (0..l.stripes).filter(|&s| (0..l.width).all(|j| probe.ftl.lookup(s * l.width + j).is_some())).take(8).collect();
    assert_eq!(written.len(), 8);
    let (mut want_a, mut want_b) = ([0u64; 8], [0u64; 8]);
    let mut reqs = Vec::new();
    for &s in &written {
        for d in 0..3 {
            let home = l.channel(s, l.data_pos(s, d));
            want_a[home as usize] += 1;
            want_b[((home + 1) % 8) as usize] += 1;
            reqs.push(write(1_000 + reqs.len() as u64 * 2_000_000, s as u64 * 3 + d as u64));
        }
    }
    let ssd = run_verified(&c, &reqs);
    assert_eq!(ssd.obs.replication.replica_writes, 24, "every update replicated");
    let per_channel = |o: Origin| ssd.obs.channels.iter().map(|ch| ch.ops[o as usize]).collect::<Vec<u64>>();
    assert_eq!(per_channel(Origin::HostProgram), want_a, "copies A (host programs) per channel");
    assert_eq!(per_channel(Origin::ReplicaProgram), want_b, "copies B (replica programs) per channel");
    let programs: Vec<u64> = want_a.iter().zip(want_b).map(|(a, b)| a + b).collect();
    assert!(*programs.iter().max().unwrap() <= 2 * 48 / 8, "no channel takes twice its share: {programs:?}");
}

/// CR5M: each data chunk of a stripe updated once becomes replicated (copy
/// and mirror on two dies of its channel); the third makes the whole stripe
/// replicated, and it converts: the copies' XOR is the new parity, the
/// copies take their slots, the table empties.
#[test]
fn cr5m_converts_a_stripe_once_all_its_chunks_are_replicated() {
    let c = three_plus_one("cr5m", 2);
    let p0 = page_of(&c, 0);
    let reqs: Vec<Request> = (0..3).map(|d| write(1_000 + d * 5_000_000, p0 + d)).collect();
    let ssd = run_verified(&c, &reqs);
    let r = ssd.obs.replication;
    assert_eq!(r.new_replicas, 3);
    assert_eq!((r.conversions_full_stripe, r.converted_chunks), (1, 3));
    assert_eq!(ssd.replication_report("cr5m").unwrap().entries_end, 0);
    // Pre-reads: none for the three replica writes, then the conversion's
    // three copies (no old parity, no old slot).
    let prereads: u64 = ssd.obs.channels.iter().map(|ch| ch.ops[Origin::PreRead as usize]).sum();
    assert_eq!(prereads, 3, "whole-stripe conversion reads its copies only");
    // Six copy programs (three copies A, the host's, and three copies B,
    // replication's own) and one parity program.
    let total = |o: Origin| ssd.obs.channels.iter().map(|ch| ch.ops[o as usize]).sum::<u64>();
    let programs = (total(Origin::HostProgram), total(Origin::ReplicaProgram), total(Origin::ParityProgram));
    assert_eq!(programs, (3, 3, 1));
    let report = ssd.replication_report("cr5m").unwrap();
    assert_eq!((report.threshold_end, report.counter_bytes_model), (None, 0), "no f* outside Rep-RAID");
    assert!(report.threshold_history.is_empty());
}

/// CR5M counts a chunk as replicated as soon as its replica write is
/// submitted, even while that write waits for its stripe (here behind an
/// update of another of its chunks, 1 µs earlier): the stripe converts then.
#[test]
fn cr5m_counts_a_replica_write_waiting_for_its_stripe() {
    let c = three_plus_one("cr5m", 2);
    let p0 = page_of(&c, 0);
    let times_pages = [(1_000, p0), (5_000_000, p0 + 1), (10_000_000, p0 + 1), (10_001_000, p0 + 2)];
    let reqs: Vec<Request> = times_pages.iter().map(|&(t, p)| write(t, p)).collect();
    let r = run_verified(&c, &reqs).obs.replication;
    assert_eq!(r.conversions_full_stripe, 1, "{r:?}");
}

/// The same three updates under FusionRAID (5 ms apart: never idle long
/// enough) and Rep-RAID (f* = 1) leave the stripe replicated: only CR5M
/// converts a stripe as its last chunk replicates.
#[test]
fn only_cr5m_converts_a_stripe_once_all_its_chunks_are_replicated() {
    for kind in ["fusionraid", "rep-raid"] {
        let c = three_plus_one(kind, 1);
        let p0 = page_of(&c, 0);
        let reqs: Vec<Request> = (0..3).map(|d| write(1_000 + d * 5_000_000, p0 + d)).collect();
        let ssd = run_verified(&c, &reqs);
        let r = ssd.obs.replication;
        assert_eq!((r.new_replicas, r.conversions_full_stripe, r.converted_chunks), (3, 0, 0), "{kind}");
        let report = ssd.replication_report(kind).unwrap();
        assert_eq!(report.entries_end, 3, "{kind}");
        assert_eq!(report.threshold_end.is_some(), kind == "rep-raid", "{kind}");
        assert_eq!(report.threshold_history.is_empty(), kind != "rep-raid", "{kind}");
    }
}

/// Above `policy.replicas.high_water` entries the oldest replica's stripe
/// converts back: with a mark of 2, the third replicated chunk of a stripe
/// (5 ms apart, never idle) converts all three, not the second.
#[test]
fn the_oldest_replica_converts_once_the_table_passes_its_high_water_mark() {
    let mut c = three_plus_one("fusionraid", 1);
    c.policy.replicas.high_water = 2;
    let p0 = page_of(&c, 0);
    let reqs: Vec<Request> = (0..3).map(|d| write(1_000 + d * 5_000_000, p0 + d)).collect();
    let ssd = run_verified(&c, &reqs);
    let r = ssd.obs.replication;
    assert_eq!((r.new_replicas, r.conversions_high_water, r.converted_chunks), (3, 1, 3));
    assert_eq!(ssd.replication_report("fusionraid").unwrap().entries_end, 0);
}

/// FusionRAID converts replicas back once the host has been idle for
/// `policy.replicas.idle_ns`, and not while requests keep coming; one idle
/// period converts every replicated stripe, one conversion after another.
#[test]
fn fusionraid_converts_during_idle_periods_only() {
    let c = three_plus_one("fusionraid", 1);
    let p = page_of(&c, 0);
    let read = |t: u64| Request { time_ns: t, offset: p * 4096, size: 4096, device: 0, op: Op::Read };
    // 10 ms idle (the default) between the update and the next request.
    let idle = run_verified(&c, &[write(1_000, p), read(30_000_000)]);
    let r = idle.obs.replication;
    assert_eq!((r.conversions_idle, r.converted_chunks), (1, 1));
    assert_eq!(r.replica_reads, 0, "the read found the chunk back in its stripe");
    // 5 ms later: still replicated, the read goes to a copy.
    let busy = run_verified(&c, &[write(1_000, p), read(5_000_000)]);
    let r = busy.obs.replication;
    assert_eq!((r.conversions_idle, r.converted_chunks, r.replica_reads), (0, 0, 1));
    // Updates of three stripes, then one idle period: each conversion, as it
    // ends with the host still idle, starts the next, so all three convert.
    let probe = Ssd::new(&c, Collector::new(c.geometry.channels), false).unwrap();
    let l = probe.stripe_layout();
    let pages: Vec<u64> = (0..l.stripes)
        .filter(|&s| (0..l.width).all(|j| probe.ftl.lookup(s * l.width + j).is_some()))
        .take(3)
        .map(|s| s as u64 * 3)
        .collect();
    let reqs: Vec<Request> = pages.iter().enumerate().map(|(i, &q)| write(1_000 + i as u64 * 1_000, q)).collect();
    let three = run_verified(&c, &[reqs, vec![read(30_000_000)]].concat());
    let r = three.obs.replication;
    assert_eq!((r.new_replicas, r.conversions_idle, r.converted_chunks), (3, 3, 3));
    // The table peaked at 3 entries of 8 bytes (a chunk id and a copy pair).
    let rep = three.replication_report("fusionraid").unwrap();
    assert_eq!((rep.max_entries, rep.max_table_bytes, rep.entries_end), (3, 24, 0));
    assert_eq!(rep.counts, r, "the report carries the collector's counts");
}

/// Rep-RAID under GC on a small device, its footprint most of the logical
/// space: GC moves old slots and copies (counted by role), reorganises by
/// both of Fig. 7's cases, and verification (parity = XOR of the slots,
/// copies equal and on two channels, every read the newest version) holds.
/// Any-chunk matching (the default) swaps slots between chunks in both
/// cases; same-chunk matching never does, and its map stays empty. With
/// reads rebuilt around collecting dies (GC-tolerant routing), the rebuilds
/// through stripes holding swapped chunks give the newest versions.
#[test]
fn rep_raid_under_gc_keeps_every_stripe_recoverable() {
    let plans = [(Matching::AnyChunk, false), (Matching::SameChunk, false), (Matching::AnyChunk, true)];
    for (matching, rebuild) in plans {
        let mut c = tiny(4, 1, 1, 32, 16, Some(4));
        c.geometry.over_provisioning = 0.25;
        c.policy = scheme("rep-raid").policy;
        c.policy.rep_raid.matching = matching;
        if rebuild {
            c.policy.read_routing = rainsim_model::policy::ReadRoutingKind::GcTolerant;
        }
        let mut reqs = Vec::new();
        let mut x = 12345u64;
        for i in 0..6_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let page = (x >> 33) % 900;
            reqs.push(write(1_000 + i * 3_000_000, page));
            if i % 4 == 0 {
                // Reads, checked by verify mode, land on swapped chunks too.
                let op = Op::Read;
                reqs.push(Request {
                    time_ns: 2_000 + i * 3_000_000,
                    offset: (page / 2) * 4096,
                    size: 8192,
                    device: 0,
                    op,
                });
            }
        }
        let ssd = run_verified(&c, &reqs);
        let r = ssd.obs.replication;
        assert!(r.replica_writes > 0, "{r:?}");
        assert!(r.gc_moves_replica > 0 && r.gc_moves_semi_invalid > 0, "GC moved no replication page: {r:?}");
        // Both of Fig. 7's cases happen end to end, under verify (every read
        // checked, every stripe recoverable after each GC and at the end).
        assert!(r.reorg_case_a > 0 && r.reorg_case_b > 0 && r.reorg_ns > 0, "no reorganisation of each case: {r:?}");
        let map = ssd.replication_report("rep-raid").unwrap().stripe_map_max_entries;
        if matching == Matching::AnyChunk {
            assert!(r.reorg_case_a_swapped > 0 && r.reorg_case_b_swapped > 0, "{r:?}");
            assert!(map.unwrap() > 0);
        } else {
            assert_eq!((r.reorg_case_a_swapped, r.reorg_case_b_swapped, map), (0, 0, None));
        }
        assert_eq!(ssd.obs.raid.gc_tolerant_reads > 0, rebuild);
    }
}

/// Verify mode on every shared trace, GC from the first request, for the
/// four schemes and Rep-RAID's same-chunk ablation.
#[test]
fn verify_passes_for_every_replication_scheme_on_every_shared_trace_with_gc() {
    for s in ["baseline", "cr5m", "fusionraid", "rep-raid", "rep-raid same-chunk"] {
        let mut cfg = preset("degraded-mode-8ch");
        cfg.policy = scheme(s.split(' ').next().unwrap()).policy;
        if s.ends_with("same-chunk") {
            cfg.policy.rep_raid.matching = Matching::SameChunk;
        }
        crate::gc_from_start(&mut cfg);
        let (mut replicated, mut swapped, mut reorganised) = (0, 0, 0);
        for path in trace_files() {
            let at = format!("{s}, {}", path.display());
            let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes)
                .unwrap_or_else(|e| panic!("{e}"));
            let mut ssd = Ssd::new(&cfg, Collector::new(cfg.geometry.channels), true).unwrap();
            let totals = ssd.run(&trace.requests, &mut |_| {}).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(totals.completed, trace.requests.len() as u64, "{at}");
            replicated += ssd.obs.replication.replica_writes;
            swapped += ssd.obs.replication.reorg_case_a_swapped + ssd.obs.replication.reorg_case_b_swapped;
            reorganised += ssd.obs.replication.reorg_case_a + ssd.obs.replication.reorg_case_b;
        }
        let on = cfg.policy.replication != ReplicationKind::None;
        assert_eq!(replicated > 0, on, "{s}: replica writes {replicated}");
        assert_eq!(swapped > 0, s == "rep-raid", "{s}: any-chunk reorganisations {swapped}");
        // Only Rep-RAID's GC reorganises stripes (§3.3); CR5M and FusionRAID convert.
        assert_eq!(reorganised > 0, s.starts_with("rep-raid"), "{s}: reorganisations {reorganised}");
    }
}

/// A full-stripe write over a replicated chunk retires its copies: a later
/// read of the chunk goes to its slot, not to a (stale) copy.
#[test]
fn a_stripe_write_over_a_replicated_chunk_retires_its_copies() {
    let c = three_plus_one("rep-raid", 1);
    let p = page_of(&c, 0);
    let read = |t: u64| Request { op: Op::Read, ..write(t, p) };
    let replicated = run_verified(&c, &[write(1_000, p), read(10_000_000)]);
    assert_eq!(replicated.obs.replication.replica_reads, 1, "the update replicated");
    let full = Request { size: 3 * 4096, ..write(10_000_000, p) };
    let ssd = run_verified(&c, &[write(1_000, p), full, read(20_000_000)]);
    assert_eq!(ssd.obs.raid.full, 1);
    assert_eq!(ssd.obs.replication.replica_reads, 0, "read from a retired copy");
}

/// Replication runs only where a replication scheme meets parity stripes:
/// a 3+1 baseline and a Rep-RAID device without RAID neither replicate nor
/// report a replication section (the latter writes plainly); Rep-RAID on
/// 3+1 does both.
#[test]
fn replication_runs_only_with_a_scheme_on_parity_stripes() {
    let base = three_plus_one("baseline", 1);
    let p = page_of(&base, 0);
    let mut plain = tiny(4, 1, 1, 64, 16, None);
    plain.precondition.valid = 0.5;
    plain.policy = scheme("rep-raid").policy;
    for (c, on) in [(base, false), (plain, false), (three_plus_one("rep-raid", 1), true)] {
        let ssd = run_verified(&c, &[write(1_000, p)]);
        assert_eq!(ssd.replication_report("rep-raid").is_some(), on, "{:?}", c.raid);
        assert_eq!(ssd.obs.replication.replica_writes, on as u64);
    }
}

/// CR5M's copies go to two dies of one channel: a device of one die a
/// channel is refused up front (it once ran, both copies on one die, and
/// only `--verify` noticed).
#[test]
fn cr5m_needs_two_dies_a_channel() {
    let one = three_plus_one("cr5m", 1);
    let e = Ssd::new(&one, Collector::new(4), false).err().expect("refused");
    assert!(e.to_string().contains("at least 2 dies a channel"), "{e}");
    assert!(Ssd::new(&three_plus_one("cr5m", 2), Collector::new(4), false).is_ok());
    assert!(Ssd::new(&three_plus_one("rep-raid", 1), Collector::new(4), false).is_ok());
}

/// Rotating GC binds each RAID-5 stripe to one die column; FusionRAID's and
/// Rep-RAID's copies take stripe slots on other channels' dies, outside it,
/// so either with rotation on a RAID-5 device is refused up front, naming
/// both keys. CR5M (copies on the slot's own channel) and no replication
/// run with it.
#[test]
fn rotating_gc_refuses_replication_that_leaves_the_stripes_die_column() {
    let rotating = |kind: &str| {
        let mut c = three_plus_one(kind, 2);
        c.ftl.rotating_gc = true;
        c
    };
    for kind in ["fusionraid", "rep-raid"] {
        let c = rotating(kind);
        assert_eq!(c.raid.level, RaidLevel::Raid5);
        let e = c.validate().expect_err(kind).to_string();
        assert!(e.contains("ftl.rotating_gc with policy.replication"), "{kind}: {e}");
        assert!(Ssd::new(&c, Collector::new(4), false).is_err(), "{kind}");
        assert!(three_plus_one(kind, 2).validate().is_ok(), "{kind} without rotation");
    }
    for kind in ["cr5m", "baseline"] {
        rotating(kind).validate().unwrap_or_else(|e| panic!("{kind}: {e}"));
    }
}

/// Replicas that outgrow a small device: under FusionRAID with no idle
/// period, every one-page update stays replicated (two copies beside its old
/// slot) until the table passes `policy.replicas.high_water` entries. With
/// the default mark a channel fills and the error blames the replicas and
/// names the key; with a low mark (the table then holds at most 8 + 64) the
/// oldest convert back and the same stream completes.
#[test]
fn replicas_that_fill_a_channel_are_named_as_the_cause() {
    let mut c = tiny(4, 1, 1, 48, 8, Some(4));
    c.geometry.over_provisioning = 0.25;
    c.ftl.gc_threshold = 0.05;
    c.policy = scheme("fusionraid").policy;
    let pages = capacity_bytes(&c) / 4096;
    // Updates 100 µs apart (no idle period) at pseudo-random pages.
    let mut x = 12345u64;
    let reqs: Vec<Request> = (0..6_000)
        .map(|i| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            write(1_000 + i * 100_000, (x >> 33) % pages)
        })
        .collect();
    let mut ssd = Ssd::for_requests(&c, Collector::new(4), true, &reqs).unwrap();
    let e = ssd.run(&reqs, &mut |_| {}).expect_err("the replicas fill a channel").to_string();
    assert!(
        e.contains("filled up with valid data")
            && e.contains("chunks are replicated")
            && e.contains("policy.replicas.high_water = 65536"),
        "{e}"
    );
    c.policy.replicas.high_water = 8;
    let mut ssd = Ssd::for_requests(&c, Collector::new(4), true, &reqs).unwrap();
    let totals = ssd.run(&reqs, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(totals.completed, 6_000);
    assert!(ssd.obs.replication.conversions_high_water > 0);
}
