//! Array members without RAID inside take chunk operations straight to
//! their flash queues (`ssd/external.rs`): the array's report and every
//! device's full report are the same as through admission and a stripe job
//! per operation, for every allocation, chunk size and replay mode; a
//! member with anything between its host interface and its flash that
//! could act (a queue depth, RAID inside, a verifier) takes the full path;
//! and the direct path keeps the unloaded timing of a hand-built array.

use crate::array::{array_cfg, req, PAGE, PROG_NS, READ_NS, XOR_NS};
use crate::xorshift_requests;
use rainsim_model::array::params::{Allocation, Replay};
use rainsim_model::array::report::device_report;
use rainsim_model::array::{device_config, Array};
use rainsim_model::Config;
use rainsim_trace::{Op, Request};

/// Reads and writes of 0.5 to 6 pages (not whole pages: partial chunks)
/// over 1,500 pages, 30 µs apart: enough to fill the tiny devices' free
/// blocks and make them collect.
fn mixed() -> Vec<Request> {
    xorshift_requests(0x9e37_79b9, 3000, 30_000, 1500, 3, |x| 2048 * (1 + (x >> 40) % 12) as u32)
}

/// The array's report and each device's, as JSON without the timing, and
/// per device the requests it was handed and those that went direct.
fn reports(cfg: &Config, full_path: bool, reqs: &[Request]) -> (Vec<serde_json::Value>, Vec<(u64, u64)>) {
    let mut a = Array::new(cfg, false).unwrap();
    if full_path {
        a.use_full_path();
    }
    a.run(reqs, &mut |_| {}).unwrap();
    let mut out = vec![serde_json::to_value(a.report(cfg, "s", serde_json::Value::Null)).unwrap()];
    for (i, d) in a.devices().iter().enumerate() {
        let mut v = serde_json::to_value(device_report(d, &device_config(cfg, i as u32), "s")).unwrap();
        v.as_object_mut().unwrap().remove("timing");
        out.push(v);
    }
    out[0].as_object_mut().unwrap().remove("timing");
    (out, handed_and_direct(&a))
}

/// Per device: requests the array handed it, and those that went direct.
fn handed_and_direct(a: &Array) -> Vec<(u64, u64)> {
    let ops = &a.counters().device_ops;
    a.devices().iter().zip(ops).map(|(d, o)| (o.iter().sum(), d.direct_requests())).collect()
}

#[test]
fn the_direct_path_reports_what_the_full_path_does() {
    let reqs = mixed();
    for alloc in [Allocation::Static, Allocation::Rr, Allocation::Egs, Allocation::Dls] {
        for (chunk_kib, closed) in [(0, false), (8, false), (0, true)] {
            let mut cfg = array_cfg(5, alloc);
            cfg.geometry.blocks_per_plane = 8;
            let p = cfg.array.as_mut().unwrap();
            p.chunk_kib = chunk_kib;
            if closed {
                p.replay = Replay::Closed;
                p.queue_depth = 8;
            }
            let what = format!("{alloc:?}, chunk {chunk_kib} KiB, closed loop {closed}");
            let (direct, on) = reports(&cfg, false, &reqs);
            let (full, off) = reports(&cfg, true, &reqs);
            assert!(on.iter().all(|&(n, d)| n > 0 && d == n), "{what}: every request went direct: {on:?}");
            assert!(off.iter().all(|&(_, d)| d == 0), "{what}: none did in the reference");
            let gc: u64 = direct[0]["devices"].as_array().unwrap().iter().map(|d| d["gc"].as_u64().unwrap()).sum();
            assert!(gc > 0, "{what}: the devices collected");
            assert_eq!(direct[0]["requests"].as_u64(), Some(reqs.len() as u64));
            for (i, (x, y)) in direct.iter().zip(&full).enumerate() {
                assert!(x == y, "{what}: report {i} (0: the array's) differs");
            }
        }
    }
}

#[test]
fn members_with_a_queue_depth_raid_inside_request_overhead_or_a_verifier_take_the_full_path() {
    let reqs = &mixed()[..200];
    // Whether every device took every request direct (true), or none did
    // (false), for one- and two-page chunks.
    let direct = |cfg: &Config, verify: bool| {
        let mut all = Vec::new();
        for chunk_kib in [0, 8] {
            let mut cfg = cfg.clone();
            cfg.array.as_mut().unwrap().chunk_kib = chunk_kib;
            let mut a = Array::new(&cfg, verify).unwrap();
            a.run(reqs, &mut |_| {}).unwrap();
            all.extend(handed_and_direct(&a));
        }
        assert!(all.iter().all(|&(n, _)| n > 0));
        if all.iter().all(|&(n, d)| d == n) {
            true
        } else {
            assert!(all.iter().all(|&(_, d)| d == 0), "{all:?}");
            false
        }
    };
    let plain = array_cfg(5, Allocation::Static);
    assert!(direct(&plain, false));
    assert!(!direct(&plain, true), "verify mode: each device's verifier checks its pages");
    let mut qd = plain.clone();
    qd.host.queue_depth = 2;
    assert!(!direct(&qd, false), "a queue depth can hold a request back");
    let mut raid = plain.clone();
    raid.raid.level = rainsim_model::config::RaidLevel::Raid5;
    raid.raid.stripe_width = 4;
    assert!(!direct(&raid, false), "RAID-5 inside pre-reads and routes");
    let mut overhead = plain.clone();
    overhead.timing.request_overhead_ns = 5_000;
    assert!(!direct(&overhead, false), "the controller's time per request");
}

#[test]
fn a_direct_member_sends_a_write_of_part_of_a_page_through_the_full_path() {
    // A whole-page write goes direct; then a write of part of that page
    // needs its old content merged (a pre-read), which only the full path
    // does.
    let cfg = rainsim_model::array::device_config(&array_cfg(5, Allocation::Static), 0);
    let mut ssd = rainsim_model::Ssd::new(&cfg, rainsim_model::metrics::collector::Collector::new(4), false).unwrap();
    ssd.begin(&mut std::iter::empty(), 0).unwrap();
    let lpn = 3;
    let whole = Request { time_ns: 0, offset: lpn * PAGE, size: PAGE as u32, device: 0, op: Op::Write };
    ssd.arrive_now(0, whole, 7);
    while ssd.step(&mut std::iter::empty()).unwrap() {}
    assert_eq!(ssd.direct_requests(), 1);
    // Its middle, then its head (a whole-page offset, not a whole size).
    for (i, offset) in [lpn * PAGE + 512, lpn * PAGE].into_iter().enumerate() {
        let part = Request { time_ns: 0, offset, size: 1024, device: 0, op: Op::Write };
        ssd.arrive_now(50_000_000 * (i as u64 + 1), part, 8 + i as u32);
        while ssd.step(&mut std::iter::empty()).unwrap() {}
    }
    let mut done = Vec::new();
    ssd.take_done(&mut done);
    assert_eq!(done.iter().map(|d| d.0).collect::<Vec<_>>(), [7, 8, 9]);
    assert_eq!(ssd.direct_requests(), 1, "the partial writes did not go direct");
    let r = rainsim_model::array::report::device_report(&ssd, &cfg, "s");
    assert_eq!(r.raid.prereads, 2, "each partial write merged the old page");
}

#[test]
fn a_direct_member_serves_an_array_read_in_one_unloaded_device_read() {
    let cfg = array_cfg(5, Allocation::Static);
    let (write, read) = (req(0, 0, 4, Op::Write), req(10_000_000, 1, 1, Op::Read));
    let mut a = Array::new(&cfg, false).unwrap();
    a.run(&[write, read], &mut |_| {}).unwrap();
    assert!(handed_and_direct(&a).iter().all(|&(n, d)| d == n), "every request went direct");
    let c = a.counters();
    assert_eq!(c.stripe_writes[0], 1, "a full-stripe write");
    assert_eq!(c.latency[1].max, XOR_NS + PROG_NS, "XOR, then five programs in parallel");
    assert_eq!(c.latency[0].max, READ_NS);
}
