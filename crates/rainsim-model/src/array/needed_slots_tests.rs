//! `needed_slots` by hand: the stripes a trace touches, as one chunk read each.

use super::*;
use crate::config::MapTrace;
use rainsim_trace::{Op, Request};

const PAGE: u64 = 4096;
const CHUNK: u64 = 4 * PAGE;
/// Bytes of one array stripe: four data chunks (five devices, parity).
const ROW: u64 = 4 * CHUNK;

fn setup(allocation: Allocation, map_trace: MapTrace) -> (Config, ArrayParams) {
    let mut cfg = Config::default();
    cfg.geometry.page_bytes = PAGE as u32;
    cfg.precondition.map_trace = map_trace;
    let a = ArrayParams { devices: 5, chunk_kib: 16, allocation, ..Default::default() };
    (cfg, a)
}

fn write(offset: u64, size: u32) -> Request {
    Request { time_ns: 5, offset, size, device: 0, op: Op::Write }
}

/// 100 stripes (400 page units under static placement, 100 chunk units
/// under free placement): a request marks every stripe from its first byte's
/// to its last's (one ending on a stripe's last byte does not touch the
/// next), a size of 0 its first byte's, and one running past the end is cut
/// at the last stripe.
#[test]
fn every_stripe_a_trace_touches_once() {
    let reqs = [
        write(0, 1),
        write(3 * ROW - 1, 2),
        write(7 * ROW + 100, 0),
        write(2 * ROW + 5, 10),
        write(5 * ROW - 10, 10), // ends on stripe 4's last byte
        write(99 * ROW + 10, 5 * ROW as u32),
    ];
    for (allocation, units) in [(Allocation::Static, 400), (Allocation::Rr, 100)] {
        let (cfg, a) = setup(allocation, MapTrace::Reads);
        let got = needed_slots(&cfg, &a, units, &reqs);
        let want: Vec<Request> = [0u64, 2, 3, 4, 7, 99]
            .iter()
            .map(|&s| Request { time_ns: 0, offset: s * CHUNK, size: CHUNK as u32, device: 0, op: Op::Read })
            .collect();
        assert_eq!(got, want, "{allocation:?}");
    }
}

#[test]
fn nothing_without_trace_mapping_or_requests() {
    let (cfg, a) = setup(Allocation::Static, MapTrace::None);
    assert!(needed_slots(&cfg, &a, 400, &[write(0, 1)]).is_empty());
    let (cfg, a) = setup(Allocation::Static, MapTrace::Footprint);
    assert!(needed_slots(&cfg, &a, 400, &[]).is_empty());
}
