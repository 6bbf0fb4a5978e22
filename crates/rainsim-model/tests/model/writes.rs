//! The stripe write path end to end: which routine runs, how many pre-reads
//! reach the flash, and parity staying consistent.

use crate::tiny;
use rainsim_model::flash::op::Origin;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::ssd::Fault;
use rainsim_model::{SimError, Ssd};
use rainsim_trace::{Op, Request};

const PB: u64 = 4096;

fn w(t: u64, lpn: u64, pages: u64) -> Request {
    Request { time_ns: t, offset: lpn * PB, size: (pages * PB) as u32, device: 0, op: Op::Write }
}

/// 6 channels, 5+1 stripes, fresh device. Requests are spaced far apart so
/// each finishes before the next arrives.
#[test]
fn full_rmw_rcw_counts_and_prereads() {
    let cfg = tiny(6, 1, 1, 32, 16, Some(6));
    let mut ssd = Ssd::new(&cfg, Collector::new(6), true).unwrap();
    let gap = 100_000_000;
    let reqs = vec![
        w(0, 0, 5),       // stripe 0, all five data chunks: full stripe
        w(gap, 0, 1),     // one chunk: RMW, 2 pre-reads (d0, P)
        w(2 * gap, 0, 3), // three chunks: RCW, 2 pre-reads (d3, d4)
        w(3 * gap, 1, 2), // two chunks: tie 3 vs 3 → RCW, 3 pre-reads
        w(4 * gap, 5, 1), // stripe 1, never written: a fresh stripe, nothing to read
        Request { time_ns: 5 * gap, offset: 2 * PB + 100, size: 1000, device: 0, op: Op::Write }, // part of d2: RMW (2) < RCW (5)
    ];
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let r = ssd.obs.raid;
    assert_eq!((r.full, r.rmw, r.rcw, r.fresh), (1, 2, 2, 1));
    assert_eq!(r.prereads, 2 + 2 + 3 + 2);
    assert_eq!(ssd.obs.ops(Origin::PreRead), 9, "pre-reads reach the flash");
    // Programs: 5 + 1 + 3 + 2 + 1 + 1 data, one parity per job.
    assert_eq!(ssd.obs.ops(Origin::HostProgram), 13);
    assert_eq!(ssd.obs.ops(Origin::ParityProgram), 6);
    assert_eq!(ssd.totals().stripes_verified, 2);
}

#[test]
fn full_stripe_write_issues_no_preread() {
    let cfg = tiny(4, 1, 1, 32, 16, Some(4));
    let mut ssd = Ssd::new(&cfg, Collector::new(4), true).unwrap();
    // Stripes 0..3 written whole, twice (the second time every chunk exists).
    let reqs = vec![w(0, 0, 12), w(50_000_000, 0, 12)];
    ssd.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.raid.full, 8);
    assert_eq!(ssd.obs.ops(Origin::PreRead), 0);
    assert_eq!(ssd.obs.ops(Origin::ParityProgram), 8);
}

#[test]
fn overlapping_writes_to_one_stripe_are_serialised() {
    // Many concurrent one-page updates of the same stripe: the stripe lock
    // must keep parity equal to the XOR of the data (checked at the end).
    let cfg = tiny(4, 2, 1, 32, 16, Some(4));
    let mut ssd = Ssd::new(&cfg, Collector::new(4), true).unwrap();
    let mut reqs = vec![w(0, 0, 3)];
    reqs.extend((0..60).map(|i| w(1_000_000 + i * 10, i % 3, 1)));
    ssd.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(ssd.totals().completed, 61);
    assert_eq!(ssd.totals().stripes_verified, 1);
}

#[test]
fn broken_parity_update_is_caught() {
    let cfg = tiny(6, 1, 1, 32, 16, Some(6));
    let mut ssd = Ssd::new(&cfg, Collector::new(6), true).unwrap();
    ssd.inject_fault(Fault::RmwIgnoresOldData);
    let reqs = vec![w(0, 0, 5), w(100_000_000, 0, 1)];
    match ssd.run(&reqs, &mut |_| {}) {
        Err(SimError::Verify(e)) => assert!(e.what.contains("stripe 0 is not recoverable"), "{e}"),
        other => panic!("the broken RMW went unnoticed: {other:?}"),
    }
}

#[test]
fn partial_page_without_raid_reads_old_page_first() {
    let cfg = tiny(2, 1, 1, 32, 16, None);
    let mut ssd = Ssd::new(&cfg, Collector::new(2), true).unwrap();
    let reqs = vec![
        w(0, 0, 1),
        Request { time_ns: 10_000_000, offset: 512, size: 512, device: 0, op: Op::Write },
        Request { time_ns: 20_000_000, offset: 8192, size: 512, device: 0, op: Op::Write }, // never written: no merge read
    ];
    ssd.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.ops(Origin::PreRead), 1);
    assert_eq!(ssd.obs.raid.plain, 3);
}

/// A write that starts on a page boundary but ends inside a page merges
/// that last page (reads it first), with RAID off and in a write of every
/// data chunk of a 3+1 stripe; a page it covers whole is not read.
#[test]
fn a_write_ending_inside_a_page_reads_that_page_to_merge_it() {
    let part = |t: u64, lpn: u64, bytes: u64| Request { size: bytes as u32, ..w(t, lpn, 1) };
    let gap = 100_000_000;
    // RAID off: page 0 up to byte 512, then page 1 whole and page 2 up to byte 512.
    let cfg = tiny(2, 1, 1, 32, 16, None);
    let mut ssd = Ssd::new(&cfg, Collector::new(2), true).unwrap();
    ssd.run(&[w(0, 0, 3), part(gap, 0, 512), part(2 * gap, 1, PB + 512)], &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.ops(Origin::PreRead), 2, "one merge read per request, of its last page");
    // 3+1: pages 0 and 1 whole, page 2 up to byte 512: every data chunk
    // written, but not whole, so an RCW that reads only page 2 (to merge it;
    // the parity is the XOR of the three new pages).
    let cfg = tiny(4, 1, 1, 32, 16, Some(4));
    let mut ssd = Ssd::new(&cfg, Collector::new(4), true).unwrap();
    ssd.run(&[w(0, 0, 3), part(gap, 0, 2 * PB + 512)], &mut |_| {}).unwrap();
    assert_eq!((ssd.obs.raid.full, ssd.obs.raid.rmw, ssd.obs.raid.rcw), (1, 0, 1));
    assert_eq!(ssd.obs.ops(Origin::PreRead), 1, "the merge read of page 2");
}
