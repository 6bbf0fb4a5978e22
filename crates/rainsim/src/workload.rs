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
pub fn identity(cfg: &Config, trace: Option<&Path>) -> String {
    let cap = rainsim_model::run::capacity_bytes(cfg);
    // A trace file's requests do not depend on the seed or the synthetic
    // workload's keys: runs differing only in those share one load.
    let synthetic = trace.is_none().then_some((&cfg.workload, cfg.seed));
    let parts = (&cfg.trace, synthetic, cap, cfg.geometry.page_bytes);
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

/// `e` naming the workload profile or file it came from, when `--workload`
/// gave one (the generator's checks say only "synthetic workload").
pub fn named(e: SettingsError, workload: Option<&str>) -> SettingsError {
    match (workload, e.0.strip_prefix("synthetic workload: ")) {
        (Some(w), Some(rest)) => SettingsError(format!("synthetic workload of --workload {w}: {rest}")),
        _ => e,
    }
}

/// A run's requests: held in memory, or the synthetic workload generated as
/// the replay reads it (a 10M-request workload held is 320 MB).
pub enum Workload {
    /// Loaded or generated whole.
    Held(Trace),
    /// Generated during the run (and, for a stream that can fail, once before
    /// it for its checks). The requests are the same as held.
    Streamed {
        /// The stream at its start (each run reads a clone).
        stream: rainsim_trace::Stream,
        /// What [`load`] would report of the trace; `span_ns` only when
        /// `span_known` (else each run fills it from the requests it read).
        info: rainsim_trace::TraceInfo,
        /// Whether the stream was read once before (a stream that can fail
        /// mid-way is, so that its error comes before the run).
        span_known: bool,
    },
}

impl Workload {
    /// Requests in all.
    pub fn len(&self) -> usize {
        match self {
            Workload::Held(t) => t.requests.len(),
            Workload::Streamed { info, .. } => info.requests as usize,
        }
    }

    /// Whether there are no requests.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The trace's identity and counts, as the report carries them.
    pub fn info(&self) -> &rainsim_trace::TraceInfo {
        match self {
            Workload::Held(t) => &t.info,
            Workload::Streamed { info, .. } => info,
        }
    }

    /// The requests, when held.
    pub fn held(&self) -> Option<&Trace> {
        match self {
            Workload::Held(t) => Some(t),
            Workload::Streamed { .. } => None,
        }
    }
}

/// The workload of a run of `cfg`: the synthetic workload is streamed when
/// `stream` allows it and nothing before time 0 reads the requests
/// ([`rainsim_model::run::can_stream`]; an array holds them), else loaded as
/// [`load`] does.
pub fn open(cfg: &Config, trace: Option<&Path>, stream: bool) -> Result<Workload, SettingsError> {
    if trace.is_some() || !stream || cfg.array.is_some() || !rainsim_model::run::can_stream(cfg) {
        return load(cfg, trace).map(Workload::Held);
    }
    crate::budget::check(cfg, 0, false, false)?;
    let cap = rainsim_model::run::capacity_bytes(cfg);
    let err = |e: rainsim_trace::TraceError| SettingsError(e.to_string());
    let stream = rainsim_trace::Stream::new(&cfg.workload, cap, cfg.seed).map_err(err)?;
    let (info, span_known) = match rainsim_trace::stream_identity(&cfg.workload, cap, cfg.seed) {
        Some(info) => (info, false),
        None => (rainsim_trace::stream_info(&cfg.workload, cap, cfg.seed).map_err(err)?, true),
    };
    Ok(Workload::Streamed { stream, info, span_known })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{resolve, Request};

    fn cfg(config: &str, sets: &[&str]) -> Config {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        resolve(&Request { config: Some(config), sets: &sets, ..Default::default() }).unwrap()
    }

    fn held(w: &Workload) -> bool {
        matches!(w, Workload::Held(_))
    }

    /// The synthetic workload of one device is streamed when asked; a trace
    /// file, an array, or a set-up that reads the requests before time 0
    /// holds it, and so does not asking. Either way it counts the same.
    #[test]
    fn a_workload_is_streamed_only_where_nothing_needs_it_held() {
        let one = cfg("default", &["workload.requests=300", "precondition.map_trace=\"none\""]);
        let w = open(&one, None, true).unwrap();
        assert!(!held(&w) && w.held().is_none());
        assert_eq!((w.len(), w.is_empty()), (300, false));
        let w = open(&one, None, false).unwrap();
        assert!(held(&w) && w.held().is_some_and(|t| t.requests.len() == 300));
        assert_eq!((w.len(), w.is_empty()), (300, false));

        let reads = cfg("default", &["workload.requests=300", "precondition.map_trace=\"reads\""]);
        assert!(held(&open(&reads, None, true).unwrap()), "preconditioning reads the requests first");
        let array = cfg("dls-4ssd", &["workload.requests=300", "geometry.blocks_per_plane=16"]);
        assert!(held(&open(&array, None, true).unwrap()), "an array holds its requests");

        let dir = tempfile::Builder::new().prefix("rainsim-workload-").tempdir().unwrap();
        let path = dir.path().join("two.trace");
        std::fs::write(&path, "0 0 0 8 1\n1000 0 64 8 0\n").unwrap();
        let w = open(&one, Some(&path), true).unwrap();
        assert!(held(&w) && w.len() == 2 && w.held().is_some());
    }

    /// A held trace without requests is empty (the loaders refuse one, so
    /// only a hand-built trace has none).
    #[test]
    fn a_workload_without_requests_is_empty() {
        let one = cfg("default", &["workload.requests=5"]);
        let Workload::Held(mut t) = open(&one, None, false).unwrap() else { panic!("held") };
        t.requests.clear();
        let w = Workload::Held(t);
        assert_eq!((w.len(), w.is_empty()), (0, true));
    }
}
