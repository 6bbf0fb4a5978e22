//! Fuzzing the trace readers with proptest: random lines in the shape of each
//! format (valid fields, huge numbers, empty and garbage fields), random
//! bytes, and gzip inputs whole, truncated or with trailing data. Whatever
//! the input, reading must not panic, and an error must name the file (and,
//! for a bad line, a line number within the file).
//!
//! The normal test run tries a few dozen cases per property (seconds); for a
//! long run: `PROPTEST_CASES=100000 cargo test -p rainsim-trace --test fuzz`.

use proptest::prelude::*;
use rainsim_trace::{load, read, Format, TimeUnit, TraceError, TraceOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48)
}

fn temp_file(bytes: &[u8]) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!("rainsim-trace-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("t{}", N.fetch_add(1, Ordering::Relaxed)));
    std::fs::write(&p, bytes).unwrap();
    p
}

/// One field: mostly plausible, sometimes extreme or garbage.
fn field() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (0u64..100_000).prop_map(|v| v.to_string()),
        2 => (0u64..1000, 0u32..1_000_000).prop_map(|(a, b)| format!("{a}.{b:06}")),
        1 => any::<u64>().prop_map(|v| v.to_string()),
        1 => Just("18446744073709551616".to_string()),
        1 => prop_oneof![Just("R"), Just("W"), Just("Read"), Just("Write"), Just("0"), Just("1"), Just("")]
            .prop_map(str::to_string),
        1 => "[ -~]{0,12}",
        1 => proptest::collection::vec(any::<u8>(), 0..8).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

/// A line of `n` fields joined by `sep`.
fn line() -> impl Strategy<Value = String> {
    (proptest::collection::vec(field(), 1..9), prop_oneof![Just(","), Just(" "), Just("\t")])
        .prop_map(|(f, sep)| f.join(sep))
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(line(), 0..30).prop_map(|ls| (ls.join("\n") + "\n").into_bytes())
}

fn format() -> impl Strategy<Value = Option<Format>> {
    prop_oneof![1 => Just(None), 3 => proptest::sample::select(Format::ALL.to_vec()).prop_map(Some)]
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// Reads and loads `bytes` as a file in `format`; checks the error's shape.
fn check(bytes: &[u8], format: Option<Format>) {
    check_lines(bytes, format, lines_of(bytes));
}

/// Lines of a text (the last may lack its line break).
fn lines_of(text: &[u8]) -> u64 {
    text.split(|&b| b == b'\n').count() as u64
}

/// [`check`] of a file whose text has at most `lines` lines (a compressed
/// file's line breaks are in its decompressed text, not its bytes).
fn check_lines(bytes: &[u8], format: Option<Format>, lines: u64) {
    let path = temp_file(bytes);
    let unit = (format == Some(Format::Disksim)).then_some(TimeUnit::Ns);
    let results = [
        read(&path, format, unit).map(|_| ()),
        load(&path, &TraceOptions { format, time_unit: unit, ..Default::default() }, 1 << 40, 4096).map(|_| ()),
        load(
            &path,
            &TraceOptions { format, time_unit: unit, max_requests: Some(3), ..Default::default() },
            1 << 30,
            4096,
        )
        .map(|_| ()),
    ];
    for r in results {
        if let Err(e) = r {
            assert_names(&e, &path, lines);
        }
    }
    let _ = std::fs::remove_file(&path);
}

fn assert_names(e: &TraceError, path: &Path, lines: u64) {
    let msg = e.to_string();
    let name = path.display().to_string();
    match e {
        TraceError::Parse { line, .. } => {
            assert!(*line >= 1 && *line <= lines.max(1), "line {line} of {lines}: {msg}");
            assert!(msg.starts_with(&format!("{name}:{line}:")), "{msg}");
        }
        TraceError::Invalid(_) => {}
        _ => assert!(msg.contains(&name), "error does not name the file: {msg}"),
    }
    assert!(!msg.chars().any(|c| c.is_control() && c != '\n'), "control character in: {msg:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_lines_never_panic(t in text(), f in format()) {
        check(&t, f);
    }

    #[test]
    fn random_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..600), f in format()) {
        check(&b, f);
    }

    #[test]
    fn gzip_whole_truncated_or_with_trailing_data(t in text(), cut in 0usize..400, tail in proptest::collection::vec(any::<u8>(), 0..20)) {
        let z = gzip(&t);
        let lines = lines_of(&t);
        check_lines(&z, None, lines);
        check_lines(&z[..cut.min(z.len())], None, lines);
        check_lines(&[z.clone(), tail].concat(), None, lines);
        check_lines(&[z.clone(), z].concat(), None, 2 * lines);
    }
}

/// The regression corpus of the CLI's robustness tests, read here too.
#[test]
fn regression_corpus_reads_or_fails_cleanly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rainsim/tests/robust");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "tsv") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        for f in [None, Some(Format::Msr), Some(Format::MsrWindow)] {
            check(&bytes, f);
        }
        n += 1;
    }
    assert!(n >= 5, "corpus files found: {n}");
}
