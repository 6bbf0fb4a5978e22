//! What GC keeps about the free lists (each plane's free blocks by speed
//! step, each die's planes below the trigger), held to a count from
//! scratch after every write, collection and wear-levelling swap.

use super::super::allocation::variation_aware::VariationAware;
use super::super::{count_steps, Ftl};
use crate::flash::address::Layout;

/// Free blocks by step for every plane (plane after plane) and planes
/// below the trigger for every die, counted from the free lists now.
fn counted(ftl: &Ftl) -> (Vec<u32>, Vec<u32>) {
    let steps = ftl.counted_steps();
    let by_step = (0..ftl.planes.len() as u32)
        .flat_map(|p| count_steps(&ftl.planes[p as usize].free, ftl.plane_blocks(p), steps))
        .collect();
    let ppd = ftl.layout.planes_per_die;
    let low = (0..ftl.layout.dies()).map(|d| (d * ppd..(d + 1) * ppd).filter(|&p| ftl.needs_gc(p)).count() as u32);
    (by_step, low.collect())
}

fn kept(ftl: &Ftl) -> (Vec<u32>, Vec<u32>) {
    (ftl.free_steps.clone(), ftl.low_planes.clone())
}

/// Two dies of two planes of 8 blocks × 4 pages, an allocator by lane (so
/// steps are counted) and blocks of three speed steps, `b mod 3`.
fn two_dies(wl_spread: u32) -> Ftl {
    let mut ftl = Ftl::new(Layout::of(1, 2, 2, 8, 4, 4096), 80, 0.25, wl_spread);
    ftl.set_allocator(Box::new(VariationAware::default()));
    for (b, meta) in ftl.blocks.iter_mut().enumerate() {
        meta.dvp_step = (b % 3) as u8;
    }
    ftl
}

/// Steps set from outside leave the kept counts stale until a recount,
/// which gives each plane's count by step and each die's low planes.
#[test]
fn a_recount_counts_every_plane_and_die() {
    let mut ftl = two_dies(0);
    ftl.recount_free_lists();
    assert_eq!(kept(&ftl), counted(&ftl));
    // Plane 1 holds blocks 8..16: steps 2,0,1,2,0,1,2,0 (counts 3, 2, 3).
    let steps = ftl.counted_steps();
    assert_eq!(steps, 256, "an allocator by lane counts every u8 step");
    assert_eq!(&ftl.free_steps[steps..steps + 3], &[3, 2, 3]);
    // Below the trigger (2 free blocks): planes 2 and 3 of die 1, by hand.
    for p in [2, 3] {
        ftl.planes[p].free.truncate(1);
    }
    ftl.recount_free_lists();
    assert_eq!(ftl.low_planes, vec![0, 2]);
    assert_eq!(kept(&ftl), counted(&ftl));
}

/// Writes of 24 cold and 16 hot chunks on each die, collected when a
/// plane falls below the trigger, with wear levelling tight enough to swap
/// cold blocks in on every plane: the kept counts stay the counted ones
/// at every step, including swaps on planes after the first (whose blocks'
/// global indices are not their plane-local ones).
#[test]
fn gc_and_wear_levelling_keep_the_counts() {
    let mut ftl = two_dies(2);
    ftl.recount_free_lists();
    let (mut erased, mut swapped) = (0, 0);
    let mut swapped_planes = std::collections::BTreeSet::new();
    for round in 0..6000u32 {
        let die = round % 2;
        let k = round / 2;
        let chunk = die * 40 + if k < 24 { k } else { 24 + k % 16 };
        for _ in 0..4 {
            let before: Vec<u32> = ftl.blocks.iter().map(|b| b.erases).collect();
            let Some(work) = ftl.collect_die(die).unwrap() else { break };
            erased += work.erased;
            if work.wl_moved > 0 {
                swapped += 1;
                let erased_now = (0..ftl.blocks.len()).find(|&b| ftl.blocks[b].erases != before[b]).unwrap();
                let plane = erased_now as u32 / ftl.layout.blocks_per_plane;
                swapped_planes.insert(plane);
            }
            assert_eq!(kept(&ftl), counted(&ftl), "after a collection, round {round}");
        }
        let ppn = ftl.allocate(die).unwrap();
        ftl.commit(chunk, ppn);
        assert_eq!(kept(&ftl), counted(&ftl), "after a write, round {round}");
    }
    assert!(erased > 500 && swapped > 10, "{erased} erases, {swapped} swaps");
    assert!(swapped_planes.iter().any(|&p| p > 0), "swaps only on plane 0: {swapped_planes:?}");
}
