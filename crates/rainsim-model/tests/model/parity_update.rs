//! The parity-update policies on hand-built device states: the situation of
//! Fig. 5 of adaptive-parity-update (a 5+1 stripe, the write on CH0, parity
//! on CH5) and its mirror, with T_RMW and T_RCW evaluated here by hand from
//! Eq. 3–9; then, end to end, a loaded parity channel turning an update to
//! RCW under bpu and adaptive but not under the baseline.

use crate::{full_stripe, scheme, tiny, Lat};
use rainsim_model::metrics::collector::Collector;
use rainsim_model::policy::adaptive::{Adaptive, AdaptiveParams, Costs, RoutineCost};
use rainsim_model::policy::ParityUpdate;
use rainsim_model::raid::rmw_rcw::plan_stripe_write;
use rainsim_model::raid::rmw_rcw::{Member, Routine};
use rainsim_model::testkit::Bench;
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};

// Table II of the paper: read 0.045 ms (LDPC level 0), write 0.7 ms, erase 3.5 ms.
const T_READ: u64 = 45_000;
const T_PROG: u64 = 700_000;
const T_ERASE: u64 = 3_500_000;
// One 8 KiB page at 400 MB/s: 8192 · 1000 / 400 = 20,480 ns, plus 200 ns of commands.
const XFER: u64 = 20_480 + 200;
/// t_R of one pre-read: sensing, then the transfer.
const T_R: u64 = T_READ + XFER;

/// Six channels of one die each; stripe 0 is d0..d4 on CH0..CH4, parity on CH5.
struct Fig5(Bench);

impl std::ops::Deref for Fig5 {
    type Target = Bench;
    fn deref(&self) -> &Bench {
        &self.0
    }
}

impl Fig5 {
    /// Queues `reads[i]` host reads and `writes[i]` host programs on CH i;
    /// `gc` = (channel, cumulative page moves, erases) of a die now collecting.
    fn new(reads: [u64; 6], writes: [u64; 6], gc: &[(u32, u64, u64)]) -> Fig5 {
        let mut cfg = tiny(6, 1, 1, 16, 64, Some(6));
        cfg.geometry.page_bytes = 8192;
        (cfg.timing.read_ns, cfg.timing.program_ns, cfg.timing.erase_ns) = (T_READ, T_PROG, T_ERASE);
        (cfg.timing.channel_mb_s, cfg.timing.command_ns) = (400, 200);
        let mut b = Bench::from_config(cfg);
        for ch in 0..6 {
            b.queue_reads(ch as u32, reads[ch] as u32);
            b.queue_writes(ch as u32, writes[ch] as u32);
        }
        for &(ch, moves, erases) in gc {
            b.gc(ch, moves, erases);
        }
        Fig5(b)
    }

    /// Every position of stripe 0 written, position j on CH j.
    fn members(&self) -> Vec<Option<Member>> {
        (0..6).map(|j| Some(Member { chunk: j, ppn: j, die: j, channel: j })).collect()
    }

    /// Adaptive's costs and choice for a write of positions `written`.
    fn decide(&self, written: &[u32]) -> (Costs, Routine, Routine) {
        let at = self.members();
        let plan = plan_stripe_write(5, 0, written.iter().map(|&p| 1u64 << p).sum(), 0, &at);
        let view = self.view();
        let mut a = Adaptive::new(AdaptiveParams::default());
        (a.costs(&view, &plan), a.choose(&view, &plan), plan.fewest())
    }
}

/// Eq. 3: (t_R + t_W) · Cntr_move / Cntr_ER + t_E.
fn t_gc(moves: u64, erases: u64) -> u64 {
    (T_READ + T_PROG) * moves / erases + T_ERASE
}

#[test]
fn fig5_reads_and_gc_on_the_parity_channel_pick_rcw() {
    let reads = [1, 0, 2, 3, 1, 4];
    let writes = [2, 1, 0, 1, 2, 3];
    let s = Fig5::new(reads, writes, &[(5, 120, 4)]);
    assert_eq!(s.stripes.parity_pos(0), 5, "parity of stripe 0 on CH5");
    assert_eq!(s.t.read + s.t.xfer, T_R, "t_R = tR + transfer");
    // Θ_RMW = {CH0, CH5}, Θ_RCW = {CH1..CH4}: disjoint, together Θ (Eq. 1–2).
    let at = s.members();
    let plan = plan_stripe_write(5, 0, 1, 0, &at);
    assert_eq!((plan.rmw, plan.rcw), (0b100001, 0b011110));
    // T_GC,5 = 745 µs · 120 / 4 + 3.5 ms = 25.85 ms.
    let gc5 = t_gc(120, 4);
    assert_eq!(gc5, 25_850_000);
    let (r, w) = (reads, writes);
    // Eq. 4 and 6 over Θ_RMW = {CH0, CH5}.
    let rmw = RoutineCost { update_ns: (T_R * (r[0] + 1)).max(T_R * (r[5] + 1) + gc5), delay_ns: T_R * (w[0] + w[5]) };
    assert_eq!(rmw.update_ns, T_R * 5 + gc5, "CH5 (4 reads and the GC) is the slowest");
    // Eq. 5 and 7 over Θ_RCW = {CH1..CH4}.
    let rcw = RoutineCost {
        update_ns: (1..5).map(|i| T_R * (r[i] + 1)).max().unwrap(),
        delay_ns: T_R * (w[1] + w[2] + w[3] + w[4]),
    };
    assert_eq!(rcw.update_ns, T_R * 4, "CH3 (3 reads) is the slowest");
    let (c, chosen, fewest) = s.decide(&[0]);
    assert_eq!(c, Costs { rmw, rcw });
    assert_eq!(c.rmw.total(), 26_506_800);
    assert_eq!(c.rcw.total(), 525_440);
    assert_eq!((chosen, fewest), (Routine::Rcw, Routine::Rmw), "adaptive adjusts against fewest pre-reads");
}

#[test]
fn fig5_a_read_queue_or_a_gc_alone_on_the_parity_channel_picks_rcw() {
    // A long read queue on CH5, no GC: Eq. 8 = 13 t_R + 5 t_R, Eq. 9 = 4 t_R + 4 t_R.
    let s = Fig5::new([1, 0, 2, 3, 1, 12], [2, 1, 0, 1, 2, 3], &[]);
    let (c, chosen, _) = s.decide(&[0]);
    assert_eq!((c.rmw.total(), c.rcw.total()), (T_R * 13 + T_R * 5, T_R * 4 + T_R * 4));
    assert_eq!(chosen, Routine::Rcw);
    // Idle queues, a GC on CH5 only: T_RMW = t_R + T_GC,5 > T_RCW = t_R.
    let s = Fig5::new([0; 6], [0; 6], &[(5, 10, 1)]);
    let (c, chosen, _) = s.decide(&[0]);
    assert_eq!(c.rmw, RoutineCost { update_ns: T_R + t_gc(10, 1), delay_ns: 0 });
    assert_eq!(c.rcw, RoutineCost { update_ns: T_R, delay_ns: 0 });
    assert_eq!(chosen, Routine::Rcw);
}

#[test]
fn mirrored_load_on_the_rcw_channels_picks_rmw() {
    // The RCW channels carry the reads, the writes and a GC (on CH2).
    let (r, w) = ([0, 3, 5, 2, 4, 1], [1, 2, 2, 3, 2, 0]);
    let s = Fig5::new(r, w, &[(2, 60, 2)]);
    let gc2 = t_gc(60, 2);
    let rmw = RoutineCost { update_ns: (T_R * (r[0] + 1)).max(T_R * (r[5] + 1)), delay_ns: T_R * (w[0] + w[5]) };
    assert_eq!(rmw.total(), T_R * 3);
    let rcw = RoutineCost {
        update_ns: (T_R * (r[1] + 1)).max(T_R * (r[2] + 1) + gc2).max(T_R * (r[3] + 1)).max(T_R * (r[4] + 1)),
        delay_ns: T_R * (w[1] + w[2] + w[3] + w[4]),
    };
    assert_eq!(rcw.total(), T_R * 6 + gc2 + T_R * 9, "CH2 (5 reads and the GC) is the slowest");
    let (c, chosen, fewest) = s.decide(&[0]);
    assert_eq!(c, Costs { rmw, rcw });
    assert_eq!((chosen, fewest), (Routine::Rmw, Routine::Rmw));
}

#[test]
fn a_loaded_rcw_channel_turns_a_three_chunk_write_to_rmw() {
    // d0..d2 written: RMW pre-reads d0, d1, d2, P (4), RCW d3, d4 (2).
    let s = Fig5::new([0, 0, 0, 10, 0, 0], [0, 0, 0, 0, 3, 0], &[]);
    let (c, chosen, fewest) = s.decide(&[0, 1, 2]);
    assert_eq!(c.rmw, RoutineCost { update_ns: T_R, delay_ns: 0 });
    assert_eq!(c.rcw, RoutineCost { update_ns: T_R * (10 + 1), delay_ns: T_R * 3 });
    assert_eq!((chosen, fewest), (Routine::Rmw, Routine::Rcw), "adaptive adjusts toward RMW");
}

/// End to end: host reads queued on the die holding stripe 0's parity (CH5)
/// when a one-chunk update of stripe 0 starts.
#[test]
fn a_loaded_parity_channel_turns_the_update_to_rcw_in_the_model() {
    const PB: u64 = 4096;
    let req = |t: u64, lpn: u64, pages: u64, op| Request {
        time_ns: t,
        offset: lpn * PB,
        size: (pages * PB) as u32,
        device: 0,
        op,
    };
    // Stripes 0 and 1 written whole. Stripe 1's parity sits at position 4, so
    // its last data page (lpn 9) lives at position 5, on CH5 with stripe 0's parity.
    let mut reqs = vec![req(0, 0, 10, Op::Write)];
    let t = 100_000_000;
    reqs.extend((0..12).map(|_| req(t, 9, 1, Op::Read)));
    reqs.push(req(t + 1, 0, 1, Op::Write));
    // With max_gap = 0 bpu leaves a one-chunk update of a 5+1 stripe (pre-read
    // gap 2) to fewest pre-reads; with max_gap = 2 its "skewed" class turns it
    // to RCW. Both set here, so the test does not move when the scheme is refitted.
    for (name, max_gap, routine, adjusted) in [
        ("baseline", None, Routine::Rmw, 0),
        ("bpu", Some(0), Routine::Rmw, 0),
        ("bpu", Some(2), Routine::Rcw, 1),
        ("adaptive", None, Routine::Rcw, 1),
    ] {
        let mut cfg = tiny(6, 1, 1, 32, 16, Some(6));
        cfg.policy = scheme(name).policy;
        if let Some(g) = max_gap {
            cfg.policy.bpu.max_gap = g;
        }
        let name = format!("{name}, max_gap {max_gap:?}");
        let mut ssd = Ssd::new(&cfg, Collector::new(6), true).unwrap();
        assert_eq!(ssd.stripe_layout().chunk_of_lpn(9), (1, 6 + 5), "lpn 9 at stripe 1 position 5");
        ssd.run(&reqs, &mut |_| {}).unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = ssd.obs.raid;
        assert_eq!(r.full, 2, "{name}");
        let (rmw, rcw, prereads) = if routine == Routine::Rmw { (1, 0, 2) } else { (0, 1, 4) };
        assert_eq!((r.rmw, r.rcw, r.adjusted, r.prereads), (rmw, rcw, adjusted, prereads), "{name}");
        assert_eq!(ssd.totals().stripes_verified, 2, "{name}");
    }
}

/// `policy.adaptive.decision_ns` is controller time spent before an update's
/// pre-reads: on an idle device a one-chunk update takes exactly that much
/// longer than under fewest pre-reads (both pick RMW here), and a full-stripe
/// write, which needs no decision, takes no longer.
#[test]
fn adaptive_decision_time_delays_only_decided_updates() {
    let run = |adaptive: bool| {
        let mut c = tiny(6, 1, 1, 64, 16, Some(6));
        c.precondition.valid = 0.5;
        c.geometry.over_provisioning = 0.2;
        if adaptive {
            c.policy.parity_update = rainsim_model::policy::ParityUpdateKind::Adaptive;
            c.policy.adaptive.decision_ns = 5_700;
        }
        let mut ssd = Ssd::new(&c, Lat::default(), true).unwrap();
        let s = full_stripe(&ssd);
        let off = s as u64 * 5 * 4096;
        let reqs = [
            Request { time_ns: 0, offset: off, size: 4096, device: 0, op: Op::Write },
            Request { time_ns: 100_000_000, offset: off, size: 5 * 4096, device: 0, op: Op::Write },
        ];
        ssd.run(&reqs, &mut |_| {}).unwrap();
        ssd.obs.0.iter().map(|&(_, l)| l).collect::<Vec<u64>>()
    };
    let (base, adaptive) = (run(false), run(true));
    assert_eq!(adaptive[0], base[0] + 5_700, "one-chunk update");
    assert_eq!(adaptive[1], base[1], "full-stripe write");
}
