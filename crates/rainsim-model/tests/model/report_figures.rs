//! The report's derived figures (rates, means, fractions, shares, WAF and
//! lifetime) worked by hand from a collector fed a small known history.

use crate::report_inputs;
use rainsim_model::flash::op::Origin;
use rainsim_model::ftl::GcWork;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::metrics::observer::Observer;
use rainsim_model::metrics::report::RotatingGcReport;
use rainsim_model::raid::layer::StripeWrite;
use rainsim_model::testkit::small_ftl;
use rainsim_model::Report;
use rainsim_trace::Op;

fn close(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "{what}: {got}, by hand {want}");
}

/// Two channels of two dies. Requests: a read at 1 µs done at 3 µs, a write
/// at 2 µs done at 10 µs (span 9 µs: 2 / 9 µs IOPS). Channel 0 serves a read
/// that found 2 operations ahead, a data and a parity program (0 and 1
/// ahead): 3 ops, 1 blocked on average; channel 1 one data program behind 4.
/// Die work: channel 0 busy 1–5 µs, channel 1 0–9 µs, so activity spans
/// 0–10 µs and the busy fractions are 4 / (10 · 2) and 9 / (10 · 2). Channel
/// 1 ran two GCs (6 and 2 pages moved, 1 erase each, 3 and 1 µs, estimated
/// 2.5 and 3.5 µs). Updates: an RMW and an RCW against the fewest-pre-reads
/// choice, one RCW as chosen, one degraded update.
#[test]
fn derived_figures_follow_from_the_counts() {
    let mut c = Collector::new(2);
    c.request_done(0, Op::Read, 1_000, 3_000, 4096);
    c.request_done(1, Op::Write, 2_000, 10_000, 8192);
    c.op_done(0, Origin::HostRead, 2, 500);
    c.op_done(0, Origin::HostProgram, 0, 500);
    c.op_done(0, Origin::ParityProgram, 1, 500);
    c.op_done(1, Origin::HostProgram, 4, 500);
    c.die_busy(0, 1_000, 5_000);
    c.die_busy(1, 0, 9_000);
    c.gc_done(1, &GcWork { moved: 6, erased: 1, wl_moved: 0 }, 3_000, 2_500.0);
    c.gc_done(1, &GcWork { moved: 2, erased: 1, wl_moved: 0 }, 1_000, 3_500.0);
    c.stripe_write(StripeWrite::Rmw, true, 2);
    c.stripe_write(StripeWrite::Rcw, true, 1);
    c.stripe_write(StripeWrite::Rcw, false, 3);
    c.degraded_update(2);
    let mut ftl = small_ftl(2, 2, 1, 16);
    for b in &mut ftl.blocks {
        b.erases = 1;
    }
    let blocks = ftl.blocks.len() as f64;
    let r = Report::build(&c, &ftl, report_inputs(2));

    close(r.iops, 2.0 * 1e9 / 9_000.0, "iops");
    let [c0, c1] = [&r.channels[0], &r.channels[1]];
    assert_eq!((c0.ops, c0.blocked_sum, c1.ops, c1.blocked_sum), (3, 3, 1, 4));
    close(c0.avg_blocked, 1.0, "channel 0 avg_blocked");
    close(c1.avg_blocked, 4.0, "channel 1 avg_blocked");
    close(c0.busy_fraction, 0.2, "channel 0 busy");
    close(c1.busy_fraction, 0.45, "channel 1 busy");
    assert_eq!((c0.gc_mean_ns, c0.gc_estimate_mean_ns), (0.0, 0.0), "no GC on channel 0");
    close(c1.gc_mean_ns, 2_000.0, "channel 1 GC mean");
    close(c1.gc_estimate_mean_ns, 3_000.0, "channel 1 GC estimate");
    // Balance over the two channels: cv of (1, 4) is 1.5 / 2.5, of (3, 1)
    // is 1 / 2, of (0.2, 0.45) is 0.125 / 0.325.
    close(r.balance.cv_blocked, 0.6, "cv_blocked");
    close(r.balance.cv_completed, 0.5, "cv_completed");
    close(r.balance.cv_busy, 5.0 / 13.0, "cv_busy");

    assert_eq!((r.gc.count, r.flash_ops.gc_read, r.flash_ops.erase), (2, 8, 2));
    close(r.gc.moves_per_gc, 4.0, "moves per GC");
    close(r.gc.mean_ns, 2_000.0, "GC mean");
    // Programs: 2 host, 1 parity, 8 moved, over the 2 host programs.
    close(r.waf, 11.0 / 2.0, "WAF");

    let x = &r.raid;
    assert_eq!((x.rmw, x.rcw, x.adjusted, x.adjusted_to_rmw, x.adjusted_to_rcw), (1, 2, 2, 1, 1));
    assert_eq!((x.degraded_updates, x.prereads), (1, 8));
    // Of 3 updates: none an RMW as chosen, one an RCW as chosen, two adjusted.
    close(x.routines.rmw, 0.0, "RMW share");
    close(x.routines.rcw, 1.0 / 3.0, "RCW share");
    close(x.routines.adjusted, 2.0 / 3.0, "adjusted share");

    // Lifetime: (3000 - 1) erases left per block at 2 erases in 9 µs.
    let want = (3000.0 * blocks - blocks) / (2.0 / 9e-6);
    close(r.wear.predicted_lifetime_s.expect("erases happened"), want, "lifetime");

    // Rotating GC's section only when the configuration turns it on.
    assert_eq!(r.rotating_gc, None);
    let mut on = report_inputs(2);
    on.config = serde_json::json!({"ftl": {"rotating_gc": true}});
    let r = Report::build(&c, &ftl, on);
    assert_eq!(r.rotating_gc, Some(RotatingGcReport { deferred: 0, forced_overlaps: 0 }));
}
