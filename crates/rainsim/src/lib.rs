//! The command line's building blocks as a library, so that other fronts
//! (the Python package, `crates/rainsim-py`) resolve configurations, load
//! traces and run exactly as `rainsim run` does.

pub mod budget;
pub mod settings;
pub mod summary;
pub mod workload;

use rainsim_model::{run::RunOptions, Config, Report};
use std::path::PathBuf;

/// What one run is made of, as `rainsim run`'s options say it.
#[derive(Debug, Clone, Default)]
pub struct RunSpec {
    /// Preset name or TOML file (`--config`); default `default`.
    pub config: Option<String>,
    /// Scheme (`--scheme`); default `baseline`.
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
    /// The scheme the run uses (`baseline` unless named).
    pub fn scheme_name(&self) -> &str {
        self.scheme.as_deref().unwrap_or("baseline")
    }

    /// The effective configuration, with `extra` overrides after the spec's own.
    pub fn resolve(&self, scheme: Option<&str>, extra: &[String]) -> Result<Config, settings::SettingsError> {
        let mut sets = self.sets.clone();
        sets.extend_from_slice(extra);
        let mut cfg = settings::resolve(&settings::Request {
            config: self.config.as_deref(),
            scheme,
            workload: self.workload.as_deref(),
            sets: &sets,
        })?;
        workload::apply_format(&mut cfg, self.format.as_deref(), self.time_unit.as_deref())?;
        Ok(cfg)
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
) -> Result<Report, Box<dyn std::error::Error + Send + Sync>> {
    budget::check(cfg, trace.requests.len() as u64, verify)?;
    let report = rainsim_model::simulate(
        cfg,
        &trace.requests,
        RunOptions { scheme, verify, trace: serde_json::to_value(&trace.info)?, progress },
    )?;
    Ok(report)
}

/// `rainsim run` without printing: resolve, load, simulate.
pub fn run(spec: &RunSpec, verify: bool) -> Result<Report, Box<dyn std::error::Error + Send + Sync>> {
    let scheme = spec.scheme_name();
    let cfg = spec.resolve(Some(scheme), &[])?;
    let trace = workload::load(&cfg, spec.trace.as_deref())?;
    simulate(&cfg, &trace, scheme, verify, &mut |_| {})
}
