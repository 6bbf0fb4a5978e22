//! A failed device of the array replaced and rebuilt (`array.replace_after_ns`):
//! on 5 small devices (one-page chunks, so a page row is a stripe) every
//! unit the device held comes back on the replacement, each rebuilt from the
//! other four of its row; the counts are conservation laws (a rebuilt unit
//! is one program on the replacement and one read on each survivor), the
//! rebuild's time is bounded by its rows done one after another, and
//! `--verify` holds through the failure, the replacement and the rebuild.

use crate::array::{array_cfg, req, PROG_NS, READ_NS, XOR_NS};
use crate::xorshift_requests;
use rainsim_model::array::model::life_days;
use rainsim_model::array::params::{Allocation, Replay};
use rainsim_model::array::report::{device_report, ArrayReport};
use rainsim_model::array::Array;
use rainsim_model::fault::Fault;
use rainsim_model::Config;
use rainsim_trace::{Op, Request};

fn cfg(device: u32, at: u64, after: u64, rows: Option<u32>) -> Config {
    let mut c = array_cfg(5, Allocation::Static);
    let p = c.array.as_mut().unwrap();
    (p.fail_device, p.fail_at_ns, p.replace_after_ns, p.rebuild_stripes) = (Some(device), Some(at), Some(after), rows);
    c
}

/// Units of device `d`'s slots that its replacement does not hold at the end.
fn missing_on(a: &Array, d: u32) -> Vec<u32> {
    let dev = &a.devices()[d as usize];
    (0..a.stripe_layout().chunks() as u32)
        .filter(|&c| a.location(c).is_some_and(|(dv, _)| dv == d))
        .filter(|&c| dev.ftl.lookup(dev.stripe_layout().chunk_of_lpn(a.location(c).unwrap().1 as u64).1).is_none())
        .collect()
}

fn run(c: &Config, verify: bool, reqs: &[Request]) -> (Array, ArrayReport) {
    let mut a = Array::new(c, verify).unwrap();
    a.run(reqs, &mut |_| {}).unwrap();
    let r = a.report(c, "baseline", serde_json::Value::Null);
    (a, r)
}

#[test]
fn an_idle_array_rebuilds_every_unit_of_the_failed_device_onto_its_replacement() {
    // Stripe 0 written whole at 0 (no pre-reads); device 2 fails at 10 ms,
    // its replacement is in 1 ms later; a read of page 0 (device 0) at 20 ms.
    let reqs = [req(0, 0, 4, Op::Write), req(20_000_000, 0, 1, Op::Read)];
    let (a, r) = run(&cfg(2, 10_000_000, 1_000_000, Some(1)), true, &reqs);
    let rows = a.stripe_layout().stripes as u64;
    let f = r.failure.as_ref().unwrap();
    assert_eq!((f.device, f.failed_at_ns, f.replaced_at_ns), (2, 10_000_000, Some(11_000_000)));
    // One unit of every row was on device 2, and each comes back by the rebuild.
    assert_eq!(
        (f.units_lost_at_failure, f.units_rebuilt, f.rewritten_by_host, f.units_lost_at_end),
        (rows, rows, 0, 0)
    );
    let k = a.counters();
    // The replacement's programs are the rebuilt units (rebuild programs
    // count as parity); each survivor read one unit per row.
    assert_eq!(k.device_ops[2], [0, 0, rows]);
    for d in [0, 1, 3, 4] {
        assert_eq!(k.device_ops[d][0], rows + (d == 0) as u64, "device {d} reads");
    }
    // The failed device's row keeps what it was sent before: the write of stripe 0.
    let old = f.failed_device.as_ref().unwrap();
    assert_eq!(old.data_programs + old.parity_programs, 1);
    assert_eq!(r.devices[2].parity_programs, rows);
    // One row at a time: each waits for its XOR and its program before the
    // next starts, so the rebuild takes at least rows × (XOR + tPROG).
    let t1 = f.rebuilt_at_ns.unwrap() - 11_000_000;
    assert!(t1 >= rows * (XOR_NS + PROG_NS), "{t1} ns for {rows} rows");
    assert!(t1 < rows * (XOR_NS + PROG_NS + 100_000), "{t1} ns for {rows} rows: more than the rows alone");
    // Eight rows at once spread the programs over the replacement's 8 dies.
    let (_, r8) = run(&cfg(2, 10_000_000, 1_000_000, Some(8)), true, &reqs);
    let t8 = r8.failure.as_ref().unwrap().rebuilt_at_ns.unwrap() - 11_000_000;
    assert!(t8 * 4 < t1, "8 rows at once took {t8} ns against {t1} ns for one");
}

#[test]
fn verify_holds_through_failure_replacement_and_rebuild_under_load() {
    // Random reads and writes every 1 ms; device 1 fails at 40 ms with I/O
    // in flight, its replacement is in at 60 ms (or once drained), and the
    // rebuild runs beside the host's requests.
    let reqs = xorshift_requests(0x9e37_79b9, 3000, 1_000_000, 1500, 3, |x| 4096 * (1 + (x >> 40) % 6) as u32);
    let c = cfg(1, 40_000_000, 20_000_000, None);
    let (a, r) = run(&c, true, &reqs);
    let f = r.failure.as_ref().unwrap();
    let (replaced, rebuilt) = (f.replaced_at_ns.unwrap(), f.rebuilt_at_ns.unwrap());
    assert!(replaced >= 60_000_000 && rebuilt > replaced, "{replaced} {rebuilt}");
    assert_eq!(f.units_lost_at_end, 0);
    assert_eq!(missing_on(&a, 1), [0u32; 0], "units the replacement does not hold");
    // Every lost unit came back, by the rebuild or by the host's own write.
    assert_eq!(f.units_lost_at_failure + f.units_lost_after_failure, f.units_rebuilt + f.rewritten_by_host);
    assert!(f.rewritten_by_host > 0 && f.writes_absorbed > 0 && f.reads_reconstructed > 0, "{f:?}");
    assert_eq!(f.reads_reconstructed, a.counters().degraded_reads);
    // Every request is in exactly one phase; reads after the rebuild go to
    // the replacement, which the host also wrote.
    let n = |p: &rainsim_model::metrics::fault_report::PhaseReport| p.read.count + p.write.count;
    assert_eq!(n(&f.before) + n(&f.during) + n(&f.after), 3000);
    assert!(f.after.read.count > 0 && r.devices[1].reads > 0 && r.devices[1].data_programs > 0);
    // Same configuration, same report; verify mode watches without changing it.
    assert_eq!(run(&c, true, &reqs).1, r);
    assert_eq!(run(&c, false, &reqs).1, r);
    // A later run's requests may not arrive before the clock (the rebuild's end).
    let mut again = a;
    let late = req(again.counters().last_completion, 0, 1, Op::Read);
    let err = again.run(&[late], &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("before the array's clock"), "{err}");
}

#[test]
fn the_replacement_waits_for_what_the_failed_device_had_in_flight() {
    // Closed loop at queue depth 16: device 3 has requests in flight when it
    // fails at 2 ms; a replacement due 1 ns later goes in only when the last
    // of them completes, and the old device completed all it was sent.
    let reqs = xorshift_requests(0x1f83_d9ab, 400, 0, 1500, 3, |x| 4096 * (1 + (x >> 40) % 6) as u32);
    let mut c = cfg(3, 2_000_000, 1, None);
    let p = c.array.as_mut().unwrap();
    (p.replay, p.queue_depth) = (Replay::Closed, 16);
    let (a, r) = run(&c, true, &reqs);
    let f = r.failure.as_ref().unwrap();
    let old = a.retired_device().unwrap();
    let replaced = f.replaced_at_ns.unwrap();
    assert!(replaced > 2_000_001, "replaced at {replaced} ns: in flight at the failure, so later than due");
    assert_eq!(replaced, old.obs.last_completion, "in as the failed device's last request completes");
    let sent = f.failed_device.as_ref().map(|d| d.reads + d.data_programs + d.parity_programs).unwrap();
    let done = device_report(old, &c, "baseline").latency.all.count;
    assert_eq!(done, sent, "the failed device completed every request it was sent");
    assert_eq!(f.units_lost_at_end, 0);
    // A program that landed on the failed device marks its unit lost again
    // before the replacement goes in, so the rebuild writes it.
    assert_eq!(missing_on(&a, 3), [0u32; 0], "units the replacement does not hold");
    // The rebuild runs long after the last request; the survivors' lives are
    // over the requests' time (Eq. 12), not stretched by it; the
    // replacement's over its own writing time, from going in to the rebuild's
    // end (over the requests' time alone its rebuild writes would look 10×
    // as fast as they were).
    let last = a.counters().last_completion;
    let rebuilt = f.rebuilt_at_ns.unwrap();
    assert!(rebuilt > 10 * last, "{f:?}");
    let cap = c.physical_pages() * c.geometry.page_bytes as u64;
    let want = |bytes: u64, ns: u64| Some(life_days(cap, c.ftl.pe_cycle_limit, bytes, ns)).filter(|x| x.is_finite());
    assert_eq!(r.devices[0].life_days_eq12, want(r.devices[0].bytes_written, last));
    assert_eq!(r.devices[3].life_days_eq12, want(r.devices[3].bytes_written, rebuilt - replaced));
}

/// A replacement that goes in after the last request still wrote (its
/// rebuild): its life is a number, over its own writing time.
#[test]
fn a_replacement_due_after_the_last_request_has_a_life() {
    let reqs = xorshift_requests(0x51ed_27a3, 200, 100_000, 1500, 2, |x| 4096 * (1 + (x >> 40) % 3) as u32);
    let last_arrival = reqs.last().unwrap().time_ns;
    let c = cfg(1, last_arrival / 2, 10 * last_arrival, Some(8));
    let (a, r) = run(&c, false, &reqs);
    let f = r.failure.as_ref().unwrap();
    let (replaced, rebuilt) = (f.replaced_at_ns.unwrap(), f.rebuilt_at_ns.unwrap());
    assert!(replaced > a.counters().last_completion, "{f:?}");
    assert!(f.units_rebuilt > 0 && r.devices[1].bytes_written > 0, "{f:?}");
    let cap = c.physical_pages() * c.geometry.page_bytes as u64;
    let want = life_days(cap, c.ftl.pe_cycle_limit, r.devices[1].bytes_written, rebuilt - replaced);
    assert_eq!(r.devices[1].life_days_eq12, Some(want));
}

#[test]
fn without_a_replacement_nothing_is_rebuilt_and_every_phase_is_during() {
    let reqs = xorshift_requests(0x2545_f491, 500, 40_000, 1500, 3, |x| 4096 * (1 + (x >> 40) % 6) as u32);
    let mut c = cfg(0, 5_000_000, 0, None);
    c.array.as_mut().unwrap().replace_after_ns = None;
    let (_, r) = run(&c, true, &reqs);
    let f = r.failure.as_ref().unwrap();
    assert_eq!((f.replaced_at_ns, f.rebuilt_at_ns, f.units_rebuilt, f.failed_device.is_none()), (None, None, 0, true));
    assert!(f.units_lost_at_end >= f.units_lost_at_failure - f.rewritten_by_host);
    assert_eq!(f.after.read.count + f.after.write.count, 0);
    // The requests completed before 5 ms are `before`, the rest `during`.
    assert!(f.before.write.count > 0 && f.during.write.count > 0);
}

#[test]
fn a_rebuild_of_written_rows_skips_the_rows_no_survivor_holds_data_of() {
    // As the idle array above, `array.rebuild = "written"`: only row 0
    // (stripe 0, written whole at 0) holds data, so one unit is rebuilt —
    // one read on each survivor, one program on the replacement — and every
    // other row is left unwritten, at no cost.
    let reqs = [req(0, 0, 4, Op::Write), req(20_000_000, 0, 1, Op::Read)];
    let mut c = cfg(2, 10_000_000, 1_000_000, Some(1));
    c.array.as_mut().unwrap().rebuild = Some(rainsim_model::array::params::RebuildScope::Written);
    let (a, r) = run(&c, true, &reqs);
    let rows = a.stripe_layout().stripes as u64;
    let f = r.failure.as_ref().unwrap();
    assert_eq!((f.units_rebuilt, f.units_skipped_empty, f.units_lost_at_end), (1, rows - 1, 0));
    assert_eq!(a.counters().device_ops[2], [0, 0, 1]);
    for d in [0, 1, 3, 4] {
        assert_eq!(a.counters().device_ops[d][0], 1 + (d == 0) as u64, "device {d} reads");
    }
    // One row: a read, the XOR and the program, well under two rows' time.
    let t = f.rebuilt_at_ns.unwrap() - 11_000_000;
    assert!((XOR_NS + PROG_NS..2 * (XOR_NS + PROG_NS)).contains(&t), "{t} ns");
    assert_eq!(missing_on(&a, 2).len() as u64, rows - 1, "only row 0's unit is on the replacement");
}

#[test]
fn a_rebuild_of_written_rows_under_load_keeps_every_row_that_holds_data() {
    // Under load with verify: every lost unit is rebuilt, rewritten by the
    // host or skipped as empty; a unit the replacement lacks at the end was
    // never written (its data token is 0; a row skipped as empty may take
    // host writes to its other units later, without this one).
    let reqs = xorshift_requests(0x9e37_79b9, 3000, 1_000_000, 1500, 3, |x| 4096 * (1 + (x >> 40) % 6) as u32);
    let mut c = cfg(1, 40_000_000, 20_000_000, None);
    c.array.as_mut().unwrap().rebuild = Some(rainsim_model::array::params::RebuildScope::Written);
    let (a, r) = run(&c, true, &reqs);
    let f = r.failure.as_ref().unwrap();
    assert_eq!(f.units_lost_at_failure, f.units_rebuilt + f.rewritten_by_host + f.units_skipped_empty);
    assert!(f.units_skipped_empty > 0 && f.units_rebuilt > 0 && f.rebuilt_at_ns.is_some(), "{f:?}");
    let missing = missing_on(&a, 1);
    let written: Vec<u32> = missing.iter().copied().filter(|&u| a.token(u) != Some(0)).collect();
    assert_eq!(written, [0u32; 0], "written units left off the replacement");
    assert!(!missing.is_empty() && missing.len() as u64 <= f.units_skipped_empty);
    // With every row rebuilt, nothing is missing.
    c.array.as_mut().unwrap().rebuild = None;
    assert_eq!(missing_on(&run(&c, true, &reqs).0, 1), [0u32; 0]);
}

/// A failure due after a run's last request does not happen in that run,
/// the first of an array or a later one: each run counts its own requests
/// to know that its last one is done. Device 2 is set to fail at 1 s: a run
/// of 50 requests ends before it (no failure), then a run of no requests
/// (none left to wait for: still none), a run of 50 from 0.5 s (still
/// none: it ends before 1 s); a run of 100 requests from 1.001 s
/// comes after the failure time, and the device fails then, at 1 s.
#[test]
fn a_failure_due_after_a_later_runs_last_request_does_not_happen() {
    const AT: u64 = 1_000_000_000;
    let sizes = |x: u64| 4096 * (1 + (x >> 40) % 3) as u32;
    let first = xorshift_requests(0x3c6e_f372, 50, 100_000, 1500, 3, sizes);
    let third: Vec<Request> = xorshift_requests(0x1b87_3593, 100, 100_000, 1500, 3, sizes)
        .into_iter()
        .map(|mut q| {
            q.time_ns += AT + 1_000_000;
            q
        })
        .collect();
    let c = cfg(2, AT, 1_000_000, None);
    let mut a = Array::new(&c, true).unwrap();
    let failed_at = |a: &Array| a.report(&c, "baseline", serde_json::Value::Null).device_failed_at_ns;
    a.run(&first, &mut |_| {}).unwrap();
    assert_eq!(failed_at(&a), None, "after the first run");
    a.run(&[], &mut |_| {}).unwrap();
    assert_eq!(failed_at(&a), None, "after a run of no requests");
    // A run whose requests lie between the last one's end and the failure
    // time: the dropped failure left the array's clock where it was.
    let second: Vec<Request> = first.iter().map(|&q| Request { time_ns: q.time_ns + AT / 2, ..q }).collect();
    a.run(&second, &mut |_| {}).unwrap();
    assert_eq!(failed_at(&a), None, "after a run that ends before the failure time");
    a.run(&third, &mut |_| {}).unwrap();
    assert_eq!(a.completed(), 200);
    assert_eq!(failed_at(&a), Some(AT), "a run whose requests come after the failure time");
}

/// An error of one device of the array names the device, and says when it is
/// the replacement of a failed one (fresh, not preconditioned); a device
/// that only shares the array with a replacement is named alone. Device 2
/// fails at 10 ms and is replaced at 11 ms (a read at 20 ms); in a later
/// run a fault injected into one member (its programs never reach its
/// mapping) stops the run with that member's own verification error:
/// device 0's, then, in a second array, device 2's replacement's.
#[test]
fn a_members_error_names_it_and_whether_it_is_a_replacement() {
    let c = cfg(2, 10_000_000, 1_000_000, Some(8));
    let before = [req(0, 0, 8, Op::Write), req(20_000_000, 0, 1, Op::Read)];
    // Every page of two stripes written, then read: each device holds some.
    let later = [req(1_000_000_000, 0, 8, Op::Write), req(1_010_000_000, 0, 8, Op::Read)];
    for (d, replacement) in [(0usize, false), (2, true)] {
        let mut a = Array::new(&c, true).unwrap();
        a.run(&before, &mut |_| {}).unwrap();
        let f = a.report(&c, "baseline", serde_json::Value::Null).failure.unwrap();
        assert_eq!((f.device, f.replaced_at_ns), (2, Some(11_000_000)));
        a.devices_mut()[d].inject_fault(Fault::StaleRead);
        let e = a.run(&later, &mut |_| {}).expect_err("the member's verifier catches it").to_string();
        let named = format!("device {d} of the array");
        assert!(e.starts_with(&named) && e.contains("verification failed"), "device {d}: {e}");
        let said = e.contains("(the replacement put in for the failed one: fresh, not preconditioned)");
        assert_eq!(said, replacement, "device {d}: {e}");
    }
}

/// An event the failed device scheduled (a collection it started before the
/// failure, ending after its requests did) is not the replacement's: it is
/// dropped when it comes due, so the replacement's dies are busy only from
/// the moment it went in. (Run on the replacement, the old device's end of
/// collection would close a busy period the new die never began.)
#[test]
fn the_failed_devices_own_events_do_not_run_on_its_replacement() {
    let reqs = xorshift_requests(0x5eed_1234, 3000, 0, 1500, 1000, |_| 4096);
    let mut c = cfg(3, 5_000_000, 1, Some(4));
    // Aged, so that the devices collect garbage from the first writes.
    (c.precondition.valid, c.precondition.invalid) = (0.7, 0.2);
    let p = c.array.as_mut().unwrap();
    (p.replay, p.queue_depth) = (Replay::Closed, 16);
    let (a, r) = run(&c, false, &reqs);
    let replaced = r.failure.as_ref().unwrap().replaced_at_ns.unwrap();
    let old = a.retired_device().unwrap();
    assert!(device_report(old, &c, "baseline").gc.count > 0, "the failed device collected");
    let new = &a.devices()[3];
    let first = new.obs.first_activity.expect("the replacement worked");
    assert!(first >= replaced, "the replacement busy from {first} ns, put in at {replaced} ns");
}

/// A replacement due while the failed device still reads goes in when that
/// read completes, not when a survivor's next request does: device 2 fails
/// 1 µs into a read of its page (alone in flight there), the replacement is
/// due 1 ns later, and the next request, a read of device 0, comes 15 ms on.
#[test]
fn a_replacement_goes_in_when_the_failed_devices_own_last_request_completes() {
    let reqs = [req(0, 0, 4, Op::Write), req(5_000_000, 2, 1, Op::Read), req(20_000_000, 0, 1, Op::Read)];
    let (_, r) = run(&cfg(2, 5_001_000, 1, None), false, &reqs);
    let f = r.failure.as_ref().unwrap();
    assert_eq!(f.replaced_at_ns, Some(5_000_000 + READ_NS));
}

/// A read of a large chunk the rebuild has reached in part: with chunks of 4
/// pages, device 0 fails at 10 ms and its replacement goes in at 11 ms,
/// rebuilding one page row at a time; at 16.1 ms rows 0 to 5 are back and
/// row 6 is not. A read of chunk 4 (stripe 1, rows 4 to 7, on device 0)
/// from byte 512 of its row 5 for 4 KiB reads its part of row 5 from the
/// replacement (3,584 bytes from byte 512 of slot 5) and rebuilds row 6
/// from its stripe.
#[test]
fn a_read_of_a_chunk_rebuilt_in_part_reads_its_rebuilt_rows_and_rebuilds_the_rest() {
    let mut c = cfg(0, 10_000_000, 1_000_000, Some(1));
    c.array.as_mut().unwrap().chunk_kib = 16;
    let offset = 4 * 16384 + 4096 + 512;
    let read = Request { time_ns: 16_100_000, offset, size: 4096, device: 0, op: Op::Read };
    let mut a = Array::new(&c, true).unwrap();
    a.record_device_requests();
    a.run(&[req(0, 0, 32, Op::Write), read], &mut |_| {}).unwrap();
    assert_eq!(a.counters().degraded_reads, 1, "row 6 rebuilt for the read");
    let reads: Vec<_> =
        a.device_requests().unwrap()[0].iter().filter(|q| q.op == Op::Read).map(|q| (q.offset, q.size)).collect();
    assert_eq!(reads, [(5 * 4096 + 512, 3584)], "row 5's part, from the replacement");
}

/// In verify mode a degraded read checks what it rebuilt against the
/// unit's latest token: with parity that leaves out the chunk a write
/// wrote, the read of logical chunk 6 (stripe 1's third data chunk: unit 7,
/// its parity at position 3) after its device failed (at 10 ms, no
/// replacement within the run) stops the run with that check's error,
/// before the end-of-run parity check would.
#[test]
fn verify_catches_a_degraded_read_that_rebuilds_a_stale_chunk() {
    let plain = Array::new(&array_cfg(5, Allocation::Static), false).unwrap();
    let l = plain.stripe_layout();
    let unit = l.width + l.data_pos(1, 2);
    assert_eq!((unit, l.parity_pos(1)), (7, 3));
    let home = plain.location(unit).unwrap().0;
    let mut c = array_cfg(5, Allocation::Static);
    let p = c.array.as_mut().unwrap();
    (p.fail_device, p.fail_at_ns) = (Some(home), Some(10_000_000));
    let mut a = Array::new(&c, true).unwrap();
    a.inject_fault(Fault::ParityMissesChunk);
    let e = a
        .run(&[req(0, 6, 1, Op::Write), req(20_000_000, 6, 1, Op::Read)], &mut |_| {})
        .expect_err("verify catches it")
        .to_string();
    assert_eq!(a.counters().degraded_reads, 1);
    assert!(e.contains("array degraded read of chunk 7 rebuilt"), "{e}");
}
