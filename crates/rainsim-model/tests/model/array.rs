//! The array of devices: array RAID-5 reads, RMW, RCW, full-stripe writes
//! and a degraded read on a hand-built array of 5 small devices, whose
//! operations and latencies are worked out from RAID-5 and the device's
//! unloaded timing; the devices in one loop as separate runs; `--verify`
//! for each allocation.

use crate::tiny;
use rainsim_model::array::params::{Allocation, ArrayParams, Replay};
use rainsim_model::array::Array;
use rainsim_model::Config;
use rainsim_trace::{Op, Request};

pub(crate) const PAGE: u64 = 4096;
/// tR + one page on the bus (4096 B at 400 MB/s) + command cycles.
pub(crate) const READ_NS: u64 = 45_000 + 10_240 + 200;
/// One page on the bus + command cycles + tPROG.
pub(crate) const PROG_NS: u64 = 10_240 + 200 + 700_000;
pub(crate) const XOR_NS: u64 = 19_000;

/// 5 devices of 4 channels × 2 dies, plain (no device RAID), chunk = page.
pub fn array_cfg(devices: u32, allocation: Allocation) -> Config {
    let mut c = tiny(4, 2, 1, 32, 32, None);
    c.array = Some(ArrayParams { devices, allocation, ..Default::default() });
    c
}

pub(crate) fn req(t: u64, lpn: u64, pages: u32, op: Op) -> Request {
    Request { time_ns: t, offset: lpn * PAGE, size: pages * PAGE as u32, device: 0, op }
}

pub(crate) fn run(cfg: &Config, verify: bool, reqs: &[Request]) -> Array {
    let mut a = Array::new(cfg, verify).unwrap();
    a.run(reqs, &mut |_| {}).unwrap();
    a
}

/// Latency of the only request of class `op`.
pub(crate) fn lat(a: &Array, op: Op) -> u64 {
    let l = &a.counters().latency[if op == Op::Write { 1 } else { 0 }];
    assert_eq!(l.count(), 1);
    l.max
}

#[test]
fn single_chunk_write_is_rmw_on_its_device_and_the_parity_device() {
    // Stripe 0 of a 5-wide array: data positions 0..3 on devices 0..3, parity
    // (position 4 − 0 mod 5) on device 4. One chunk: RMW pre-reads 2 (old data,
    // old parity), RCW 3, so RMW: read both, XOR, program both.
    let a = run(&array_cfg(5, Allocation::Static), true, &[req(0, 0, 1, Op::Write)]);
    let c = a.counters();
    assert_eq!(c.stripe_writes, [0, 1, 0, 0], "one RMW");
    assert_eq!(c.prereads, 2);
    assert_eq!(c.device_ops, vec![[1, 1, 0], [0; 3], [0; 3], [0; 3], [1, 0, 1]]);
    // Nothing was ever written on the devices: the pre-reads find unmapped
    // pages and return at once; then XOR, then the two programs in parallel.
    assert_eq!(lat(&a, Op::Write), XOR_NS + PROG_NS);
}

/// Chunks of 4 pages under free placement (`rr`: a chunk moves whole): a
/// one-page write is an RMW of whole chunks (the old data chunk and the old
/// parity read, both programmed whole: 4 pages each), a one-page read moves
/// that page alone, and the report says so. (Under `static` the same write
/// moves one page of each: `array_rows.rs`.)
#[test]
fn under_free_placement_a_chunk_of_pages_is_the_unit_of_array_writes() {
    let mut cfg = array_cfg(5, Allocation::Rr);
    cfg.array.as_mut().unwrap().chunk_kib = 16;
    let reqs = [req(0, 1, 1, Op::Write), req(10_000_000, 2, 1, Op::Read)];
    let a = run(&cfg, false, &reqs);
    let c = a.counters();
    assert_eq!(c.stripe_writes, [0, 1, 0, 0], "one RMW");
    assert_eq!(c.prereads, 2);
    // The data chunk went wherever rr put it; the parity stayed on device 4.
    assert_eq!(c.device_bytes.iter().sum::<u64>(), 8 * PAGE, "two whole chunks programmed");
    assert_eq!(c.device_bytes[4], 4 * PAGE, "the parity chunk whole");
    let (programs, reads): (u64, u64) = (0..5)
        .map(|d| {
            let dc = rainsim_model::array::device_config(&cfg, d as u32);
            let f = rainsim_model::array::report::device_report(&a.devices()[d], &dc, "baseline").flash_ops;
            (f.host_program, f.host_read)
        })
        .fold((0, 0), |(p, r), (x, y)| (p + x, r + y));
    // 4 + 4 pages programmed; the pre-reads found nothing written, and the
    // read of one page read one page.
    assert_eq!((programs, reads), (8, 1));
    let r = a.report(&cfg, "baseline", serde_json::Value::Null);
    assert!(r.notes.iter().any(|n| n.contains("array chunks of 16 KiB (4 pages)")), "{:?}", r.notes);
    // A device's bytes written are the whole chunks it took: 4 pages a
    // program the array sent, none of them its own.
    for d in 0..5 {
        let programs = r.devices[d].data_programs + r.devices[d].parity_programs;
        assert_eq!(r.devices[d].bytes_written, programs * 4 * PAGE, "device {d}");
    }
    let mut stat = cfg.clone();
    stat.array.as_mut().unwrap().allocation = Allocation::Static;
    let rows = run(&stat, false, &reqs);
    assert!(rows.report(&stat, "baseline", serde_json::Value::Null).notes.is_empty(), "static: page rows, no note");
}

#[test]
fn two_chunk_write_is_rcw_and_an_aligned_stripe_is_a_full_stripe_write() {
    // Two chunks of stripe 0 (devices 0, 1): RMW would read 3, RCW reads the
    // other 2 data chunks (devices 2, 3). Then stripe 1 (parity on device 3,
    // data on 0, 1, 2, 4) written whole: no pre-read.
    let reqs = [req(0, 0, 2, Op::Write), req(10_000_000, 4, 4, Op::Write)];
    let a = run(&array_cfg(5, Allocation::Static), true, &reqs);
    let c = a.counters();
    assert_eq!(c.stripe_writes, [1, 0, 1, 0], "one full-stripe write, one RCW");
    assert_eq!(c.prereads, 2);
    let reads: Vec<u64> = c.device_ops.iter().map(|o| o[0]).collect();
    assert_eq!(reads, [0, 0, 1, 1, 0], "RCW reads the two chunks not written");
    let parity: Vec<u64> = c.device_ops.iter().map(|o| o[2]).collect();
    assert_eq!(parity, [0, 0, 0, 1, 1], "stripe 0's parity on device 4, stripe 1's on device 3");
    let data: Vec<u64> = c.device_ops.iter().map(|o| o[1]).collect();
    assert_eq!(data, [2, 2, 1, 0, 1]);
    assert_eq!(a.location(5 + 3), Some((3, 1)), "stripe 1's parity chunk at its home");
}

#[test]
fn a_read_costs_one_device_read_and_a_degraded_read_its_partners_and_an_xor() {
    // Write stripe 0 whole, then read chunk 0 (device 0): one unloaded device
    // read. Then device 0 fails and the same read is rebuilt from devices 1–4
    // read in parallel, then XORed; verify mode checks the rebuilt token.
    let cfg = array_cfg(5, Allocation::Static);
    let write = req(0, 0, 4, Op::Write);
    let read = req(10_000_000, 0, 1, Op::Read);
    let a = run(&cfg, true, &[write, read]);
    assert_eq!(lat(&a, Op::Read), READ_NS);

    let mut a = Array::new(&cfg, true).unwrap();
    a.run(&[write], &mut |_| {}).unwrap();
    a.fail_device(0);
    let mut later = read;
    later.time_ns = 20_000_000;
    a.run(&[later], &mut |_| {}).unwrap();
    let c = a.counters();
    assert_eq!(c.degraded_reads, 1);
    let reads: Vec<u64> = c.device_ops.iter().map(|o| o[0]).collect();
    assert_eq!(reads, [0, 1, 1, 1, 1], "the four partners, none on the failed device");
    assert_eq!(c.latency[0].max, READ_NS + XOR_NS);
}

#[test]
fn closed_loop_keeps_queue_depth_requests_in_flight() {
    // 8 reads of distinct chunks on device 0's channel 0 … in closed loop at
    // depth 1 they run one after another from time 0: execution time = 8
    // unloaded reads, whatever the trace times say.
    let mut cfg = array_cfg(5, Allocation::Static);
    let a = cfg.array.as_mut().unwrap();
    a.replay = Replay::Closed;
    a.queue_depth = 1;
    let mut reqs = vec![req(0, 0, 4, Op::Write)];
    reqs.extend((0..8).map(|i| req(1_000_000_000 + i, 0, 1, Op::Read)));
    let a = run(&cfg, false, &reqs);
    let c = a.counters();
    assert_eq!(c.completed(), 9);
    assert_eq!(c.latency[0].max, READ_NS, "one read at a time: no queueing");
    assert_eq!(c.last_completion, XOR_NS + PROG_NS + 8 * READ_NS);

    // At depth 4 the first four requests enter together, each its own: the
    // reads of lpns 0, 1, 2 go to devices 0, 1, 2, then lpn 3's to device 3.
    let mut cfg = array_cfg(5, Allocation::Static);
    let p = cfg.array.as_mut().unwrap();
    p.replay = Replay::Closed;
    p.queue_depth = 4;
    let reqs: Vec<Request> = (0..4).map(|l| req(l, l, 1, Op::Read)).chain([req(9, 0, 4, Op::Write)]).collect();
    let a = run(&cfg, false, &reqs);
    let reads: Vec<u64> = a.counters().device_ops.iter().map(|o| o[0]).collect();
    assert_eq!(reads, [1, 1, 1, 1, 0]);
    assert_eq!(a.counters().stripe_writes[0], 1, "and the write came last, whole");
}

/// The devices' notes reach the array's report, once each with the devices
/// they apply to, and so do a parity-update scheme the array's own RAID-5
/// does not use and the device sections an array report leaves out.
#[test]
fn an_array_report_says_what_its_devices_and_its_raid_leave_undone() {
    let reqs: Vec<Request> =
        (0..40).map(|i| req(i * 100_000, (i * 7919) % 400, 1 + (i % 3) as u32, Op::Write)).collect();
    let notes = |c: &Config| {
        let mut a = Array::new(c, false).unwrap();
        a.run(&reqs, &mut |_| {}).unwrap();
        a.report(c, "x", serde_json::Value::Null).notes
    };
    let plain = array_cfg(4, Allocation::Static);
    assert_eq!(notes(&plain), Vec::<String>::new());
    let mut c = plain.clone();
    c.policy.parity_update = rainsim_model::policy::ParityUpdateKind::Adaptive;
    c.ldpc.enabled = true;
    let n = notes(&c);
    assert_eq!(n.len(), 3, "{n:?}");
    assert!(n[0].starts_with("every device: raid.level = none: the read-routing"), "{n:?}");
    assert!(n[1].starts_with("policy.parity_update = \"adaptive\" acts inside each device"), "{n:?}");
    assert!(n[2].starts_with("an array report holds no per-device ldpc section"), "{n:?}");
    // Every section left out is named, in one note.
    c.warmup.device_writes = 0.05;
    c.warmup.workload = rainsim_model::config::WarmupWorkload::Synthetic;
    c.report.conflicts = true;
    let n = notes(&c);
    assert!(n[2].starts_with("an array report holds no per-device ldpc, warmup, conflicts section"), "{n:?}");
}

/// 4 devices and 20,000 requests of the built-in synthetic workload over them.
fn synthetic_20k() -> (Config, Vec<Request>) {
    let mut cfg = array_cfg(4, Allocation::Static);
    cfg.workload.requests = 20_000;
    let cap = Array::new(&cfg, false).unwrap().capacity_bytes();
    let reqs = rainsim_trace::synthetic::generate(&cfg.workload, cap, cfg.seed).unwrap().requests;
    (cfg, reqs)
}

/// A stop flag set (here by the progress callback, as the CLI's signal
/// handler would) ends the array's run at the next progress call with
/// `Interrupted`, naming the requests completed; unset, the run completes.
#[test]
fn a_stop_flag_ends_the_arrays_run_at_the_next_progress_call() {
    use rainsim_model::SimError;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let (cfg, reqs) = synthetic_20k();
    let stop = Arc::new(AtomicBool::new(false));
    let mut a = Array::new(&cfg, false).unwrap();
    a.set_stop(stop.clone());
    let mut calls = Vec::new();
    let got = a.run(&reqs, &mut |n| {
        calls.push(n);
        stop.store(true, Ordering::Relaxed);
    });
    match got {
        Err(SimError::Interrupted { completed }) => {
            assert!(completed > 0 && completed < 20_000, "{completed}");
            assert_eq!(calls, vec![completed], "stopped at the first progress call");
        }
        other => panic!("not interrupted: {other:?}"),
    }
    let mut a = Array::new(&cfg, false).unwrap();
    a.set_stop(Arc::new(AtomicBool::new(false)));
    a.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(a.completed(), 20_000);
}

/// Under verify each unit's data token is its latest write's: 0 until
/// written, new with every write; without verify there are none.
#[test]
fn a_units_token_changes_with_each_write() {
    let cfg = array_cfg(5, Allocation::Static);
    let mut a = Array::new(&cfg, true).unwrap();
    a.run(&[req(0, 3, 1, Op::Write)], &mut |_| {}).unwrap();
    let first = a.token(3).expect("verify keeps tokens");
    assert!(first != 0 && a.token(50) == Some(0), "{first}: a unit of an untouched stripe has none");
    a.run(&[req(10_000_000, 3, 1, Op::Write)], &mut |_| {}).unwrap();
    let second = a.token(3).unwrap();
    assert!(second != 0 && second != first);
    assert_eq!(Array::new(&cfg, false).unwrap().token(3), None);
}

/// The report's rate and balance figures, worked out from what it lists:
/// one RMW alone takes XOR + program (as above), so the run spans exactly
/// that and its rate is one request over it; a device that programmed
/// nothing makes the max/min ratio 0. Over 40 scattered writes every device
/// programs, and the ratio and the CV are those of each device's data plus
/// parity programs.
#[test]
fn an_array_reports_its_rate_and_its_balance_of_programs() {
    let c = array_cfg(5, Allocation::Static);
    let r = run(&c, false, &[req(0, 0, 1, Op::Write)]).report(&c, "x", serde_json::Value::Null);
    assert_eq!((r.requests, r.execution_time_ns), (1, XOR_NS + PROG_NS));
    assert!((r.iops - 1e9 / (XOR_NS + PROG_NS) as f64).abs() < 1e-9, "{}", r.iops);
    assert_eq!(r.balance.max_min_programs, 0.0, "devices 1 to 3 programmed nothing");

    let c = array_cfg(4, Allocation::Static);
    let reqs: Vec<Request> =
        (0..40).map(|i| req(i * 100_000, (i * 7919) % 400, 1 + (i % 3) as u32, Op::Write)).collect();
    let r = run(&c, false, &reqs).report(&c, "x", serde_json::Value::Null);
    let programs: Vec<f64> = r.devices.iter().map(|d| (d.data_programs + d.parity_programs) as f64).collect();
    let (lo, hi) = (programs.iter().cloned().fold(f64::MAX, f64::min), programs.iter().cloned().fold(0.0, f64::max));
    assert!(lo > 0.0 && hi > lo, "{programs:?}");
    assert_eq!(r.balance.max_min_programs, hi / lo);
    let mean = programs.iter().sum::<f64>() / 4.0;
    let sd = (programs.iter().map(|p| (p - mean) * (p - mean)).sum::<f64>() / 4.0).sqrt();
    assert!((r.balance.cv_programs - sd / mean).abs() < 1e-12, "{} against {}", r.balance.cv_programs, sd / mean);
    assert_eq!(r.requests, 40);
    assert!((r.iops - 40e9 / r.execution_time_ns as f64).abs() < 1e-9);
}

/// A run's requests are checked before any runs: one ending exactly at the
/// array's capacity and one arriving at 2^62 ns are accepted, one a byte
/// past it or a nanosecond later is refused by its index.
#[test]
fn an_arrays_requests_end_within_its_capacity_and_arrive_by_2_pow_62_ns() {
    use rainsim_model::SimError;
    let cfg = array_cfg(4, Allocation::Static);
    let cap = Array::new(&cfg, false).unwrap().capacity_bytes();
    let last = |t: u64, size: u32| Request { time_ns: t, offset: cap - PAGE, size, device: 0, op: Op::Read };
    let go = |reqs: &[Request]| Array::new(&cfg, false).unwrap().run(reqs, &mut |_| {});
    go(&[req(0, 0, 1, Op::Write), last(1, PAGE as u32)]).unwrap();
    match go(&[req(0, 0, 1, Op::Write), last(1, PAGE as u32 + 1)]) {
        Err(SimError::OutOfRange { index: 1, capacity, .. }) => assert_eq!(capacity, cap),
        other => panic!("a byte past the capacity: {other:?}"),
    }
    go(&[req(0, 0, 1, Op::Write), last(1 << 62, PAGE as u32)]).unwrap();
    match go(&[req(0, 0, 1, Op::Write), last((1 << 62) + 1, PAGE as u32)]) {
        Err(SimError::TooLate { index: 1, time_ns }) => assert_eq!(time_ns, (1 << 62) + 1),
        other => panic!("a nanosecond past 2^62: {other:?}"),
    }
}

/// The progress callback runs every `PROGRESS_EVENTS` events and once at
/// the end (at least as often as the arrivals and device operations, each
/// an event, allow; at most as often as a generous 20 events a request do),
/// and a later run on the same array counts its own requests: stopped, it
/// says how many of them completed, not of both runs.
#[test]
fn an_arrays_progress_comes_every_progress_events_and_counts_this_runs_requests() {
    use rainsim_model::ssd::PROGRESS_EVENTS;
    use rainsim_model::SimError;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let (cfg, reqs) = synthetic_20k();
    let (first, second) = reqs.split_at(10_000);
    let mut a = Array::new(&cfg, false).unwrap();
    let mut calls = 0u64;
    a.run(first, &mut |_| calls += 1).unwrap();
    let ops: u64 = a.counters().device_ops.iter().flatten().sum();
    let least = (10_000 + ops) / PROGRESS_EVENTS + 1;
    assert!(calls >= least && calls <= 20 * 10_000 / PROGRESS_EVENTS + 2, "{calls} calls, at least {least}");
    // The second half, moved past the clock where the first run ended.
    let end = a.counters().last_completion;
    let second: Vec<Request> = second.iter().map(|r| Request { time_ns: r.time_ns + end, ..*r }).collect();
    let stop = Arc::new(AtomicBool::new(false));
    a.set_stop(stop.clone());
    match a.run(&second, &mut |_| stop.store(true, Ordering::Relaxed)) {
        // (The first call comes at once: the queue's count runs on from the
        // first run.)
        Err(SimError::Interrupted { completed }) => assert_eq!(completed, a.completed() - 10_000),
        other => panic!("not interrupted: {other:?}"),
    }
}
