//! GC on hand-built FTL states: the trigger at its boundary, a read waiting
//! for a GC (exact latency), GC time and bus use with and without copyback,
//! read-disturb counts reset by the erase, the wear-levelling bound.

use crate::tiny;
use rainsim_model::config::Config;
use rainsim_model::flash::address::Layout;
use rainsim_model::ftl::{Ftl, GcWork};
use rainsim_model::metrics::observer::Observer;
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};

const PB: u64 = 4096;
const T_R: u64 = 20_000;
const T_PROG: u64 = 500_000;
const T_BERS: u64 = 3_000_000;
const CMD: u64 = 300;
// 4096 B at 400 MB/s = 10,240 ns, plus the command cycles.
const XFER: u64 = 10_240 + CMD;
const PPB: u32 = 4;

/// One channel of `dies` dies, one plane of 8 blocks × 4 pages each; GC
/// below 20 % of 8 blocks = 1.6, raised to the minimum of 2 free blocks.
fn cfg(dies: u32, copyback: bool) -> Config {
    let mut c = tiny(1, dies, 1, 8, PPB, None);
    c.geometry.over_provisioning = 0.25;
    c.ftl.gc_threshold = 0.2;
    c.ftl.copyback = copyback;
    c.ftl.wear_level_spread = 0;
    c.timing.read_ns = T_R;
    c.timing.program_ns = T_PROG;
    c.timing.erase_ns = T_BERS;
    c.timing.command_ns = CMD;
    c
}
const TRIGGER: usize = 2;

/// Writes `chunks` in order on `die` through the FTL (no timing).
fn write(ftl: &mut Ftl, die: u32, chunks: impl IntoIterator<Item = u32>) {
    for c in chunks {
        let p = ftl.allocate(die).unwrap();
        ftl.commit(c, p);
    }
}

/// Die 0 of `cfg(2, _)`: blocks 0..5 full with chunks 0..23, then chunks 0
/// and 1 rewritten into block 6. Block 0 keeps 2 valid pages (chunks 2, 3),
/// every other full block 4; one block is free, below the trigger of 2.
/// Die 1 holds chunk 24 only.
fn below_trigger(copyback: bool) -> Ssd<Rec> {
    let mut ssd = Ssd::new(&cfg(2, copyback), Rec::default(), false).unwrap();
    write(&mut ssd.ftl, 0, 0..24);
    write(&mut ssd.ftl, 0, [0, 1]);
    write(&mut ssd.ftl, 1, [24]);
    assert_eq!(ssd.ftl.planes[0].free.len(), TRIGGER - 1);
    assert_eq!((ssd.ftl.victim(0), ssd.ftl.blocks[0].valid), (Some(0), 2));
    ssd
}

/// Request latencies and GC durations.
#[derive(Default)]
struct Rec {
    lat: Vec<(u64, u64)>,
    gc: Vec<u64>,
}
impl Observer for Rec {
    fn request_done(&mut self, _slot: u32, _: Op, arrival: u64, done: u64, _: u32) {
        self.lat.push((arrival, done - arrival));
    }
    fn gc_done(&mut self, _: u32, _: &GcWork, duration: u64, _: f64) {
        self.gc.push(duration);
    }
}

fn read(t: u64, chunk: u64) -> Request {
    Request { time_ns: t, offset: chunk * PB, size: PB as u32, device: 0, op: Op::Read }
}

/// GC starts at time 0 (the plane is below its trigger), moving block 0's
/// two valid pages by copyback and erasing it. A read on that die arriving
/// 1 ms later waits for the rest of the GC; one on the other die does not.
#[test]
fn a_read_arriving_during_gc_waits_for_it() {
    let mut ssd = below_trigger(true);
    let gc = 2 * (T_R + T_PROG + 2 * CMD) + T_BERS;
    let at = 1_000_000;
    // Chunk 5 lies in block 1 of die 0, chunk 24 on die 1.
    ssd.run(&[read(at, 5), read(at, 24)], &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.gc, vec![gc], "one GC of two copyback moves and one erase");
    let mut lat = ssd.obs.lat.clone();
    lat.sort();
    assert_eq!(lat, vec![(at, T_R + XFER), (at, gc - at + T_R + XFER)]);
    assert_eq!(ssd.ftl.planes[0].free.len(), TRIGGER, "block 0 erased, one GC only");
}

/// Without copyback each move crosses the bus out and back in: the GC holds
/// its die for 2 × (tR + tPROG + 2 transfers) + tBERS and the channel bus for
/// 4 transfers from time 0, so a read on the other die waits for the bus.
#[test]
fn gc_without_copyback_takes_the_transfers_and_holds_the_bus() {
    let mut ssd = below_trigger(false);
    let gc = 2 * (T_R + T_PROG + 2 * XFER) + T_BERS;
    let at = 1_000_000;
    ssd.run(&[read(0, 24), read(at, 5)], &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.gc, vec![gc]);
    // The die-1 read senses for tR, then its transfer follows the GC's four.
    let bus_free = 2 * 2 * XFER;
    assert!(bus_free > T_R, "the test needs the GC's transfers to outlast tR");
    assert_eq!(ssd.obs.lat, vec![(0, bus_free + XFER), (at, gc - at + T_R + XFER)]);

    // With copyback the same read does not wait.
    let mut ssd = below_trigger(true);
    ssd.run(&[read(0, 24)], &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.lat, vec![(0, T_R + XFER)]);
}

/// `ftl.gc_threshold` 0.2 of 16 blocks = 3.2 → 3 free blocks: a plane with
/// exactly 3 does not collect, with 2 it does.
#[test]
fn gc_triggers_below_the_threshold_not_at_it() {
    let c = tiny(1, 1, 1, 16, PPB, None);
    let trigger = 3;
    let mut ftl = Ftl::new(Layout::new(&c.geometry), 64, 0.2, 0);
    // 13 full blocks (chunks 0..51): 3 free.
    write(&mut ftl, 0, 0..52);
    assert_eq!(ftl.planes[0].free.len(), trigger);
    assert!(!ftl.needs_gc(0));
    assert_eq!(ftl.collect_die(0).unwrap(), None, "at the trigger: no GC");
    // Rewriting chunk 0 opens a 14th block: 2 free.
    write(&mut ftl, 0, [0]);
    assert_eq!(ftl.planes[0].free.len(), trigger - 1);
    assert!(ftl.needs_gc(0));
    let work = ftl.collect_die(0).unwrap();
    // Victim block 0 keeps chunks 1..3.
    assert_eq!(work, Some(GcWork { moved: 3, erased: 1, wl_moved: 0 }));
}

/// Reads counted on a block since its erase (read disturb, under the LDPC
/// model: its one reader) start again from 0 when GC erases it; other blocks
/// keep theirs. Without the model no read is counted.
#[test]
fn gc_erase_resets_the_read_count() {
    let run = |trigger_gc: bool, ldpc: bool| {
        let mut c = cfg(1, true);
        c.ldpc.enabled = ldpc;
        let mut ssd = Ssd::new(&c, Rec::default(), false).unwrap();
        // Blocks 0..4 full with chunks 0..19; chunks 0, 1 rewritten into
        // block 5: block 0 keeps 2 valid pages, 2 blocks free (no GC yet).
        write(&mut ssd.ftl, 0, 0..20);
        write(&mut ssd.ftl, 0, [0, 1]);
        assert_eq!(ssd.ftl.planes[0].free.len(), TRIGGER);
        let mut reqs = Vec::new();
        // Three reads of each of chunks 2 and 3 (block 0), two of chunk 4 (block 1).
        for (i, c) in [2, 3, 2, 3, 2, 3, 4, 4].into_iter().enumerate() {
            reqs.push(read(i as u64 * 100_000, c));
        }
        // Writes filling block 5, then opening block 6: one free block left.
        let writes: &[u64] = if trigger_gc { &[20, 21, 22] } else { &[20, 21] };
        for (i, &c) in writes.iter().enumerate() {
            reqs.push(Request {
                time_ns: 2_000_000 * (i as u64 + 1),
                offset: c * PB,
                size: PB as u32,
                device: 0,
                op: Op::Write,
            });
        }
        ssd.run(&reqs, &mut |_| {}).unwrap();
        let b = &ssd.ftl.blocks;
        (ssd.obs.gc.len(), b[0].reads, b[0].erases, b[1].reads)
    };
    assert_eq!(run(false, true), (0, 6, 0, 2), "no GC: six reads counted on block 0");
    assert_eq!(run(true, true), (1, 0, 1, 2), "GC erased block 0: its count restarts");
    assert_eq!(run(false, false), (0, 0, 0, 0), "without the LDPC model reads touch no block record");
}

/// Static wear levelling swaps when the erased victim's count exceeds the
/// coldest full block's by more than `ftl.wear_level_spread`, not at it; also
/// when a free block has fewer erases than any full one (it cannot take the
/// cold data, so it does not count).
#[test]
fn wear_levelling_swaps_beyond_the_spread_not_at_it() {
    let c = tiny(1, 1, 1, 8, PPB, None);
    let spread = 3;
    for cold in [0, 1] {
        for (victim_erases, swap) in [(cold + spread - 1, false), (cold + spread, true)] {
            let mut ftl = Ftl::new(Layout::new(&c.geometry), 32, 0.2, spread);
            // Blocks 0..5 full; chunks 0, 1 rewritten into block 6, so block 0
            // (2 valid) is the victim; block 7 stays free.
            write(&mut ftl, 0, 0..24);
            write(&mut ftl, 0, [0, 1]);
            // Blocks 1..6 (block 6 fills with the GC's moves) at `cold`
            // erases, block 7 at 0.
            ftl.blocks[0].erases = victim_erases;
            for b in 1..7 {
                ftl.blocks[b].erases = cold;
            }
            ftl.planes[0].at_min = if cold == 0 { 7 } else { 1 };
            let work = ftl.collect(0).unwrap();
            let gap = victim_erases + 1 - cold;
            assert_eq!(gap > spread, swap);
            if swap {
                // The coldest full block (block 1, 4 valid pages) moves into block 0 and is erased.
                assert_eq!(work, GcWork { moved: 2 + 4, erased: 2, wl_moved: 4 }, "cold {cold}, gap {gap}");
                assert_eq!((ftl.blocks[0].valid, ftl.blocks[1].erases), (4, cold + 1));
            } else {
                assert_eq!(work, GcWork { moved: 2, erased: 1, wl_moved: 0 }, "cold {cold}, gap {gap} = bound");
                assert_eq!(ftl.blocks[1].erases, cold);
            }
        }
    }
}

/// Static wear levelling of a coldest full block whose data is not all cold
/// (one of its pages was overwritten) collects it instead: its valid pages
/// go to the open block and it is erased, while the worn victim stays free
/// (swapped in, those pages would make the worn block a victim again soon).
#[test]
fn wear_levelling_collects_a_coldest_block_with_an_overwritten_page() {
    let c = tiny(1, 1, 1, 8, PPB, None);
    let (spread, cold) = (3, 1);
    let mut ftl = Ftl::new(Layout::new(&c.geometry), 32, 0.2, spread);
    // Blocks 0..5 full (block b holds chunks 4b..4b + 3); chunks 0, 1 and 4
    // rewritten into block 6: block 0 (2 valid) is the victim, block 1 has 3.
    write(&mut ftl, 0, 0..24);
    write(&mut ftl, 0, [0, 1, 4]);
    ftl.blocks[0].erases = cold + spread;
    for b in 1..7 {
        ftl.blocks[b].erases = cold;
    }
    ftl.planes[0].at_min = 1;
    let work = ftl.collect(0).unwrap();
    // The victim's 2 pages fill block 6 and open block 7; block 1's 3 pages follow into block 7.
    assert_eq!(work, GcWork { moved: 2 + 3, erased: 2, wl_moved: 3 });
    assert_eq!((ftl.blocks[1].erases, ftl.blocks[1].valid, ftl.blocks[1].written), (cold + 1, 0, 0));
    assert_eq!((ftl.blocks[0].valid, ftl.blocks[0].written), (0, 0), "the worn victim holds nothing");
    assert!(ftl.planes[0].free.contains(&0) && ftl.planes[0].free.contains(&1), "{:?}", ftl.planes[0].free);
    assert_eq!((ftl.blocks[7].valid, ftl.blocks[7].written), (4, 4), "chunks 3, 5, 6, 7");
    for chunk in [3, 5, 6, 7] {
        let p = ftl.lookup(chunk).expect("mapped");
        assert_eq!(p / PPB, 7, "chunk {chunk} in block 7");
    }
}
