//! Item 3: every shared real trace sample replays with `--verify` on
//! degraded-mode-8ch, and the report agrees with the samples' README (request
//! count, write ratio, mean size, span, SHA-256) and with the file itself.

use crate::report::check_report;
use crate::support::*;

/// Replays one sample and checks it against the README; returns the report.
fn replay(file: &str, format: &str) -> serde_json::Value {
    let row = readme_row(file);
    let path = trace(file);
    let dir = TempDir::new("trace");
    let r = run_report(&dir, "r", &["--trace", p(&path), "--config", "degraded-mode-8ch", "--verify"]);

    // Blank-IOType rows (SYSTOR only) are records but not requests. The README
    // counts rows; the loader must report the difference as skipped.
    let text = std::fs::read_to_string(&path).expect("read sample");
    let no_direction = if format == "systor" {
        text.lines().skip(1).filter(|l| l.split(',').nth(2).is_some_and(|t| t.trim().is_empty())).count() as u64
    } else {
        0
    };
    let requests = row.requests - no_direction;
    assert_eq!(u(&r, "trace.requests"), requests, "{file}: trace.requests vs README {}", row.requests);
    assert_eq!(u(&r, "trace.skipped_no_direction"), no_direction, "{file}: skipped_no_direction");
    assert_eq!(u(&r, "trace.records_read"), row.requests, "{file}: records_read");
    assert_eq!(
        u(&r, "trace.records_read"),
        u(&r, "trace.requests") + u(&r, "trace.skipped_no_direction") + u(&r, "trace.filtered_out_device"),
        "{file}: records_read != requests + skipped_no_direction + filtered_out_device"
    );
    check_report(&r, requests);

    // Identity.
    assert_eq!(s(&r, "trace.format"), format, "{file}: detected format");
    assert_eq!(s(&r, "trace.sha256"), row.sha256, "{file}: SHA-256 vs README");
    assert_eq!(u(&r, "trace.file_bytes"), std::fs::metadata(&path).expect("stat").len(), "{file}: file_bytes");
    assert_eq!(s(&r, "trace.path"), p(&path), "{file}: trace.path");
    assert_eq!(u(&r, "config.geometry.channels"), 8);
    assert_eq!(u(&r, "config.raid.stripe_width"), 4);

    // The README's numbers, to the digits it prints.
    let writes = u(&r, "latency.write.count") as f64;
    let (pct, tol) = row.write_pct;
    assert_close(&format!("{file}: write ratio % (latency.write.count)"), 100.0 * writes / requests as f64, pct, tol);
    let bytes = (u(&r, "host.bytes_read") + u(&r, "host.bytes_written")) as f64;
    let (kib, tol) = row.avg_kib;
    assert_close(&format!("{file}: mean request size KiB (host bytes)"), bytes / requests as f64 / 1024.0, kib, tol);
    let (span, tol) = row.span_s;
    assert_close(&format!("{file}: trace.span_ns in s"), u(&r, "trace.span_ns") as f64 / 1e9, span, tol);
    r
}

#[test]
fn msr_hm_0() {
    let r = replay("msr_hm_0_slice1000.csv", "msr");
    assert_eq!(u(&r, "trace.requests"), 1000);
    assert_eq!(u(&r, "latency.write.count"), 492);
}

#[test]
fn msr_rsrch_0() {
    replay("msr_rsrch_0_head1000.csv", "msr");
}

#[test]
fn msr_window_rw_20_80() {
    replay("msr.cut.per_10k.rw_20_80.105.trace", "msr-window");
}

#[test]
fn msr_window_rw_40_60() {
    replay("msr.cut.per_10k.rw_40_60.1370.trace", "msr-window");
}

#[test]
fn msr_window_most_thpt_rand_iops() {
    replay("msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "msr-window");
}

#[test]
fn spc_websearch_head10() {
    let r = replay("umass_websearch1_head10.spc", "spc");
    assert_eq!(u(&r, "latency.write.count"), 0, "README: 0 % writes");
}

#[test]
fn mqsim_websearch() {
    let r = replay("umass_websearch1_head.mqsim.trace", "disksim");
    assert_eq!(s(&r, "trace.time_unit"), "ns", "integer times: DiskSim ns");
    assert_eq!(u(&r, "latency.write.count"), 4, "README: 4 writes");
}

#[test]
fn ssdsim_financial() {
    // SSDsim ASCII is detected as disksim + ns (documented: they read alike).
    let r = replay("umass_financial1_head10k.ssdsim.ascii", "disksim");
    assert_eq!(s(&r, "trace.time_unit"), "ns");
    // An explicit `--format ssdsim` reads the same requests: only the label differs.
    let dir = TempDir::new("ssdsim");
    let path = trace("umass_financial1_head10k.ssdsim.ascii");
    let e = run_report(&dir, "e", &["--trace", p(&path), "--config", "degraded-mode-8ch", "--format", "ssdsim"]);
    assert_eq!(s(&e, "trace.format"), "ssdsim");
    // Detected, the whole-number times' unit is a guess, said so; given, not.
    assert!(s(&r, "trace.detection").contains("--time-unit ms"), "{}", r["trace"]);
    assert!(e["trace"].get("detection").is_none(), "{}", e["trace"]);
    let (mut a, mut b) = (without_timing(r), without_timing(e));
    for v in [&mut a, &mut b] {
        let t = v["trace"].as_object_mut().expect("trace object");
        t.remove("format");
        t.remove("time_unit");
        t.remove("detection");
        v["config"]["trace"].as_object_mut().expect("config.trace object").remove("format");
    }
    assert!(a == b, "--format ssdsim vs detected disksim differ in: {:?}", differing_keys(&a, &b));
}

#[test]
fn systor_lun0() {
    let r = replay("systor17_lun0_slice999.csv", "systor");
    assert_eq!(u(&r, "trace.requests") + u(&r, "trace.skipped_no_direction"), 999);
    // README: "Rows are in the original file order, not sorted by time (243 inversions)".
    assert_eq!(u(&r, "trace.unsorted_inversions"), 243);
}

#[test]
fn alibaba_head7() {
    let r = replay("alibaba_io_traces_head7.csv", "alibaba");
    assert_eq!(u(&r, "latency.write.count"), 5, "README: 5 of 7 are writes");
}

/// No sample in the folder escapes the tests above, and the README names
/// every file in the folder.
#[test]
fn every_sample_is_listed_and_replayed() {
    let tested = [
        "msr_hm_0_slice1000.csv",
        "msr_rsrch_0_head1000.csv",
        "msr.cut.per_10k.rw_20_80.105.trace",
        "msr.cut.per_10k.rw_40_60.1370.trace",
        "msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
        "umass_websearch1_head10.spc",
        "umass_websearch1_head.mqsim.trace",
        "umass_financial1_head10k.ssdsim.ascii",
        "systor17_lun0_slice999.csv",
        "alibaba_io_traces_head7.csv",
    ];
    let listed: Vec<String> = readme().into_iter().map(|r| r.file).collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(traces_dir())
        .expect("list traces")
        .map(|e| e.expect("dir entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    on_disk.sort();
    for f in &on_disk {
        assert!(listed.contains(f), "{f} is in the traces folder but not in its README");
        assert!(tested.contains(&f.as_str()), "{f} has no replay test");
    }
    for f in tested {
        assert!(on_disk.iter().any(|d| d == f), "{f} missing from {}", traces_dir().display());
    }
}

/// A gzip copy (in the temp dir) replays exactly like the original, with or
/// without a `.gz` name; only the file identity differs.
#[test]
fn gzip_copy_replays_like_the_original() {
    let dir = TempDir::new("gzip");
    let src = trace("msr_hm_0_slice1000.csv");
    let raw = std::fs::read(&src).expect("read sample");
    let gz = gzip(&raw);
    let named = dir.join("hm_0.csv.gz");
    let unnamed = dir.join("hm_0.data");
    std::fs::write(&named, &gz).expect("write gz");
    std::fs::write(&unnamed, &gz).expect("write gz");

    let base = ["--config", "degraded-mode-8ch"];
    let plain = without_timing(run_report(&dir, "plain", &[&base[..], &["--trace", p(&src)]].concat()));
    for (name, path) in [("named", &named), ("unnamed", &unnamed)] {
        let g = without_timing(run_report(&dir, name, &[&base[..], &["--trace", p(path)]].concat()));
        assert_eq!(s(&g, "trace.format"), "msr", "{name}: format of the gzip copy");
        assert_eq!(u(&g, "trace.requests"), 1000, "{name}: requests of the gzip copy");
        assert_eq!(u(&g, "trace.file_bytes"), gz.len() as u64, "{name}: file_bytes is the stored (compressed) size");
        let (mut a, mut b) = (plain.clone(), g);
        for v in [&mut a, &mut b] {
            let t = v["trace"].as_object_mut().expect("trace object");
            for k in ["path", "sha256", "file_bytes"] {
                t.remove(k);
            }
        }
        assert!(a == b, "{name}: gzip copy differs from the original in: {:?}", differing_keys(&a, &b));
    }
}
