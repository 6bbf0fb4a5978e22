//! The requests of a run: a trace file (with the config's `[trace]` options
//! and the command line's format overrides) or the built-in synthetic workload.

use crate::settings::SettingsError;
use rainsim_model::Config;
use rainsim_trace::{Format, TimeUnit, Trace};
use std::path::Path;

/// Applies `--format` / `--time-unit` to the config's trace options.
pub fn apply_format(cfg: &mut Config, format: Option<&str>, unit: Option<&str>) -> Result<(), SettingsError> {
    if let Some(f) = format {
        cfg.trace.format = Some(f.parse::<Format>().map_err(|e| SettingsError(format!("--format: {e}")))?);
    }
    if let Some(u) = unit {
        cfg.trace.time_unit = Some(u.parse::<TimeUnit>().map_err(|e| SettingsError(format!("--time-unit: {e}")))?);
    }
    Ok(())
}

/// Everything the loaded requests depend on besides the file itself.
pub fn identity(cfg: &Config) -> String {
    let cap = rainsim_model::run::capacity_bytes(cfg);
    let parts = (&cfg.trace, &cfg.workload, cfg.seed, cap, cfg.geometry.page_bytes);
    serde_json::to_string(&parts).expect("options serialise")
}

/// Loads the trace, or generates the synthetic workload when `trace` is None.
pub fn load(cfg: &Config, trace: Option<&Path>) -> Result<Trace, SettingsError> {
    let cap = rainsim_model::run::capacity_bytes(cfg);
    let page = cfg.geometry.page_bytes;
    // The device's share of the budget before any request is read; the
    // requests are counted again once loaded (`crate::simulate`).
    let expected = match trace {
        Some(_) => cfg.trace.max_requests.unwrap_or(0),
        None => cfg.workload.requests,
    };
    crate::budget::check(cfg, expected, false, false)?;
    match trace {
        Some(p) => rainsim_trace::load(p, &cfg.trace, cap, page).map_err(|e| SettingsError(e.to_string())),
        None => rainsim_trace::generate(&cfg.workload, cap, cfg.seed).map_err(|e| SettingsError(e.to_string())),
    }
}
