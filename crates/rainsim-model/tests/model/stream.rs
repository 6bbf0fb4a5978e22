//! Requests read as a stream: the report is the one of the same requests
//! held, and each request is checked as it is read.

use crate::{preset, tiny, traces_dir};
use rainsim_model::metrics::collector::Collector;
use rainsim_model::metrics::report::RunTiming;
use rainsim_model::run::{can_stream, capacity_bytes, simulate, simulate_stream, RunOptions};
use rainsim_model::{SimError, Ssd};
use rainsim_trace::{Op, Request};

fn opts<'a>(progress: &'a mut dyn FnMut(u64)) -> RunOptions<'a> {
    RunOptions::new("baseline", true, progress)
}

/// A shared trace sample, held and streamed (under verify): byte-identical
/// reports, timing aside, and the progress callback is called every
/// `PROGRESS_EVENTS` events and at the end.
#[test]
fn a_streamed_trace_gives_the_held_report() {
    let mut cfg = preset("degraded-mode-8ch");
    // The preset maps what the trace reads before time 0, which needs it held.
    cfg.precondition.map_trace = rainsim_model::config::MapTrace::None;
    let path = traces_dir().join("msr.cut.per_10k.rw_40_60.1370.trace");
    let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes).unwrap();
    let n = trace.requests.len();
    assert!(can_stream(&cfg) && n > 1000);
    let mut held = simulate(&cfg, &trace.requests, opts(&mut |_| {})).unwrap();
    let mut calls = vec![0];
    let mut streamed =
        simulate_stream(&cfg, &mut trace.requests.iter().copied(), n, opts(&mut |k| calls.push(k))).unwrap();
    // Every PROGRESS_EVENTS events, counts never falling, then once at the
    // end with every request. A request's arrival and each of its flash
    // operations but GC's is an event, so the calls are at least that many
    // events over PROGRESS_EVENTS.
    assert_eq!(calls.pop(), Some(n as u64));
    assert!(calls.windows(2).all(|w| w[0] <= w[1]), "{calls:?}");
    let f = &held.flash_ops;
    let events = n as u64 + f.host_read + f.host_program + f.pre_read + f.parity_program;
    assert!((calls.len() - 1) as u64 >= events / rainsim_model::ssd::PROGRESS_EVENTS, "{events} events: {calls:?}");
    assert_eq!(held.latency.all.count, n as u64, "every request completed");
    (held.timing, streamed.timing) = (RunTiming::default(), RunTiming::default());
    assert_eq!(serde_json::to_string(&held).unwrap(), serde_json::to_string(&streamed).unwrap());
}

/// Runs that read the requests before time 0 cannot stream, and say why:
/// mapping what the trace reads, or a warm-up that replays the trace's
/// writes (not one of synthetic writes, nor a warm-up of no writes).
#[test]
fn map_trace_needs_the_requests_held() {
    use rainsim_model::config::WarmupWorkload;
    let mut cfg = tiny(4, 1, 1, 32, 16, Some(4));
    assert!(can_stream(&cfg));
    cfg.warmup.workload = WarmupWorkload::Trace;
    assert!(can_stream(&cfg), "no warm-up writes");
    cfg.warmup.device_writes = 1.0;
    assert!(!can_stream(&cfg), "a warm-up of the trace's writes");
    cfg.warmup.workload = WarmupWorkload::Synthetic;
    assert!(can_stream(&cfg), "a synthetic warm-up");
    cfg.warmup.device_writes = 0.0;
    cfg.precondition.map_trace = rainsim_model::config::MapTrace::Reads;
    assert!(!can_stream(&cfg));
    let e = simulate_stream(&cfg, &mut std::iter::empty(), 0, opts(&mut |_| {})).unwrap_err().to_string();
    assert!(e.contains("precondition.map_trace") && e.contains("held"), "{e}");
}

/// A bad request in a stream is named by its index when it is read, as the
/// whole-slice check names it.
#[test]
fn a_stream_checks_each_request_as_it_reads_it() {
    let cfg = tiny(4, 1, 1, 32, 16, Some(4));
    let r = |t: u64, offset: u64, size: u32| Request { time_ns: t, offset, size, device: 0, op: Op::Write };
    let cases: [(Vec<Request>, &str); 4] = [
        (vec![r(0, 0, 4096), r(10, 0, 0)], "request 1 has size 0"),
        (vec![r(0, 0, 4096), r(10, 0, 4096), r(5, 0, 4096)], "request 2 arrives before request 1"),
        (vec![r(0, 0, 4096), r(1 << 63, 0, 4096)], "request 1"),
        (vec![r(0, 0, 4096), r(1, u64::MAX / 2, 4096)], "request 1"),
    ];
    for (reqs, want) in cases {
        let ssd = Ssd::new(&cfg, Collector::new(4), false).unwrap();
        let whole = ssd.check_requests(&reqs).unwrap_err().to_string();
        let mut ssd = Ssd::new(&cfg, Collector::new(4), false).unwrap();
        let e: SimError = ssd.run_stream(&mut reqs.iter().copied(), reqs.len(), &mut |_| {}).unwrap_err();
        assert_eq!(e.to_string(), whole);
        assert!(whole.contains(want), "{whole}");
    }
}

/// The latest arrival accepted is 2^62 ns, in a slice and in a stream; one
/// ns later is refused by both.
#[test]
fn arrivals_up_to_2_pow_62_ns_are_accepted() {
    let cfg = tiny(4, 1, 1, 32, 16, Some(4));
    let r = |t: u64| Request { time_ns: t, offset: 0, size: 4096, device: 0, op: Op::Write };
    let (last, late) = ([r(0), r(1 << 62)], [r(0), r((1 << 62) + 1)]);
    let ssd = Ssd::new(&cfg, Collector::new(4), false).unwrap();
    assert!(ssd.check_requests(&last).is_ok());
    assert!(ssd.check_requests(&late).unwrap_err().to_string().contains("request 1"));
    let mut ssd = Ssd::new(&cfg, Collector::new(4), false).unwrap();
    let totals = ssd.run_stream(&mut last.iter().copied(), 2, &mut |_| {}).unwrap();
    assert_eq!(totals.completed, 2);
    let mut ssd = Ssd::new(&cfg, Collector::new(4), false).unwrap();
    assert!(ssd.run_stream(&mut late.iter().copied(), 2, &mut |_| {}).is_err());
}

/// A stop flag set (here by the progress callback, as a signal handler
/// would) ends the run at the next progress call with `Interrupted`, the
/// requests completed by then named; unset, the same run completes.
#[test]
fn a_stop_flag_ends_the_run_at_the_next_progress_call() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let mut cfg = preset("default");
    cfg.workload.requests = 50_000;
    let requests = rainsim_trace::synthetic::generate(&cfg.workload, capacity_bytes(&cfg), cfg.seed).unwrap().requests;
    let stop = Arc::new(AtomicBool::new(false));
    let mut calls = Vec::new();
    let flag = stop.clone();
    let mut progress = |n: u64| {
        calls.push(n);
        flag.store(true, Ordering::Relaxed);
    };
    let o = RunOptions { stop: Some(stop.clone()), ..opts(&mut progress) };
    match simulate(&cfg, &requests, o) {
        Err(SimError::Interrupted { completed }) => {
            assert!(completed > 0 && completed < 50_000, "{completed}");
            assert_eq!(calls, vec![completed], "stopped at the first progress call");
        }
        other => panic!("not interrupted: {:?}", other.map(|r| r.latency.all.count)),
    }
    let mut quiet = |_| {};
    let o = RunOptions { stop: Some(Arc::new(AtomicBool::new(false))), ..opts(&mut quiet) };
    assert_eq!(simulate(&cfg, &requests, o).unwrap().latency.all.count, 50_000);
}
