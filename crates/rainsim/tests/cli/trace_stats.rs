//! Item 5: `rainsim trace stats`, as a table and as JSON.

use crate::support::*;

/// The values row under the `Req #  Wr Ratio ...` header: (requests, write %, avg KiB).
fn table_row(text: &str) -> (u64, f64, f64) {
    let mut lines = text.lines();
    lines.find(|l| l.contains("Req #") && l.contains("Wr Ratio")).unwrap_or_else(|| panic!("no table header:\n{text}"));
    let row = lines.next().unwrap_or_else(|| panic!("no table row:\n{text}"));
    let w: Vec<&str> = row.split_whitespace().collect();
    // `1000    49.2 %    9.46 KiB ...`
    assert!(w.len() >= 5 && w[2] == "%" && w[4] == "KiB", "unexpected table row: {row}");
    (w[0].parse().expect("Req #"), w[1].parse().expect("Wr Ratio"), w[3].parse().expect("Avg Req SZ"))
}

#[test]
fn msr_hm_0_table() {
    let t = trace("msr_hm_0_slice1000.csv");
    let o = rainsim(["trace", "stats", p(&t)]).ok();
    let (n, wr, kib) = table_row(&o.stdout);
    assert_eq!(n, 1000, "request count");
    assert_eq!(wr, 49.2, "write ratio %");
    assert_eq!(kib, 9.46, "avg request size KiB");
    let row = readme_row("msr_hm_0_slice1000.csv");
    assert!(o.stdout.contains(&row.sha256), "table does not show the SHA-256:\n{}", o.stdout);
    assert!(o.stdout.contains("(msr,"), "table does not show the format:\n{}", o.stdout);
    assert!(o.stdout.contains("reads 508") && o.stdout.contains("writes 492"), "read/write counts:\n{}", o.stdout);
}

#[test]
fn msr_hm_0_json() {
    let t = trace("msr_hm_0_slice1000.csv");
    let o = rainsim(["trace", "stats", "--json", p(&t)]).ok();
    let v: serde_json::Value =
        serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("not JSON: {e}\n{}", o.stdout));
    assert_eq!(u(&v, "stats.requests"), 1000);
    assert_eq!(u(&v, "trace.requests"), 1000);
    assert_eq!(u(&v, "stats.reads"), 508);
    assert_eq!(u(&v, "stats.writes"), 492);
    assert_close("stats.write_ratio", f(&v, "stats.write_ratio"), 0.492, 1e-12);
    assert_eq!(u(&v, "stats.bytes_read") + u(&v, "stats.bytes_written"), 9_689_600, "total bytes = 1000 × 9689.6");
    assert_close("stats.avg_size_bytes", f(&v, "stats.avg_size_bytes"), 9689.6, 1e-6);
    assert_eq!(u(&v, "stats.span_ns"), 127_233_494_100, "last − first FILETIME × 100 ns");
    assert_eq!(s(&v, "trace.format"), "msr");
    assert_eq!(s(&v, "trace.sha256"), readme_row("msr_hm_0_slice1000.csv").sha256);
    assert_eq!(u(&v, "stats.page_bytes"), 8192, "default --page-bytes");
    // Table and JSON agree.
    let (n, wr, _) = table_row(&rainsim(["trace", "stats", p(&t)]).ok().stdout);
    assert_eq!(n, u(&v, "stats.requests"));
    assert_close("table vs JSON write ratio", wr, 100.0 * f(&v, "stats.write_ratio"), 0.05);
}

/// Every sample's stats match its README row (count, write ratio, size, span, hash).
#[test]
fn every_sample_matches_readme() {
    for row in readme() {
        let t = trace(&row.file);
        let o = rainsim(["trace", "stats", "--json", p(&t)]).ok();
        let v: serde_json::Value =
            serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{}: not JSON: {e}", row.file));
        let skipped = u(&v, "trace.skipped_no_direction");
        assert_eq!(u(&v, "stats.requests") + skipped, row.requests, "{}: requests", row.file);
        assert_eq!(s(&v, "trace.sha256"), row.sha256, "{}: sha256", row.file);
        let (pct, tol) = row.write_pct;
        assert_close(&format!("{}: write %", row.file), 100.0 * f(&v, "stats.write_ratio"), pct, tol);
        let (kib, tol) = row.avg_kib;
        assert_close(&format!("{}: avg KiB", row.file), f(&v, "stats.avg_size_bytes") / 1024.0, kib, tol);
        let (span, tol) = row.span_s;
        assert_close(&format!("{}: span s", row.file), u(&v, "stats.span_ns") as f64 / 1e9, span, tol);
    }
}

#[test]
fn systor_reports_time_sorting() {
    let t = trace("systor17_lun0_slice999.csv");
    let o = rainsim(["trace", "stats", p(&t)]).ok();
    assert!(o.stdout.contains("243 adjacent pairs were out of order"), "no sorting note:\n{}", o.stdout);
    assert_eq!(table_row(&o.stdout).0, 999);
}

/// Every line of the table, including the last, ends with a newline.
#[test]
fn table_ends_with_newline() {
    let t = trace("msr_hm_0_slice1000.csv");
    let o = rainsim(["trace", "stats", p(&t)]).ok();
    assert!(o.stdout.ends_with('\n'), "stdout does not end with a newline: {:?}", o.stdout.lines().last());
}

/// A SYSTOR row with a blank IOType is counted, not read, and one request
/// before an earlier one is one inversion; a sample with neither prints
/// neither line.
#[test]
fn skipped_and_unsorted_lines_appear_only_when_counted() {
    let dir = TempDir::new("stats-notes");
    let f = dir.join("t.csv");
    let rows = [
        "Timestamp,Response,IOType,LUN,Offset,Size",
        "1456095145.100000000,0.0008,R,0,8192,4096",
        "1456095145.150000000,0.0008,,0,16384,4096",
        "1456095145.300000000,0.0008,R,0,16384,4096",
        "1456095145.200000000,0.0008,W,0,0,4096",
        "1456095145.400000000,0.0008,W,0,0,4096",
    ];
    std::fs::write(&f, rows.join("\n") + "\n").unwrap();
    let o = rainsim(["trace", "stats", p(&f)]).ok();
    assert!(o.stdout.contains("\nskipped 1 record without a direction\n"), "{}", o.stdout);
    assert!(o.stdout.contains("\nsorted by time (1 adjacent pair was out of order)\n"), "{}", o.stdout);
    assert_eq!(table_row(&o.stdout).0, 4);
    let clean = rainsim(["trace", "stats", p(&trace("msr_hm_0_slice1000.csv"))]).ok().stdout;
    assert!(!clean.contains("skipped") && !clean.contains("sorted by time"), "{clean}");
}
