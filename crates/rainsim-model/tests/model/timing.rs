//! Hand-computed latencies of single operations, bus and die contention, and
//! the host queue-depth cap.

use crate::{tiny, Lat};
use rainsim_model::host::{HeldRequest, HostScheduler};
use rainsim_model::metrics::collector::Collector;
use rainsim_model::policy::DeviceView;
use rainsim_model::{Config, Ssd};
use rainsim_trace::{Op, Request};

const PB: u64 = 4096;
const T_R: u64 = 20_000;
const T_PROG: u64 = 500_000;
// 4096 B at 400 MB/s = 10,240 ns, plus 300 ns of command cycles.
const XFER: u64 = 10_240 + 300;

fn cfg(dies: u32) -> Config {
    let mut c = tiny(1, dies, 1, 64, 16, None);
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    c.timing.read_ns = T_R;
    c.timing.program_ns = T_PROG;
    c.timing.command_ns = 300;
    c
}

fn req(t: u64, lpn: u64, op: Op) -> Request {
    Request { time_ns: t, offset: lpn * PB, size: PB as u32, device: 0, op }
}

/// Two mapped logical pages on different dies (or the same die when `same`).
fn two_pages(ssd: &Ssd<Lat>, same: bool) -> (u64, u64) {
    let l = ssd.layout();
    let mut first: Option<(u64, u32)> = None;
    for lpn in 0..ssd.stripe_layout().logical_pages() {
        let Some(p) = ssd.ftl.lookup(lpn as u32) else { continue };
        let die = l.die_of(p);
        match first {
            None => first = Some((lpn, die)),
            Some((a, d)) if (d == die) == same => return (a, lpn),
            _ => {}
        }
    }
    panic!("no suitable pages");
}

#[test]
fn single_read_and_program_take_their_unloaded_time() {
    let mut ssd = Ssd::new(&cfg(1), Lat::default(), false).unwrap();
    let (a, _) = two_pages(&ssd, true);
    ssd.run(&[req(0, a, Op::Read), req(10_000_000, a, Op::Write)], &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.0, vec![(Op::Read, T_R + XFER), (Op::Write, XFER + T_PROG)]);
}

#[test]
fn reads_on_two_dies_share_the_bus_and_on_one_die_serialise() {
    // Different dies: both sense in parallel, the second transfer waits.
    let mut ssd = Ssd::new(&cfg(2), Lat::default(), false).unwrap();
    let (a, b) = two_pages(&ssd, false);
    ssd.run(&[req(0, a, Op::Read), req(0, b, Op::Read)], &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.0, vec![(Op::Read, T_R + XFER), (Op::Read, T_R + 2 * XFER)]);
    // Same die: the second read starts when the first has left the die.
    let mut ssd = Ssd::new(&cfg(2), Lat::default(), false).unwrap();
    let (a, b) = two_pages(&ssd, true);
    ssd.run(&[req(0, a, Op::Read), req(0, b, Op::Read)], &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.0, vec![(Op::Read, T_R + XFER), (Op::Read, 2 * (T_R + XFER))]);
}

#[test]
fn queue_depth_cap_holds_requests_but_counts_from_their_trace_time() {
    let mut c = cfg(2);
    c.host.queue_depth = 1;
    c.timing.request_overhead_ns = 1_000;
    let mut ssd = Ssd::new(&c, Lat::default(), false).unwrap();
    let (a, b) = two_pages(&ssd, false);
    // Different dies, but only one request may be inside the device at once.
    ssd.run(&[req(0, a, Op::Read), req(0, b, Op::Read), req(0, a, Op::Read)], &mut |_| {}).unwrap();
    let one = 1_000 + T_R + XFER;
    assert_eq!(ssd.obs.0, vec![(Op::Read, one), (Op::Read, 2 * one), (Op::Read, 3 * one)]);
}

/// Last come, first served: proves the host interface asks its scheduler.
#[derive(Default)]
struct Lifo(Vec<HeldRequest>);
impl HostScheduler for Lifo {
    fn hold(&mut self, r: HeldRequest) {
        self.0.push(r);
    }
    fn next(&mut self, _: &DeviceView) -> Option<HeldRequest> {
        self.0.pop()
    }
    fn waiting(&self) -> usize {
        self.0.len()
    }
}

/// With one slot, requests arriving at 0, 100 and 200 ns while the first is
/// inside: FIFO lets them in by arrival, the LIFO scheduler the last first.
#[test]
fn the_host_scheduler_picks_which_waiting_request_takes_a_slot() {
    let mut c = cfg(2);
    c.host.queue_depth = 1;
    c.timing.request_overhead_ns = 1_000;
    let one = 1_000 + T_R + XFER;
    for lifo in [false, true] {
        let mut ssd = Ssd::new(&c, Lat::default(), false).unwrap();
        if lifo {
            ssd.set_host_scheduler(Box::new(Lifo::default()));
        }
        let (a, b) = two_pages(&ssd, false);
        ssd.run(&[req(0, a, Op::Read), req(100, b, Op::Read), req(200, a, Op::Read)], &mut |_| {}).unwrap();
        let (second, third) = if lifo { (2 * one - 200, 3 * one - 100) } else { (2 * one - 100, 3 * one - 200) };
        assert_eq!(ssd.obs.0, vec![(Op::Read, one), (Op::Read, second), (Op::Read, third)], "lifo = {lifo}");
    }
}

#[test]
fn gc_holds_its_die_for_the_moves_and_the_erase() {
    // One plane, 8 blocks of 4 pages, GC below 3 free blocks: rewriting
    // chunks forces collections; a read queued behind a GC waits for it.
    let mut c = tiny(1, 1, 1, 8, 4, None);
    c.ftl.gc_threshold = 0.3;
    c.geometry.over_provisioning = 0.5;
    c.ftl.wear_level_spread = 0;
    let mut ssd = Ssd::new(&c, Collector::new(1), true).unwrap();
    let reqs: Vec<Request> = (0..40).map(|i| req(i * 2_000_000, i % 8, Op::Write)).collect();
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let ch = &ssd.obs.channels[0];
    assert!(ch.gc_count > 0, "GC must run");
    let t = ssd.timing();
    let expect = ch.pages_moved * (t.read + t.program + 2 * t.command) + ch.erases * t.erase;
    assert_eq!(ch.gc_ns, expect, "GC die time = moves × (tR + tPROG + commands) + erases × tBERS");
}

/// Hand-computed stripe writes on an idle 4-channel RAID-5 (3+1) device:
/// the chunks of a stripe sit on different channels, so their operations run
/// in parallel and each phase costs one operation's time.
#[test]
fn stripe_write_latencies_follow_their_phases() {
    let mut c = tiny(4, 1, 1, 64, 16, Some(4));
    c.timing.read_ns = T_R;
    c.timing.program_ns = T_PROG;
    c.timing.command_ns = 300;
    c.timing.xor_ns = 19_000;
    c.timing.stripe_overhead_ns = 1_000;
    let ctl = 19_000 + 1_000;
    let mut ssd = Ssd::new(&c, Lat::default(), true).unwrap();
    let gap = 100_000_000;
    let reqs = [
        // Stripe 0 whole (3 pages): XOR, then 3 data + parity programs in parallel.
        Request { time_ns: 0, offset: 0, size: 3 * PB as u32, device: 0, op: Op::Write },
        // One page: RMW pre-reads old data and old parity (parallel), XOR, programs.
        Request { time_ns: gap, offset: 0, size: PB as u32, device: 0, op: Op::Write },
        // Two pages: RCW pre-reads the third (2 < 3), XOR, programs.
        Request { time_ns: 2 * gap, offset: 0, size: 2 * PB as u32, device: 0, op: Op::Write },
    ];
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let program = XFER + T_PROG;
    let preread = T_R + XFER;
    assert_eq!(
        ssd.obs.0,
        vec![(Op::Write, ctl + program), (Op::Write, preread + ctl + program), (Op::Write, preread + ctl + program)]
    );
}

/// A second write to a page waits for the first (its stripe's lock) and is
/// released when the first's program ends on die 0. Die 0 then takes the read
/// that queued behind that program, and the released write goes to idle die 1
/// at once, not after the read.
#[test]
fn a_write_released_when_a_die_frees_goes_to_the_other_idle_die() {
    let mut ssd = Ssd::new(&cfg(2), Lat::default(), false).unwrap();
    let l = ssd.layout();
    let on_die_0 = (0..ssd.stripe_layout().logical_pages())
        .find(|&lpn| ssd.ftl.lookup(lpn as u32).is_some_and(|p| l.die_of(p) == 0))
        .expect("a mapped page on die 0");
    let w = (0..ssd.stripe_layout().logical_pages()).find(|&lpn| lpn != on_die_0).unwrap();
    // Both dies idle at 0: the first write goes to die 0.
    let end = XFER + T_PROG;
    ssd.run(&[req(0, w, Op::Write), req(1, w, Op::Write), req(2, on_die_0, Op::Read)], &mut |_| {}).unwrap();
    assert_eq!(
        ssd.obs.0,
        vec![
            (Op::Write, end),
            // Die 0 senses from `end`; the bus is free again by `end + T_R`.
            (Op::Read, end + T_R + XFER - 2),
            // Die 1 takes the write at `end`: its transfer, then tPROG.
            (Op::Write, end + XFER + T_PROG - 1),
        ]
    );
}

/// The channel's flash-read latency counts from when the read was queued:
/// the first of two reads on one die takes tR + transfer, the second, queued
/// at the same moment behind it, waits for the first as well.
#[test]
fn channel_read_latency_counts_from_enqueue() {
    let mut ssd = Ssd::new(&cfg(2), Collector::new(1), false).unwrap();
    let l = ssd.layout();
    let mut same_die = (0..ssd.stripe_layout().logical_pages())
        .filter(|&lpn| ssd.ftl.lookup(lpn as u32).is_some_and(|p| l.die_of(p) == 0));
    let (a, b) = (same_die.next().unwrap(), same_die.next().unwrap());
    let at = 5_000_000;
    ssd.run(&[req(at, a, Op::Read), req(at, b, Op::Read)], &mut |_| {}).unwrap();
    let c = &ssd.obs.channels[0].read_lat;
    assert_eq!(c.count(), 2);
    assert_eq!(c.sum, (T_R + XFER + 2 * (T_R + XFER)) as u128);
    assert_eq!(c.max, 2 * (T_R + XFER));
}
