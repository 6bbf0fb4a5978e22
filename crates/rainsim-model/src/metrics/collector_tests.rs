//! The collector against a hand-written sequence of probes: every counter the
//! report reads is checked against its sum worked out by hand.

use super::*;
use crate::metrics::observer::{FaultEvent, Observer, StripeWrite};

/// Two requests (a read of 4 KiB, a write of 8 KiB) and the probes a device
/// would send for them on a two-channel device.
fn two_requests() -> Collector {
    let mut c = Collector::new(2);
    c.die_busy(1, 50, 400); // a GC before the first arrival
    c.request_done(0, Op::Read, 100, 350, 4096);
    c.request_done(1, Op::Write, 120, 900, 8192);
    c.op_done(0, Origin::HostRead, 3, 200);
    c.op_done(0, Origin::PreRead, 5, 70);
    c.op_done(1, Origin::DegradedRead, 2, 300);
    c.op_done(1, Origin::HostProgram, 7, 900);
    c.op_done(1, Origin::ParityProgram, 0, 900);
    c.die_busy(0, 150, 350);
    c.die_busy(1, 600, 1_000); // a GC after the last completion
    c
}

#[test]
fn requests_land_in_their_class_with_their_bytes_and_span() {
    let c = two_requests();
    assert_eq!((c.latency[0].count(), c.latency[1].count()), (1, 1));
    assert_eq!((c.latency[0].max, c.latency[1].max), (250, 780), "latency = done − arrival");
    assert_eq!(c.bytes, [4096, 8192]);
    assert_eq!((c.first_arrival, c.last_completion), (Some(100), 900));
    assert_eq!(c.span_ns(), 800, "first arrival to last completion");
    // Die work from 50 to 1,000 widens it.
    assert_eq!((c.first_activity, c.last_activity), (Some(50), 1_000));
    assert_eq!(c.active_span_ns(), 950);
    let all = c.latency_all();
    assert_eq!((all.count(), all.max, all.sum), (2, 780, 250 + 780));
}

#[test]
fn an_earlier_arrival_completing_later_keeps_the_earliest_and_latest() {
    let mut c = Collector::new(1);
    c.request_done(0, Op::Write, 500, 600, 1);
    c.request_done(0, Op::Write, 200, 550, 1);
    assert_eq!((c.first_arrival, c.last_completion, c.span_ns()), (Some(200), 600, 400));
    c.die_busy(0, 300, 580);
    c.die_busy(0, 250, 590);
    assert_eq!((c.first_activity, c.last_activity), (Some(250), 590));
    assert_eq!(c.active_span_ns(), 400, "die work inside the span does not widen it");
}

#[test]
fn spans_without_requests_or_without_activity() {
    let mut c = Collector::new(1);
    assert_eq!((c.span_ns(), c.active_span_ns()), (0, 0));
    c.die_busy(0, 40, 90);
    assert_eq!(c.span_ns(), 0, "no request: no span");
    assert_eq!(c.active_span_ns(), 50, "the die work alone");
    let mut c = Collector::new(1);
    c.request_done(0, Op::Read, 30, 80, 1);
    assert_eq!(c.active_span_ns(), 50, "no die work: the requests' span");
}

#[test]
fn operations_count_by_channel_and_origin_with_their_queues() {
    let c = two_requests();
    assert_eq!(c.channels[0].ops, [1, 0, 1, 0, 0, 0]);
    assert_eq!(c.channels[1].ops, [0, 1, 0, 1, 1, 0]);
    assert_eq!((c.channels[0].total_ops(), c.channels[1].total_ops()), (2, 3));
    assert_eq!((c.ops(Origin::HostRead), c.ops(Origin::HostProgram), c.ops(Origin::PreRead)), (1, 1, 1));
    assert_eq!((c.channels[0].blocked_sum, c.channels[1].blocked_sum), (3 + 5, 2 + 7));
    // Only reads that serve host reads enter the channel's read latency.
    assert_eq!((c.channels[0].read_lat.count(), c.channels[0].read_lat.max), (1, 200));
    assert_eq!((c.channels[1].read_lat.count(), c.channels[1].read_lat.max), (1, 300));
    assert_eq!((c.channels[0].busy_ns, c.channels[1].busy_ns), (200, 350 + 400));
}

#[test]
fn gc_ldpc_and_variation_probes_add_up() {
    let mut c = Collector::new(2);
    c.gc_done(1, &GcWork { moved: 10, erased: 2, wl_moved: 3 }, 5_000, 4_500.5);
    c.gc_done(1, &GcWork { moved: 4, erased: 1, wl_moved: 0 }, 2_000, 1_000.0);
    let g = &c.channels[1];
    assert_eq!((g.gc_count, g.pages_moved, g.wl_moved, g.erases, g.gc_ns), (2, 14, 3, 3, 7_000));
    assert_eq!(g.gc_estimate_ns, 5_500.5);
    assert_eq!(c.channels[0].gc_count, 0);
    c.flash_read(0, Origin::HostRead, 2, 700);
    c.flash_read(1, Origin::PreRead, 0, 0);
    c.flash_read(1, Origin::HostRead, 2, 300);
    assert_eq!(c.ldpc.reads, vec![1, 0, 2], "one slot per level up to the highest seen");
    assert_eq!(c.ldpc.retry_ns, 1_000);
    c.flash_program(0, 1, false);
    c.flash_program(0, 1, false);
    c.flash_program(1, 0, true);
    assert_eq!(c.pv_programs, [vec![0, 2], vec![1]], "host and parity programs, then GC moves");
}

#[test]
fn raid_decisions_count_by_kind() {
    let mut c = Collector::new(1);
    c.stripe_write(StripeWrite::Full, false, 0);
    c.stripe_write(StripeWrite::Rmw, true, 2);
    c.stripe_write(StripeWrite::Rmw, true, 0);
    c.stripe_write(StripeWrite::Rmw, false, 2);
    c.stripe_write(StripeWrite::Rcw, true, 1);
    c.stripe_write(StripeWrite::Plain, false, 1);
    c.stripe_write(StripeWrite::Fresh, false, 0);
    c.degraded_read(false, 3);
    c.degraded_read(true, 2);
    c.degraded_read(true, 3);
    c.degraded_update(4);
    c.xor();
    c.xor();
    let r = c.raid;
    assert_eq!((r.full, r.rmw, r.rcw, r.plain, r.fresh), (1, 3, 1, 1, 1));
    assert_eq!((r.adjusted, r.adjusted_rmw), (3, 2), "two RMWs and an RCW adjusted");
    assert_eq!(r.prereads, 2 + 2 + 1 + 1 + 4, "the routines' and the degraded update's");
    assert_eq!((r.degraded_reads, r.gc_tolerant_reads, r.rebuild_reads), (1, 2, 8));
    assert_eq!((r.degraded_updates, r.xors), (1, 2));
}

#[test]
fn host_and_gc_events_count() {
    let mut c = Collector::new(2);
    c.unmapped_read();
    c.unmapped_read();
    c.unmapped_read_request();
    c.gc_deferred(0);
    c.gc_forced_overlap(1);
    c.gc_forced_overlap(0);
    c.host_held();
    c.host_held();
    c.host_held();
    assert_eq!((c.unmapped_reads, c.unmapped_read_requests), (2, 1));
    assert_eq!((c.gc_deferred, c.gc_forced_overlaps, c.held), (1, 2, 3));
}

#[test]
fn fault_phases_split_latency_at_the_failure_and_the_rebuild() {
    let mut c = Collector::new(1);
    c.request_done(0, Op::Read, 0, 10, 1);
    assert!(c.fault_phases.is_empty(), "no phases before a failure");
    c.fault(FaultEvent::Failed, 20);
    c.request_done(0, Op::Write, 20, 50, 1);
    c.fault(FaultEvent::Replaced, 60);
    c.request_done(0, Op::Read, 60, 90, 1);
    c.fault(FaultEvent::Rebuilt, 100);
    c.request_done(0, Op::Read, 100, 105, 1);
    c.fault(FaultEvent::Failed, 110); // a second failure starts no new phases
    c.request_done(0, Op::Write, 110, 170, 1);
    let p = &c.fault_phases;
    assert_eq!(p.len(), 3);
    assert_eq!((p[0][0].count(), p[0][1].count(), p[0][0].max), (1, 0, 10), "before");
    assert_eq!((p[1][0].count(), p[1][1].count(), p[1][0].max, p[1][1].max), (1, 1, 30, 30), "during");
    assert_eq!((p[2][0].count(), p[2][1].count(), p[2][0].max, p[2][1].max), (1, 1, 5, 60), "after");
    assert_eq!((c.latency[0].count(), c.latency[1].count()), (3, 2), "every request in the totals");
}

#[test]
fn the_request_log_gets_each_requests_channels_and_rebuilds() {
    let mut c = Collector::new(3);
    assert!(!c.wants_request_ops() && c.requests.is_none(), "off unless asked for");
    c.request_op(0, 1, false);
    c.request_done(0, Op::Read, 0, 5, 1);
    let mut c = Collector::with_request_log(3);
    assert!(c.wants_request_ops());
    c.request_op(4, 2, false);
    c.request_op(4, 0, true);
    c.request_op(1, 1, false);
    c.request_done(4, Op::Write, 10, 40, 8192);
    c.request_done(1, Op::Read, 20, 25, 4096);
    let log = c.requests.as_ref().expect("asked for");
    assert_eq!(log.len(), 2);
    assert_eq!((log.channels_of(0), log.channels_of(1)), (&[0u16, 2][..], &[1u16][..]));
    assert_eq!(log.degraded, vec![true, false]);
    assert_eq!(
        (log.latency_ns.clone(), log.size.clone(), log.write.clone()),
        (vec![30, 5], vec![8192, 4096], vec![true, false])
    );
    assert_eq!(c.latency[1].count(), 1, "the totals as without the log");
}

#[test]
fn notes_name_saturation_and_never_written_reads() {
    assert_eq!(saturation_note(HIST_MAX_NS), None, "the bound itself is still in range");
    let n = saturation_note(HIST_MAX_NS + 1).expect("past the bound");
    assert!(n.contains(&format!("{:.0} s", (HIST_MAX_NS + 1) as f64 / 1e9)), "{n}");
    let mut c = Collector::new(1);
    assert_eq!(unmapped_note(&c), None);
    for t in 0..8 {
        c.request_done(0, Op::Read, t, t + 1, 1);
    }
    c.unmapped_reads = 5;
    c.unmapped_read_requests = 2;
    let n = unmapped_note(&c).expect("reads of never-written pages");
    assert!(n.starts_with("5 page reads") && n.contains("2 of the 8 read requests (25.0 %)"), "{n}");
}
