//! The reorganisation hook's matching rules case by case, by hand (layout of
//! `reorg.rs`'s tests: 3 channels of 16 pages, channel = page / 16; 2+1
//! stripes, width 3; copy ids from 30). Each match must keep its chunk in
//! its stripe, take the copy's own slot first, and leave a stripe alone that
//! a job or another match of the GC holds or a host read is on its way to.

use super::tests::{hook, layout, mapped};
use super::*;

fn gc(h: &mut ReorgHook<'_>, victim: &[(u32, u32)], map: &Mapping) -> Vec<usize> {
    let mut dropped = Vec::new();
    h.drop_pages(0, victim, map, &mut dropped);
    dropped
}

/// Same-chunk, case (b) twice in stripe 1: copy A of chunk 5 beside slot 5,
/// copy A of chunk 3 beside slot 3. The first match takes stripe 1; the
/// second waits for a later GC.
#[test]
fn same_chunk_matches_a_stripe_once_per_gc() {
    let mut t = ReplicaTable::new(30, 4);
    let (e5, e3) = (t.insert(5, 1).unwrap(), t.insert(3, 1).unwrap());
    let (a5, a3) = (t.copy_id(e5.pair, Copy::A), t.copy_id(e3.pair, Copy::A));
    let l = layout();
    let mut h = hook(&t, &l, None);
    let victim = [(100, a5), (101, 5), (102, a3), (103, 3)];
    assert_eq!(gc(&mut h, &victim, &Mapping::new(40, 200)), vec![1]);
    let want = Match { stripe: 1, chunk: 5, case_b: true, z_ppn: 101, z_token: 0, other: 5, flip: false };
    assert_eq!(h.matches, vec![want]);
    assert_eq!(h.moves, [0, 0, 1, 2], "slot 3 and both copies move");
}

/// Fig. 7(a), any-chunk (as in `fig7a_any_chunk_uses_the_mirror_on_the_stale_slots_channel`):
/// no match when either chunk's stripe is locked or a host read is on its
/// way to either slot.
#[test]
fn any_chunk_case_a_leaves_busy_slots_alone() {
    let mut t = ReplicaTable::new(30, 4);
    t.insert(0, 1).unwrap();
    let e4 = t.insert(4, 2).unwrap();
    let (a4, b4) = (t.copy_id(e4.pair, Copy::A), t.copy_id(e4.pair, Copy::B));
    let victim = [(17, 1), (18, a4)];
    let l = layout();
    let map = mapped(&[(0, 6), (1, 17), (a4, 18), (b4, 5)]);
    let none = FxHashMap::default();
    let mut h = hook(&t, &l, Some(&none));
    assert_eq!(gc(&mut h, &victim, &map), vec![1], "free: matched");
    for slot in [0, 4] {
        let reads: FxHashMap<u32, u32> = [(slot, 1)].into_iter().collect();
        let mut h = hook(&t, &l, Some(&reads));
        assert!(gc(&mut h, &victim, &map).is_empty() && h.matches.is_empty(), "a read on its way to slot {slot}");
        let mut t = t.clone();
        t.locked.insert(slot / 3);
        let mut h = hook(&t, &l, Some(&none));
        assert!(gc(&mut h, &victim, &map).is_empty() && h.matches.is_empty(), "stripe {} locked", slot / 3);
    }
}

/// Case (a), any-chunk: the copy's own slot first when it is in the
/// semi-valid page's stripe (a same-chunk match, even with another stale
/// slot of the stripe on the mirror's channel), and never a slot outside
/// that stripe (chunk 3's mirror is on slot 3's channel, but the
/// semi-valid page is stripe 0's).
#[test]
fn any_chunk_case_a_takes_the_own_slot_first_and_stays_in_the_stripe() {
    let l = layout();
    let none = FxHashMap::default();
    // Stripe 1: chunk 4 semi-valid; chunks 3 and 5 replicated, slots on
    // channel 1; copy B of 5 in the victim, its copy A on channel 1.
    let mut t = ReplicaTable::new(30, 4);
    let e5 = t.insert(5, 1).unwrap();
    t.insert(3, 1).unwrap();
    let (a5, b5) = (t.copy_id(e5.pair, Copy::A), t.copy_id(e5.pair, Copy::B));
    let map = mapped(&[(3, 22), (5, 20), (a5, 21), (b5, 40), (4, 41)]);
    let mut h = hook(&t, &l, Some(&none));
    assert_eq!(gc(&mut h, &[(41, 4), (40, b5)], &map), vec![1]);
    let want = Match { stripe: 1, chunk: 5, case_b: false, z_ppn: 0, z_token: 0, other: 5, flip: false };
    assert_eq!(h.matches, vec![want]);
    // Stripe 0: chunk 1 semi-valid (chunk 0 replicated, slot on channel 0);
    // copy B of chunk 3 in the victim, its copy A on slot 3's channel 1.
    let mut t = ReplicaTable::new(30, 4);
    t.insert(0, 1).unwrap();
    let e3 = t.insert(3, 1).unwrap();
    let (a3, b3) = (t.copy_id(e3.pair, Copy::A), t.copy_id(e3.pair, Copy::B));
    let map = mapped(&[(0, 6), (1, 17), (3, 20), (a3, 21), (b3, 18)]);
    let mut h = hook(&t, &l, Some(&none));
    assert!(gc(&mut h, &[(17, 1), (18, b3)], &map).is_empty() && h.matches.is_empty());
    assert_eq!(h.moves, [0, 1, 0, 1]);
}

/// Case (a), any-chunk, another chunk's slot: stripe 1 (chunk 4
/// semi-valid) has stale slot `a` (3, then 5) on channel 1, where the
/// mirror of chunk 7 (copy A in the victim) is; chunk 1's stale slot is on
/// channel 1 too, but in stripe 0. Slot `a` is found wherever it sits in
/// the stripe, and nothing outside the stripe is.
#[test]
fn any_chunk_case_a_searches_exactly_the_semi_valid_pages_stripe() {
    let l = layout();
    let none = FxHashMap::default();
    for a in [3, 5] {
        let mut t = ReplicaTable::new(30, 4);
        let e7 = t.insert(7, 1).unwrap();
        t.insert(a, 1).unwrap();
        t.insert(1, 1).unwrap();
        let (a7, b7) = (t.copy_id(e7.pair, Copy::A), t.copy_id(e7.pair, Copy::B));
        let map = mapped(&[(a, 20), (1, 22), (b7, 23), (a7, 40), (4, 41)]);
        let mut h = hook(&t, &l, Some(&none));
        assert_eq!(gc(&mut h, &[(41, 4), (40, a7)], &map), vec![1], "slot {a}");
        let want = Match { stripe: 1, chunk: a, case_b: false, z_ppn: 0, z_token: 0, other: 7, flip: true };
        assert_eq!(h.matches, vec![want]);
    }
}

/// Case (b), any-chunk: copy B of chunk 4 takes its own old slot when
/// that is in the victim too (before chunk 0's), and a stale slot whose
/// stripe is locked or that a host read is on its way to is not taken.
#[test]
fn any_chunk_case_b_prefers_the_own_slot_and_skips_busy_ones() {
    let mut t = ReplicaTable::new(30, 4);
    t.insert(0, 1).unwrap();
    let e4 = t.insert(4, 2).unwrap();
    let b4 = t.copy_id(e4.pair, Copy::B);
    let l = layout();
    let map = Mapping::new(40, 200);
    let none = FxHashMap::default();
    let mut h = hook(&t, &l, Some(&none));
    assert_eq!(gc(&mut h, &[(1, 0), (2, 4), (3, b4)], &map), vec![1]);
    let want = Match { stripe: 1, chunk: 4, case_b: true, z_ppn: 2, z_token: 0, other: 4, flip: true };
    assert_eq!(h.matches, vec![want]);
    assert_eq!(h.moves, [0, 0, 1, 1], "slot 0 and the copy move");
    // Fig. 7(b): only chunk 0's slot, busy.
    let victim = [(1, 0), (3, b4)];
    let reads: FxHashMap<u32, u32> = [(0, 1)].into_iter().collect();
    let mut h = hook(&t, &l, Some(&reads));
    assert!(gc(&mut h, &victim, &map).is_empty() && h.matches.is_empty(), "a read on its way to slot 0");
    t.locked.insert(0);
    let mut h = hook(&t, &l, Some(&none));
    assert!(gc(&mut h, &victim, &map).is_empty() && h.matches.is_empty(), "stripe 0 locked");
}
