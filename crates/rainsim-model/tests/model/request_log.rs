//! The per-request log: keeping it changes no report; its rows are the
//! completed requests with their latencies; its flag follows the rebuilds;
//! channel sets are right past 64 channels.

use crate::{gc_from_start, preset, scheme, tiny, traces_dir};
use rainsim_model::metrics::report::RunTiming;
use rainsim_model::run::{capacity_bytes, simulate, simulate_with_request_log, RunOptions};
use rainsim_model::Config;
use rainsim_trace::{Op, Request};

fn opts(progress: &mut dyn FnMut(u64)) -> RunOptions<'_> {
    RunOptions::new("s", false, progress)
}

#[test]
fn the_log_changes_no_report_and_holds_every_completed_request() {
    let mut cfg = preset("degraded-mode-8ch");
    cfg.policy = scheme("degraded").policy;
    gc_from_start(&mut cfg);
    let path = traces_dir().join("msr.cut.per_10k.rw_40_60.1370.trace");
    let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes).unwrap();
    let mut plain = simulate(&cfg, &trace.requests, opts(&mut |_| {})).unwrap();
    let (mut logged, log) = simulate_with_request_log(&cfg, &trace.requests, opts(&mut |_| {})).unwrap();
    plain.timing = RunTiming::default();
    logged.timing = RunTiming::default();
    assert!(plain == logged, "keeping the request log changed the report");
    assert_eq!(log.len() as u64, logged.latency.all.count);
    assert_eq!(log.len(), trace.requests.len());
    let sum: u128 = log.latency_ns.iter().map(|&l| l as u128).sum();
    assert_eq!(sum, logged.latency.all.sum_ns);
    assert_eq!(log.latency_ns.iter().max().copied(), Some(logged.latency.all.max_ns));
    let reads = log.write.iter().filter(|w| !**w).count() as u64;
    assert_eq!(reads, logged.latency.read.count);
    // Multi-page requests may hold several rebuilt pages: at most one flag each.
    let flagged = |write: bool| (0..log.len()).filter(|&i| log.write[i] == write && log.degraded[i]).count() as u64;
    let rebuilt = logged.raid.degraded_reads + logged.raid.gc_tolerant_reads;
    assert!(rebuilt > 0 && flagged(false) > 0 && flagged(false) <= rebuilt, "{} of {rebuilt}", flagged(false));
    let moved = logged.raid.degraded_updates;
    assert!(moved > 0 && flagged(true) > 0 && flagged(true) <= moved, "{} of {moved}", flagged(true));
    for i in 0..log.len() {
        let c = log.channels_of(i);
        assert!(c.windows(2).all(|w| w[0] < w[1]) && c.iter().all(|&x| x < 8), "row {i}: {c:?}");
    }
}

#[test]
fn channel_sets_past_64_channels() {
    let cfg: Config = tiny(70, 1, 1, 16, 16, Some(4));
    let page = cfg.geometry.page_bytes as u64;
    // One page written and read back on every stripe position of 40 stripes.
    let mut requests = Vec::new();
    for lpn in 0..120u64 {
        requests.push(Request { time_ns: lpn * 1000, offset: lpn * page, size: page as u32, device: 0, op: Op::Write });
    }
    for lpn in 0..120u64 {
        let time_ns = 10_000_000 + lpn * 1000;
        requests.push(Request { time_ns, offset: lpn * page, size: page as u32, device: 0, op: Op::Read });
    }
    let (report, log) = simulate_with_request_log(&cfg, &requests, opts(&mut |_| {})).unwrap();
    assert_eq!(log.len(), 240);
    let mut per_channel = vec![0u64; 70];
    for i in 0..log.len() {
        let c = log.channels_of(i);
        if log.write[i] {
            assert!(c.len() >= 2, "a write programs data and parity: {c:?}");
        } else {
            assert_eq!(c.len(), 1, "a one-page read runs on one channel");
            per_channel[c[0] as usize] += 1;
        }
    }
    let host_reads: Vec<u64> = report.channels.iter().map(|c| c.ops_by_origin.host_read).collect();
    assert_eq!(per_channel, host_reads);
    assert!(per_channel[64..].iter().sum::<u64>() > 0, "no read on channels 64..70");
}
