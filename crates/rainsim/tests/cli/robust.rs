//! A run that never lies: what a probe of fuzzed traces and configurations
//! found, each case kept as a regression test (the small input files are in
//! `tests/robust/`): failed writes to stdout, configurations that cannot fit
//! in memory, unbounded lines, simulated-time overflow, signals during a run,
//! ambiguous format detection and control bytes in messages.

use crate::support::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/robust").join(name)
}

/// `rainsim ARGS` with stdout to `/dev/full`: exit status and stderr.
#[cfg(target_os = "linux")]
fn to_dev_full(args: &[&str]) -> (Option<i32>, String) {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let o = Command::new(BIN).args(args).stdout(full).stderr(Stdio::piped()).output().expect("run rainsim");
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
#[cfg(target_os = "linux")]
fn a_failed_stdout_write_is_an_error_not_a_panic() {
    let t = corpus("four-requests.trace");
    for args in [
        &["config", "show"][..],
        &["config", "list"][..],
        &["trace", "stats", p(&t)][..],
        &["run", "--set", "workload.requests=50"][..],
    ] {
        let (code, err) = to_dev_full(args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        // (A warning about the trace may come first.)
        let last = err.lines().last().unwrap_or("");
        assert!(last.starts_with("error: cannot write to standard output"), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// Every configuration of the corpus fails cleanly, naming its key.
#[test]
fn corpus_of_configurations_is_refused_with_the_key() {
    let text = std::fs::read_to_string(corpus("sets.tsv")).expect("corpus");
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (sets, want) = line.split_once('\t').expect("sets<TAB>fragment");
        let mut args = vec!["run".to_string(), "--quiet".into()];
        for s in sets.split_whitespace() {
            args.extend(["--set".to_string(), s.to_string()]);
        }
        let o = Command::new(BIN)
            .args(&args)
            .env("RAINSIM_MEMORY_AVAILABLE", (8u64 << 30).to_string())
            .output()
            .expect("run rainsim");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{sets}: {err}");
        assert!(err.starts_with("error:") && err.contains(want), "{sets}: want `{want}` in\n{err}");
    }
}

#[test]
fn memory_budget_can_be_overridden() {
    // The default device needs ~70 MiB: refused under a 1 MiB budget, and
    // run anyway with the override key.
    let run = |extra: &[&str]| {
        Command::new(BIN)
            .args([&["run", "--quiet", "--set", "workload.requests=20"][..], extra].concat())
            .env("RAINSIM_MEMORY_AVAILABLE", "1048576")
            .output()
            .expect("run rainsim")
    };
    let o = run(&[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("needs about") && err.contains("run.ignore_memory_budget = true"), "{err}");
    let o = run(&["--set", "run.ignore_memory_budget=true"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A value with a unit counts; one that is not a size is an error, not ignored.
    let with = |v: &str| {
        Command::new(BIN)
            .args(["run", "--quiet", "--set", "workload.requests=20"])
            .env("RAINSIM_MEMORY_AVAILABLE", v)
            .output()
            .expect("run rainsim")
    };
    let o = with("1MiB");
    assert!(String::from_utf8_lossy(&o.stderr).contains("needs about"), "1 MiB is too little");
    for bad in ["1MB", "1e6", "abc", "-1"] {
        let o = with(bad);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{bad}: {err}");
        assert!(err.contains("RAINSIM_MEMORY_AVAILABLE") && err.contains(bad), "{err}");
    }
}

#[test]
#[cfg(unix)]
fn a_line_without_newline_is_bounded() {
    let err = rainsim(["trace", "stats", "/dev/zero"]).fails();
    assert!(err.contains("/dev/zero:1:") && err.contains("1 MiB"), "{err}");
}

#[test]
fn trace_stats_and_run_share_the_time_limit() {
    let t = corpus("disksim-max-time.trace");
    let want = format!("{}:2: time 18446744073709551615 ns lies more than 2^62 ns", p(&t));
    let err = rainsim(["trace", "stats", p(&t)]).fails();
    assert!(err.contains(&want), "{err}");
    let err = rainsim(["run", "--quiet", "--trace", p(&t)]).fails();
    assert!(err.contains(&want), "{err}");
}

#[test]
fn detection_by_alignment_warns_and_is_reported() {
    let dir = TempDir::new("detect");
    for (file, format, words) in [
        ("msr-window-aligned.trace", "msr-window", "--format disksim (trace.format)"),
        ("disksim-unaligned.trace", "disksim", "--format msr-window (trace.format)"),
    ] {
        let t = corpus(file);
        let o = rainsim(["trace", "stats", p(&t)]).ok();
        assert!(o.stderr.contains("warning:") && o.stderr.contains(words), "{file}: {}", o.stderr);
        let out = dir.join("r.json");
        let o = rainsim(["run", "--trace", p(&t), "--out", p(&out)]).ok();
        assert!(o.stderr.contains(words), "{file}: {}", o.stderr);
        let r = read_json(&out);
        assert_eq!(s(&r, "trace.format"), format);
        assert!(s(&r, "trace.detection").contains(words), "{file}");
    }
    // An explicit format decides alone, with no warning.
    let t = corpus("msr-window-aligned.trace");
    let o = rainsim(["trace", "stats", p(&t), "--format", "msr-window"]).ok();
    assert!(o.stderr.is_empty(), "{}", o.stderr);
}

#[test]
fn control_bytes_are_escaped_in_messages() {
    let t = corpus("escape-bytes.csv");
    // Quoted by detection, and by the parser with the format given.
    let err = rainsim(["trace", "stats", p(&t)]).fails();
    assert!(!err.contains('\x1b'), "raw escape byte in: {err:?}");
    assert!(err.contains("\\u{1b}[2J") && err.contains("line 1"), "{err}");
    let err = rainsim(["trace", "stats", p(&t), "--format", "msr"]).fails();
    assert!(!err.contains('\x1b'), "raw escape byte in: {err:?}");
    assert!(err.contains("\\u{1b}[2J") && err.contains(":1:"), "{err}");
}

#[test]
fn gzip_with_trailing_garbage_says_so() {
    let dir = TempDir::new("gz-trailing");
    let f = dir.join("t.gz");
    let mut bytes = gzip(b"0 0 8 8 1\n");
    bytes.extend_from_slice(b"garbage\n");
    std::fs::write(&f, bytes).unwrap();
    let err = rainsim(["trace", "stats", p(&f)]).fails();
    assert!(err.contains("trailing data after the gzip stream"), "{err}");
}

/// A compressed trace cut short names the line where reading stopped and
/// says what that usually means, not a bare decoder message.
#[test]
fn a_gzip_file_cut_short_says_so_with_its_line() {
    let dir = TempDir::new("gz-cut");
    let f = dir.join("t.gz");
    let text = std::fs::read(trace("msr_hm_0_slice1000.csv")).unwrap();
    let bytes = gzip(&text);
    std::fs::write(&f, &bytes[..bytes.len() / 2]).unwrap();
    let err = rainsim(["trace", "stats", p(&f)]).fails();
    assert!(err.contains(p(&f)) && err.contains("side line ") && err.contains("cut short or damaged"), "{err}");
}

#[test]
fn bench_needs_at_least_one_run() {
    let err = rainsim(["bench", "--runs", "0", "--requests", "10"]).fails();
    assert!(err.contains("--runs must be at least 1"), "{err}");
}

#[test]
fn max_requests_stops_reading_early() {
    let dir = TempDir::new("max-requests");
    let t = corpus("four-requests.trace");
    // A bad line after the kept requests is never read.
    let f = dir.join("t.trace");
    let text = std::fs::read_to_string(&t).unwrap() + "not a request\n";
    std::fs::write(&f, text).unwrap();
    let r = run_report(&dir, "r", &["--trace", p(&f), "--set", "trace.max_requests=2"]);
    assert_eq!(u(&r, "trace.requests"), 2);
    assert_eq!(u(&r, "trace.records_read"), 2);
    assert_eq!(u(&r, "trace.stopped_at_line"), 2);
}

/// SIGINT or SIGTERM during `run --out NEW` stops the run with 128 + the
/// signal, a message, and no report file (complete or partial).
#[test]
#[cfg(unix)]
fn a_signal_stops_a_run_without_a_partial_report() {
    for (sig, code) in [("INT", 130), ("TERM", 143)] {
        let dir = TempDir::new("signal");
        let out = dir.join("new.json");
        let child = Command::new(BIN)
            .args(["run", "--set", "workload.requests=20000000", "--out", p(&out)])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start rainsim");
        std::thread::sleep(Duration::from_millis(1500));
        let k = Command::new("kill").args([format!("-{sig}"), child.id().to_string()]).status().expect("kill");
        assert!(k.success());
        let start = Instant::now();
        let o = child.wait_with_output().expect("wait");
        assert!(start.elapsed() < Duration::from_secs(60), "SIG{sig} did not stop the run promptly");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "SIG{sig}: {err}");
        assert!(err.contains(&format!("interrupted by SIG{sig}")) && err.contains("no report written"), "{err}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "SIG{sig} left files behind: {left:?}");
    }
}

/// A signal stops a run whose requests are slow to complete (an array of
/// 256 MiB chunks under free placement, which writes chunks whole: every
/// write is tens of thousands of page operations) at once, not after the
/// next few thousand completions.
#[test]
#[cfg(unix)]
fn a_signal_stops_a_run_of_slow_requests_between_completions() {
    let t = trace("msr_hm_0_slice1000.csv");
    let child = Command::new(BIN)
        .args(["run", "--quiet", "--trace", p(&t), "--set", "array.devices=3", "--set", "array.chunk_kib=262144"])
        .args(["--set", "array.allocation=rr"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start rainsim");
    std::thread::sleep(Duration::from_millis(1500));
    let k = Command::new("kill").args(["-TERM".to_string(), child.id().to_string()]).status().expect("kill");
    assert!(k.success());
    let o = child.wait_with_output().expect("wait");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(143), "{err}");
    // Stopped with most of the trace still to run (it takes minutes).
    let n: u64 = err
        .split("stopped after ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no count of requests in: {err}"));
    assert!(n < 500, "stopped only after {n} of 1000 requests: {err}");
}

/// Whole-number times read as nanoseconds are a guess (DiskSim's own traces
/// count milliseconds): a warning and `trace.detection` say so, detected or
/// with `--format disksim` alone; a given unit or `--format ssdsim` (whose
/// unit is fixed) says nothing. A unit given for a fixed-unit format names
/// the flag that would read it as DiskSim.
#[test]
fn whole_number_times_read_as_ns_are_said_so() {
    let dir = TempDir::new("whole-ns");
    let t = trace("umass_websearch1_head.mqsim.trace");
    for (extra, warned) in [
        (&[][..], true),
        (&["--format", "disksim"][..], true),
        (&["--time-unit", "ns"][..], false),
        (&["--format", "ssdsim"][..], false),
    ] {
        let out = dir.join("r.json");
        let o = rainsim([&["run", "--trace", p(&t), "--out", p(&out)][..], extra].concat()).ok();
        let r = read_json(&out);
        let said = r["trace"].get("detection").and_then(|d| d.as_str()).unwrap_or("");
        assert_eq!(said.contains("--time-unit ms"), warned, "{extra:?}: {said}");
        assert_eq!(o.stderr.contains("warning:") && o.stderr.contains("--time-unit ms"), warned, "{extra:?}");
    }
    // Times with decimals read as ns (given so) are rounded: said, with the count.
    let ms = dir.join("ms.trace");
    std::fs::write(&ms, "0.4 0 1024 8 1\n2.5 0 2048 8 0\n60055.1 0 4096 8 1\n").unwrap();
    let o = rainsim(["trace", "stats", p(&ms), "--format", "disksim", "--time-unit", "ns"]).ok();
    assert!(o.stderr.contains("3 times have a decimal point but were read as whole ns"), "{}", o.stderr);
    let o = rainsim(["trace", "stats", p(&ms), "--format", "disksim", "--time-unit", "ms"]).ok();
    assert!(!o.stderr.contains("decimal point"), "{}", o.stderr);
    let err = rainsim(["run", "--quiet", "--trace", p(&trace("msr_hm_0_slice1000.csv")), "--time-unit", "ms"]).fails();
    assert!(err.contains("--format disksim") && !err.contains("cannot detect"), "{err}");
}
