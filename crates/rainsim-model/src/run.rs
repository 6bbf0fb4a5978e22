//! One run from configuration and requests to report.

use crate::config::Config;
use crate::engine::SimTime;
use crate::metrics::collector::Collector;
use crate::metrics::observer::Observer;
use crate::metrics::report::{Report, RunTiming};
use crate::metrics::request_log::RequestLog;
use crate::ssd::{Held, RunTotals, SimError, Ssd};
use rainsim_trace::Request;
use std::time::Instant;

/// Options of one run besides the configuration.
pub struct RunOptions<'a> {
    /// Scheme name for the report.
    pub scheme: &'a str,
    /// Turn on verification mode.
    pub verify: bool,
    /// Trace identity for the report.
    pub trace: serde_json::Value,
    /// Called with completed request counts.
    pub progress: &'a mut dyn FnMut(u64),
    /// Once set (by another thread, or by `progress`), the run stops at its
    /// next progress call with [`SimError::Interrupted`].
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

impl<'a> RunOptions<'a> {
    /// Options of a run of `scheme` with no trace identity and no stop flag.
    pub fn new(scheme: &'a str, verify: bool, progress: &'a mut dyn FnMut(u64)) -> Self {
        RunOptions { scheme, verify, trace: serde_json::Value::Null, progress, stop: None }
    }
}

pub use crate::engine::cpu_seconds;

/// Builds the device from `cfg`, replays `requests` and returns the report.
pub fn simulate(cfg: &Config, requests: &[Request], opts: RunOptions) -> Result<Report, SimError> {
    Ok(simulate_with(cfg, Requests::Held(requests), opts, false)?.0)
}

/// [`simulate`] of `total` requests read from `requests` as the replay
/// reaches them, none held; the report is the one of the same requests held.
/// Only for runs that need no request before time 0 ([`can_stream`]).
pub fn simulate_stream(
    cfg: &Config,
    requests: &mut dyn Iterator<Item = Request>,
    total: usize,
    opts: RunOptions,
) -> Result<Report, SimError> {
    if !can_stream(cfg) {
        return Err(SimError::Input(
            "precondition.map_trace or a warm-up replaying the trace reads the requests before time 0: \
             they must be held, not streamed"
                .into(),
        ));
    }
    Ok(simulate_with(cfg, Requests::Stream { requests, total }, opts, false)?.0)
}

/// Whether a run of `cfg` can read its requests as a stream: nothing
/// before time 0 reads them (`precondition.map_trace`, a warm-up that
/// replays the trace's writes).
pub fn can_stream(cfg: &Config) -> bool {
    use crate::config::{MapTrace, WarmupWorkload};
    cfg.precondition.map_trace == MapTrace::None
        && (cfg.warmup.device_writes <= 0.0 || cfg.warmup.workload != WarmupWorkload::Trace)
}

/// A run's requests: held in memory, or read once.
enum Requests<'a> {
    Held(&'a [Request]),
    Stream { requests: &'a mut dyn Iterator<Item = Request>, total: usize },
}

/// [`simulate`], also keeping the per-request log (one row per completed
/// request, in completion order).
pub fn simulate_with_request_log(
    cfg: &Config,
    requests: &[Request],
    opts: RunOptions,
) -> Result<(Report, RequestLog), SimError> {
    let (report, log) = simulate_with(cfg, Requests::Held(requests), opts, true)?;
    Ok((report, log.expect("the collector was built with a request log")))
}

fn simulate_with(
    cfg: &Config,
    requests: Requests,
    opts: RunOptions,
    request_log: bool,
) -> Result<(Report, Option<RequestLog>), SimError> {
    if cfg.array.is_some() {
        return Err(SimError::Input(
            "the configuration has an [array] section: an array runs through array::Array (as `rainsim run` does), \
             not as one device"
                .into(),
        ));
    }
    let t0 = Instant::now();
    let channels = cfg.geometry.channels;
    let obs = if request_log { Collector::with_request_log(channels) } else { Collector::new(channels) };
    let held = match &requests {
        Requests::Held(r) => r,
        Requests::Stream { .. } => &[][..],
    };
    let mut ssd = Ssd::for_requests(cfg, obs, opts.verify, held)?;
    ssd.stop = opts.stop;
    let setup_s = t0.elapsed().as_secs_f64();
    let (w0, c0) = (Instant::now(), cpu_seconds());
    let total = match requests {
        Requests::Held(r) => {
            ssd.run(r, opts.progress)?;
            r.len()
        }
        Requests::Stream { requests, total } => {
            ssd.run_stream(requests, total, opts.progress)?;
            total
        }
    };
    let (wall_s, cpu_s) = (w0.elapsed().as_secs_f64(), cpu_seconds() - c0);
    let mut report = report_of(&mut ssd, cfg, opts.scheme, opts.trace);
    report.timing = RunTiming {
        wall_s,
        cpu_s,
        requests_per_cpu_s: RunTiming::per_cpu_second(total as u64, cpu_s),
        setup_s,
        warmup_cpu_s: ssd.warmup_cpu_s,
        warmup_pages_per_cpu_s: report.warmup.as_ref().map_or(0.0, |w| {
            RunTiming::per_cpu_second(w.host_pages + w.parity_pages + w.pages_moved, ssd.warmup_cpu_s)
        }),
    };
    Ok((report, ssd.obs.requests.take()))
}

/// One device of a [`simulate_together`] run.
pub struct DeviceRun<'a> {
    /// Its configuration.
    pub config: &'a Config,
    /// Its requests, sorted by time.
    pub requests: &'a [Request],
    /// Scheme name for its report.
    pub scheme: &'a str,
    /// Trace identity for its report.
    pub trace: serde_json::Value,
}

/// Replays several devices in one simulated time and returns one report
/// each (their `timing` sections empty). Independent devices get exactly
/// the reports of separate runs.
pub fn simulate_together(runs: Vec<DeviceRun>, verify: bool) -> Result<Vec<Report>, SimError> {
    let mut devices = Vec::with_capacity(runs.len());
    for r in &runs {
        devices.push(Ssd::for_requests(r.config, Collector::new(r.config.geometry.channels), verify, r.requests)?);
    }
    let mut pairs: Vec<(&mut Ssd<Collector>, &[Request])> =
        devices.iter_mut().zip(&runs).map(|(d, r)| (d, r.requests)).collect();
    run_together(&mut pairs)?;
    Ok(devices.iter_mut().zip(runs).map(|(d, r)| report_of(d, r.config, r.scheme, r.trace)).collect())
}

/// The one run loop over several devices: it always runs the earliest
/// pending event of any device, equal times going to the lower index, so the
/// order is deterministic; simulated time is the time of that event.
pub fn run_together<O: Observer>(devices: &mut [(&mut Ssd<O>, &[Request])]) -> Result<Vec<RunTotals>, SimError> {
    let mut sources: Vec<Held> = Vec::with_capacity(devices.len());
    for (d, r) in devices.iter_mut() {
        d.check_requests(r)?;
        let mut src = Held::new(r);
        d.begin(&mut src, r.len())?;
        sources.push(src);
    }
    loop {
        let mut next: Option<(SimTime, usize)> = None;
        for (i, (d, _)) in devices.iter().enumerate() {
            if let Some(t) = d.next_event_time() {
                if next.is_none_or(|(best, _)| t < best) {
                    next = Some((t, i));
                }
            }
        }
        let Some((_, i)) = next else { break };
        devices[i].0.step(&mut sources[i])?;
    }
    devices.iter_mut().map(|(d, _)| d.finish()).collect()
}

/// The report of device `ssd` (built from `cfg`) after its run, as
/// [`simulate`] gives it but for `timing`: for a caller that built and ran the
/// device itself.
pub fn report_of(ssd: &mut Ssd<Collector>, cfg: &Config, scheme: &str, trace: serde_json::Value) -> Report {
    let mut report = ssd.measured_report(cfg, scheme, trace);
    report.notes.splice(0..0, std::mem::take(&mut ssd.notes));
    report.precondition = std::mem::take(&mut ssd.prep);
    report.warmup = ssd.warmup.take();
    report.fault = ssd.fault_report();
    report.process_variation =
        ssd.ftl.pv.as_ref().map(|pv| crate::metrics::pv_report::PvReport::new(pv, &ssd.ftl, &ssd.obs.pv_programs));
    report.conflicts = ssd.host_conflicts().map(|c| crate::metrics::pv_report::ConflictReport::new(&c));
    report.replication = ssd.replication_report(cfg.policy.replication.name());
    report
}

/// Host-visible capacity of the device (or, with `[array]`, the array) `cfg`
/// describes, in bytes (needed to map trace addresses before it is built).
pub fn capacity_bytes(cfg: &Config) -> u64 {
    match &cfg.array {
        Some(a) => crate::array::capacity_bytes(cfg, a),
        None => device_capacity_bytes(cfg),
    }
}

/// Host-visible capacity of one device as `cfg` describes it, in bytes.
pub fn device_capacity_bytes(cfg: &Config) -> u64 {
    let (width, parity) = cfg.stripe_shape();
    let stripes = crate::config::stripe_count(cfg.physical_pages(), cfg.geometry.over_provisioning, width);
    stripes * width.saturating_sub(parity as u32) as u64 * cfg.geometry.page_bytes as u64
}
