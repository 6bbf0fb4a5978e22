//! Reported figures held against DESIGN.md §8's definitions on tiny runs
//! and direct collector inputs worked by hand: write amplification under
//! replication, the cv of read tails, an array's cv of blocked requests.

use crate::{full_stripe, report_inputs, run_verified, three_plus_one, tiny};
use rainsim_model::flash::op::Origin;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::metrics::observer::Observer;
use rainsim_model::{Report, Ssd};
use rainsim_trace::{Op, Request};

/// The report of one 4 KiB write to data page 0 of the first fully written
/// stripe (an update) under `kind`.
fn one_update(kind: &str) -> Report {
    let c = three_plus_one(kind, 1);
    let probe = Ssd::new(&c, Collector::new(4), false).unwrap();
    let page = full_stripe(&probe) as u64 * 3;
    let reqs = [Request { time_ns: 1_000, offset: page * 4096, size: 4096, device: 0, op: Op::Write }];
    let ssd = run_verified(&c, &reqs);
    Report::build(&ssd.obs, &ssd.ftl, report_inputs(1))
}

/// WAF is flash programs per page the host wrote (DESIGN §8 "write
/// amplification", with a replica origin among the counts). One 4 KiB
/// update, no GC: under the baseline's RMW it costs 2 programs (data +
/// parity); under Rep-RAID (f* = 1) and FusionRAID also 2 (copies A and B),
/// copy B being replication's own program. Each run wrote 1 host page with
/// 2 flash programs: every WAF is 2.
#[test]
fn waf_counts_a_replicas_second_copy_as_amplification() {
    let rmw = one_update("baseline");
    assert_eq!(rmw.host.bytes_written, 4096);
    let f = &rmw.flash_ops;
    assert_eq!((f.host_program, f.parity_program, f.replica_program, f.gc_program), (1, 1, 0, 0));
    assert_eq!(rmw.waf, 2.0, "RMW: 2 programs for 1 host page");
    for kind in ["rep-raid", "fusionraid"] {
        let rep = one_update(kind);
        assert_eq!(rep.host.bytes_written, 4096, "{kind}: one host page written");
        let f = &rep.flash_ops;
        assert_eq!((f.host_program, f.parity_program, f.replica_program, f.gc_program), (1, 0, 1, 0), "{kind}");
        assert_eq!(rep.waf, 2.0, "{kind}: 2 programs for 1 host page");
        let by_channel: u64 = rep.channels.iter().map(|c| c.ops_by_origin.replica_program).sum();
        assert_eq!(by_channel, 1, "{kind}: the channels' replica programs add up");
    }
}

/// `balance.cv_read_p99_9` is the cv across channels of the per-channel read
/// p99.9 (DESIGN §8: "read tail latency; coefficient of variation across
/// channels of each"). A channel that served no host read has no read tail;
/// the same struct's `read_tail` leaves such channels out ("the others are
/// left out"). Channel 0's reads all take 1,000 ns, channel 1's 2,000 ns
/// (both exact in the histogram), channel 2 served only a program: over the
/// two channels with a read tail, μ = 1,500, σ = 500, cv = 1/3. The report
/// counts channel 2's missing tail as 0 ns: cv of (1000, 2000, 0) = 0.816.
#[test]
fn cv_of_read_tails_leaves_out_channels_without_reads() {
    let mut c = Collector::new(3);
    c.request_done(0, Op::Read, 0, 10_000, 4096);
    for _ in 0..20 {
        c.op_done(0, Origin::HostRead, 0, 1_000);
        c.op_done(1, Origin::HostRead, 0, 2_000);
    }
    c.op_done(2, Origin::HostProgram, 0, 5_000);
    let ftl = rainsim_model::testkit::small_ftl(3, 1, 1, 8);
    let r = Report::build(&c, &ftl, report_inputs(1));
    assert_eq!([r.channels[0].read_p99_9_ns, r.channels[1].read_p99_9_ns], [1_000, 2_000]);
    assert_eq!((r.balance.read_tail.channels, r.balance.read_tail.p99_9.mean_ns), (2, 1_500.0));
    let got = r.balance.cv_read_p99_9;
    assert!((got - 1.0 / 3.0).abs() < 1e-12, "cv_read_p99_9 {got}, by hand 1/3");
}

/// DESIGN §8: per device in arrays, "average blocked requests (queue length
/// sampled at each completion, summed, divided by completions — the papers'
/// definition) … coefficient of variation across [devices] of each". A
/// 3-device static array (2 + 1, chunk = page, no device RAID, no
/// `host.queue_depth`): page 0 written (its data on device 0), then 20 reads
/// of it at once, all on one die of device 0. At the reads' completions 19,
/// 18, …, 0 wait behind them (after the program's 0): device 0's blocked sum
/// is 190, the other devices' 0, so the cv across devices of average blocked
/// is that of (190 / 21, 0, 0) = √2 (it was once the cv of the requests
/// held by `host.queue_depth`: 0 on every device without a cap).
#[test]
fn array_cv_blocked_is_over_the_devices_average_blocked() {
    use rainsim_model::array::params::{Allocation, ArrayParams};
    use rainsim_model::array::Array;
    let mut cfg = tiny(4, 2, 1, 32, 32, None);
    cfg.array = Some(ArrayParams { devices: 3, allocation: Allocation::Static, ..Default::default() });
    let req = |t: u64, op: Op| Request { time_ns: t, offset: 0, size: 4096, device: 0, op };
    let mut reqs = vec![req(0, Op::Write)];
    reqs.extend((0..20).map(|_| req(10_000_000, Op::Read)));
    let mut a = Array::new(&cfg, false).unwrap();
    a.run(&reqs, &mut |_| {}).unwrap();
    let r = a.report(&cfg, "baseline", serde_json::Value::Null);
    let sums: Vec<u64> = r.devices.iter().map(|d| d.blocked_sum).collect();
    assert_eq!(sums, [190, 0, 0], "19 + 18 + … + 0 behind device 0's reads");
    assert_eq!(r.devices[0].avg_blocked, 190.0 / 21.0, "over its 21 completions");
    let got = r.balance.cv_blocked;
    assert!(
        (got - 2f64.sqrt()).abs() < 1e-12,
        "cv_blocked {got}, by hand √2 (blocked_requests {:?})",
        r.devices.iter().map(|d| d.blocked_requests).collect::<Vec<_>>()
    );
}
