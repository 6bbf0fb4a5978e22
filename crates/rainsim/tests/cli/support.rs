//! Running the binary, temporary directories, the shared traces and their
//! README, and JSON helpers.

use serde_json::Value;
use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_rainsim");

/// No single invocation in these tests should come near this.
const TIMEOUT: Duration = Duration::from_secs(120);

/// What one invocation did.
#[derive(Debug)]
pub struct Out {
    /// The command line, for messages.
    pub cmdline: String,
    /// Exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    fn describe(&self) -> String {
        format!(
            "command: {}\nexit code: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.cmdline, self.code, self.stdout, self.stderr
        )
    }

    /// Asserts success (exit 0, no panic message) and returns self.
    #[track_caller]
    pub fn ok(self) -> Out {
        assert_eq!(self.code, Some(0), "expected success\n{}", self.describe());
        assert!(!self.stderr.contains("panicked"), "panic on stderr\n{}", self.describe());
        self
    }

    /// Asserts a clean failure: a non-zero exit code that is neither a panic
    /// (101) nor a signal, no panic message, an `error:` line on stderr and
    /// nothing on stdout. Returns the stderr text.
    #[track_caller]
    pub fn fails(self) -> String {
        let d = self.describe();
        assert!(self.code.is_some(), "killed by a signal\n{d}");
        assert_ne!(self.code, Some(0), "expected failure\n{d}");
        assert_ne!(self.code, Some(101), "exit code 101 is a panic\n{d}");
        assert!(!self.stderr.contains("panicked"), "panic on stderr\n{d}");
        assert!(!self.stderr.contains("RUST_BACKTRACE"), "panic hint on stderr\n{d}");
        assert!(self.stderr.lines().any(|l| l.starts_with("error:")), "no `error:` line on stderr\n{d}");
        assert!(self.stdout.trim().is_empty(), "stdout should be empty on failure\n{d}");
        self.stderr
    }
}

/// Runs `rainsim ARGS…` with a time limit, capturing stdout and stderr.
pub fn rainsim<I, S>(args: I) -> Out
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<_> = args.into_iter().map(|a| a.as_ref().to_os_string()).collect();
    let cmdline = std::iter::once(OsStr::new("rainsim"))
        .chain(args.iter().map(|a| a.as_os_str()))
        .map(|a| a.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(" ");
    let mut child = Command::new(BIN)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("RUST_BACKTRACE")
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {BIN}: {e}"));
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let so = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let se = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for rainsim") {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{cmdline}` did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Out {
        cmdline,
        code: status.code(),
        stdout: so.join().expect("stdout reader"),
        stderr: se.join().expect("stderr reader"),
    }
}

/// A fresh directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("rainsim-cli-test-{}-{n}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap_or_else(|e| panic!("create {}: {e}", p.display()));
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The shared trace samples folder. Fails loudly when it is missing.
pub fn traces_dir() -> PathBuf {
    let (dir, origin) = match std::env::var_os("RAINSIM_TRACES") {
        Some(d) => (PathBuf::from(d), "environment variable RAINSIM_TRACES".to_string()),
        None => {
            let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
            (d, "default location CARGO_MANIFEST_DIR/../../../shared/traces".to_string())
        }
    };
    assert!(
        dir.join("README.md").is_file(),
        "shared trace samples not found: {} (from the {origin}) has no README.md. \
         Point RAINSIM_TRACES at the folder holding the real trace samples and their README.",
        dir.display()
    );
    dir
}

/// One shared trace sample by file name. Fails loudly when it is missing.
pub fn trace(name: &str) -> PathBuf {
    let p = traces_dir().join(name);
    assert!(p.is_file(), "shared trace sample {} is missing (see RAINSIM_TRACES)", p.display());
    p
}

/// One row of the README's file table, with the numbers its checker printed.
#[derive(Debug, Clone)]
pub struct ReadmeRow {
    pub file: String,
    pub requests: u64,
    /// Write ratio in percent, with the tolerance implied by its printed digits.
    pub write_pct: (f64, f64),
    /// Mean request size in KiB, with tolerance.
    pub avg_kib: (f64, f64),
    /// Span in seconds, with tolerance: one unit of the last printed digit,
    /// since the README rounds some spans up (SPC head10: 0.023498 s is
    /// printed as "0.024 s").
    pub span_s: (f64, f64),
    /// SHA-256 from the integrity section.
    pub sha256: String,
}

/// Parses a leading decimal number like `1,000`, `49.2` or `0.016`, returning
/// the value and half a unit of its last printed digit.
fn leading_number(s: &str) -> (f64, f64) {
    let t: String = s.trim().chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ',').collect();
    let t = t.replace(',', "");
    let v: f64 = t.parse().unwrap_or_else(|_| panic!("README: no number at the start of `{s}`"));
    let decimals = t.split_once('.').map_or(0, |(_, f)| f.len());
    (v, 0.5 * 10f64.powi(-(decimals as i32)) + 1e-12)
}

/// The README's table rows and integrity hashes.
pub fn readme() -> Vec<ReadmeRow> {
    let path = traces_dir().join("README.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut hashes = std::collections::HashMap::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() == 2 && w[0].len() == 64 && w[0].chars().all(|c| c.is_ascii_hexdigit()) {
            hashes.insert(w[1].to_string(), w[0].to_string());
        }
    }
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let c: Vec<&str> = line.split('|').map(str::trim).collect();
        assert!(c.len() >= 9, "README row with too few cells: {line}");
        let file = c[1].trim_matches('`').to_string();
        let span = c[7];
        let (v, tol) = leading_number(span);
        let unit = span.split_whitespace().nth(1).unwrap_or("");
        let scale = match unit {
            "s" => 1.0,
            "ms" => 1e-3,
            "µs" => 1e-6,
            other => panic!("README: unknown span unit `{other}` in `{span}`"),
        };
        let sha256 = hashes.get(&file).unwrap_or_else(|| panic!("README: no SHA-256 for {file}")).clone();
        rows.push(ReadmeRow {
            requests: leading_number(c[4]).0 as u64,
            write_pct: leading_number(c[5]),
            avg_kib: leading_number(c[6]),
            span_s: (v * scale, 2.0 * tol * scale),
            sha256,
            file,
        });
    }
    assert!(rows.len() >= 10, "README lists only {} trace files", rows.len());
    rows
}

/// The README row of `file`.
pub fn readme_row(file: &str) -> ReadmeRow {
    readme().into_iter().find(|r| r.file == file).unwrap_or_else(|| panic!("README has no row for {file}"))
}

/// Asserts `|actual - expected| <= tol`.
#[track_caller]
pub fn assert_close(what: &str, actual: f64, expected: f64, tol: f64) {
    assert!((actual - expected).abs() <= tol, "{what}: got {actual}, expected {expected} ± {tol}");
}

/// Reads and parses a JSON file.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", path.display()))
}

/// The value at a dotted path; panics naming the missing key.
#[track_caller]
pub fn at<'a>(v: &'a Value, path: &str) -> &'a Value {
    let mut cur = v;
    for part in path.split('.') {
        cur = match cur {
            Value::Object(m) => m.get(part),
            Value::Array(a) => part.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        }
        .unwrap_or_else(|| panic!("report has no `{path}` (missing `{part}`)"));
    }
    cur
}

/// An unsigned integer at a dotted path.
#[track_caller]
pub fn u(v: &Value, path: &str) -> u64 {
    let x = at(v, path);
    x.as_u64().unwrap_or_else(|| panic!("`{path}` = {x} is not an unsigned integer"))
}

/// A finite number at a dotted path.
#[track_caller]
pub fn f(v: &Value, path: &str) -> f64 {
    let x = at(v, path);
    let n = x.as_f64().unwrap_or_else(|| panic!("`{path}` = {x} is not a number"));
    assert!(n.is_finite(), "`{path}` = {n} is not finite");
    n
}

/// A string at a dotted path.
#[track_caller]
pub fn s<'a>(v: &'a Value, path: &str) -> &'a str {
    let x = at(v, path);
    x.as_str().unwrap_or_else(|| panic!("`{path}` = {x} is not a string"))
}

/// The report without its `timing` object (the only non-deterministic part).
pub fn without_timing(mut v: Value) -> Value {
    v.as_object_mut().expect("report is an object").remove("timing").expect("report has `timing`");
    v
}

/// The top-level keys whose values differ.
pub fn differing_keys(a: &Value, b: &Value) -> Vec<String> {
    let (a, b) = (a.as_object().expect("object"), b.as_object().expect("object"));
    let mut keys: Vec<String> = a.keys().chain(b.keys()).cloned().collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().filter(|k| a.get(k) != b.get(k)).collect()
}

/// `rainsim run --quiet --out DIR/NAME.json ARGS…`: asserts success and an
/// empty stdout, and returns the report.
pub fn run_report(dir: &TempDir, name: &str, args: &[&str]) -> Value {
    let out = dir.join(&format!("{name}.json"));
    let mut all: Vec<&OsStr> = vec![OsStr::new("run"), OsStr::new("--quiet"), OsStr::new("--out"), out.as_os_str()];
    all.extend(args.iter().map(OsStr::new));
    let o = rainsim(all).ok();
    assert!(o.stdout.is_empty(), "--quiet printed to stdout:\n{}", o.stdout);
    assert!(o.stderr.is_empty(), "--quiet printed to stderr:\n{}", o.stderr);
    read_json(&out)
}

/// `p` as a &str (paths in these tests are UTF-8).
pub fn p(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// Every preset shipped in `configs/`.
pub const PRESETS: [&str; 6] = [
    "default",
    "rep-raid-8ch",
    "degraded-mode-8ch",
    "degraded-mode-16ch",
    "adaptive-parity-6ch",
    "adaptive-parity-8ch",
];

/// `--set`s of the worst-case ageing (80/11, uniform, no margin): GC from the
/// first request and every GC long, so queues build even on a short sample.
pub const WORST_AGEING: [&str; 10] = [
    "--set",
    "precondition.free_margin=default",
    "--set",
    "precondition.valid=0.8",
    "--set",
    "precondition.invalid=0.11",
    "--set",
    "precondition.layout=uniform",
    "--set",
    "precondition.target_moves_per_gc=default",
];

/// `bytes` as one gzip member.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).expect("gzip");
    gz.finish().expect("gzip")
}
