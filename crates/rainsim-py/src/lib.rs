//! `rainsim._rainsim`: the native half of the Python package. Every function
//! goes through the `rainsim` CLI crate's library, so a run from Python is a
//! run of `rainsim run`; results cross as JSON text (the report's own format)
//! and errors as `RainsimError` with the CLI's message.

use pyo3::prelude::*;
use rainsim::settings::{self, PRESETS, SCHEMES, WORKLOADS};
use rainsim::RunSpec;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pyo3::create_exception!(
    _rainsim,
    RainsimError,
    pyo3::exceptions::PyValueError,
    "A rainsim error, worded as the CLI words it."
);

fn err(e: impl std::fmt::Display) -> PyErr {
    RainsimError::new_err(e.to_string())
}

#[allow(clippy::too_many_arguments)]
fn spec(
    config: Option<String>,
    scheme: Option<String>,
    workload: Option<String>,
    trace: Option<PathBuf>,
    sets: Vec<String>,
    format: Option<String>,
    time_unit: Option<String>,
) -> RunSpec {
    RunSpec { config, scheme, workload, sets, trace, format, time_unit }
}

/// A flag that stops the runs given it at their next progress call (a few
/// thousand requests): a sweep sets it to abandon the runs under way.
#[pyclass(module = "rainsim._rainsim", frozen)]
struct StopFlag(Arc<AtomicBool>);

#[pymethods]
impl StopFlag {
    #[new]
    fn new() -> Self {
        StopFlag(Arc::new(AtomicBool::new(false)))
    }

    /// Stops every run holding this flag.
    fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the flag is set.
    fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Runs one simulation, a single device or an array (`[array]`), with the GIL
/// released; returns the report as JSON text (an array's report for an array).
/// With `request_log`, also writes the per-request log there as Parquet. A
/// signal (Ctrl-C) stops the run at its next progress call and raises as
/// Python would; so does `stop` once set.
#[pyfunction]
#[pyo3(signature = (config=None, scheme=None, workload=None, trace=None, sets=vec![], format=None, time_unit=None, verify=false, request_log=None, stop=None))]
#[allow(clippy::too_many_arguments)]
fn run_json(
    py: Python<'_>,
    config: Option<String>,
    scheme: Option<String>,
    workload: Option<String>,
    trace: Option<PathBuf>,
    sets: Vec<String>,
    format: Option<String>,
    time_unit: Option<String>,
    verify: bool,
    request_log: Option<PathBuf>,
    stop: Option<PyRef<'_, StopFlag>>,
) -> PyResult<String> {
    let s = spec(config, scheme, workload, trace, sets, format, time_unit);
    // The caller's flag, else one of this run's own; a signal's exception sets it
    // (signal handlers run on the main thread only, where a sweep's runs are not).
    let flag = stop.map_or_else(|| Arc::new(AtomicBool::new(false)), |f| f.0.clone());
    let mut raised: Option<PyErr> = None;
    let r = py.detach(|| {
        let mut progress = |_| {
            if let Err(e) = Python::attach(|py| py.check_signals()) {
                raised.get_or_insert(e);
                flag.store(true, Ordering::Relaxed);
            }
        };
        let report = rainsim::run_any_watched(&s, verify, request_log.as_deref(), &mut progress, Some(flag.clone()))
            .map_err(|e| e.to_string())?;
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string())
    });
    match (r, raised) {
        (Err(_), Some(e)) => Err(e),
        (r, _) => r.map_err(err),
    }
}

/// The effective configuration (as `rainsim config show` resolves it) as JSON text.
#[pyfunction]
#[pyo3(signature = (config=None, scheme=None, workload=None, sets=vec![], format=None, time_unit=None))]
fn config_json(
    config: Option<String>,
    scheme: Option<String>,
    workload: Option<String>,
    sets: Vec<String>,
    format: Option<String>,
    time_unit: Option<String>,
) -> PyResult<String> {
    let s = spec(config, scheme, workload, None, sets, format, time_unit);
    let cfg = s.resolve(s.scheme.as_deref(), &[]).map_err(err)?;
    serde_json::to_string(&cfg).map_err(err)
}

/// `rainsim trace stats --json` of a file, as JSON text.
#[pyfunction]
#[pyo3(signature = (path, format=None, time_unit=None, page_bytes=8192))]
fn trace_stats_json(
    py: Python<'_>,
    path: PathBuf,
    format: Option<String>,
    time_unit: Option<String>,
    page_bytes: i64,
) -> PyResult<String> {
    let page_bytes = settings::page_bytes(page_bytes).map_err(|e| err(format!("page_bytes = {e}")))?;
    py.detach(|| {
        let mut cfg = rainsim_model::Config::default();
        rainsim::workload::apply_format(&mut cfg, format.as_deref(), time_unit.as_deref())
            .map_err(|e| e.to_string())?;
        // As the CLI: statistics of the trace as recorded, no wrapping into a device.
        let trace = rainsim_trace::load(&path, &cfg.trace, u64::MAX / 2, page_bytes).map_err(|e| e.to_string())?;
        let st = rainsim_trace::stats(&trace.requests, page_bytes);
        serde_json::to_string(&serde_json::json!({ "trace": trace.info, "stats": st })).map_err(|e| e.to_string())
    })
    .map_err(err)
}

fn listing(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items.iter().map(|(name, text)| (name.to_string(), settings::describe(text, 400))).collect()
}

/// Presets as (name, the first sentence of its comment).
#[pyfunction]
fn presets() -> Vec<(String, String)> {
    listing(PRESETS)
}

/// Schemes as (name, the first sentence of its comment).
#[pyfunction]
fn schemes() -> Vec<(String, String)> {
    listing(SCHEMES)
}

/// Workload profiles as (name, the first sentence of its comment).
#[pyfunction]
fn workloads() -> Vec<(String, String)> {
    listing(WORKLOADS)
}

/// Checks one `KEY=VALUE` override's syntax (key existence is checked by `config_json`).
#[pyfunction]
fn check_set(set: &str) -> PyResult<()> {
    settings::apply_set(&mut Default::default(), set).map_err(err)
}

#[pymodule]
fn _rainsim(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("RainsimError", m.py().get_type::<RainsimError>())?;
    m.add_class::<StopFlag>()?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(config_json, m)?)?;
    m.add_function(wrap_pyfunction!(trace_stats_json, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(schemes, m)?)?;
    m.add_function(wrap_pyfunction!(workloads, m)?)?;
    m.add_function(wrap_pyfunction!(check_set, m)?)?;
    Ok(())
}
