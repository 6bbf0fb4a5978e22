//! Arrays of devices from the command line: the DLS presets run, every
//! allocation runs in open and closed loop, the report has the per-device
//! numbers, `--verify` passes on the tolerant layout and refuses the others
//! with a message, bad `[array]` keys say what to change.

use crate::support::*;
use serde_json::Value;

const SMALL: &[&str] = &["--set", "workload.requests=1500", "--set", "geometry.blocks_per_plane=16"];

fn run_json(dir: &TempDir, name: &str, args: &[&str]) -> Value {
    let out = dir.join(&format!("{name}.json"));
    let out_s = out.to_string_lossy().into_owned();
    let mut all = vec!["run", "--quiet", "--out", &out_s];
    all.extend_from_slice(args);
    all.extend_from_slice(SMALL);
    rainsim(&all).ok();
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

#[test]
fn each_allocation_runs_on_the_dls_presets_and_reports_every_device() {
    let dir = TempDir::new("arrays");
    for (preset, n) in [("dls-4ssd", 4), ("dls-8ssd-30-400", 8)] {
        for alloc in ["static", "rr", "egs", "dls"] {
            let set = format!("array.allocation={alloc}");
            let r = run_json(&dir, &format!("{preset}-{alloc}"), &["--config", preset, "--set", &set]);
            let devices = r["devices"].as_array().unwrap();
            assert_eq!(devices.len(), n, "{preset} {alloc}");
            assert_eq!(r["requests"], 1500);
            assert!(r["iops"].as_f64().unwrap() > 0.0);
            let written: u64 = devices.iter().map(|d| d["data_programs"].as_u64().unwrap()).sum();
            assert!(written > 0 && devices.iter().all(|d| d["bytes_written"].as_u64().unwrap() > 0));
            // The balance figure is the population cv of the devices' programs.
            let progs: Vec<f64> = devices
                .iter()
                .map(|d| (d["data_programs"].as_u64().unwrap() + d["parity_programs"].as_u64().unwrap()) as f64)
                .collect();
            let mean = progs.iter().sum::<f64>() / n as f64;
            let sd = (progs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64).sqrt();
            let got = r["balance"]["cv_programs"].as_f64().unwrap();
            assert!((got - sd / mean).abs() < 1e-9, "{preset} {alloc}: cv {got}, by hand {}", sd / mean);
            assert_eq!(r["single_failure_tolerant"], alloc == "static", "{preset} {alloc}");
            let moved = r["raid"]["moves"].as_u64().unwrap();
            assert_eq!(moved == 0, alloc == "static", "{preset} {alloc}: only free placement moves chunks");
        }
    }
}

#[test]
fn closed_loop_replays_at_the_queue_depth_and_reports_the_execution_time() {
    let dir = TempDir::new("arrays-closed");
    let base = ["--config", "dls-4ssd", "--set", "array.replay=closed"];
    let q1 = run_json(&dir, "q1", &[&base[..], &["--set", "array.queue_depth=1"]].concat());
    let q32 = run_json(&dir, "q32", &[&base[..], &["--set", "array.queue_depth=32"]].concat());
    let t1 = q1["execution_time_ns"].as_u64().unwrap();
    let t32 = q32["execution_time_ns"].as_u64().unwrap();
    assert!(t32 * 4 < t1, "32 requests in flight finish far sooner than one at a time ({t32} vs {t1} ns)");
    // One at a time, the execution time is the sum of the latencies.
    let sum = q1["latency"]["all"]["sum_ns"].as_u64().unwrap();
    assert_eq!(t1, sum);
}

#[test]
fn verify_passes_on_static_and_refuses_free_placement_with_a_reason() {
    let out = rainsim([&["run", "--config", "dls-4ssd", "--verify"][..], SMALL].concat()).ok();
    assert!(out.stdout.contains("verify: passed"), "{}", out.stdout);
    for alloc in ["rr", "egs", "dls"] {
        let set = format!("array.allocation={alloc}");
        let err = rainsim([&["run", "--quiet", "--config", "dls-4ssd", "--verify", "--set", &set][..], SMALL].concat())
            .fails();
        assert!(err.contains("not single-failure tolerant") && err.contains(alloc), "{err}");
    }
}

/// The DLS options from the command line: an array without parity says
/// so in its summary and verify line, writes no parity and holds a data
/// chunk more per stripe; a delay scope echoes into the report only when
/// set, and a window under another scope is refused naming both keys.
#[test]
fn parity_free_arrays_and_delay_scopes_from_the_command_line() {
    let dir = TempDir::new("arrays-options");
    let free = ["--config", "dls-4ssd", "--set", "array.parity=false"];
    let o = rainsim([&["run", "--verify"][..], &free[..], SMALL].concat()).ok();
    assert!(o.stdout.contains("array of 4 devices without parity"), "{}", o.stdout);
    assert!(o.stdout.contains("no parity (array.parity = false): NOT single-failure tolerant"), "{}", o.stdout);
    assert!(o.stdout.contains("verify: passed (no parity to match under array.parity = false;"), "{}", o.stdout);
    let r = run_json(&dir, "free", &free);
    let raid5 = run_json(&dir, "raid5", &["--config", "dls-4ssd"]);
    assert_eq!(r["array"]["parity"], false);
    assert!(raid5["array"].get("parity").is_none(), "left out of reports while true");
    let parity: u64 = r["devices"].as_array().unwrap().iter().map(|d| d["parity_programs"].as_u64().unwrap()).sum();
    assert_eq!((parity, r["raid"]["xors"].as_u64()), (0, Some(0)));
    let cap = |v: &Value| v["capacity_bytes"].as_u64().unwrap();
    assert_eq!(cap(&r) * 3, cap(&raid5) * 4, "four data chunks a stripe where RAID-5 has three");
    let w = ["--config", "dls-4ssd", "--set", "array.allocation=dls", "--set", "array.delay_scope=window"];
    let r = run_json(&dir, "window", &w);
    assert_eq!((r["array"]["delay_scope"].as_str(), r["array"].get("delay_window_ns")), (Some("window"), None));
    let d = &r["devices"][0];
    let span = 365.0 * d["use_life_years_eq11"].as_f64().unwrap() - d["life_days_eq12"].as_f64().unwrap();
    assert!(span > 0.0 && span < 1.0, "Eq. 11 and 12 over the run's time, days: {span}");
    let e = rainsim(
        [&["run", "--quiet", "--config", "dls-4ssd", "--set", "array.delay_window_ns=1000"][..], SMALL].concat(),
    )
    .fails();
    assert!(e.contains("array.delay_window_ns is set but array.delay_scope = \"outstanding\""), "{e}");
}

#[test]
fn bad_array_keys_say_what_to_change() {
    for (set, words) in [
        ("array.devices=2", &["array.devices", "3"][..]),
        ("array.chunk_kib=3", &["array.chunk_kib", "multiple"][..]),
        ("array.allocation=fastest", &["fastest"][..]),
        ("array.spare=0", &["array.spare"][..]),
        ("array.chunk_kib=2097152", &["array.chunk_kib = 2097152", "more than a device holds"][..]),
        // 4 GiB would wrap a device request's u32 of bytes to 0.
        ("array.chunk_kib=4194304", &["array.chunk_kib = 4194304", "at most 2097152"][..]),
        ("array.replace_after_ns=5", &["array.replace_after_ns", "array.fail_device is not"][..]),
        ("array.rebuild_stripes=4", &["array.rebuild_stripes", "array.replace_after_ns is not"][..]),
        ("array.rebuild=written", &["array.rebuild", "array.replace_after_ns is not"][..]),
        ("array.rebuild=some", &["some", "all", "written"][..]),
        ("fault.channel=0", &["[fault]", "array"][..]),
        ("warmup.device_writes=1", &["warmup.workload = \"synthetic\"", "the array's"][..]),
        ("array.fail_device=4", &["array.fail_device = 4", "devices 0 to 3"][..]),
        ("array.fail_at_ns=1000", &["array.fail_at_ns", "array.fail_device is not"][..]),
        ("array.fail_device=1", &["array.allocation = \"dls\"", "only \"static\" survives one"][..]),
    ] {
        let mut args = vec!["run", "--quiet", "--config", "dls-4ssd", "--set", set];
        if set == "array.spare=0" || set == "array.fail_device=1" {
            args.extend(["--set", "array.allocation=dls"]);
        }
        let err = rainsim([&args[..], SMALL].concat()).fails();
        for w in words {
            assert!(err.contains(w), "{set}: {err}");
        }
    }
    let err = rainsim([&["run", "--quiet", "--config", "dls-4ssd", "--request-log", "x.parquet"][..], SMALL].concat())
        .fails();
    assert!(err.contains("--request-log") && err.contains("array"), "{err}");
}

#[test]
fn the_same_array_run_twice_gives_the_same_report() {
    let dir = TempDir::new("arrays-determinism");
    let args = ["--config", "dls-8ssd", "--set", "array.allocation=dls", "--set", "array.replay=closed"];
    let mut a = run_json(&dir, "a", &args);
    let mut b = run_json(&dir, "b", &args);
    for r in [&mut a, &mut b] {
        r.as_object_mut().unwrap().remove("timing");
    }
    assert!(a == b, "two runs of the same input differ");
    assert!(a["raid"]["moves"].as_u64().unwrap() > 0);
}

/// `compare` of array variants runs each allocation as `run` does (the
/// reports in `--out-dir` are `run`'s, timing aside) and shows them side by
/// side; arrays and single devices in one `compare` are refused.
#[test]
fn compare_runs_array_variants_as_run_does() {
    let dir = TempDir::new("arrays-compare");
    let outd = dir.join("cmp");
    let outs = outd.to_string_lossy().into_owned();
    let mut args = vec!["compare", "--config", "dls-4ssd", "--out-dir", &outs];
    args.extend_from_slice(SMALL);
    args.extend_from_slice(&["--variant", "array.allocation=static", "--variant", "array.allocation=dls"]);
    let o = rainsim(&args).ok();
    let header = o.stdout.lines().next().unwrap_or("");
    assert!(header.contains("array.allocation=static") && header.contains("array.allocation=dls"), "{}", o.stdout);
    let moved = o.stdout.lines().find(|l| l.starts_with("chunks moved")).expect("a row of chunks moved");
    let cols: Vec<&str> = moved.split_whitespace().collect();
    assert_eq!(cols[2], "0", "static moves nothing: {moved}");
    for (i, alloc) in ["static", "dls"].iter().enumerate() {
        let file = outd.join(format!("{i:02}-array_allocation_{alloc}.json"));
        let cmp = without_timing(serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap());
        let set = format!("array.allocation={alloc}");
        let single = without_timing(run_json(&dir, alloc, &["--config", "dls-4ssd", "--set", &set]));
        assert!(cmp == single, "{alloc}: compare's report differs from run's");
        let moves = cmp["raid"]["moves"].as_u64().unwrap();
        assert_eq!(cols[2 + i], moves.to_string(), "{alloc}: the table shows the report's moves");
    }
    let mixed = ["--variant", "array.devices=4", "--variant", "seed=2", "--variant", "seed=3"];
    let e = rainsim([&["compare", "--set", "workload.requests=100"][..], &mixed[..]].concat()).fails();
    let lists = "arrays: --variant 'array.devices=4'; single devices: --variant 'seed=2', --variant 'seed=3'";
    assert!(e.contains("arrays ([array]) or single devices, not both") && e.contains(lists), "{e}");
}

/// `array.fail_device` fails a device mid-run: reads of its chunks are
/// rebuilt (the report counts them and echoes the keys; the summary says
/// when), and `--verify` passes through it.
#[test]
fn a_device_fails_mid_run_and_its_reads_are_rebuilt() {
    let dir = TempDir::new("arrays-fail");
    let args = ["--config", "dls-4ssd", "--set", "array.fail_device=2", "--set", "array.fail_at_ns=300000000"];
    let r = run_json(&dir, "fail", &args);
    assert_eq!((r["array"]["fail_device"].as_u64(), r["array"]["fail_at_ns"].as_u64()), (Some(2), Some(300_000_000)));
    assert!(r["raid"]["degraded_reads"].as_u64().unwrap() > 0, "{}", r["raid"]);
    let healthy = run_json(&dir, "healthy", &["--config", "dls-4ssd"]);
    assert_eq!(healthy["raid"]["degraded_reads"], 0);
    assert!(healthy["array"].get("fail_device").is_none(), "no failure keys in a healthy array's report");
    let o = rainsim([&["run", "--verify"][..], &args[..], SMALL].concat()).ok();
    assert!(o.stdout.contains("device 2 failed at 300.000 ms") && o.stdout.contains("verify: passed"), "{}", o.stdout);
}

/// `array.replace_after_ns`: the failed device's replacement is rebuilt; the
/// summary says when, the report's `failure` section gives the rebuild and
/// the failed device's own row, and `--verify` passes through it.
#[test]
fn a_failed_device_is_replaced_and_rebuilt() {
    let dir = TempDir::new("arrays-rebuild");
    let args = [
        "--config",
        "dls-4ssd",
        "--set",
        "array.fail_device=1",
        "--set",
        "array.fail_at_ns=300000000",
        "--set",
        "array.replace_after_ns=100000000",
        "--set",
        "array.rebuild_stripes=64",
    ];
    let r = run_json(&dir, "rebuild", &args);
    let f = &r["failure"];
    assert_eq!((f["device"].as_u64(), f["replaced_at_ns"].as_u64()), (Some(1), Some(400_000_000)));
    let n = |k: &str| f[k].as_u64().unwrap();
    assert_eq!(n("units_lost_at_end"), 0);
    assert_eq!(n("units_lost_at_failure") + n("units_lost_after_failure"), n("units_rebuilt") + n("rewritten_by_host"));
    assert!(r["devices"][1]["parity_programs"].as_u64().unwrap() >= n("units_rebuilt"), "{}", r["devices"][1]);
    assert!(f["failed_device"]["data_programs"].as_u64().is_some(), "{f}");
    let o = rainsim([&["run", "--verify"][..], &args[..], SMALL].concat()).ok();
    for w in [
        "device 1 failed at 300.000 ms (fail-stop, replaced at 400.000 ms, rebuilt at",
        "units rebuilt",
        "1*",
        "verify: passed",
    ] {
        assert!(o.stdout.contains(w), "{w}: {}", o.stdout);
    }
    let w = rainsim([&["run"][..], &args[..], &["--set", "array.rebuild=written"], SMALL].concat()).ok();
    assert!(w.stdout.contains("of empty rows left unwritten"), "{}", w.stdout);
    for (set, words) in [
        ("array.rebuild_stripes=0", &["array.rebuild_stripes = 0", "between 1 and 4096"][..]),
        ("array.replace_after_ns=9000000000000000000", &["array.replace_after_ns", "2^62"][..]),
    ] {
        let err = rainsim([&["run", "--quiet"][..], &args[..], &["--set", set], SMALL].concat()).fails();
        for w in words {
            assert!(err.contains(w), "{set}: {err}");
        }
    }
}

/// `[fault]` inside an array: member 2's channel 5 fails and its own RAID-5
/// rebuilds it; the report's `member_fault` and the summary line say so, and
/// `--verify` holds.
#[test]
fn a_members_channel_fails_and_is_rebuilt_inside_it() {
    let dir = TempDir::new("arrays-member-fault");
    let args = [
        "--config",
        "dls-4ssd",
        "--set",
        "raid.level=raid5",
        "--set",
        "raid.stripe_width=4",
        "--set",
        "fault.device=2",
        "--set",
        "fault.channel=5",
        "--set",
        "fault.at_ns=100000000",
    ];
    let r = run_json(&dir, "member", &args);
    let m = &r["member_fault"];
    assert_eq!((m["device"].as_u64(), m["channel"].as_u64()), (Some(2), Some(5)), "{m}");
    let n = |k: &str| m[k].as_u64().unwrap();
    assert!(n("chunks_lost_at_failure") > 0 && n("chunks_lost_at_end") == 0, "{m}");
    assert_eq!(
        n("chunks_lost_at_failure") + n("chunks_lost_after_failure"),
        n("pages_rebuilt") + n("rewritten_by_host")
    );
    assert!(r.get("failure").is_none(), "no member failed whole");
    let o = rainsim([&["run", "--verify"][..], &args[..], SMALL].concat()).ok();
    for w in ["member 2 lost channel 5 at 100.000 ms (rebuilt inside it at", "verify: passed"] {
        assert!(o.stdout.contains(w), "{w}: {}", o.stdout);
    }
    let err = rainsim([&["run", "--quiet"][..], &args[..6], &["--set", "fault.channel=5"], SMALL].concat()).fails();
    assert!(err.contains("give fault.device = 0..3"), "{err}");
    // Closed loop ends the run well before 100 ms: the failure does not happen.
    let o = rainsim([&["run"][..], &args[..], &["--set", "array.replay=closed"], SMALL].concat()).ok();
    assert!(
        o.stdout.contains("member 2 was set to lose channel 5 at 100.000 ms, after the run's last request: it did not"),
        "{}",
        o.stdout
    );
}

/// An array's summary says when an open-loop run did not drain at the
/// offered rate (its report keeps no channel busy time, so by the span
/// alone), and prints its notes; a light run says neither.
#[test]
fn an_array_summary_says_saturated_and_prints_its_notes() {
    let heavy = rainsim([
        "run",
        "--config",
        "dls-4ssd",
        "--set",
        "workload.requests=5000",
        "--set",
        "workload.mean_interarrival_ns=1000",
    ])
    .ok()
    .stdout;
    assert!(heavy.contains("saturated: the run went on"), "{heavy}");
    let light = rainsim(["run", "--config", "dls-4ssd", "--set", "workload.requests=5000"]).ok().stdout;
    assert!(!light.contains("saturated"), "{light}");
    let systor = trace("systor17_lun0_slice999.csv");
    let folded = rainsim(["run", "--config", "dls-4ssd", "--trace", p(&systor)]).ok().stdout;
    assert!(folded.contains("note: 999 of the 999 requests replayed lay beyond the array's capacity"), "{folded}");
}

/// An error of one device of an array names the device, and says when it is
/// the replacement of a failed one (found by fuzzing: a replacement filled up
/// and the message named only "channel 0").
#[test]
fn a_members_error_names_the_member() {
    let sets = [
        "workload.requests=2000",
        "geometry.blocks_per_plane=8",
        "array.devices=5",
        "array.fail_device=4",
        "array.replace_after_ns=100000",
        "precondition.valid=0.6",
        "precondition.invalid=0.05",
    ];
    let mut args = vec!["run", "--quiet", "--scheme", "vios"];
    for s in sets {
        args.extend(["--set", s]);
    }
    let err = rainsim(args).fails();
    assert!(err.contains("device 4 of the array (the replacement put in for the failed one"), "{err}");
    assert!(err.contains("filled up with valid data"), "{err}");
}

/// `run --verify` of an array prints its summary and the verify line that
/// fits its parity setting; `--quiet` prints nothing.
#[test]
fn an_array_run_prints_its_verify_line_unless_quiet() {
    let args =
        ["run", "-c", "dls-4ssd", "--set", "geometry.blocks_per_plane=8", "--set", "workload.requests=500", "--verify"];
    let o = rainsim(args).ok();
    assert!(o.stdout.contains("cv across devices: "), "{}", o.stdout);
    let tail = "; every stripe on distinct devices; every device verified)\n";
    assert!(
        o.stdout.ends_with(&format!("verify: passed (every array stripe's parity matches its data{tail}")),
        "{}",
        o.stdout
    );
    let o = rainsim([&args[..], &["--set", "array.parity=false"]].concat()).ok();
    assert!(
        o.stdout.ends_with(&format!("verify: passed (no parity to match under array.parity = false{tail}")),
        "{}",
        o.stdout
    );
    assert_eq!(rainsim([&args[..], &["--quiet"]].concat()).ok().stdout, "");
}
