//! `rainsim bench --trace`: how fast a trace file loads (read, decompress,
//! parse, sort, hash), and how much of that the SHA-256 of its bytes is.

use crate::settings::SettingsError;
use crate::workload;
use rainsim_model::engine::cpu_seconds;
use rainsim_model::Config;
use rainsim_trace::Trace;
use std::path::Path;
use std::time::Instant;

/// One load of the trace.
#[derive(Debug, Clone, Copy)]
pub struct LoadRun {
    /// CPU seconds of the whole load (10 ms resolution).
    pub cpu_s: f64,
    /// Wall seconds of it.
    pub wall_s: f64,
}

/// What loading a trace `runs` times measured.
pub struct LoadBench {
    /// The trace (of the last run; every run must give the same).
    pub trace: Trace,
    /// Each run's times.
    pub runs: Vec<LoadRun>,
    /// CPU seconds of the SHA-256 of the stored file alone (best of the runs).
    pub hash_cpu_s: f64,
    /// Whether the CPU has the x86 SHA extensions (used when present).
    pub sha_extensions: bool,
}

/// Loads `path` with the trace options of `cfg` `runs` times (≥ 1), and
/// hashes its bytes alone as many times.
pub fn measure(cfg: &Config, path: &Path, runs: u32) -> Result<LoadBench, SettingsError> {
    let mut out = Vec::new();
    let mut trace: Option<Trace> = None;
    for _ in 0..runs.max(1) {
        let (c0, w0) = (cpu_seconds(), Instant::now());
        let t = workload::load(cfg, Some(path))?;
        out.push(LoadRun { cpu_s: cpu_seconds() - c0, wall_s: w0.elapsed().as_secs_f64() });
        if let Some(prev) = &trace {
            if prev.requests != t.requests || prev.info.sha256 != t.info.sha256 {
                return Err(SettingsError(format!("{}: two loads of the same file differ", path.display())));
            }
        }
        trace = Some(t);
    }
    let trace = trace.expect("at least one run");
    let mut hash_cpu_s = f64::INFINITY;
    for _ in 0..runs.max(1) {
        let c0 = cpu_seconds();
        let hex = rainsim_trace::file_sha256(path).map_err(|e| SettingsError(format!("{}: {e}", path.display())))?;
        hash_cpu_s = hash_cpu_s.min(cpu_seconds() - c0);
        if hex != trace.info.sha256 {
            return Err(SettingsError(format!("{}: the file changed while it was measured", path.display())));
        }
    }
    Ok(LoadBench { trace, runs: out, hash_cpu_s, sha_extensions: sha_extensions() })
}

/// Whether the sha2 crate can use the CPU's SHA instructions (it detects
/// them at run time; valgrind hides them, so callgrind counts the portable
/// code).
fn sha_extensions() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("sha")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
