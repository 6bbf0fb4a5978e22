//! Shared helpers: locating the samples, loading, temporary files.

use rainsim_trace::{load, Trace, TraceOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A capacity large enough that `wrap` is the identity on every sample (1 PiB).
pub const BIG: u64 = 1 << 50;
/// Page size used throughout the tests, bytes.
pub const PAGE: u32 = 4096;

/// The directory of the real trace samples; panics (fails the test) if absent.
pub fn traces_dir() -> PathBuf {
    let dir = match std::env::var_os("RAINSIM_TRACES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"),
    };
    assert!(
        dir.join("README.md").is_file(),
        "trace samples not found at {} (set RAINSIM_TRACES to the shared/traces directory); \
         these tests must not pass without them",
        dir.display()
    );
    dir
}

/// Path of one sample.
pub fn sample(name: &str) -> PathBuf {
    let p = traces_dir().join(name);
    assert!(p.is_file(), "missing sample {}", p.display());
    p
}

/// Loads a sample with default options (auto-detect) and a huge capacity.
pub fn load_sample(name: &str) -> Trace {
    load_with(name, &TraceOptions::default())
}

/// Loads a sample with `opts` and a huge capacity.
pub fn load_with(name: &str, opts: &TraceOptions) -> Trace {
    let p = sample(name);
    load(&p, opts, BIG, PAGE).unwrap_or_else(|e| panic!("{e}"))
}

/// Loads `path` expecting an error (without dumping a whole trace if it loads).
pub fn load_err(path: &Path, opts: &TraceOptions, capacity_bytes: u64) -> rainsim_trace::TraceError {
    match load(path, opts, capacity_bytes, PAGE) {
        Ok(t) => panic!("{}: expected an error, loaded {} requests", path.display(), t.requests.len()),
        Err(e) => e,
    }
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        static N: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "rainsim-trace-{tag}-{}-{nanos}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Writes `content` to `name` inside the directory and returns its path.
    pub fn file(&self, name: &str, content: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, content).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
