//! Variation-aware block allocation (Fig. 4) and static channel-first
//! allocation (Eq. 1).

use crate::tiny;
use rainsim_model::config::Geometry;
use rainsim_model::flash::address::Layout;
use rainsim_model::flash::process_variation::{ProcessVariation, PvParams};
use rainsim_model::ftl::allocation::variation_aware::VariationAware;
use rainsim_model::ftl::allocation::Lane;
use rainsim_model::ftl::Ftl;
use rainsim_trace::{Op, Request};

/// One die with three planes, each offering exactly one free page (one-page
/// blocks, one erased block kept in reserve per plane): plane 0's blocks
/// are medium (180 µs), plane 1's slow (210 µs), plane 2's fast (150 µs).
fn fig_4_die() -> (Ftl, [u64; 3]) {
    let g = Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: 3,
        blocks_per_plane: 2,
        pages_per_block: 1,
        page_bytes: 4096,
        over_provisioning: 0.5,
    };
    let mut ftl = Ftl::new(Layout::new(&g), 3, 0.0, 0);
    // ISPP step per plane (larger = faster); the test's own tPROG per step.
    for (plane, step) in [(0u32, 1u8), (1, 0), (2, 2)] {
        for b in 0..2 {
            ftl.blocks[(plane * 2 + b) as usize].dvp_step = step;
        }
    }
    (ftl, [210_000, 180_000, 150_000])
}

/// Three conflicting sub-requests on one chip run one after another; each
/// completes when its program ends. Returns the mean response time.
fn mean_response(ftl: &mut Ftl, tprog: [u64; 3], mut next_page: impl FnMut(&mut Ftl, u32) -> u32) -> u64 {
    let mut done = 0;
    let mut sum = 0;
    // NR of the chip when each is issued: 3, 2, 1 (itself included).
    for nr in [3, 2, 1] {
        let ppn = next_page(ftl, nr);
        done += tprog[ftl.blocks[ftl.layout.block_of(ppn) as usize].dvp_step as usize];
        sum += done;
    }
    sum / 3
}

/// Fig. 4: VIOS gives the first two (others still waiting) the fastest free
/// blocks and the last a slow one: (150 + 330 + 540) / 3 = 340 µs; in-order
/// allocation takes medium, slow, fast: (180 + 390 + 540) / 3 = 370 µs.
#[test]
fn fig_4_conflicting_writes_average_340us_against_370us_in_order() {
    let (mut ftl, tprog) = fig_4_die();
    ftl.set_allocator(Box::new(VariationAware::default()));
    let vios = mean_response(&mut ftl, tprog, |f, nr| {
        f.allocate_lane(0, if nr > 1 { Lane::Fast } else { Lane::Slow }).unwrap()
    });
    assert_eq!(vios, 340_000);
    let (mut ftl, tprog) = fig_4_die();
    assert_eq!(mean_response(&mut ftl, tprog, |f, _| f.allocate(0).unwrap()), 370_000);
}

#[test]
fn the_lane_picks_the_first_fastest_or_slowest() {
    let steps = [3u8, 7, 1, 7, 1];
    assert_eq!(VariationAware::pick(steps.into_iter(), Lane::Fast), Some(1));
    assert_eq!(VariationAware::pick(steps.into_iter(), Lane::Slow), Some(2));
    assert_eq!(VariationAware::pick(steps.into_iter(), Lane::Any), Some(0));
    assert_eq!(VariationAware::pick(std::iter::empty(), Lane::Fast), None);
}

/// Static channel-first allocation without parity: every logical page p
/// written during the run lives on channel p mod C, die ⌊p / C⌋ mod (dies
/// per channel) of it — chip p mod ChipNum of Eq. 1.
#[test]
fn static_allocation_puts_page_p_on_chip_p_mod_chipnum() {
    let mut c = tiny(4, 2, 2, 32, 16, None);
    c.ftl.allocation = rainsim_model::ftl::params::PageAllocation::StaticChannelFirst;
    let reqs: Vec<Request> = (0..200u64)
        .map(|i| Request { time_ns: i * 50_000, offset: (i * 7 % 150) * 4096, size: 4096, device: 0, op: Op::Write })
        .collect();
    let mut ssd = rainsim_model::Ssd::new(&c, rainsim_model::metrics::observer::NullObserver, true).unwrap();
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let l = ssd.layout().clone();
    let mut checked = 0;
    for p in 0..150u32 {
        let Some(ppn) = ssd.ftl.lookup(p) else { continue };
        let die = l.die_of(ppn);
        assert_eq!(l.channel_of_die(die), p % 4, "page {p}");
        assert_eq!(die - l.first_die(p % 4), (p / 4) % 2, "page {p}");
        checked += 1;
    }
    assert!(checked >= 100, "{checked} pages written");
    // Dynamic allocation spreads a channel's pages over both of its dies regardless.
    let mut d =
        rainsim_model::Ssd::new(&tiny(4, 2, 2, 32, 16, None), rainsim_model::metrics::observer::NullObserver, true)
            .unwrap();
    d.run(&reqs, &mut |_| {}).unwrap();
    let off = (0..150u32)
        .filter_map(|p| d.ftl.lookup(p).map(|ppn| (p, l.die_of(ppn))))
        .filter(|&(p, die)| die - l.first_die(p % 4) != (p / 4) % 2)
        .count();
    assert!(off > 0, "dynamic allocation is not Eq. 1's");
}

/// VIOS end to end on a small device with everything on — static
/// allocation, process variation, the VIOS scheduler over a queue depth of
/// 4, variation-aware allocation — under GC from the first request: the
/// verified run completes, GC ran, and pages went to blocks of several speeds.
#[test]
fn vios_with_static_allocation_and_gc_verifies() {
    use rainsim_model::host::HostSchedulerKind;
    use rainsim_model::policy::spec::BlockAllocationKind;
    let mut c = tiny(2, 2, 2, 32, 16, None);
    crate::gc_from_start(&mut c);
    c.geometry.over_provisioning = 0.3;
    c.precondition.valid = 0.6;
    c.precondition.invalid = 0.3;
    c.ftl.allocation = rainsim_model::ftl::params::PageAllocation::StaticChannelFirst;
    c.process_variation.enabled = true;
    c.host.queue_depth = 4;
    c.policy.host_scheduler = HostSchedulerKind::Vios;
    c.policy.block_allocation = BlockAllocationKind::VariationAware;
    let pages = rainsim_model::run::capacity_bytes(&c) / 4096;
    let mut x = 5u64;
    let reqs: Vec<Request> = (0..3000u64)
        .map(|i| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let op = if (x >> 40).is_multiple_of(4) { Op::Read } else { Op::Write };
            Request { time_ns: i * 150_000, offset: (x >> 20) % (pages - 1) * 4096, size: 8192, device: 0, op }
        })
        .collect();
    let r = rainsim_model::run::simulate(&c, &reqs, rainsim_model::run::RunOptions::new("vios", true, &mut |_| {}))
        .unwrap();
    assert_eq!(r.latency.all.count, 3000);
    assert!(r.gc.count > 0 && r.host.held_by_queue_depth > 0);
    let pv = r.process_variation.unwrap();
    assert!(pv.classes.iter().filter(|k| k.programs > 0).count() >= 2, "pages in blocks of several speeds");
    assert!(r.conflicts.unwrap().ratio > 0.0);
}

/// Static allocation and rotating GC both bind RAID-5 programs to dies: the
/// configuration names both keys; without parity rotating GC is off anyway.
#[test]
fn static_allocation_refuses_rotating_gc_under_raid5() {
    let mut c = tiny(4, 2, 2, 32, 16, Some(4));
    c.ftl.allocation = rainsim_model::ftl::params::PageAllocation::StaticChannelFirst;
    c.ftl.rotating_gc = true;
    let e = c.validate().unwrap_err().0;
    assert!(e.contains("ftl.allocation") && e.contains("ftl.rotating_gc"), "{e}");
    c.raid.level = rainsim_model::config::RaidLevel::None;
    c.validate().unwrap();
}

/// `policy.variation_aware.slow = "in-order"`: a page nobody waits behind
/// takes the in-order plane (Fig. 4's die: plane 0, medium), a conflicting
/// one still the fastest.
#[test]
fn the_in_order_slow_lane_leaves_unhurried_pages_in_order() {
    use rainsim_model::ftl::allocation::variation_aware::SlowBlock;
    let (mut ftl, _) = fig_4_die();
    ftl.set_allocator(Box::new(VariationAware { slow: SlowBlock::InOrder }));
    let plane = |f: &Ftl, ppn: u32| f.layout.plane_of_block(f.layout.block_of(ppn));
    let p = ftl.allocate_lane(0, Lane::Slow).unwrap();
    assert_eq!(plane(&ftl, p), 0);
    let p = ftl.allocate_lane(0, Lane::Fast).unwrap();
    assert_eq!(plane(&ftl, p), 2);
}

/// A device of one die whose plane 0 holds only fast blocks and plane 1 only
/// slow ones, variation-aware allocation on: the plane each written page
/// lands in is the lane the device chose for it.
fn two_speed_die(
    read_priority: bool,
    queue_depth: u32,
) -> rainsim_model::Ssd<rainsim_model::metrics::observer::NullObserver> {
    use rainsim_model::policy::spec::BlockAllocationKind;
    let mut c = tiny(1, 1, 2, 8, 4, None);
    c.process_variation.enabled = true;
    c.policy.block_allocation = BlockAllocationKind::VariationAware;
    c.policy.read_priority = read_priority;
    c.host.queue_depth = queue_depth;
    let mut ssd = rainsim_model::Ssd::new(&c, rainsim_model::metrics::observer::NullObserver, true).unwrap();
    let (fast, slow) = (2, 0);
    assert!(ssd.ftl.pv.as_ref().unwrap().tprog_ns(fast) < ssd.ftl.pv.as_ref().unwrap().tprog_ns(slow));
    for b in 0..16u32 {
        let plane = ssd.ftl.layout.plane_of_block(b);
        ssd.ftl.blocks[b as usize].dvp_step = if plane == 0 { fast } else { slow };
    }
    // Speeds set from outside: the free lists' counts by speed follow.
    ssd.ftl.recount_free_lists();
    ssd
}

fn page_write(time_ns: u64, lpn: u64) -> Request {
    Request { time_ns, offset: lpn * 4096, size: 4096, device: 0, op: Op::Write }
}

/// Plane (0 fast, 1 slow) holding each logical page after the run.
fn planes<O: rainsim_model::metrics::observer::Observer>(ssd: &rainsim_model::Ssd<O>, lpns: &[u32]) -> Vec<u32> {
    lpns.iter().map(|&p| ssd.ftl.layout.plane_of_block(ssd.ftl.layout.block_of(ssd.ftl.lookup(p).unwrap()))).collect()
}

/// Through the device (Fig. 4's rule at each program's start): three writes
/// at once to the one die. The first starts with nothing waiting (slow
/// block), the second while the third waits behind it (fast), the third
/// alone again (slow).
#[test]
fn a_program_takes_a_fast_block_only_while_writes_wait_for_its_die() {
    let mut ssd = two_speed_die(true, 0);
    ssd.run(&[page_write(0, 0), page_write(0, 1), page_write(0, 2)], &mut |_| {}).unwrap();
    assert_eq!(planes(&ssd, &[0, 1, 2]), [1, 0, 1]);
}

/// A read queued for the die counts as waiting work too. Without read
/// priority the die takes the older of its queued program and read: the
/// program starts first, with only the read behind it, and takes a fast
/// block; the program before it started with nothing queued (slow).
#[test]
fn a_read_queued_for_the_die_sends_the_program_before_it_to_a_fast_block() {
    let mut ssd = two_speed_die(false, 0);
    let t = 10_000_000;
    let read = Request { time_ns: t + 2_000, offset: 5 * 4096, size: 4096, device: 0, op: Op::Read };
    ssd.run(&[page_write(0, 5), page_write(t, 6), page_write(t + 1_000, 7), read], &mut |_| {}).unwrap();
    assert_eq!(planes(&ssd, &[5, 6, 7]), [1, 1, 0]);
}

/// Each lane fills its own open block: one plane of four 4-page blocks
/// (steps 1, 3, 0, 2), fast and slow pages interleaved, the fast ones fill
/// the fastest block (1) and the slow ones the slowest (2), page by page.
/// The plain-program flag (the device's fast path) is off while lanes are.
#[test]
fn fast_and_slow_pages_fill_separate_open_blocks() {
    let mut ftl = one_die(1);
    for (b, step) in [1u8, 3, 0, 2].into_iter().enumerate() {
        ftl.blocks[b].dvp_step = step;
    }
    assert!(ftl.plain_programs(), "a fresh FTL programs in order without variation");
    ftl.set_allocator(Box::new(VariationAware::default()));
    assert!(!ftl.plain_programs() && ftl.uses_lanes());
    let mut pages = Vec::new();
    for lane in [Lane::Fast, Lane::Slow, Lane::Fast, Lane::Slow, Lane::Slow] {
        pages.push(ftl.allocate_lane(0, lane).unwrap());
    }
    assert_eq!(pages, [4, 8, 5, 9, 10], "block 1 from page 4, block 2 from page 8");
    ftl.set_allocator(Box::new(rainsim_model::ftl::allocation::in_order::InOrder));
    assert!(ftl.plain_programs() && !ftl.uses_lanes());
}

/// A request waiting at the host for a slot counts for its chip (NR, Eq. 2)
/// under variation-aware allocation with FIFO and no conflict report. One
/// slot, three writes 1 µs apart: the first starts on the idle die (slow);
/// the second takes the slot when it ends, while the third still waits at
/// the host, and goes fast; the third starts alone (slow). Without chip
/// state kept for the allocator the second would go slow too.
#[test]
fn a_request_waiting_for_a_host_slot_sends_the_program_before_it_to_a_fast_block() {
    let mut ssd = two_speed_die(true, 1);
    ssd.run(&[page_write(0, 0), page_write(1_000, 1), page_write(2_000, 2)], &mut |_| {}).unwrap();
    assert_eq!(planes(&ssd, &[0, 1, 2]), [1, 0, 1]);
}

/// An FTL of one die of `planes` planes of four 4-page blocks, all equally
/// fast, in-order allocation.
fn one_die(planes: u32) -> Ftl {
    let g = Geometry {
        channels: 1,
        chips_per_channel: 1,
        dies_per_chip: 1,
        planes_per_die: planes,
        blocks_per_plane: 4,
        pages_per_block: 4,
        page_bytes: 4096,
        over_provisioning: 0.5,
    };
    Ftl::new(Layout::new(&g), 8, 0.0, 0)
}

/// The same under variation-aware allocation.
fn equal_planes(planes: u32) -> Ftl {
    let mut ftl = one_die(planes);
    ftl.set_allocator(Box::new(VariationAware::default()));
    ftl
}

/// Equally fast open blocks tie, and a lane's pages go round the die's
/// planes from the plane after the last one taken, whichever lane took it.
#[test]
fn tied_lanes_take_the_planes_in_turn() {
    let mut ftl = equal_planes(3);
    let lanes = [Lane::Fast, Lane::Fast, Lane::Slow, Lane::Fast, Lane::Slow, Lane::Slow, Lane::Fast];
    let planes: Vec<u32> = lanes.iter().map(|&l| ftl.allocate_lane(0, l).unwrap() / 16).collect();
    assert_eq!(planes, [0, 1, 2, 0, 1, 2, 0]);
}

/// A die of more planes than a lane weighs at once (64) still allocates:
/// the lane weighs the first 64 from the cursor.
#[test]
fn a_lane_on_a_die_of_65_planes_weighs_the_first_64() {
    let mut ftl = equal_planes(65);
    let planes: Vec<u32> = (0..3).map(|_| ftl.allocate_lane(0, Lane::Fast).unwrap() / 16).collect();
    assert_eq!(planes, [0, 1, 2]);
}

/// Fresh dies in place of a failed one have no open block of either lane,
/// every block free and unworn, and under process variation each block's
/// speed as detected at 0 erases: the fast lane then opens a block again.
#[test]
fn replaced_dies_open_no_lane_and_forget_wear() {
    let mut ftl = equal_planes(2);
    let pv = ProcessVariation::new(&PvParams::default(), 8, 600_000, 7);
    let fresh: Vec<u8> = (0..8).map(|b| pv.detect(b, 0)).collect();
    ftl.set_process_variation(pv);
    let fast = ftl.allocate_lane(0, Lane::Fast).unwrap();
    ftl.allocate_lane(0, Lane::Slow).unwrap();
    assert!(ftl.planes.iter().any(|p| p.fast.is_some()) && ftl.planes.iter().any(|p| p.active.is_some()));
    for b in ftl.blocks.iter_mut() {
        (b.erases, b.dvp_step) = (40, 0);
    }
    ftl.replace_dies(0, 1);
    assert!(ftl.planes.iter().all(|p| p.fast.is_none() && p.active.is_none() && p.free.len() == 4));
    assert!(ftl.blocks.iter().all(|b| b.erases == 0 && b.written == 0));
    assert_eq!(ftl.blocks.iter().map(|b| b.dvp_step).collect::<Vec<u8>>(), fresh);
    assert_eq!(ftl.allocate_lane(0, Lane::Fast).unwrap() % 4, fast % 4, "a fresh block's first page");
}
