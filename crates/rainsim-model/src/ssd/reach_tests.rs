//! Preconditioning's deal is laid out at set-up when the run's requests will
//! reach most of it, else as the run reaches it (`ftl/precondition/reach.rs`),
//! and the reports of both are the same.

use super::Ssd;
use crate::config::Config;
use crate::ftl::precondition::params::AgeLayout;
use crate::metrics::observer::NullObserver;
use rainsim_trace::{Op, Request};

/// 8 channels of 64 blocks of 16 pages of 4 KiB, RAID-5 of width 8, aged
/// packed to 80 %: 1,024 stripes, 4 segments of 256; the host sees
/// [`pages`] of them (7 data pages a stripe).
fn config() -> Config {
    let mut c = Config::default();
    let g = &mut c.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (8, 1, 1, 1);
    (g.blocks_per_plane, g.pages_per_block, g.page_bytes) = (64, 16, 4096);
    (c.precondition.valid, c.precondition.invalid, c.precondition.layout) = (0.8, 0.1, AgeLayout::Packed);
    c.raid.stripe_width = 8;
    c
}

/// Logical pages of [`config`]'s device.
fn pages(c: &Config) -> u64 {
    Ssd::new(c, NullObserver, false).unwrap().capacity_bytes() / 4096
}

/// `n` one-page writes 1 µs apart, the i-th at page `page(i)`.
fn writes(n: u64, page: impl Fn(u64) -> u64) -> Vec<Request> {
    (0..n)
        .map(|i| Request { time_ns: i * 1000, device: 0, offset: page(i) * 4096, size: 4096, op: Op::Write })
        .collect()
}

fn pending(c: &Config, requests: &[Request]) -> usize {
    let ssd = Ssd::for_requests(c, NullObserver, false, requests).unwrap();
    ssd.ftl.map.pending_segments().expect("the packed deal is deferred")
}

#[test]
fn a_run_that_reaches_most_segments_has_them_laid_out_at_set_up() {
    let c = config();
    let pages = pages(&c);
    // Held requests over every segment, and over the first only.
    let all = writes(64, |i| i * pages / 64);
    assert_eq!(pending(&c, &all), 0, "every segment reached: all laid out");
    let first = writes(64, |i| i % 256);
    assert!(pending(&c, &first) >= 3, "one segment of four reached: the rest wait");
    // No requests held: the configured synthetic workload is estimated.
    let mut wide = c.clone();
    (wide.workload.footprint, wide.workload.requests) = (1.0, 10_000);
    assert_eq!(pending(&wide, &[]), 0, "10,000 requests over the whole space");
    let mut few = wide.clone();
    few.workload.requests = 1;
    assert!(pending(&few, &[]) >= 3, "one request");
}

/// The same requests leave the same device whichever way the deal is laid
/// out: a run built for its own requests (three of four segments reached,
/// then all four: laid out at set-up) against one built for its first
/// request alone (one segment reached: on demand). Compared: requests
/// completed, pages GC moved, the end time, every chunk's page and every
/// page's chunk after the run. Not
/// under verify mode, whose snapshot of the tables reads them all at set-up.
#[test]
fn laid_out_at_set_up_or_on_demand_the_run_is_the_same() {
    let c = config();
    let pages = pages(&c);
    for (span, eager) in [(pages * 3 / 4, true), (pages, true), (pages / 8, false)] {
        let reqs = writes(3000, |i| (i * 2654435761) % span);
        let after = |held: &[Request]| {
            let mut ssd = Ssd::for_requests(&c, NullObserver, false, held).unwrap();
            let laid_out = ssd.ftl.map.pending_segments() == Some(0);
            let done = ssd.run(&reqs, &mut |_| {}).unwrap();
            let moved: u64 = ssd.flash.dies().iter().map(|d| d.gc_moves).sum();
            let totals = (done.completed, moved, ssd.q.now());
            let m = &ssd.ftl.map;
            let chunks: Vec<_> = (0..m.chunks() as u32).map(|c| m.get(c)).collect();
            let owners: Vec<_> = (0..ssd.layout.pages()).map(|p| m.owner(p)).collect();
            (laid_out, totals, chunks, owners)
        };
        let (own, first) = (after(&reqs), after(&reqs[..1]));
        assert_eq!((own.0, first.0), (eager, false), "span {span} pages");
        assert!(own.1 .1 > 0, "GC moved pages (it reads entries the layout fills)");
        assert_eq!(own.1, first.1, "totals, span {span} pages");
        assert!(own.2 == first.2 && own.3 == first.3, "tables, span {span} pages");
    }
}
