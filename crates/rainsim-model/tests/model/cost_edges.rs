//! Edges of the cost models, on hand-built states: exact ties, the queued
//! programs' share of Eq. 1's expected GCs, a plane below the trigger, and
//! LDPC-aware read times in the degraded and adaptive costs.

use crate::tiny;
use rainsim_model::policy::adaptive::{Adaptive, AdaptiveParams};
use rainsim_model::policy::queuing_cost::{expected_gcs, free_blocks, idlest, read_costs, update_costs, wait_ns};
use rainsim_model::policy::{
    degraded_read::DegradedRead, degraded_update::DegradedUpdate, ChunkUpdate, Member, ReadRouting, ReadTarget, Route,
    UpdatePlacement, UpdatePlan,
};
use rainsim_model::testkit::{bits, Bench};

/// 6 single-die channels, one plane of 64 blocks × 16 pages each, 3+1 stripes.
fn bench() -> Bench {
    Bench::from_config(tiny(6, 1, 1, 64, 16, Some(4)))
}

#[test]
fn a_tie_between_t_a_and_t_b_stays_normal_for_reads_and_updates() {
    let mut cfg = tiny(6, 1, 1, 64, 16, Some(4));
    // XOR as long as one unloaded read (sensing + transfer), so that two reads
    // queued on the target cost exactly the XOR plus one read queued on a partner.
    let f0 = Bench::from_config(cfg.clone());
    cfg.timing.xor_ns = f0.t.read + f0.t.xfer;
    let mut f = Bench::from_config(cfg);
    f.now = 1_000_000;
    let target = f.member_on(0, 0);
    let partners = [f.member_on(1, 1), f.member_on(2, 2), f.member_on(3, 3)];
    f.queue_reads(f.layout.first_die(0), 2);
    f.queue_reads(f.layout.first_die(1), 1);
    let (t_a, t_b) = read_costs(&f.view(), &target, &partners);
    assert_eq!(t_a, t_b, "T_A = 2 t_rd = t_xor + t_rd = T_B");
    let read = ReadTarget { target, partners: &partners };
    assert_eq!(DegradedRead::default().route(&f.view(), &read), Route::Normal, "a tie stays normal");
    // The update at the same state: T'_A = T_wait + t_wr = T_B + t_wr·0 + t_wr = T'_B.
    let (ua, ub) = update_costs(&f.view(), &target, &partners, 4);
    assert_eq!(ua, ub);
    let u = ChunkUpdate { target, partners: &partners, outside: &[4, 5] };
    assert_eq!(DegradedUpdate::default().place(&f.view(), &u), None, "a tie stays on the stripe channel");
    // One more read on the target breaks the tie.
    f.queue_reads(f.layout.first_die(0), 1);
    assert_eq!(DegradedRead::default().route(&f.view(), &read), Route::Degraded);
}

#[test]
fn queued_programs_beyond_the_planes_headroom_add_expected_gcs() {
    let mut f = bench();
    // A fresh plane: 64 free blocks, trigger ⌊0.1 × 64⌋ = 6, so 58 blocks × 16
    // pages = 928 programs fit before GC; each GC then reclaims 16 pages (no
    // history: no moves).
    assert_eq!(f.ftl.gc_trigger_blocks, 6);
    let die = f.layout.first_die(0);
    let c = |f: &Bench, n: u32| expected_gcs(&f.view(), die, n);
    assert_eq!(c(&f, 928), 0.0);
    assert_eq!(c(&f, 929), 1.0);
    // One GC for the first page past the headroom, one more per 16 pages beyond it.
    assert_eq!(c(&f, 928 + 15), 1.0);
    assert_eq!(c(&f, 928 + 16), 2.0);
    // In T_wait: 929 queued programs cost 929 t_wr plus one GC of one erase.
    let t_wr = (f.t.xfer + f.t.program) as f64;
    f.queue_writes(0, 929);
    let w = wait_ns(&f.view(), &f.member_on(0, 0));
    assert_eq!(w, 929.0 * t_wr + f.t.erase as f64);
}

/// Eq. 1's c on a channel of 2 dies × 2 planes (64 blocks of 16 pages):
/// the queued programs spread over its 4 planes; each GC reclaims 16 pages
/// less the channel's recent moves (3 and 5: 4 on average, so 12); die 0's
/// plane 0 has an active block with 5 pages written (11 left) and 63 free
/// blocks, so its headroom is 11 + (63 − 6) · 16 = 923 pages, plane 1's
/// (64 free) 58 · 16 = 928.
#[test]
fn expected_gcs_spread_the_channels_programs_over_its_planes_and_reclaim_less_moves() {
    let mut f = Bench::from_config(tiny(2, 2, 2, 64, 16, Some(2)));
    f.channels[0].gc_recent.record(3, 1);
    f.channels[0].gc_recent.record(5, 1);
    let p0 = f.layout.first_plane(0);
    let active = f.ftl.planes[p0 as usize].free.pop_front().unwrap();
    f.ftl.planes[p0 as usize].active = Some(active);
    f.ftl.blocks[(f.layout.first_block(p0) + active) as usize].written = 5;
    let c = |n: u32| expected_gcs(&f.view(), 0, n);
    // n programs put n / 4 on each plane.
    assert_eq!(c(4 * 923), 0.0);
    assert_eq!(c(4 * 924), 1.0, "plane 0 one page past its headroom");
    // 935 a plane: plane 0 is 12 past (one GC more), plane 1 is 7 past.
    assert_eq!(c(4 * 935), 2.0 + 1.0);
    // 940 a plane: plane 0 is 17 past, plane 1 is 12 past.
    assert_eq!(c(4 * 940), 2.0 + 2.0);
    // Die 1 has no active block: both its planes have 928 pages of headroom.
    assert_eq!(expected_gcs(&f.view(), 1, 4 * 940), 2.0 + 2.0);
    assert_eq!(expected_gcs(&f.view(), 1, 4 * 928), 0.0);
}

/// A channel's free blocks are those of all its planes (2 dies × 2 planes of
/// 64 blocks), and only its own: blocks taken from channel 1's last plane
/// count there, not on channel 0.
#[test]
fn free_blocks_count_every_plane_of_the_channel() {
    let mut f = Bench::from_config(tiny(2, 2, 2, 64, 16, Some(2)));
    let last = f.layout.first_plane(f.layout.first_die(1)) + 3;
    for _ in 0..3 {
        f.ftl.planes[last as usize].free.pop_back();
    }
    assert_eq!([free_blocks(&f.view(), 0), free_blocks(&f.view(), 1)], [4 * 64, 4 * 64 - 3]);
}

/// The idlest channel outside the stripe; among equally idle ones the first
/// at or after `from`, cyclically, so moved chunks spread over a quiet device.
#[test]
fn idlest_breaks_ties_from_the_given_channel_on() {
    let mut f = bench();
    let outside = [0, 1, 4, 5];
    let pick = |f: &Bench, from: u32| idlest(&f.view(), outside, from);
    let picks: Vec<_> = (0..6).map(|from| pick(&f, from)).collect();
    assert_eq!(picks, [Some(0), Some(1), Some(4), Some(4), Some(4), Some(5)]);
    // `from` past the last channel wraps around.
    assert_eq!(pick(&f, 7), Some(1));
    // A queued operation takes a channel out of the tie.
    f.queue_reads(f.layout.first_die(4), 1);
    assert_eq!(pick(&f, 2), Some(5));
    assert_eq!(idlest(&f.view(), [], 0), None);
}

#[test]
fn a_plane_below_the_trigger_expects_a_gc_even_with_nothing_queued() {
    let mut f = bench();
    let die = f.layout.first_die(2);
    let plane = f.layout.first_plane(die) as usize;
    assert_eq!(expected_gcs(&f.view(), die, 0), 0.0);
    // 6 free blocks: at the trigger, not below it.
    while f.ftl.planes[plane].free.len() > 6 {
        f.ftl.planes[plane].free.pop_back();
    }
    assert_eq!(expected_gcs(&f.view(), die, 0), 0.0);
    f.ftl.planes[plane].free.pop_back();
    assert_eq!(expected_gcs(&f.view(), die, 0), 1.0);
    // The programs queued on the channel then add one GC per 16 reclaimed pages.
    assert_eq!(expected_gcs(&f.view(), die, 31), 1.0 + 1.0);
}

/// RBER = ε + α·PE^k at age 0 with no reads, by hand; its level in the default table.
fn level_at(pe: f64) -> usize {
    let rber = 1.48e-3 + 3.90e-10 * pe.powf(2.05);
    [2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 7e-3].iter().filter(|&&t| t < rber).count()
}

#[test]
fn costs_price_each_read_at_its_ldpc_level() {
    let mut cfg = tiny(6, 1, 1, 64, 16, Some(4));
    cfg.ldpc.enabled = true;
    cfg.ldpc.initial_pe_cycles = 0;
    cfg.ldpc.precondition_age_days = 0.0;
    let mut f = Bench::from_config(cfg);
    f.now = 1_000_000;
    let retries = [0u64, 1, 2, 4, 8, 16, 32];
    // Partner 1's page lies in block 3 of channel 1 (3000 erases: level 5 by
    // hand), partner 2's in a fresh block (level 0).
    let worn_block = f.layout.first_block(f.layout.first_plane(f.layout.first_die(1))) + 3;
    f.ftl.blocks[worn_block as usize].erases = 3000;
    let (lw, l0) = (level_at(3000.0), level_at(0.0));
    assert_eq!((lw, l0), (5, 0), "the hand-computed levels");
    let (t_read, xfer) = (f.t.read, f.t.xfer);
    let read = |l: usize| (t_read + retries[l] * 24_000 + xfer) as f64;
    let worn = Member { chunk: 1, ppn: f.layout.first_page(worn_block) + 2, die: f.layout.first_die(1), channel: 1 };
    let fresh = Member { chunk: 2, ppn: f.layout.first_page(f.layout.first_block(2)), die: 2, channel: 2 };
    assert_eq!(f.layout.channel_of(fresh.ppn), 2);
    // Two reads queued on each partner: T_B = t_xor + 2 t_rd(worn) + 2 t_rd(fresh).
    f.queue_reads(1, 2);
    f.queue_reads(2, 2);
    let target = f.member_on(0, 0);
    let (_, t_b) = read_costs(&f.view(), &target, &[worn, fresh]);
    let want = f.cfg.timing.xor_ns as f64 + 2.0 * read(lw) + 2.0 * read(l0);
    assert_eq!(t_b, want, "Eq. 4 with each partner's own read time");

    // Adaptive (Eq. 4-9, per-channel queues): RMW pre-reads the written data
    // (position 0, channel 2, two reads queued) and the parity (position 3,
    // channel 4, idle); RCW the other data (the worn page at position 1,
    // channel 1, two reads queued, and position 2, channel 3, idle). Nothing
    // collects and no program waits, so T = the slowest pre-read's wait.
    let page = |ch: u32| f.layout.first_page(f.layout.first_block(f.layout.first_plane(f.layout.first_die(ch))));
    let at = [
        Some(Member { chunk: 0, ppn: page(2), die: 2, channel: 2 }),
        Some(worn),
        Some(Member { chunk: 2, ppn: page(3), die: 3, channel: 3 }),
        Some(Member { chunk: 3, ppn: page(4), die: 4, channel: 4 }),
    ];
    let plan = UpdatePlan { stripe: 0, rmw: bits(&[0, 3]), rcw: bits(&[1, 2]), written: bits(&[0]), at: &at };
    let c = Adaptive::new(AdaptiveParams::default()).costs(&f.view(), &plan);
    assert_eq!(c.rmw.total() as f64, 3.0 * read(l0), "behind 2 queued reads at level 0");
    assert_eq!(c.rcw.total() as f64, 3.0 * read(lw), "behind 2 queued reads, at the worn page's level");
    assert_eq!((c.rmw.delay_ns, c.rcw.delay_ns), (0, 0));
    // Three programs queued on channel 1 (the worn page's): RCW's pre-read
    // there holds each back by its own read time, at level 5 (Eq. 7), not
    // the nominal tR; RMW reads nothing on channel 1 and delays no program.
    f.queue_writes(1, 3);
    let c = Adaptive::new(AdaptiveParams::default()).costs(&f.view(), &plan);
    assert_eq!(c.rcw.delay_ns as f64, 3.0 * read(lw), "Eq. 7 with the worn page's own read time");
    assert_eq!(c.rmw.delay_ns, 0);
}
