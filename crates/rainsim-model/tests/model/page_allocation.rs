//! Where the FTL puts a host program: rotating over a die's planes, each
//! plane keeping one erased block for GC.

use rainsim_model::ftl::Ftl;
use rainsim_model::testkit::small_ftl;

/// The plane of each of `n` pages allocated on `die`.
fn planes_taken(ftl: &mut Ftl, die: u32, n: usize) -> Vec<u32> {
    (0..n)
        .map(|_| {
            let ppn = ftl.allocate(die).unwrap();
            ftl.layout.plane_of_block(ftl.layout.block_of(ppn))
        })
        .collect()
}

/// Dies of three planes: consecutive programs go to planes 0, 1, 2, 0 of a
/// die; a plane down to its GC reserve (one erased block and no open block
/// with room) is skipped and the rotation goes on after the plane that took
/// the page.
#[test]
fn programs_rotate_over_the_planes_and_skip_a_plane_at_its_reserve() {
    let mut ftl = small_ftl(1, 2, 3, 16);
    assert_eq!(planes_taken(&mut ftl, 0, 4), [0, 1, 2, 0]);
    // Plane 0 at its reserve; plane 1 with its reserve and an open block;
    // plane 2 with two erased blocks and none open: 1 and 2 take programs.
    for (p, free, open) in [(0, 1, false), (1, 1, true), (2, 2, false)] {
        ftl.planes[p].free.truncate(free);
        if !open {
            ftl.planes[p].active = None;
        }
    }
    assert_eq!(planes_taken(&mut ftl, 0, 4), [1, 2, 1, 2]);
    // Die 1 (planes 3, 4, 5): plane 3 keeps only its reserve.
    ftl.planes[3].free.truncate(1);
    assert!(ftl.die_takes_writes(1));
    assert_eq!(planes_taken(&mut ftl, 1, 4), [4, 5, 4, 5]);
    for p in [4, 5] {
        ftl.planes[p].free.truncate(1);
        ftl.planes[p].active = None;
    }
    assert!(!ftl.die_takes_writes(1));
    assert!(ftl.allocate(1).is_err(), "no plane of die 1 may give up its reserve");
}

/// Two planes of eight 8-page blocks, GC trigger 2 free blocks: programs
/// alternate planes, so plane 0 opens its seventh block (one erased block
/// left) with the 97th program, and from then on the die needs GC on plane
/// 0. Free lists set from outside count once recounted, per die.
#[test]
fn a_die_needs_gc_from_the_program_that_takes_a_plane_below_the_trigger() {
    let mut ftl = small_ftl(1, 2, 2, 16);
    assert_eq!(ftl.gc_trigger_blocks, 2);
    planes_taken(&mut ftl, 0, 96);
    assert_eq!((ftl.planes[0].free.len(), ftl.die_needs_gc(0)), (2, None));
    planes_taken(&mut ftl, 0, 1);
    assert_eq!((ftl.planes[0].free.len(), ftl.die_needs_gc(0)), (1, Some(0)));
    assert_eq!(ftl.die_needs_gc(1), None);
    // Die 1 is planes 2 and 3.
    ftl.planes[3].free.truncate(1);
    ftl.recount_free_lists();
    assert_eq!((ftl.die_needs_gc(0), ftl.die_needs_gc(1)), (Some(0), Some(3)));
    ftl.planes[2].free.clear();
    ftl.recount_free_lists();
    assert_eq!((ftl.die_needs_gc(0), ftl.die_needs_gc(1)), (Some(0), Some(2)));
}

/// Valid pages on each die of a fresh plain device (2 channels × 4 dies)
/// after one-page writes of 64 distinct pages, 10 ms apart (every die idle
/// at each), under `ftl.allocation`.
fn valid_by_die(allocation: rainsim_model::ftl::params::PageAllocation) -> Vec<u64> {
    use rainsim_model::metrics::observer::NullObserver;
    use rainsim_trace::{Op, Request};
    let mut cfg = crate::tiny(2, 4, 1, 32, 32, None);
    cfg.ftl.allocation = allocation;
    let mut ssd = rainsim_model::Ssd::new(&cfg, NullObserver, false).unwrap();
    let reqs: Vec<Request> = (0..64u64)
        .map(|i| Request { time_ns: i * 10_000_000, offset: i * 4096, size: 4096, device: 0, op: Op::Write })
        .collect();
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let per_die = 32; // one plane of 32 blocks
    (0..8).map(|d| ssd.ftl.blocks[d * per_die..(d + 1) * per_die].iter().map(|b| b.valid as u64).sum()).collect()
}

/// With every die idle, `dynamic` offers each program to its channel's first
/// die, which takes them all (a fresh device fills die by die); in
/// `round-robin` the offers start after the die that took the last one, so
/// the 32 programs of each channel spread 8 to a die.
#[test]
fn round_robin_spreads_a_light_load_over_the_dies_where_dynamic_fills_the_first() {
    use rainsim_model::ftl::params::PageAllocation;
    assert_eq!(valid_by_die(PageAllocation::Dynamic), [32, 0, 0, 0, 32, 0, 0, 0]);
    assert_eq!(valid_by_die(PageAllocation::RoundRobin), [8; 8]);
}
