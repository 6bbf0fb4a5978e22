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

#[cfg(test)]
mod tests {
    use super::*;

    /// A three-request ssdsim file in a directory of its own (removed when
    /// the directory is dropped, also by a failing test).
    fn sample(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::Builder::new().prefix(&format!("rainsim-load-bench-{name}-")).tempdir().unwrap();
        let path = dir.path().join("three.trace");
        std::fs::write(&path, "0 0 0 8 1\n1000 0 64 8 0\n2000 1 128 16 1\n").unwrap();
        (dir, path)
    }

    /// Each figure is CPU time spent inside the call: the runs' times are
    /// disjoint slices of it and sum to no more than it. Burning CPU first
    /// makes the process clock's reading much larger than a load of three
    /// lines, so a figure taken from the clock's reading rather than its
    /// difference cannot pass.
    #[test]
    fn the_figures_are_cpu_time_spent_in_the_measurement() {
        let (_dir, path) = sample("cpu");
        let mut x = 0u64;
        while cpu_seconds() < 0.2 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let before = cpu_seconds();
        let b = measure(&Config::default(), &path, 3).unwrap();
        let spent = cpu_seconds() - before;
        assert_eq!(b.runs.len(), 3);
        assert!(b.runs.iter().all(|r| r.cpu_s >= 0.0 && r.wall_s >= 0.0), "{:?}", b.runs);
        let loads: f64 = b.runs.iter().map(|r| r.cpu_s).sum();
        assert!(loads <= spent + 1e-9, "loads took {loads} s of the {spent} s spent");
        assert!((0.0..=spent + 1e-9).contains(&b.hash_cpu_s), "hash {} s of {spent} s", b.hash_cpu_s);
        assert_eq!(b.trace.requests.len(), 3);
    }

    /// Zero runs still loads (and hashes) once.
    #[test]
    fn zero_runs_measure_one() {
        let (_dir, path) = sample("zero");
        let b = measure(&Config::default(), &path, 0).unwrap();
        assert_eq!(b.runs.len(), 1);
        assert!(b.hash_cpu_s.is_finite());
    }

    /// A file whose bytes change between two loads is refused even when its
    /// requests do not (only the hash tells the loads apart). A named pipe
    /// serves each open its own bytes: the writer opens it only while a reader
    /// waits, and serves the next open only once that reader has closed it, so
    /// which open gets which bytes does not depend on timing.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_that_changes_between_loads_is_refused() {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let dir = tempfile::Builder::new().prefix("rainsim-load-bench-fifo-").tempdir().unwrap();
        let fifo = dir.path().join("changing.trace");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
        let same = "0 0 0 8 1\n1000 0 64 8 0\n";
        // The same two requests, spaced differently.
        let spaced = "0 0 0 8 1\n1000  0 64 8 0\n";
        let done = Arc::new(AtomicBool::new(false));
        // How many file descriptors of this process name the pipe.
        let holders = |path: &Path| {
            std::fs::read_dir("/proc/self/fd")
                .unwrap()
                .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
                .filter(|target| target == path)
                .count()
        };
        let writer = {
            let (fifo, done) = (fifo.clone(), done.clone());
            std::thread::spawn(move || {
                for text in [same, spaced, spaced, spaced] {
                    // Opening for writing without blocking fails until a reader waits.
                    let mut f = loop {
                        if done.load(Ordering::SeqCst) {
                            return;
                        }
                        match std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(&fifo) {
                            Ok(f) => break f,
                            Err(_) => std::thread::sleep(std::time::Duration::from_millis(1)),
                        }
                    };
                    // Served once the reader holds the pipe, and not again until it lets go.
                    let wait_while = |held: fn(usize) -> bool| {
                        while held(holders(&fifo)) && !done.load(Ordering::SeqCst) {
                            std::thread::sleep(std::time::Duration::from_millis(1));
                        }
                    };
                    wait_while(|n| n < 2);
                    f.write_all(text.as_bytes()).unwrap();
                    drop(f);
                    wait_while(|n| n > 0);
                }
            })
        };
        let result = measure(&Config::default(), &fifo, 2);
        done.store(true, Ordering::SeqCst);
        writer.join().unwrap();
        let err = result.err().expect("two different loads refused");
        assert!(err.0.ends_with("changing.trace: two loads of the same file differ"), "{}", err.0);
    }

    /// The report's "SHA extensions used" agrees with the kernel's CPU flags.
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn sha_extensions_agree_with_the_cpu_flags() {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap();
        let Some(flags) = info.lines().find(|l| l.starts_with("flags")) else { return };
        assert_eq!(sha_extensions(), flags.split_whitespace().any(|f| f == "sha_ni"), "{flags}");
    }
}
