//! The subcommands.

use crate::interrupt;
use crate::settings::{self, SettingsError};
use crate::summary;
use crate::turns::Turn;
use crate::workload::{self, Workload};
use crate::Setup;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rainsim_model::array::report::ArrayReport;
use rainsim_model::metrics::request_log::RequestLog;
use rainsim_model::{Config, Report};
use rainsim_trace::stats::counted;
use rainsim_trace::Trace;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

type Res = Result<(), Box<dyn std::error::Error>>;

/// Writes `text` to stdout and flushes it. A failed write (a full disk, a
/// closed descriptor) is an error, where `print!` would panic. (A closed
/// pipe ends the process quietly: SIGPIPE has its default action.)
pub fn out(text: &str) -> Res {
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())
        .and_then(|()| o.flush())
        .map_err(|e| format!("cannot write to standard output: {e}"))?;
    Ok(())
}

/// `print!` that returns the write error instead of panicking.
macro_rules! outf {
    ($($t:tt)*) => { out(&format!($($t)*))? };
}
/// `println!` that returns the write error instead of panicking.
macro_rules! outln {
    ($($t:tt)*) => { out(&(format!($($t)*) + "\n"))? };
}

mod config;
pub use config::{config_list, config_show};

pub(crate) fn resolve(setup: &Setup, scheme: Option<&str>, extra: &[String]) -> Result<Config, SettingsError> {
    setup.spec().resolve(scheme, extra)
}

/// [`resolve`] and the scheme the run reports ([`settings::scheme_label`]).
pub(crate) fn resolve_labelled(
    setup: &Setup,
    scheme: Option<&str>,
    extra: &[String],
) -> Result<(Config, String), SettingsError> {
    setup.spec().resolve_labelled(scheme, extra)
}

/// A progress bar on stderr that appears once a run has taken a second, and
/// only when stderr is a terminal. It is created (hidden) when the run starts,
/// so its clock, rate and ETA count from the start.
struct Progress {
    start: Instant,
    bar: Option<ProgressBar>,
    shown: bool,
}

impl Progress {
    fn new(total: u64, label: &str, enabled: bool) -> Progress {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
            b.set_style(
                ProgressStyle::with_template("{prefix} {elapsed_precise} [{bar:40}] {pos}/{len} requests (eta {eta})")
                    .expect("valid template")
                    .progress_chars("=> "),
            );
            b.set_prefix(label.to_string());
            b
        });
        Progress { start: Instant::now(), bar, shown: false }
    }
    fn update(&mut self, done: u64) {
        let Some(b) = &self.bar else { return };
        if !self.shown && self.start.elapsed() > Duration::from_secs(1) {
            b.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        b.set_position(done);
    }
    fn finish(self) {
        if let Some(b) = self.bar {
            b.finish_and_clear();
        }
    }
}

pub(crate) fn simulate(
    cfg: &Config,
    w: &Workload,
    scheme: &str,
    verify: bool,
    show_progress: bool,
    stopped: &str,
    turn: Option<&Turn>,
) -> Result<Report, Box<dyn std::error::Error>> {
    let total = w.len();
    with_progress(total, scheme, show_progress, stopped, &mut turn_hook(turn, total), |p| {
        rainsim::simulate_workload(cfg, w, scheme, verify, p)
    })
}

/// [`simulate`] for an array configuration (its requests held).
pub(crate) fn simulate_array(
    cfg: &Config,
    trace: &Trace,
    scheme: &str,
    verify: bool,
    show_progress: bool,
    stopped: &str,
    turn: Option<&Turn>,
) -> Result<ArrayReport, Box<dyn std::error::Error>> {
    let total = trace.requests.len();
    with_progress(total, scheme, show_progress, stopped, &mut turn_hook(turn, total), |p| {
        rainsim::simulate_array(cfg, trace, scheme, verify, p, None)
    })
}

/// What a run taking turns on the cores tells its turn of its progress.
fn turn_hook<'a>(turn: Option<&'a Turn<'a>>, total: usize) -> impl FnMut(u64) + 'a {
    move |n: u64| {
        if let Some(t) = turn {
            t.progress(n as f64 / total.max(1) as f64);
        }
    }
}

fn simulate_logged(
    cfg: &Config,
    trace: &Trace,
    scheme: &str,
    verify: bool,
    request_log: bool,
    show_progress: bool,
    stopped: &str,
) -> Result<(Report, Option<RequestLog>), Box<dyn std::error::Error>> {
    with_progress(trace.requests.len(), scheme, show_progress, stopped, &mut |_| {}, |p| {
        rainsim::simulate_logged(cfg, trace, scheme, verify, request_log, p, None)
    })
}

/// Runs `f` with a progress callback that draws the bar, tells `hook` the
/// requests completed, and stops the process, saying how far it got, on an
/// interrupt.
fn with_progress<T>(
    total: usize,
    scheme: &str,
    show_progress: bool,
    stopped: &str,
    hook: &mut dyn FnMut(u64),
    f: impl FnOnce(&mut dyn FnMut(u64)) -> Result<T, Box<dyn std::error::Error + Send + Sync>>,
) -> Result<T, Box<dyn std::error::Error>> {
    let total = total as u64;
    let mut progress = Progress::new(total, scheme, show_progress);
    interrupt::check(stopped);
    let r = f(&mut |n: u64| {
        progress.update(n);
        hook(n);
        if interrupt::received().is_some() {
            if let Some(b) = &progress.bar {
                b.abandon();
            }
            interrupt::check(&stopped_after(n, total, stopped));
        }
    });
    progress.finish();
    r.map_err(|e| -> Box<dyn std::error::Error> { e })
}

/// What an interrupt prints: how far the run got (`n` of `total` requests).
fn stopped_after(n: u64, total: u64, stopped: &str) -> String {
    format!("the run stopped after {n} of {}; {stopped}", counted(total, "request", "requests"))
}

/// Best and median of `speeds` (sorted), over how many runs.
fn speed(speeds: &[f64]) -> String {
    format!(
        "best {:.0}, median {:.0} host requests per CPU-second over {}",
        speeds[speeds.len() - 1],
        median(speeds),
        counted(speeds.len() as u64, "run", "runs")
    )
}

/// The speed line of an array bench, naming its shape.
fn array_speed(devices: u32, channels: u32, speeds: &[f64]) -> String {
    let channels = counted(channels.into(), "channel", "channels");
    format!("array of {devices} devices × {channels}: speed {}", speed(speeds))
}

/// Writes a report atomically (a temporary file renamed over `path`).
pub(crate) fn write_report(path: &Path, report: &impl serde::Serialize) -> Res {
    let text = serde_json::to_string_pretty(report)? + "\n";
    rainsim_trace::write_atomic(path, &[], |f| f.write_all(text.as_bytes()))?;
    Ok(())
}

/// `rainsim run`.
pub fn run(setup: &Setup, out: Option<&Path>, request_log: Option<&Path>, verify: bool, quiet: bool) -> Res {
    let (cfg, scheme) = resolve_labelled(setup, setup.scheme.as_deref(), &[])?;
    let scheme = scheme.as_str();
    for p in out.iter().chain(&request_log) {
        rainsim::check_writable(p, setup.trace.as_deref()).map_err(|e| e.to_string())?;
    }
    if let Some(p) = request_log.filter(|p| p.extension().is_some_and(|e| e != "parquet")) {
        eprintln!("note: {}: the request log is written as Parquet, whatever the file's extension", p.display());
    }
    if let (Some(a), Some(b)) = (out, request_log) {
        if a == b {
            return Err(format!("--out and --request-log both name {}", a.display()).into());
        }
    }
    if cfg.array.is_some() && request_log.is_some() {
        return Err("--request-log is not available for an array ([array]); use --out for its report".into());
    }
    // The request log is written from the held requests.
    let w = workload::open(&cfg, setup.trace.as_deref(), request_log.is_none())
        .map_err(|e| workload::named(e, setup.workload.as_deref()))?;
    if !quiet {
        warn_detection(w.info());
    }
    interrupt::check("stopped while loading; no report written");
    let held = match &w {
        Workload::Held(t) => Some(t.requests.as_slice()),
        _ => None,
    };
    // Printed with the summary (the report keeps them, too).
    let notes = rainsim::input_notes(&setup.spec(), &cfg, w.info(), held);
    let Workload::Held(trace) = &w else {
        let mut report = simulate(&cfg, &w, scheme, verify, !quiet, "no report written", None)?;
        report.notes.extend(notes);
        return show_run(&report, None, out, None, verify, quiet);
    };
    if cfg.array.is_some() {
        return run_array(&cfg, trace, scheme, notes, out, verify, quiet);
    }
    let (mut report, log) =
        simulate_logged(&cfg, trace, scheme, verify, request_log.is_some(), !quiet, "no report written")?;
    report.notes.extend(notes);
    show_run(&report, log.as_ref(), out, request_log, verify, quiet)
}

/// Writes a run's report (and request log) where asked, then prints its summary.
fn show_run(
    report: &Report,
    log: Option<&RequestLog>,
    out: Option<&Path>,
    request_log: Option<&Path>,
    verify: bool,
    quiet: bool,
) -> Res {
    // The files first: printing into a closed pipe ends the process.
    if let Some(p) = out {
        write_report(p, report)?;
    }
    if let (Some(p), Some(log)) = (request_log, log) {
        rainsim::request_log::write(p, log, report)?;
    }
    if !quiet {
        outf!("{}", summary::render(report));
        if verify {
            outln!("verify: passed (every read returned its latest version; every stripe recoverable; every request completed once)");
        }
        if let Some(p) = out {
            outln!("report written to {}", p.display());
        }
        if let (Some(p), Some(log)) = (request_log, log) {
            outln!("request log ({}) written to {}", counted(log.len() as u64, "request", "requests"), p.display());
        }
    }
    Ok(())
}

/// `rainsim run` of an array configuration.
fn run_array(
    cfg: &Config,
    trace: &Trace,
    scheme: &str,
    notes: Vec<String>,
    out: Option<&Path>,
    verify: bool,
    quiet: bool,
) -> Res {
    let mut report = simulate_array(cfg, trace, scheme, verify, !quiet, "no report written", None)?;
    report.notes.extend(notes);
    if let Some(p) = out {
        write_report(p, &report)?;
    }
    if !quiet {
        outf!("{}", rainsim::array_summary::render(&report));
        if verify {
            let parity = if cfg.array.as_ref().is_some_and(|a| !a.parity) {
                "no parity to match under array.parity = false"
            } else {
                "every array stripe's parity matches its data"
            };
            outln!("verify: passed ({parity}; every stripe on distinct devices; every device verified)");
        }
        if let Some(p) = out {
            outln!("report written to {}", p.display());
        }
    }
    Ok(())
}

/// The median of sorted `v` (of an even count, the mean of the middle two).
pub(crate) fn median(v: &[f64]) -> f64 {
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Says on stderr when the format was decided by the alignment rule (the
/// report's `trace.detection` says it too).
pub(crate) fn warn_detection(info: &rainsim_trace::TraceInfo) {
    if let Some(d) = &info.detection {
        eprintln!("warning: {}: {d}", info.path);
    }
}

/// `rainsim trace stats`.
pub fn trace_stats(file: &Path, format: Option<&str>, unit: Option<&str>, page_bytes: Option<u32>, json: bool) -> Res {
    let page_bytes = page_bytes.unwrap_or(8192);
    let mut cfg = Config::default();
    workload::apply_format(&mut cfg, format, unit)?;
    // Statistics describe the trace as recorded: no wrapping into a device.
    let trace = rainsim_trace::load(file, &cfg.trace, u64::MAX / 2, page_bytes)?;
    warn_detection(&trace.info);
    let st = rainsim_trace::stats(&trace.requests, page_bytes);
    if json {
        outln!("{}", serde_json::to_string_pretty(&serde_json::json!({ "trace": trace.info, "stats": st }))?);
    } else {
        outln!(
            "{} ({}, {} bytes, sha256 {})",
            trace.info.path,
            trace.info.format,
            trace.info.file_bytes,
            trace.info.sha256
        );
        if trace.info.skipped_no_direction > 0 {
            outln!("skipped {} without a direction", counted(trace.info.skipped_no_direction, "record", "records"));
        }
        for (why, n) in &trace.info.skipped {
            outln!("skipped {}", rainsim_trace::textlog::skipped(*n, why));
        }
        if trace.info.unsorted_inversions > 0 {
            let n = counted(trace.info.unsorted_inversions, "adjacent pair was", "adjacent pairs were");
            outln!("sorted by time ({n} out of order)");
        }
        outln!("{st}");
    }
    Ok(())
}

/// `rainsim trace stats --workload NAME [--config PRESET]`: the profile as
/// generated for that device (capacity, seed), with the same statistics as
/// for a file.
pub fn workload_stats(workload: &str, config: Option<&str>, page_bytes: Option<u32>, json: bool) -> Res {
    let cfg = settings::resolve(&settings::Request { config, workload: Some(workload), ..Default::default() })?;
    let page_bytes = page_bytes.unwrap_or(cfg.geometry.page_bytes);
    let trace = workload::load(&cfg, None).map_err(|e| workload::named(e, Some(workload)))?;
    let st = rainsim_trace::stats(&trace.requests, page_bytes);
    if json {
        outln!("{}", serde_json::to_string_pretty(&serde_json::json!({ "trace": trace.info, "stats": st }))?);
    } else {
        let cap = rainsim_model::run::capacity_bytes(&cfg);
        outln!(
            "synthetic workload {workload} on {} ({cap} bytes = {:.2} GiB logical capacity, seed {}, sha256 {})",
            config.unwrap_or("default"),
            cap as f64 / (1u64 << 30) as f64,
            cfg.seed,
            trace.info.sha256
        );
        outln!("{st}");
    }
    Ok(())
}

/// `rainsim bench`: simulation speed on the synthetic workload, `runs` times.
/// Speed is host requests per CPU-second of the simulation loop (setup
/// excluded); the best and the median run are printed because a shared
/// machine adds noise, never removes it.
pub fn bench(a: &crate::BenchArgs) -> Res {
    let (config, workload, requests) = (a.config.as_str(), a.workload.as_deref(), a.requests);
    let (trace_file, load_only, runs, sets) = (a.trace.as_deref(), a.load_only, a.runs, &a.sets);
    if runs == 0 {
        return Err("bench --runs must be at least 1".into());
    }
    if load_only && trace_file.is_none() {
        return Err("bench --load-only measures the loading of a trace: give it with --trace FILE".into());
    }
    // `--set workload.requests=…` overrides `--requests`; a profile keeps its
    // own count unless `--requests` is given.
    let mut all = Vec::new();
    if let Some(n) = requests.or((workload.is_none() && trace_file.is_none()).then_some(1_000_000)) {
        all.push(format!("workload.requests={n}"));
    }
    all.extend_from_slice(sets);
    let req = settings::Request { config: Some(config), scheme: a.scheme.as_deref(), workload, sets: &all };
    let cfg = settings::resolve(&req)?;
    let label = settings::scheme_label(&req, &cfg);
    let scheme = label.as_str();
    let trace = match trace_file {
        Some(path) if load_only => {
            bench_load(&cfg, path, runs)?;
            return Ok(());
        }
        Some(path) => Workload::Held(bench_load(&cfg, path, runs)?),
        None => {
            let w = workload::open(&cfg, None, a.stream).map_err(|e| workload::named(e, workload))?;
            let what = workload.map(|w| format!(" (workload {w})")).unwrap_or_default();
            let held = match (w.held().is_some(), cfg.array.is_some() && a.stream) {
                (true, true) => "held: an array holds its workload, --stream applies to one device",
                (true, false) => "held",
                (false, _) => "streamed",
            };
            let n = counted(w.len() as u64, "synthetic request", "synthetic requests");
            outln!("config: {config}, scheme {scheme}, {n}{what} ({held}), seed {}", cfg.seed);
            w
        }
    };
    if let (Some(_), Some(held)) = (&cfg.array, trace.held()) {
        return bench_array(&cfg, held, scheme, runs);
    }
    let speeds = timed_runs(
        runs,
        |i| {
            let mut report = simulate(&cfg, &trace, scheme, false, true, "bench stopped", None)?;
            let t = std::mem::take(&mut report.timing);
            print_run(i, &t)?;
            if t.warmup_cpu_s > 0.0 {
                outln!(
                    "run {}: warm-up {:.3} s CPU, {:.0} flash page writes per CPU-second",
                    i + 1,
                    t.warmup_cpu_s,
                    t.warmup_pages_per_cpu_s
                );
            }
            Ok((report, t.requests_per_cpu_s))
        },
        |report| {
            format!(
                "device: {:.0} GiB physical, GC count {}, erases {}, WAF {:.3}, read p99.9 {}, write p99.9 {}",
                physical_gib(&cfg),
                report.channels.iter().map(|c| c.gc_count).sum::<u64>(),
                report.flash_ops.erase,
                report.waf,
                summary::ns(report.latency.read.p99_9_ns as f64),
                summary::ns(report.latency.write.p99_9_ns as f64)
            )
        },
    )?;
    outln!("speed: {}", speed(&speeds));
    print_peak_rss(cfg.physical_pages())
}

/// The peak resident memory, whole and per physical page of `pages`.
fn print_peak_rss(pages: u64) -> Res {
    if let Some(kb) = peak_rss_kib() {
        outln!(
            "peak RSS: {:.1} MiB ({:.2} bytes per physical page, trace buffers included)",
            kb as f64 / 1024.0,
            kb as f64 * 1024.0 / pages as f64
        );
    }
    Ok(())
}

/// `rainsim bench --trace`: loads the file `runs` times and prints the speed.
fn bench_load(cfg: &Config, path: &Path, runs: u32) -> Result<Trace, Box<dyn std::error::Error>> {
    let b = rainsim::load_bench::measure(cfg, path, runs)?;
    let info = &b.trace.info;
    let records = info.records_read as f64;
    for (i, r) in b.runs.iter().enumerate() {
        outln!(
            "load {}: {:.3} s wall / {:.3} s CPU, {:.0} records per CPU-second",
            i + 1,
            r.wall_s,
            r.cpu_s,
            records / r.cpu_s.max(1e-9)
        );
        short_run_note(r.cpu_s, "records (a longer trace)")?;
    }
    let mut cpu: Vec<f64> = b.runs.iter().map(|r| r.cpu_s).collect();
    cpu.sort_by(f64::total_cmp);
    let mib = info.file_bytes as f64 / (1u64 << 20) as f64;
    outln!(
        "trace: {} ({}, {:.1} MiB, {}, {}); load best {:.0}, median {:.0} records per CPU-second; \
         SHA-256 alone {:.3} s CPU ({:.0} MiB/s, SHA extensions {})",
        info.path,
        info.format,
        mib,
        counted(info.records_read, "record", "records"),
        counted(info.requests, "request", "requests"),
        records / cpu[0].max(1e-9),
        records / median(&cpu).max(1e-9),
        b.hash_cpu_s,
        mib / b.hash_cpu_s.max(1e-9),
        if b.sha_extensions { "used" } else { "absent: portable code" }
    );
    Ok(b.trace)
}

/// `rainsim bench` of an array configuration.
fn bench_array(cfg: &Config, trace: &Trace, scheme: &str, runs: u32) -> Res {
    let speeds = timed_runs(
        runs,
        |i| {
            let mut report = rainsim::simulate_array(cfg, trace, scheme, false, &mut |_| {}, None)
                .map_err(|e| -> Box<dyn std::error::Error> { e })?;
            let t = std::mem::take(&mut report.timing);
            print_run(i, &t)?;
            Ok((report, t.requests_per_cpu_s))
        },
        |report| {
            let d = &report.devices;
            format!(
                "devices: {} × {:.0} GiB physical, GC count {}, erases {}, WAF {:.3} to {:.3}, read p99.9 {}, \
                 write p99.9 {}",
                d.len(),
                physical_gib(cfg),
                d.iter().map(|m| m.gc).sum::<u64>(),
                d.iter().map(|m| m.erases).sum::<u64>(),
                d.iter().map(|m| m.waf).fold(f64::INFINITY, f64::min),
                d.iter().map(|m| m.waf).fold(f64::NEG_INFINITY, f64::max),
                summary::ns(report.latency.read.p99_9_ns as f64),
                summary::ns(report.latency.write.p99_9_ns as f64)
            )
        },
    )?;
    let a = cfg.array.as_ref().expect("an array");
    outln!("{}", array_speed(a.devices, cfg.geometry.channels, &speeds));
    print_peak_rss(cfg.physical_pages() * a.devices as u64)
}

/// Runs `run(i)` for each of `runs` rounds, each giving its report and
/// speed; prints `describe` of the first report and checks every later one
/// is identical to it. The speeds come back sorted.
fn timed_runs<R: PartialEq>(
    runs: u32,
    mut run: impl FnMut(u32) -> Result<(R, f64), Box<dyn std::error::Error>>,
    describe: impl Fn(&R) -> String,
) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let mut speeds = Vec::new();
    let mut first: Option<R> = None;
    for i in 0..runs {
        let (report, speed) = run(i)?;
        speeds.push(speed);
        match &first {
            None => {
                outln!("{}", describe(&report));
                first = Some(report);
            }
            Some(f) if *f != report => return Err("two runs of the same input gave different reports".into()),
            Some(_) => {}
        }
    }
    speeds.sort_by(f64::total_cmp);
    Ok(speeds)
}

/// One line per `bench` run: set-up, simulation time and speed.
fn print_run(i: u32, t: &rainsim_model::metrics::report::RunTiming) -> Res {
    outln!(
        "run {}: setup {:.3} s, simulation {:.3} s wall / {:.3} s CPU, {:.0} requests per CPU-second",
        i + 1,
        t.setup_s,
        t.wall_s,
        t.cpu_s,
        t.requests_per_cpu_s
    );
    short_run_note(t.cpu_s, "requests")
}

/// Below this much CPU time a rate is mostly timer and cache noise.
const SHORT_RUN_S: f64 = 0.05;

fn short_run_note(cpu_s: f64, what: &str) -> Res {
    if cpu_s < SHORT_RUN_S {
        outln!("note: {:.1} ms of CPU time is too short to time well; give more {what}", cpu_s * 1e3);
    }
    Ok(())
}

fn physical_gib(cfg: &Config) -> f64 {
    cfg.physical_pages() as f64 * cfg.geometry.page_bytes as f64 / (1u64 << 30) as f64
}

fn peak_rss_kib() -> Option<u64> {
    status_kib("VmHWM:")
}

/// The KiB of `key`'s line in `/proc/self/status`.
fn status_kib(key: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines().find_map(|l| l.strip_prefix(key))?.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
