//! The command line's building blocks as a library, so that other fronts
//! (the Python package, `crates/rainsim-py`) resolve configurations, load
//! traces and run exactly as `rainsim run` does.

pub mod array_summary;
pub mod budget;
pub mod load_bench;
pub mod parquet;
pub mod request_log;
pub mod settings;
pub mod summary;
pub mod turns;
pub mod workload;

use rainsim_model::array::report::ArrayReport;
use rainsim_model::metrics::request_log::RequestLog;
use rainsim_model::{run::RunOptions, Config, Report};
use rainsim_trace::stats::counted;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// What one run is made of, as `rainsim run`'s options say it.
#[derive(Debug, Clone, Default)]
pub struct RunSpec {
    /// Preset name or TOML file (`--config`); default `default`.
    pub config: Option<String>,
    /// Scheme (`--scheme`); without one the configuration's own `[policy]`
    /// (a preset's is `baseline`'s).
    pub scheme: Option<String>,
    /// Workload profile or file (`--workload`).
    pub workload: Option<String>,
    /// `--set KEY=VALUE` overrides in order.
    pub sets: Vec<String>,
    /// Trace file (`--trace`); the synthetic workload without it.
    pub trace: Option<PathBuf>,
    /// `--format`.
    pub format: Option<String>,
    /// `--time-unit`.
    pub time_unit: Option<String>,
}

impl RunSpec {
    /// The effective configuration, with `extra` overrides after the spec's own.
    pub fn resolve(&self, scheme: Option<&str>, extra: &[String]) -> Result<Config, settings::SettingsError> {
        Ok(self.resolve_labelled(scheme, extra)?.0)
    }

    /// [`Self::resolve`] and the scheme the run reports
    /// ([`settings::scheme_label`]).
    pub fn resolve_labelled(
        &self,
        scheme: Option<&str>,
        extra: &[String],
    ) -> Result<(Config, String), settings::SettingsError> {
        let mut sets = self.sets.clone();
        sets.extend_from_slice(extra);
        let req = settings::Request {
            config: self.config.as_deref(),
            scheme,
            workload: self.workload.as_deref(),
            sets: &sets,
        };
        let mut cfg = settings::resolve(&req)?;
        let label = settings::scheme_label(&req, &cfg);
        workload::apply_format(&mut cfg, self.format.as_deref(), self.time_unit.as_deref())?;
        Ok((cfg, label))
    }
}

/// Runs one configuration on its requests, reporting progress to `progress`.
/// Refuses a run that does not fit in memory (see [`budget`]) before
/// building the device.
pub fn simulate(
    cfg: &Config,
    trace: &rainsim_trace::Trace,
    scheme: &str,
    verify: bool,
    progress: &mut dyn FnMut(u64),
) -> Result<Report, Error> {
    Ok(simulate_logged(cfg, trace, scheme, verify, false, progress, None)?.0)
}

/// [`simulate`], with the per-request log when `request_log` is true; the
/// run stops (an error) at its next progress call once `stop` is set.
pub fn simulate_logged(
    cfg: &Config,
    trace: &rainsim_trace::Trace,
    scheme: &str,
    verify: bool,
    request_log: bool,
    progress: &mut dyn FnMut(u64),
    stop: Option<Arc<AtomicBool>>,
) -> Result<(Report, Option<RequestLog>), Error> {
    budget::check(cfg, trace.requests.len() as u64, verify, request_log)?;
    let opts =
        RunOptions { trace: serde_json::to_value(&trace.info)?, stop, ..RunOptions::new(scheme, verify, progress) };
    Ok(if request_log {
        let (report, log) = rainsim_model::run::simulate_with_request_log(cfg, &trace.requests, opts)?;
        (report, Some(log))
    } else {
        (rainsim_model::simulate(cfg, &trace.requests, opts)?, None)
    })
}

/// [`simulate`] of a [`workload::Workload`]: a streamed one is generated
/// again as the replay reads it, and gives the report of the same requests
/// held.
pub fn simulate_workload(
    cfg: &Config,
    w: &workload::Workload,
    scheme: &str,
    verify: bool,
    progress: &mut dyn FnMut(u64),
) -> Result<Report, Error> {
    let (stream, info, span_known) = match w {
        workload::Workload::Held(t) => return simulate(cfg, t, scheme, verify, progress),
        workload::Workload::Streamed { stream, info, span_known } => (stream, info, *span_known),
    };
    budget::check(cfg, 0, verify, false)?;
    let opts = RunOptions { trace: serde_json::to_value(info)?, ..RunOptions::new(scheme, verify, progress) };
    let mut requests = Checked { inner: stream.clone(), error: None, times: None };
    let mut report = rainsim_model::run::simulate_stream(cfg, &mut requests, w.len(), opts)?;
    if let Some(e) = requests.error {
        // Only a stream read before the run can fail, and it did not then.
        return Err(format!("synthetic workload: {e}").into());
    }
    if !span_known {
        let span = requests.times.map_or(0, |(first, last)| last - first);
        report.trace["span_ns"] = span.into();
    }
    Ok(report)
}

/// The requests of a synthetic stream: the first error ends them and is
/// kept, and the first and last arrival times are noted.
struct Checked {
    inner: rainsim_trace::Stream,
    error: Option<rainsim_trace::TraceError>,
    times: Option<(u64, u64)>,
}

impl Iterator for Checked {
    type Item = rainsim_trace::Request;
    fn next(&mut self) -> Option<Self::Item> {
        match self.inner.next()? {
            Ok(r) => {
                let first = self.times.map_or(r.time_ns, |t| t.0);
                self.times = Some((first, r.time_ns));
                Some(r)
            }
            Err(e) => {
                self.error = Some(e);
                None
            }
        }
    }
}

/// Runs an array configuration (`[array]`) on its requests; a `stop` flag
/// set ends the run at its next progress call.
pub fn simulate_array(
    cfg: &Config,
    trace: &rainsim_trace::Trace,
    scheme: &str,
    verify: bool,
    progress: &mut dyn FnMut(u64),
    stop: Option<Arc<AtomicBool>>,
) -> Result<ArrayReport, Error> {
    budget::check(cfg, trace.requests.len() as u64, verify, false)?;
    let t0 = std::time::Instant::now();
    let mut array = rainsim_model::array::Array::for_requests(cfg, verify, &trace.requests)?;
    if let Some(s) = stop {
        array.set_stop(s);
    }
    let setup_s = t0.elapsed().as_secs_f64();
    let (w0, c0) = (std::time::Instant::now(), rainsim_model::run::cpu_seconds());
    array.run(&trace.requests, progress)?;
    let (wall_s, cpu_s) = (w0.elapsed().as_secs_f64(), rainsim_model::run::cpu_seconds() - c0);
    let mut report = array.report(cfg, scheme, serde_json::to_value(&trace.info)?);
    report.timing.wall_s = wall_s;
    report.timing.cpu_s = cpu_s;
    report.timing.setup_s = setup_s;
    report.timing.requests_per_cpu_s =
        rainsim_model::metrics::report::RunTiming::per_cpu_second(trace.requests.len() as u64, cpu_s);
    Ok(report)
}

/// The report of one run: a single device's or an array's (serialised as
/// the report itself).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
pub enum RunReport {
    /// A single device.
    Device(Box<Report>),
    /// An array of devices (`[array]`).
    Array(Box<ArrayReport>),
}

/// [`run_watched`] of a single device or an array, as the configuration
/// says (an array keeps no request log).
pub fn run_any_watched(
    spec: &RunSpec,
    verify: bool,
    request_log: Option<&Path>,
    progress: &mut dyn FnMut(u64),
    stop: Option<Arc<AtomicBool>>,
) -> Result<RunReport, Error> {
    let (cfg, scheme) = spec.resolve_labelled(spec.scheme.as_deref(), &[])?;
    if cfg.array.is_none() {
        return run_resolved(spec, &cfg, &scheme, verify, request_log, progress, stop)
            .map(|r| RunReport::Device(Box::new(r)));
    }
    check_trace_options(spec)?;
    if request_log.is_some() {
        return Err("a request log is not available for an array ([array]); its report has the array's numbers".into());
    }
    let trace =
        workload::load(&cfg, spec.trace.as_deref()).map_err(|e| workload::named(e, spec.workload.as_deref()))?;
    let mut report = simulate_array(&cfg, &trace, &scheme, verify, progress, stop)?;
    report.notes.extend(input_notes(spec, &cfg, &trace.info, Some(&trace.requests)));
    Ok(RunReport::Array(Box::new(report)))
}

/// A trace format or time unit without a trace is an error, not ignored.
fn check_trace_options(spec: &RunSpec) -> Result<(), Error> {
    if spec.trace.is_none() && (spec.format.is_some() || spec.time_unit.is_some()) {
        return Err("a trace format or time unit needs a trace file (trace=...)".into());
    }
    Ok(())
}

/// `rainsim run` without printing: resolve, load, simulate.
pub fn run(spec: &RunSpec, verify: bool) -> Result<Report, Error> {
    run_logged(spec, verify, None)
}

/// [`run`], writing the per-request log to `request_log` as Parquet (see
/// [`request_log`]); the path is checked before the run starts.
pub fn run_logged(spec: &RunSpec, verify: bool, request_log: Option<&Path>) -> Result<Report, Error> {
    run_watched(spec, verify, request_log, &mut |_| {}, None)
}

/// [`run_logged`] with a progress callback and a stop flag (see
/// [`simulate_logged`]).
pub fn run_watched(
    spec: &RunSpec,
    verify: bool,
    request_log: Option<&Path>,
    progress: &mut dyn FnMut(u64),
    stop: Option<Arc<AtomicBool>>,
) -> Result<Report, Error> {
    let (cfg, scheme) = spec.resolve_labelled(spec.scheme.as_deref(), &[])?;
    if cfg.array.is_some() {
        return Err(format!(
            "{}: an array ([array]) has an array's report: run it with run_any_watched",
            spec.config.as_deref().unwrap_or("default")
        )
        .into());
    }
    run_resolved(spec, &cfg, &scheme, verify, request_log, progress, stop)
}

/// [`run_watched`] of the configuration `spec` resolved to (a single device).
fn run_resolved(
    spec: &RunSpec,
    cfg: &Config,
    scheme: &str,
    verify: bool,
    request_log: Option<&Path>,
    progress: &mut dyn FnMut(u64),
    stop: Option<Arc<AtomicBool>>,
) -> Result<Report, Error> {
    check_trace_options(spec)?;
    if let Some(p) = request_log {
        check_writable(p, spec.trace.as_deref())?;
    }
    let trace = workload::load(cfg, spec.trace.as_deref()).map_err(|e| workload::named(e, spec.workload.as_deref()))?;
    let (mut report, log) = simulate_logged(cfg, &trace, scheme, verify, request_log.is_some(), progress, stop)?;
    report.notes.extend(input_notes(spec, cfg, &trace.info, Some(&trace.requests)));
    if let (Some(p), Some(log)) = (request_log, &log) {
        request_log::write(p, log, &report)?;
    }
    Ok(report)
}

/// The note of a synthetic run given `[trace]` keys, which only a replayed
/// trace uses.
pub fn ignored_trace_keys(cfg: &Config, trace: Option<&Path>) -> Option<String> {
    (trace.is_none() && cfg.trace != rainsim_trace::TraceOptions::default())
        .then(|| "the [trace] keys apply to a replayed trace (--trace); this synthetic run ignores them".to_string())
}

/// What a run's report says about its input that the run did not use or
/// changed: `[trace]` keys on a synthetic run, synthetic-workload settings
/// on a trace's, requests beyond the device's capacity that the address map
/// placed on it, and a trace of several devices replayed into one address
/// space (`requests`: the held trace, where there is one).
pub fn input_notes(
    spec: &RunSpec,
    cfg: &Config,
    info: &rainsim_trace::TraceInfo,
    requests: Option<&[rainsim_trace::Request]>,
) -> Vec<String> {
    let mut notes: Vec<String> = ignored_trace_keys(cfg, spec.trace.as_deref()).into_iter().collect();
    let Some(path) = &spec.trace else { return notes };
    let mut unused: Vec<String> = spec.workload.iter().map(|w| format!("--workload {w}")).collect();
    unused.extend(
        spec.sets.iter().filter_map(|s| s.split('=').next()).filter(|k| k.trim().starts_with("workload.")).map(|k| {
            let k = k.trim();
            format!("--set {k}")
        }),
    );
    if !unused.is_empty() {
        let (describe, them) = if unused.len() == 1 { ("describes", "it") } else { ("describe", "them") };
        notes.push(format!(
            "{} {describe} the synthetic workload; this run replays {} and ignores {them} (trace.max_requests, \
             trace.time_scale and trace.repeat shape a trace)",
            unused.join(", "),
            path.display()
        ));
    }
    if info.beyond_capacity > 0 {
        let how = match cfg.trace.address_map {
            rainsim_trace::AddressMap::Wrap => {
                "\"wrap\" folded them onto it (first page modulo the capacity), so \
                 addresses apart in the trace may share pages"
            }
            rainsim_trace::AddressMap::Compact => "\"compact\" packed the trace's footprint from offset 0",
        };
        notes.push(format!(
            "{} of the {} replayed lay beyond the {}'s capacity; trace.address_map = {how}",
            info.beyond_capacity,
            counted(info.requests, "request", "requests"),
            if cfg.array.is_some() { "array" } else { "device" },
        ));
    }
    if let (Some(rs), None) = (requests, cfg.trace.device) {
        let mut devices: Vec<u32> = rs.iter().map(|r| r.device).collect();
        devices.sort_unstable();
        devices.dedup();
        if devices.len() > 1 {
            notes.push(format!(
                "the trace holds {} devices, replayed into one address space; --set trace.device=N keeps one",
                devices.len()
            ));
        }
    }
    notes
}

/// Fails now, not after a long run, if `path` cannot be written: it must not
/// be a directory, and its directory (a symbolic link's target's) must take
/// a new file (for the rename), and it must not be the run's `input` trace
/// (by any path). A pipe or device is written in place.
pub fn check_writable(path: &Path, input: Option<&Path>) -> Result<(), Error> {
    if path == Path::new("-") {
        // Not a file named "-" left in the directory by surprise.
        return Err("-: reports and logs are written to files; for standard output give /dev/stdout (with \
                    --quiet, so that the summary does not follow the report)"
            .into());
    }
    rainsim_trace::check_output(path, &input.into_iter().collect::<Vec<_>>())?;
    if path.is_dir() {
        return Err(format!("{}: is a directory", path.display()).into());
    }
    let (target, atomic) = rainsim_trace::output_target(path);
    if !atomic {
        return Ok(());
    }
    let name = target.file_name().ok_or_else(|| format!("{}: not a file name", path.display()))?;
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let probe = dir.join(format!(".{}.probe-{}", name.to_string_lossy(), std::process::id()));
    std::fs::File::create(&probe).map_err(|e| format!("{}: cannot write here: {e}", path.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The synthetic-workload settings a trace run ignores, one or several,
    /// in a note whose verb and pronoun agree with them.
    #[test]
    fn a_trace_run_names_the_workload_settings_it_ignores() {
        let cfg = Config::default();
        let spec = rainsim_trace::SyntheticSpec { requests: 10, ..Default::default() };
        let info = rainsim_trace::generate(&spec, 1 << 30, 1).unwrap().info;
        let mut spec = RunSpec {
            trace: Some("t.csv".into()),
            sets: vec!["workload.requests=5".into(), "geometry.channels=8".into()],
            ..Default::default()
        };
        let note = |spec: &RunSpec| input_notes(spec, &cfg, &info, None).into_iter().find(|n| n.contains("synthetic"));
        assert_eq!(
            note(&spec).as_deref(),
            Some(
                "--set workload.requests describes the synthetic workload; this run replays t.csv and ignores it \
                 (trace.max_requests, trace.time_scale and trace.repeat shape a trace)"
            )
        );
        spec.workload = Some("mixed".into());
        let n = note(&spec).unwrap();
        assert!(n.starts_with("--workload mixed, --set workload.requests describe the synthetic workload;"), "{n}");
        assert!(n.contains("and ignores them ("), "{n}");
        // Without a trace, nothing is ignored.
        spec.trace = None;
        assert_eq!(note(&spec), None);
    }

    fn small(requests: u32) -> Config {
        let sets = [
            &format!("workload.requests={requests}"),
            "precondition.map_trace=\"none\"",
            "geometry.blocks_per_plane=32",
        ];
        RunSpec { sets: sets.iter().map(|s| s.to_string()).collect(), ..Default::default() }.resolve(None, &[]).unwrap()
    }

    /// The report without its wall-clock timing.
    fn modelled(r: &Report) -> serde_json::Value {
        let mut v = serde_json::to_value(r).unwrap();
        v.as_object_mut().unwrap().remove("timing");
        v
    }

    /// A streamed synthetic workload whose span is not known before the run
    /// reports what the same requests held do: the trace's identity, its
    /// span (last arrival less first, filled in from the requests read) and
    /// every figure.
    #[test]
    fn a_streamed_workload_reports_what_the_held_one_does() {
        let cfg = small(2_000);
        let streamed = workload::open(&cfg, None, true).unwrap();
        assert!(matches!(streamed, workload::Workload::Streamed { span_known: false, .. }));
        let held = workload::open(&cfg, None, false).unwrap();
        let t = &held.held().unwrap().requests;
        // It starts at 0 ns, so only the span's value, not its subtraction,
        // is checked here.
        assert_eq!(t[0].time_ns, 0);
        let span = t.last().unwrap().time_ns;
        assert!(span > 0);
        let run = |w| simulate_workload(&cfg, w, "baseline", false, &mut |_| {}).unwrap();
        let (s, h) = (run(&streamed), run(&held));
        assert_eq!(s.trace["span_ns"], span);
        assert_eq!(s.trace["requests"], 2_000);
        assert_eq!(modelled(&s), modelled(&h));
    }

    /// A stop flag set before the run stops it at its first progress check,
    /// an error, where the same run without one completes.
    #[test]
    fn a_stop_flag_stops_the_run() {
        let cfg = small(6_000);
        let trace = workload::load(&cfg, None).unwrap();
        let stop = Some(Arc::new(AtomicBool::new(true)));
        let e = simulate_logged(&cfg, &trace, "baseline", false, false, &mut |_| {}, stop).unwrap_err();
        assert!(e.to_string().contains("interrupted"), "{e}");
        let (r, log) = simulate_logged(&cfg, &trace, "baseline", false, false, &mut |_| {}, None).unwrap();
        assert_eq!((r.latency.all.count, log.is_none()), (6_000, true));
    }

    /// A trace format or time unit without a trace is refused, each alone.
    #[test]
    fn a_format_or_time_unit_needs_a_trace() {
        let refused = |spec: &RunSpec| check_trace_options(spec).unwrap_err().to_string();
        let format = RunSpec { format: Some("msr".into()), ..Default::default() };
        let unit = RunSpec { time_unit: Some("ms".into()), ..Default::default() };
        for spec in [&format, &unit] {
            assert_eq!(refused(spec), "a trace format or time unit needs a trace file (trace=...)");
            let with_trace = RunSpec { trace: Some("t.trace".into()), ..spec.clone() };
            assert!(check_trace_options(&with_trace).is_ok());
        }
        assert!(check_trace_options(&RunSpec::default()).is_ok());
    }

    /// An array run's CPU time is the run's own: no more than the process
    /// spent over the call (a sum or ratio of the clock's readings is not).
    #[test]
    fn an_array_runs_cpu_time_is_its_own() {
        let sets = ["workload.requests=300", "geometry.blocks_per_plane=16"].map(String::from).to_vec();
        let cfg = RunSpec { config: Some("dls-4ssd".into()), sets, ..Default::default() }.resolve(None, &[]).unwrap();
        let trace = workload::load(&cfg, None).unwrap();
        let before = rainsim_model::run::cpu_seconds();
        let r = simulate_array(&cfg, &trace, "baseline", false, &mut |_| {}, None).unwrap();
        let spent = rainsim_model::run::cpu_seconds() - before;
        assert!(before > 0.0);
        assert!(r.timing.cpu_s >= 0.0 && r.timing.cpu_s <= spent, "{} s of {spent} s", r.timing.cpu_s);
        assert_eq!(r.timing.requests_per_cpu_s, 300.0 / r.timing.cpu_s);
    }

    /// A trace of several devices replayed into one address space is noted
    /// with their number; one device is not.
    #[test]
    fn a_trace_of_several_devices_is_noted() {
        let cfg = Config::default();
        let spec = RunSpec { trace: Some("t.csv".into()), ..Default::default() };
        let info =
            rainsim_trace::generate(&rainsim_trace::SyntheticSpec { requests: 3, ..Default::default() }, 1 << 30, 1)
                .unwrap()
                .info;
        let r =
            |device| rainsim_trace::Request { time_ns: 0, offset: 0, size: 4096, device, op: rainsim_trace::Op::Read };
        let devices = |rs: &[rainsim_trace::Request]| {
            input_notes(&spec, &cfg, &info, Some(rs)).into_iter().filter(|n| n.contains("devices")).collect::<Vec<_>>()
        };
        assert_eq!(devices(&[r(7), r(7)]), Vec::<String>::new());
        assert_eq!(
            devices(&[r(7), r(2), r(7)]),
            ["the trace holds 2 devices, replayed into one address space; --set trace.device=N keeps one"]
        );
    }

    /// An output is refused before the run where it cannot be written: "-",
    /// a directory, the input itself, a directory that does not exist (the
    /// probe goes where the file will); a writable one leaves no probe behind.
    #[test]
    fn an_output_that_cannot_be_written_is_refused_before_the_run() {
        let tmp = tempfile::Builder::new().prefix("rainsim-writable-").tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let err = |p: &Path, input: Option<&Path>| check_writable(p, input).unwrap_err().to_string();
        assert!(err(Path::new("-"), None).starts_with("-: reports and logs are written to files"));
        assert_eq!(err(&dir, None), format!("{}: is a directory", dir.display()));
        let input = dir.join("in.trace");
        std::fs::write(&input, "0 0 0 8 1\n").unwrap();
        assert!(err(&input, Some(&input)).contains("the output is the input"));
        let missing = dir.join("missing").join("r.json");
        assert!(err(&missing, None).starts_with(&format!("{}: cannot write here", missing.display())));
        check_writable(&dir.join("r.json"), Some(&input)).unwrap();
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left, ["in.trace"]);
    }
}
