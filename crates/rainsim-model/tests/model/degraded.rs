//! Degraded-mode scheduling and GC-tolerant reads: the policies' decisions on
//! hand-built channel states (costs checked against DM-Eq. 3–6 by hand), the
//! timing of a rebuilt read, and verification on every shared trace.

use crate::{full_stripe, preset, tiny, trace_files, Lat};
use rainsim_model::metrics::collector::Collector;
use rainsim_model::policy::queuing_cost::{read_costs, update_costs};
use rainsim_model::policy::{
    degraded_read::DegradedRead, degraded_update::DegradedUpdate, gc_tolerant_read::GcTolerantRead, ChunkUpdate,
    DeviceView, GcScope, Member, ParityUpdateKind, ReadRouting, ReadRoutingKind, ReadTarget, Route, UpdatePlacement,
    UpdatePlacementKind,
};
use rainsim_model::run::capacity_bytes;
use rainsim_model::testkit::Bench;
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};

/// A device state built by hand: `m` channels of `dies` dies, one plane
/// each, 3+1 stripes.
fn fixture(m: u32, dies: u32) -> Bench {
    Bench::from_config(tiny(m, dies, 1, 64, 16, Some(4)))
}

/// Queues `reads` reads (for the channel's first die) and `writes` programs on channel `ch`.
fn load(f: &mut Bench, ch: u32, reads: u32, writes: u32) {
    f.queue_reads(f.layout.first_die(ch), reads);
    f.queue_writes(ch, writes);
}

/// Timing of the hand-timed runs: 4 KiB pages at 400 MB/s.
const T_R: u64 = 20_000;
const T_PROG: u64 = 500_000;
const T_XOR: u64 = 19_000;
const XFER: u64 = 10_240 + 300; // the page transfer plus command cycles

/// An idle, half-written device of `m` single-die channels with 3+1 stripes
/// and the timing above.
fn timed(m: u32) -> rainsim_model::Config {
    let mut c = tiny(m, 1, 1, 64, 16, Some(4));
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    (c.timing.read_ns, c.timing.program_ns, c.timing.command_ns, c.timing.xor_ns) = (T_R, T_PROG, 300, T_XOR);
    c
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * b.abs().max(1.0)
}

/// Stripe on channels 0..3, target on channel 0; channels 4 and 5 are outside.
#[test]
fn congested_target_goes_degraded_and_the_reverse_stays_normal() {
    let mut f = fixture(6, 1);
    f.now = 10_000_000;
    let t_rd = (f.t.read + f.t.xfer) as f64;
    let t_wr = (f.t.xfer + f.t.program) as f64;
    let t_xor = f.cfg.timing.xor_ns as f64;
    let target = f.member_on(0, 0);
    let partners = [f.member_on(1, 1), f.member_on(2, 2), f.member_on(3, 3)];

    // Congested target (5 reads, 2 programs, one arrival per 100 µs), idle partners.
    load(&mut f, 0, 5, 2);
    f.arrivals(0, 50, 100_000);
    load(&mut f, 1, 1, 0);
    let rate = 50.0 / (50.0 * 100_000.0);
    let wait = 5.0 * t_rd + 2.0 * t_wr;
    let (t_a, t_b) = read_costs(&f.view(), &target, &partners);
    assert!(close(t_a, wait * (1.0 + t_rd * rate)), "Eq. 3: {t_a}");
    assert!(close(t_b, t_xor + t_rd), "Eq. 4: {t_b}");
    let read = ReadTarget { target, partners: &partners };
    assert_eq!(DegradedRead::default().route(&f.view(), &read), Route::Degraded);

    // Update: x is the idler of the outside channels 4 (3 queued) and 5 (1 queued).
    load(&mut f, 4, 3, 0);
    load(&mut f, 5, 0, 1);
    let u = ChunkUpdate { target, partners: &partners, outside: &[4, 5] };
    let (ua, ub) = update_costs(&f.view(), &target, &partners, 5);
    assert!(close(ua, wait * (1.0 + t_wr * rate) + t_wr), "Eq. 5: {ua}");
    assert!(close(ub, t_xor + t_rd + t_wr * 1.0 + t_wr), "Eq. 6: {ub}");
    assert_eq!(DegradedUpdate::default().place(&f.view(), &u), Some(5), "to the idlest channel outside the stripe");

    // The reverse: an idle target, loaded partners.
    let mut g = fixture(6, 1);
    g.now = 10_000_000;
    load(&mut g, 0, 1, 0);
    for ch in 1..4 {
        load(&mut g, ch, 3, 1);
    }
    let (t_a, t_b) = read_costs(&g.view(), &target, &partners);
    assert!(close(t_a, t_rd) && close(t_b, t_xor + t_rd * 12.0), "{t_a} vs {t_b}");
    let read = ReadTarget { target, partners: &partners };
    assert_eq!(DegradedRead::default().route(&g.view(), &read), Route::Normal);
    let u = ChunkUpdate { target, partners: &partners, outside: &[4, 5] };
    assert_eq!(DegradedUpdate::default().place(&g.view(), &u), None);
    // Outside channels with fewer erased blocks than the target's are not used.
    let full = f.ftl.planes[5].free.len() - 1;
    f.ftl.planes[5].free.truncate(full);
    assert_eq!(DegradedUpdate::default().place(&f.view(), &u), Some(4), "channel 5 has less free space");
    f.ftl.planes[4].free.truncate(full);
    assert_eq!(DegradedUpdate::default().place(&f.view(), &u), None);
    // No channel outside the stripe: no degraded update, however busy the target.
    load(&mut f, 0, 50, 50);
    let u = ChunkUpdate { target, partners: &partners, outside: &[] };
    assert_eq!(DegradedUpdate::default().place(&f.view(), &u), None);
}

/// A GC running on the target's die, or one its plane is due for, counts in
/// T_wait even with empty queues (DM-Eq. 1 and 7).
#[test]
fn gc_on_the_target_counts_in_its_wait() {
    let mut f = fixture(6, 1);
    f.now = 1_000_000;
    let target = f.member_on(0, 0);
    let partners = [f.member_on(1, 1), f.member_on(2, 2), f.member_on(3, 3)];
    load(&mut f, 1, 2, 0);
    let read = ReadTarget { target, partners: &partners };
    assert_eq!(DegradedRead::default().route(&f.view(), &read), Route::Normal, "idle target");
    // A GC with 2 ms left.
    f.dies[0].gc_until = Some(f.now + 2_000_000);
    let (t_a, _) = read_costs(&f.view(), &target, &partners);
    assert!(close(t_a, 2_000_000.0), "{t_a}");
    assert_eq!(DegradedRead::default().route(&f.view(), &read), Route::Degraded);
    // No GC running, but the plane is below its threshold: c = 1, and t_gc by
    // Eq. 7 from the channel's last GCs (10 and 20 moves, one erase each).
    f.dies[0].gc_until = None;
    let keep = f.ftl.gc_trigger_blocks as usize - 1;
    f.ftl.planes[0].free.truncate(keep);
    f.channels[0].gc_recent.record(10, 1);
    f.channels[0].gc_recent.record(20, 1);
    let t_gc = (f.t.read + f.t.program) as f64 * 15.0 + f.t.erase as f64;
    let (t_a, _) = read_costs(&f.view(), &target, &partners);
    assert!(close(t_a, t_gc), "{t_a} vs {t_gc}");
}

/// `policy.degraded.partner_gc`: a GC on a partner's die counts in T_B and
/// T'_B (off by default, as in Eq. 4), so a rebuild that would wait for it is
/// not chosen.
#[test]
fn partner_gc_counts_in_t_b_only_when_asked() {
    let mut f = fixture(6, 1);
    f.now = 1_000_000;
    let target = f.member_on(0, 0);
    let partners = [f.member_on(1, 1), f.member_on(2, 2), f.member_on(3, 3)];
    load(&mut f, 0, 20, 0); // T_A = 20 reads ≈ 1.3 ms
    f.dies[2].gc_until = Some(f.now + 5_000_000);
    let read = ReadTarget { target, partners: &partners };
    assert_eq!(DegradedRead::default().route(&f.view(), &read), Route::Degraded, "Eq. 4 ignores the partner's GC");
    assert_eq!(DegradedRead::new(true).route(&f.view(), &read), Route::Normal);
    let u = ChunkUpdate { target, partners: &partners, outside: &[4, 5] };
    assert_eq!(DegradedUpdate::new(false).place(&f.view(), &u), Some(4));
    assert_eq!(DegradedUpdate::new(true).place(&f.view(), &u), None);
    // The term is the longest remaining partner GC, exactly.
    f.dies[3].gc_until = Some(f.now + 7_000_000);
    assert_eq!(rainsim_model::policy::queuing_cost::partner_gc_ns(&f.view(), &partners), 7_000_000.0);
    // A partner GC 1 µs from its end adds 1 µs to T_B: the rebuild still wins.
    (f.dies[2].gc_until, f.dies[3].gc_until) = (Some(f.now + 1_000), None);
    assert_eq!(DegradedRead::new(true).route(&f.view(), &read), Route::Degraded);
    let mut place = DegradedUpdate::new(true);
    // Channels 4 and 5 tie: the choice goes round from the one after the last.
    let picks: Vec<Option<u32>> = (0..3).map(|_| place.place(&f.view(), &u)).collect();
    assert_eq!(picks, [Some(4), Some(5), Some(4)]);
}

#[test]
fn gc_tolerant_read_only_when_the_target_is_collecting() {
    let mut f = fixture(4, 2);
    let target = f.member_on(0, 0); // die 0 of channel 0
    let partners = [f.member_on(1, 1), f.member_on(2, 2), f.member_on(3, 3)];
    let read = ReadTarget { target, partners: &partners };
    let mut die = GcTolerantRead::new(GcScope::Die);
    let mut chan = GcTolerantRead::new(GcScope::Channel);
    // Heavy queues but no GC: normal.
    load(&mut f, 0, 40, 40);
    assert_eq!(die.route(&f.view(), &read), Route::Normal);
    // The other die of channel 0 collects: only the channel scope reacts.
    f.dies[1].gc_until = Some(5_000_000);
    assert_eq!(die.route(&f.view(), &read), Route::Normal);
    assert_eq!(chan.route(&f.view(), &read), Route::GcTolerant);
    // The target's own die collects.
    f.dies[0].gc_until = Some(5_000_000);
    assert_eq!(die.route(&f.view(), &read), Route::GcTolerant);
    // ... but a partner's die too: the rebuild would wait as well.
    f.dies[4].gc_until = Some(5_000_000);
    assert_eq!(die.route(&f.view(), &read), Route::Normal);
    // No partners given (the stripe is being written): normal.
    f.dies[4].gc_until = None;
    assert_eq!(die.route(&f.view(), &ReadTarget { target, partners: &[] }), Route::Normal);
}

/// GC-tolerant reads never touch writes: a write-only run is the baseline's.
#[test]
fn gc_tolerant_read_leaves_a_write_only_run_unchanged() {
    let mut cfg = preset("degraded-mode-8ch");
    crate::gc_from_start(&mut cfg);
    cfg.geometry.blocks_per_plane = 64;
    cfg.workload.requests = 3_000;
    cfg.workload.read_ratio = 0.0;
    let trace = rainsim_trace::generate(&cfg.workload, capacity_bytes(&cfg), cfg.seed).unwrap();
    let run = |routing| {
        let mut c = cfg.clone();
        c.policy.read_routing = routing;
        let mut ssd = Ssd::new(&c, Collector::new(c.geometry.channels), true).unwrap();
        ssd.run(&trace.requests, &mut |_| {}).unwrap();
        let o = ssd.obs;
        (o.latency_all().sum, o.raid.gc_tolerant_reads, o.channels.iter().map(|c| c.gc_count).sum::<u64>())
    };
    let (base, gt) = (run(ReadRoutingKind::Normal), run(ReadRoutingKind::GcTolerant));
    assert!(base.2 > 0, "GC ran");
    assert_eq!(gt.1, 0);
    assert_eq!(base, gt);
}

/// Always rebuild (to time a degraded read by hand).
struct AlwaysRebuild;
impl ReadRouting for AlwaysRebuild {
    fn route(&mut self, _: &DeviceView, _: &ReadTarget) -> Route {
        Route::Degraded
    }
}

/// On an idle 3+1 device a rebuilt read costs one partner read (the three run
/// in parallel on their channels) plus the XOR; a write to the stripe that
/// arrives meanwhile waits for the rebuild before its own phases.
#[test]
fn degraded_read_takes_a_partner_read_plus_xor_and_holds_off_writers() {
    let c = timed(4);
    let mut ssd = Ssd::new(&c, Lat::default(), true).unwrap();
    ssd.set_read_routing(Box::new(AlwaysRebuild));
    let pb = 4096u64;
    // The first stripe whose four chunks were all written by preconditioning.
    let s = full_stripe(&ssd);
    let offset = s as u64 * 3 * pb;
    let reqs = [
        Request { time_ns: 0, offset, size: pb as u32, device: 0, op: Op::Read },
        Request { time_ns: 1_000, offset, size: pb as u32, device: 0, op: Op::Write },
    ];
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let rebuild = T_R + XFER + T_XOR;
    // The write (RCW: one data chunk, 2 vs 2 pre-reads) starts at the rebuild's end.
    let write_end = rebuild + (T_R + XFER) + T_XOR + (XFER + T_PROG);
    assert_eq!(ssd.obs.0, vec![(Op::Read, rebuild), (Op::Write, write_end - 1_000)]);
}

/// Request latencies and the number of rebuilt reads.
#[derive(Default)]
struct Probe {
    lat: Vec<(Op, u64)>,
    rebuilt: u32,
}
impl rainsim_model::metrics::observer::Observer for Probe {
    fn request_done(&mut self, _slot: u32, op: Op, arrival: u64, done: u64, _bytes: u32) {
        self.lat.push((op, done - arrival));
    }
    fn degraded_read(&mut self, _gc_tolerant: bool, _reads: u32) {
        self.rebuilt += 1;
    }
}

/// A stream of reads to the stripe behind a waiting writer does not starve it:
/// once a write waits, later reads of the stripe are served directly (no new
/// degraded read joins the stripe's read share, which the write would have to
/// wait out), so only the first read is rebuilt and the write completes.
#[test]
fn writers_are_not_starved_by_a_stream_of_degraded_reads() {
    let c = timed(4);
    let mut ssd = Ssd::new(&c, Probe::default(), true).unwrap();
    ssd.set_read_routing(Box::new(AlwaysRebuild));
    let pb = 4096u64;
    let s = full_stripe(&ssd);
    let offset = s as u64 * 3 * pb;
    let read = |t: u64| Request { time_ns: t, offset, size: pb as u32, device: 0, op: Op::Read };
    let mut reqs = vec![read(0), Request { time_ns: 1_000, offset, size: pb as u32, device: 0, op: Op::Write }];
    // Six more reads of the stripe while the write waits for the first rebuild (it ends at
    // T_R + XFER + T_XOR = 49,540 ns).
    reqs.extend((1..=6).map(|i| read(1_000 + i * 2_000)));
    ssd.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.rebuilt, 1, "reads that arrive behind a waiting writer are not rebuilt");
    assert_eq!(ssd.obs.lat.len(), 8, "every request completed");
    // The first read completes as a rebuild would, untouched by what follows.
    assert!(ssd.obs.lat.contains(&(Op::Read, T_R + XFER + T_XOR)), "{:?}", ssd.obs.lat);
}

/// Rebuild one chunk's reads only.
struct RebuildChunk(u32);
impl ReadRouting for RebuildChunk {
    fn route(&mut self, _: &DeviceView, r: &ReadTarget) -> Route {
        if r.target.chunk == self.0 {
            Route::Degraded
        } else {
            Route::Normal
        }
    }
}

/// A degraded read's partner reads go to the heads of their queues (paper
/// §3.2, "serviced immediately"): with four reads queued on a partner's die,
/// the rebuild waits only for the read already running there, with or
/// without read priority (the FIFO unit tests cover a head read passing
/// older programs).
#[test]
fn degraded_partner_reads_go_to_the_queue_heads() {
    for read_priority in [true, false] {
        let mut c = timed(4);
        c.policy.read_priority = read_priority;
        let mut ssd = Ssd::new(&c, Lat::default(), false).unwrap();
        let l = ssd.stripe_layout().clone();
        let chan = |ssd: &Ssd<Lat>, chunk: u32| ssd.ftl.lookup(chunk).map(|p| ssd.layout().channel_of(p));
        // A fully written stripe, and the page of it on channel 0.
        let s = full_stripe(&ssd);
        let (target, lpn) = (0..3u64)
            .map(|d| (l.chunk_of_lpn(s as u64 * 3 + d).1, s as u64 * 3 + d))
            .find(|&(c, _)| chan(&ssd, c) == Some(0))
            .unwrap();
        // Five other pages on channel 1 (outside stripe s), read first.
        let busy: Vec<u64> = (0..l.logical_pages())
            .filter(|&p| p / 3 != s as u64 && chan(&ssd, l.chunk_of_lpn(p).1) == Some(1))
            .take(5)
            .collect();
        ssd.set_read_routing(Box::new(RebuildChunk(target)));
        let mut reqs: Vec<Request> = busy
            .iter()
            .map(|&p| Request { time_ns: 0, offset: p * 4096, size: 4096, device: 0, op: Op::Read })
            .collect();
        reqs.push(Request { time_ns: 1_000, offset: lpn * 4096, size: 4096, device: 0, op: Op::Read });
        ssd.run(&reqs, &mut |_| {}).unwrap();
        // The first busy read holds channel 1's die until tR + transfer; then
        // the partner read (at the tail it would wait for four more), XOR.
        let read = T_R + XFER;
        let rebuild = 2 * read + T_XOR - 1_000;
        let mut want: Vec<u64> = (1..=5).map(|i| i * read).collect();
        // The busy reads after the first wait one read more for the partner's.
        for w in &mut want[1..] {
            *w += read;
        }
        want.push(rebuild);
        want.sort();
        let mut got: Vec<u64> = ssd.obs.0.iter().map(|&(_, l)| l).collect();
        got.sort();
        assert_eq!(got, want, "read_priority {read_priority}");
    }
}

/// With the LDPC model on, the partner reads of a rebuild pay their pages'
/// read-retry level: here every page sits at level 1 (3 retries of 24 µs).
#[test]
fn degraded_read_partners_pay_their_ldpc_level() {
    let mut c = timed(4);
    c.ldpc.enabled = true;
    c.ldpc.retry_step_ns = 24_000;
    c.ldpc.retries = vec![0, 3];
    c.ldpc.rber_thresholds = vec![1e-9];
    let mut ssd = Ssd::new(&c, Lat::default(), false).unwrap();
    ssd.set_read_routing(Box::new(AlwaysRebuild));
    let s = full_stripe(&ssd);
    let reqs = [Request { time_ns: 0, offset: s as u64 * 3 * 4096, size: 4096, device: 0, op: Op::Read }];
    ssd.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.0, vec![(Op::Read, T_R + 3 * 24_000 + XFER + T_XOR)]);
}

type Offers = std::rc::Rc<std::cell::RefCell<Vec<(Member, Vec<Member>, Vec<u32>)>>>;

/// Moves every single-chunk update outside its stripe, recording what it was
/// offered: to the first channel offered, or (`rotate`) to each in turn.
#[derive(Default)]
struct MoveOut(Offers, bool);
impl UpdatePlacement for MoveOut {
    fn place(&mut self, _: &DeviceView, u: &ChunkUpdate) -> Option<u32> {
        let mut offers = self.0.borrow_mut();
        offers.push((u.target, u.partners.to_vec(), u.outside.to_vec()));
        let i = if self.1 { offers.len() % u.outside.len().max(1) } else { 0 };
        u.outside.get(i).copied()
    }
}

/// A degraded update on an idle 3+1 stripe over 6 channels: the old chunk is
/// rebuilt from the other three (in parallel), XOR, then the new chunk is
/// programmed on the channel outside the stripe while parity is rewritten on
/// its own. The chunk then lives there: a read goes there, and a second
/// update keeps the stripe on four distinct channels.
#[test]
fn degraded_update_moves_the_chunk_out_of_its_stripe() {
    let c = timed(6);
    let mut ssd = Ssd::new(&c, Lat::default(), true).unwrap();
    let seen = MoveOut::default();
    ssd.set_update_placement(Box::new(MoveOut(seen.0.clone(), false)));
    let s = full_stripe(&ssd);
    let layout = ssd.stripe_layout().clone();
    let channel_of = |ssd: &Ssd<Lat>, chunk: u32| ssd.layout().channel_of(ssd.ftl.lookup(chunk).unwrap());
    let (lpn, chunk) = (s as u64 * 3, layout.chunk_of_lpn(s as u64 * 3).1);
    let parity = layout.parity_chunk(s);
    let before: Vec<u32> = (0..4).map(|j| channel_of(&ssd, s * 4 + j)).collect();
    let parity_ch = channel_of(&ssd, parity);
    let req = |t, op| Request { time_ns: t, offset: lpn * 4096, size: 4096, device: 0, op };
    let gap = 100_000_000;
    ssd.run(&[req(0, Op::Write), req(gap, Op::Read), req(2 * gap, Op::Write)], &mut |_| {}).unwrap();
    let offers = seen.0.borrow();
    let (target, partners, outside) = &offers[0];
    assert_eq!(target.chunk, chunk);
    let mut stripe: Vec<u32> = partners.iter().map(|m| m.channel).chain([target.channel]).collect();
    stripe.sort();
    let mut want = before.clone();
    want.sort();
    assert_eq!(stripe, want, "partners are the other three chunks");
    assert_eq!(outside.len(), 2);
    assert!(outside.iter().all(|c| !before.contains(c)), "{outside:?} overlaps the stripe {before:?}");
    // After both updates: the chunk moved twice, parity stayed, four distinct channels.
    assert_eq!(offers.len(), 2);
    let second_out = &offers[1].2;
    assert!(second_out.contains(&target.channel), "the chunk's old channel is free again: {second_out:?}");
    assert_eq!(channel_of(&ssd, chunk), second_out[0]);
    assert_eq!(channel_of(&ssd, parity), parity_ch);
    let mut now: Vec<u32> = (0..4).map(|j| channel_of(&ssd, s * 4 + j)).collect();
    now.sort();
    now.dedup();
    assert_eq!(now.len(), 4);
    // Timing: rebuild reads in parallel, XOR, programs in parallel; then a plain read.
    let update = (T_R + XFER) + T_XOR + (XFER + T_PROG);
    assert_eq!(ssd.obs.0, vec![(Op::Write, update), (Op::Read, T_R + XFER), (Op::Write, update)]);
}

/// Beyond 64 channels (stripes rotating onto channels 64 and up) the channels
/// offered as outside a stripe still exclude all of its own, and verification
/// passes with every update moved.
#[test]
fn degraded_updates_stay_outside_their_stripe_beyond_64_channels() {
    let mut c = tiny(72, 1, 1, 16, 16, Some(4));
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    let mut ssd = Ssd::new(&c, Collector::new(72), true).unwrap();
    let seen = MoveOut::default();
    ssd.set_update_placement(Box::new(MoveOut(seen.0.clone(), true)));
    let cap = ssd.capacity_bytes() / 4096;
    let reqs: Vec<Request> = (0..3_000u64)
        .map(|i| Request { time_ns: i * 50_000, offset: (i * 7919 % cap) * 4096, size: 4096, device: 0, op: Op::Write })
        .collect();
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let offers = seen.0.borrow();
    assert!(offers.iter().any(|(t, _, _)| t.channel >= 64), "no update on a channel beyond 64");
    for (t, partners, outside) in offers.iter() {
        assert_eq!(outside.len(), 72 - 4);
        for m in partners.iter().chain([t]) {
            assert!(!outside.contains(&m.channel), "channel {} is in the stripe and offered as outside", m.channel);
        }
    }
    assert_eq!(ssd.obs.raid.degraded_updates, offers.len() as u64);
}

/// A placement that piles every update onto one channel fills it with valid
/// data; the run stops with an error naming the channel instead of stalling.
#[test]
fn a_channel_filled_by_placement_is_reported() {
    let mut c = tiny(8, 1, 1, 16, 16, Some(4));
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    let mut ssd = Ssd::new(&c, Collector::new(8), false).unwrap();
    ssd.set_update_placement(Box::new(MoveOut::default()));
    let cap = ssd.capacity_bytes() / 4096;
    let reqs: Vec<Request> = (0..2_000u64)
        .map(|i| Request { time_ns: i * 50_000, offset: (i * 7919 % cap) * 4096, size: 4096, device: 0, op: Op::Write })
        .collect();
    match ssd.run(&reqs, &mut |_| {}) {
        Err(e @ rainsim_model::SimError::ChannelFull { channel, waiting, .. }) => {
            assert!(e.to_string().contains("filled up") && e.to_string().contains("placement of updates"), "{e}");
            // The channel named is the full one: none of its dies takes a program.
            assert!(waiting > 0 && !ssd.ftl.die_takes_writes(channel), "channel {channel}, {waiting} waiting");
        }
        other => panic!("expected a full channel, got {other:?}"),
    }
}

#[test]
fn verify_passes_for_gc_tolerant_and_degraded_on_every_shared_trace_with_gc() {
    let mut dm8 = preset("degraded-mode-8ch");
    crate::gc_from_start(&mut dm8);
    // The 16-channel device with 5+1 stripes (the §4.3 variant).
    let mut dm16 = preset("degraded-mode-16ch");
    crate::gc_from_start(&mut dm16);
    dm16.raid.stripe_width = 6;
    let (mut moved, mut gcs) = (0, 0);
    for (base, read, place, parity) in [
        (&dm8, ReadRoutingKind::GcTolerant, UpdatePlacementKind::StripeChannel, ParityUpdateKind::FewestPrereads),
        (&dm8, ReadRoutingKind::Degraded, UpdatePlacementKind::Degraded, ParityUpdateKind::FewestPrereads),
        // Axes combine: degraded reads and updates with adaptive parity updates.
        (&dm8, ReadRoutingKind::Degraded, UpdatePlacementKind::Degraded, ParityUpdateKind::Adaptive),
        (&dm16, ReadRoutingKind::Degraded, UpdatePlacementKind::Degraded, ParityUpdateKind::FewestPrereads),
    ] {
        let mut cfg = base.clone();
        cfg.policy.read_routing = read;
        cfg.policy.update_placement = place;
        cfg.policy.parity_update = parity;
        let mut rebuilt = 0;
        for path in trace_files() {
            let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes)
                .unwrap_or_else(|e| panic!("{e}"));
            let mut ssd = Ssd::new(&cfg, Collector::new(cfg.geometry.channels), true).unwrap();
            let totals =
                ssd.run(&trace.requests, &mut |_| {}).unwrap_or_else(|e| panic!("{read:?} {}: {e}", path.display()));
            assert_eq!(totals.completed, trace.requests.len() as u64);
            let r = &ssd.obs.raid;
            rebuilt += r.degraded_reads + r.gc_tolerant_reads;
            moved += r.degraded_updates;
            gcs += ssd.obs.channels.iter().map(|c| c.gc_count).sum::<u64>();
        }
        assert!(rebuilt > 0, "{read:?}: no read was rebuilt on any trace");
    }
    assert!(moved > 0, "no degraded update was exercised");
    assert!(gcs > 0, "no GC ran on any trace");
}

/// `policy.degraded.decision_ns` is controller time charged once per host
/// request when the degraded read routing or update placement decides: on
/// an idle device a read and a one-chunk update each take exactly that much
/// longer under either policy alone or both (the larger of the two, not
/// their sum), and nothing longer without them.
#[test]
fn degraded_decision_time_is_charged_once_per_request() {
    let run = |read: ReadRoutingKind, place: UpdatePlacementKind| {
        let mut c = tiny(6, 1, 1, 64, 16, Some(6));
        c.precondition.valid = 0.5;
        c.geometry.over_provisioning = 0.2;
        (c.policy.read_routing, c.policy.update_placement) = (read, place);
        c.policy.degraded.decision_ns = 3_000;
        let mut ssd = Ssd::new(&c, Lat::default(), true).unwrap();
        let off = full_stripe(&ssd) as u64 * 5 * 4096;
        let reqs = [
            Request { time_ns: 0, offset: off, size: 4096, device: 0, op: Op::Read },
            Request { time_ns: 100_000_000, offset: off, size: 4096, device: 0, op: Op::Write },
        ];
        ssd.run(&reqs, &mut |_| {}).unwrap();
        ssd.obs.0.iter().map(|&(_, l)| l).collect::<Vec<u64>>()
    };
    let base = run(ReadRoutingKind::Normal, UpdatePlacementKind::StripeChannel);
    let plus = |d: u64| base.iter().map(|l| l + d).collect::<Vec<u64>>();
    assert_eq!(run(ReadRoutingKind::Degraded, UpdatePlacementKind::StripeChannel), plus(3_000), "degraded reads");
    assert_eq!(run(ReadRoutingKind::Normal, UpdatePlacementKind::Degraded), plus(3_000), "degraded updates");
    assert_eq!(run(ReadRoutingKind::Degraded, UpdatePlacementKind::Degraded), plus(3_000), "both");
}
