//! Chunks larger than a page under `static` placement: the array's RAID-5
//! works page row by page row, as md's stripe cache does (row o of an
//! array stripe is page o of each of its chunks, its parity on the
//! stripe's parity device). Every count below is worked out by hand on 5
//! devices with chunks of 4 pages (16 KiB): array stripe s holds chunks
//! 4s..4s+3, rows 4s..4s+3, parity on device 4 − (s mod 5), and row r sits
//! at page r of every device.

use crate::array::{array_cfg, lat, req, run, PAGE, PROG_NS, XOR_NS};
use crate::xorshift_requests;
use rainsim_model::array::params::Allocation;
use rainsim_model::array::Array;
use rainsim_model::fault::Fault;
use rainsim_model::Config;
use rainsim_trace::{Op, Request};

fn cfg() -> Config {
    let mut c = array_cfg(5, Allocation::Static);
    c.array.as_mut().unwrap().chunk_kib = 16;
    c
}

/// Per device: (reads, data programs, parity programs) the array issued.
fn ops(a: &Array) -> Vec<[u64; 3]> {
    a.counters().device_ops.clone()
}

/// The device requests as (device, read or write, first page, pages).
fn handed(a: &Array) -> Vec<(usize, Op, u64, u64)> {
    let mut v: Vec<_> = a
        .device_requests()
        .unwrap()
        .iter()
        .enumerate()
        .flat_map(|(d, rs)| rs.iter().map(move |r| (d, r.op, r.offset / PAGE, r.size as u64 / PAGE)))
        .collect();
    v.sort_by_key(|&(d, op, p, n)| (d, op == Op::Write, p, n));
    v
}

fn recorded(cfg: &Config, reqs: &[Request]) -> Array {
    let mut a = Array::new(cfg, false).unwrap();
    a.record_device_requests();
    a.run(reqs, &mut |_| {}).unwrap();
    a
}

#[test]
fn a_page_written_in_a_large_chunk_is_one_row_s_rmw_of_a_page_each() {
    // Page 1 of chunk 0 (device 0): row 1 of stripe 0, parity on device 4.
    // RMW reads 2 (old data, old parity), RCW 3: read both, XOR, program
    // both — one page each, at page 1 of devices 0 and 4. Then a read of
    // page 2 moves that page.
    let a = recorded(&cfg(), &[req(0, 1, 1, Op::Write), req(10_000_000, 2, 1, Op::Read)]);
    let c = a.counters();
    assert_eq!((c.stripe_writes, c.prereads, c.xors), ([0, 1, 0, 0], 2, 1));
    assert_eq!(ops(&a), [[2, 1, 0], [0; 3], [0; 3], [0; 3], [1, 0, 1]]);
    assert_eq!(c.device_bytes, [PAGE, 0, 0, 0, PAGE]);
    assert_eq!(
        handed(&a),
        [(0, Op::Read, 1, 1), (0, Op::Read, 2, 1), (0, Op::Write, 1, 1), (4, Op::Read, 1, 1), (4, Op::Write, 1, 1)]
    );
    // Unloaded, the pre-reads find unwritten pages: XOR, then the two programs.
    assert_eq!(lat(&a, Op::Write), XOR_NS + PROG_NS);
    let r = a.report(&cfg(), "baseline", serde_json::Value::Null);
    assert_eq!(r.stripes as u64 * 4, a.stripe_layout().stripes as u64, "stripes of chunks, 4 rows each");
}

#[test]
fn a_chunk_s_rows_share_its_stripe_s_parity_device() {
    // Page 2 of chunk 4 (stripe 1, data index 0): row 6, parity on device 3,
    // data on device 0. Page 1 of chunk 7 (stripe 1, data index 3, which
    // skips the parity to position 4): row 5, data on device 4.
    let a = recorded(&cfg(), &[req(0, 16 + 2, 1, Op::Write), req(10_000_000, 16 + 12 + 1, 1, Op::Write)]);
    assert_eq!(a.counters().stripe_writes, [0, 2, 0, 0]);
    let writes: Vec<_> = handed(&a).into_iter().filter(|h| h.1 == Op::Write).collect();
    assert_eq!(writes, [(0, Op::Write, 6, 1), (3, Op::Write, 5, 1), (3, Op::Write, 6, 1), (4, Op::Write, 5, 1)]);
    assert_eq!(ops(&a).iter().map(|o| o[2]).collect::<Vec<_>>(), [0, 0, 0, 2, 0], "both parities on device 3");
}

#[test]
fn a_write_across_a_chunk_boundary_is_one_job_per_row() {
    // Pages 2–5: rows 2, 3 of chunk 0 (device 0) and rows 0, 1 of chunk 1
    // (device 1). No row has two pages written, so 4 RMWs of 2 pre-reads
    // each; parity (device 4) written at rows 0–3.
    let a = recorded(&cfg(), &[req(0, 2, 4, Op::Write)]);
    let c = a.counters();
    assert_eq!((c.stripe_writes, c.prereads), ([0, 4, 0, 0], 8));
    assert_eq!(ops(&a), [[2, 2, 0], [2, 2, 0], [0; 3], [0; 3], [4, 0, 4]]);
    assert_eq!(c.device_bytes, [2 * PAGE, 2 * PAGE, 0, 0, 4 * PAGE]);
}

#[test]
fn an_aligned_stripe_is_a_full_stripe_write_per_row() {
    // Pages 0–15: the 4 chunks of stripe 0 whole. Every row has its 4 data
    // pages: 4 full-stripe writes, nothing pre-read, one XOR each.
    let a = recorded(&cfg(), &[req(0, 0, 16, Op::Write)]);
    let c = a.counters();
    assert_eq!((c.stripe_writes, c.prereads, c.xors), ([4, 0, 0, 0], 0, 4));
    assert_eq!(ops(&a), [[0, 4, 0], [0, 4, 0], [0, 4, 0], [0, 4, 0], [0, 0, 4]]);
    // Half a page past the stripe: row 4 (stripe 1, chunk 4 on device 0)
    // takes a partial page, an RMW (parity on device 3).
    let mut r = req(0, 0, 16, Op::Write);
    r.size += PAGE as u32 / 2;
    let a = recorded(&cfg(), &[r]);
    assert_eq!(a.counters().stripe_writes, [4, 1, 0, 0]);
    let o = ops(&a);
    assert_eq!((o[0], o[3]), ([1, 5, 0], [1, 4, 1]), "the RMW's data and parity pages on devices 0 and 3");
}

#[test]
fn a_chunk_read_is_one_device_read_and_on_a_failed_device_a_rebuild_per_page() {
    // Stripe 0 written whole, then chunk 0 read (device 0): one device
    // request of 4 pages. Device 0 fails: the same read rebuilds each of its
    // 4 pages from devices 1–4 (verify mode checks each rebuilt token), and
    // a read of chunk 1 (device 1) is still one device read.
    let write = req(0, 0, 16, Op::Write);
    let a = recorded(&cfg(), &[write, req(10_000_000, 0, 4, Op::Read)]);
    assert!(handed(&a).contains(&(0, Op::Read, 0, 4)));
    assert_eq!(ops(&a)[0][0], 1);

    let mut a = Array::new(&cfg(), true).unwrap();
    a.run(&[write], &mut |_| {}).unwrap();
    a.fail_device(0);
    a.run(&[req(20_000_000, 0, 4, Op::Read), req(30_000_000, 4, 4, Op::Read)], &mut |_| {}).unwrap();
    let c = a.counters();
    assert_eq!(c.degraded_reads, 4);
    assert_eq!(c.device_ops.iter().map(|o| o[0]).collect::<Vec<_>>(), [0, 5, 4, 4, 4]);
}

#[test]
fn verify_holds_row_by_row_and_catches_a_parity_bug() {
    // Reads and writes of half a page to 40 pages over 1,500 pages: every
    // row's data and parity tokens XOR to zero at the end.
    let reqs = xorshift_requests(0x51ed_2701, 2000, 40_000, 1500, 3, |x| 2048 * (1 + (x >> 40) % 80) as u32);
    for kib in [8, 16, 32] {
        let mut c = cfg();
        c.array.as_mut().unwrap().chunk_kib = kib;
        let a = run(&c, true, &reqs);
        let st = a.counters().stripe_writes;
        assert!(st[0] > 0 && st[1] > 0 && st[2] > 0, "{kib} KiB: full rows, RMW and RCW all ran: {st:?}");
        let mut a = Array::new(&c, true).unwrap();
        a.inject_fault(Fault::ParityMissesChunk);
        let e = a.run(&reqs, &mut |_| {}).expect_err("verify catches it").to_string();
        assert!(e.contains("parity does not match"), "{kib} KiB: {e}");
    }
}

/// Verify names the stripe whose parity fails and, with chunks of several
/// pages, its page row: page 2 of chunk 4 is row 2 of array stripe 1; with
/// chunks of one page, page 6 is stripe 1 (chunk 6), which has no rows.
#[test]
fn verify_names_the_stripe_and_the_page_row_whose_parity_fails() {
    let fails = |cfg: &Config, lpn: u64| {
        let mut a = Array::new(cfg, true).unwrap();
        a.inject_fault(Fault::ParityMissesChunk);
        a.run(&[req(0, lpn, 1, Op::Write)], &mut |_| {}).expect_err("verify catches it").to_string()
    };
    let e = fails(&cfg(), 16 + 2);
    assert!(e.contains("array stripe 1, page row 2: parity does not match its data"), "{e}");
    let e = fails(&array_cfg(5, Allocation::Static), 6);
    assert!(e.contains("array stripe 1: parity does not match its data"), "{e}");
}

#[test]
fn every_page_written_is_one_data_program_and_every_row_job_one_parity_program() {
    // Conservation over a random mix of sizes and alignments: the data pages
    // programmed are the pages the writes touch (counted from their byte
    // ranges), one parity page per row job, nothing read twice for a write.
    let reqs = xorshift_requests(0x7f4a_7c15, 1500, 40_000, 1500, 4, |x| 512 * (1 + (x >> 33) % 160) as u32);
    for kib in [8, 16, 64] {
        let mut c = cfg();
        c.array.as_mut().unwrap().chunk_kib = kib;
        let a = run(&c, false, &reqs);
        let k = a.counters();
        let touched: u64 = reqs
            .iter()
            .filter(|r| r.op == Op::Write)
            .map(|r| (r.offset + r.size as u64 - 1) / PAGE - r.offset / PAGE + 1)
            .sum();
        let data: u64 = k.device_ops.iter().map(|o| o[1]).sum();
        let parity: u64 = k.device_ops.iter().map(|o| o[2]).sum();
        assert_eq!(data, touched, "{kib} KiB: one data program per page written");
        assert_eq!(parity, k.stripe_writes.iter().sum::<u64>(), "{kib} KiB: one parity program per row job");
        assert_eq!(k.device_bytes.iter().sum::<u64>(), (data + parity) * PAGE, "{kib} KiB: page-sized programs");
        let reads = k.device_ops.iter().map(|o| o[0]).sum::<u64>();
        let host_reads: u64 = reqs
            .iter()
            .filter(|r| r.op == Op::Read)
            .map(|r| (r.offset + r.size as u64 - 1) / (kib as u64 * 1024) - r.offset / (kib as u64 * 1024) + 1)
            .sum();
        assert_eq!(reads, k.prereads + host_reads, "{kib} KiB: a device read per chunk a read touches");
    }
}

#[test]
fn a_device_set_to_fail_mid_run_fails_then_as_one_failed_between_runs() {
    // Stripe 0 written whole at 0; device 0 fails at 15 ms (array.fail_device);
    // the read at 20 ms of chunk 0 rebuilds its 4 pages from devices 1–4, as
    // when the device is failed by hand between two runs.
    let (write, read) = (req(0, 0, 16, Op::Write), req(20_000_000, 0, 4, Op::Read));
    let mut c = cfg();
    let p = c.array.as_mut().unwrap();
    (p.fail_device, p.fail_at_ns) = (Some(0), Some(15_000_000));
    let timed = run(&c, true, &[write, read]);
    let mut by_hand = Array::new(&cfg(), true).unwrap();
    by_hand.run(&[write], &mut |_| {}).unwrap();
    by_hand.fail_device(0);
    by_hand.run(&[read], &mut |_| {}).unwrap();
    for a in [&timed, &by_hand] {
        let k = a.counters();
        assert_eq!(k.degraded_reads, 4);
        assert_eq!(k.device_ops.iter().map(|o| o[0]).collect::<Vec<_>>(), [0, 4, 4, 4, 4]);
    }
    assert_eq!(timed.counters().latency[0].max, by_hand.counters().latency[0].max);
    // Mid-run, with writes and reads in flight on the device as it fails:
    // every read of its chunks is rebuilt, verify holds to the end.
    let reqs = xorshift_requests(0x2545_f491, 2000, 40_000, 1500, 3, |x| 2048 * (1 + (x >> 40) % 40) as u32);
    let mut c = cfg();
    let p = c.array.as_mut().unwrap();
    (p.fail_device, p.fail_at_ns) = (Some(2), Some(40_000_000));
    let a = run(&c, true, &reqs);
    assert!(a.counters().degraded_reads > 50, "reads of device 2's chunks rebuilt: {}", a.counters().degraded_reads);
    // Nothing reaches the failed device after it failed, save what was in flight.
    let late: u64 = a.counters().device_ops[2].iter().sum();
    let before = run(&cfg(), true, &reqs[..1000]).counters().device_ops[2].iter().sum::<u64>();
    assert!(late < before, "device 2 took {late} operations, {before} in the first 1000 requests alone");
}

#[test]
fn programs_planned_before_a_failure_never_reach_the_failed_device() {
    // Closed loop: every request enters at 0 and device 1 fails at 1 ns,
    // before any XOR is done, so the first jobs were planned with device 1
    // healthy. Its programs are dropped (data kept in parity), none reaches
    // it; verify checks every row whose parity survives, lost data units
    // counting with their latest tokens.
    let reqs = xorshift_requests(0x1f83_d9ab, 300, 0, 1500, 3, |x| 2048 * (1 + (x >> 40) % 40) as u32);
    let mut c = cfg();
    let p = c.array.as_mut().unwrap();
    (p.fail_device, p.fail_at_ns) = (Some(1), Some(1));
    (p.replay, p.queue_depth) = (rainsim_model::array::params::Replay::Closed, 16);
    let a = run(&c, true, &reqs);
    let k = a.counters();
    assert_eq!(k.device_ops[1][1..], [0, 0], "no program reached device 1");
    assert!(k.programs_dropped > 0 && k.degraded_reads > 0, "{} {}", k.programs_dropped, k.degraded_reads);
    let r = a.report(&c, "baseline", serde_json::Value::Null);
    assert_eq!((r.device_failed_at_ns, r.raid.programs_dropped), (Some(1), k.programs_dropped));
    // Set to fail after the last request: it does not, and the clock stays.
    let healthy = run(&cfg(), false, &reqs[..50]);
    let mut late = cfg();
    let p = late.array.as_mut().unwrap();
    (p.fail_device, p.fail_at_ns) = (Some(1), Some(1 << 60));
    let l = run(&late, false, &reqs[..50]);
    let (rl, rh) =
        (l.report(&late, "b", serde_json::Value::Null), healthy.report(&cfg(), "b", serde_json::Value::Null));
    assert_eq!(rl.device_failed_at_ns, None);
    assert_eq!(rl.execution_time_ns, rh.execution_time_ns);
    let life =
        |r: &rainsim_model::array::report::ArrayReport| r.devices.iter().map(|d| d.life_days_eq12).collect::<Vec<_>>();
    assert_eq!(life(&rl), life(&rh), "the lifetime does not stretch to the unreached failure time");
}

/// Which rows of a large chunk a write touches, at the edges: a write
/// ending 512 bytes short of a stripe's end writes its last row's last unit
/// in part, so that row is not a full-stripe write but an RCW that reads
/// the unit to merge it (one pre-read); one from byte 1 of chunk 0 to byte
/// 0 of chunk 1 touches all four rows of chunk 0 (row 0 and chunk 1's
/// unit in part): four stripe jobs, not only the row its bytes begin in;
/// and one from byte 0 of chunk 1 to byte 1 of chunk 2, whose last byte's
/// offset in its chunk (1) is its first chunk's number, touches the four
/// rows too.
#[test]
fn a_write_touches_exactly_the_rows_its_bytes_cover_in_whole_or_in_part() {
    let stripe = 4 * 16384;
    let w = |offset: u64, size: u32| Request { time_ns: 0, offset, size, device: 0, op: Op::Write };
    let a = recorded(&cfg(), &[w(0, stripe - 512)]);
    assert_eq!((a.counters().stripe_writes, a.counters().prereads), ([3, 0, 1, 0], 1));
    // The one read is of the part-written unit: row 3 of data index 2.
    assert!(handed(&a).contains(&(3, Op::Read, 3, 1)), "{:?}", handed(&a));
    let a = recorded(&cfg(), &[w(1, 16384)]);
    assert_eq!(a.counters().stripe_writes.iter().sum::<u64>(), 4, "{:?}", a.counters().stripe_writes);
    let writes: Vec<_> = handed(&a).into_iter().filter(|h| h.1 == Op::Write && h.0 == 0).collect();
    assert_eq!(writes, [(0, Op::Write, 0, 1), (0, Op::Write, 1, 1), (0, Op::Write, 2, 1), (0, Op::Write, 3, 1)]);
    let a = recorded(&cfg(), &[w(16384, 16384 + 2)]);
    // Rows 1–3 have one unit of four written (chunk 1's): RMWs; row 0 two,
    // one of them in part: 3 pre-reads either way, and a tie goes to RCW.
    assert_eq!(a.counters().stripe_writes, [0, 3, 1, 0]);
    let writes: Vec<_> = handed(&a).into_iter().filter(|h| h.1 == Op::Write && h.0 == 1).collect();
    assert_eq!(writes, [(1, Op::Write, 0, 1), (1, Op::Write, 1, 1), (1, Op::Write, 2, 1), (1, Op::Write, 3, 1)]);
}

/// A read inside a lost chunk of a later stripe rebuilds each unit it
/// touches from that unit's own row: page 1 of chunk 4 (stripe 1, rows 4 to
/// 7, on device 0) from byte 512 for two pages touches rows 5, 6 and 7, so
/// each of devices 1 to 4 reads its page 5, 6 and 7.
#[test]
fn a_read_in_a_lost_chunk_of_a_later_stripe_rebuilds_the_rows_it_touches() {
    let mut a = Array::new(&cfg(), true).unwrap();
    a.record_device_requests();
    a.run(&[req(0, 16, 16, Op::Write)], &mut |_| {}).unwrap();
    a.fail_device(0);
    let r = Request { time_ns: 20_000_000, offset: 17 * PAGE + 512, size: 2 * PAGE as u32, device: 0, op: Op::Read };
    a.run(&[r], &mut |_| {}).unwrap();
    assert_eq!(a.counters().degraded_reads, 3);
    for (d, rs) in a.device_requests().unwrap().iter().enumerate().skip(1) {
        let reads: Vec<_> = rs.iter().filter(|r| r.op == Op::Read).map(|r| (r.offset / PAGE, r.size)).collect();
        assert_eq!(reads, [(5, 4096), (6, 4096), (7, 4096)], "device {d}");
    }
}

/// Page reads device 0 has sensed for the array.
fn device_0_reads(a: &Array) -> u64 {
    let o = rainsim_model::flash::op::Origin::HostRead as usize;
    a.devices()[0].obs.channels.iter().map(|c| c.ops[o]).sum()
}

/// A device read that crosses a page boundary reads both pages, whatever
/// its bytes' offsets: chunk 4 (stripe 1, device 0's pages 4 to 7) read
/// from its start to byte 4 of its second row (the last byte's offset in
/// its page is the first page's number), then from byte 5 for a page (the
/// first byte's offset is the last page's number). Each is one device
/// request of two pages.
#[test]
fn a_device_read_across_a_page_boundary_reads_both_pages() {
    let mut a = Array::new(&cfg(), false).unwrap();
    a.record_device_requests();
    a.run(&[req(0, 16, 4, Op::Write)], &mut |_| {}).unwrap();
    let before = device_0_reads(&a);
    let r = |t: u64, offset: u64, size: u32| Request { time_ns: t, offset, size, device: 0, op: Op::Read };
    a.run(&[r(10_000_000, 16 * PAGE, PAGE as u32 + 5), r(20_000_000, 16 * PAGE + 5, PAGE as u32)], &mut |_| {})
        .unwrap();
    let on0: Vec<_> =
        a.device_requests().unwrap()[0].iter().filter(|q| q.op == Op::Read).map(|q| (q.offset, q.size)).collect();
    assert_eq!(on0[on0.len() - 2..], [(4 * PAGE, PAGE as u32 + 5), (4 * PAGE + 5, PAGE as u32)]);
    assert_eq!(device_0_reads(&a) - before, 4, "two pages each");
}

/// The same with a chunk of 32 MiB (8,192 pages of 4 KiB): a read from byte
/// 1 of chunk 0 to byte 0 of its page 4,096 (whose number is 4,096 times
/// its first byte's offset) reads its 4,097 pages.
#[test]
fn a_device_read_of_thousands_of_pages_reads_them_all() {
    let mut c = Config::default();
    c.geometry.page_bytes = PAGE as u32;
    c.precondition.map_trace = rainsim_model::config::MapTrace::Footprint;
    c.array = Some(rainsim_model::array::params::ArrayParams {
        devices: 5,
        chunk_kib: 32 * 1024,
        allocation: Allocation::Static,
        ..Default::default()
    });
    let reqs = [Request { time_ns: 0, offset: 1, size: 4096 * PAGE as u32, device: 0, op: Op::Read }];
    let mut a = Array::for_requests(&c, false, &reqs).unwrap();
    a.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(device_0_reads(&a), 4097);
}
