//! Item 4: bad input fails with a clear message, a non-zero exit code and no
//! panic (see `Out::fails`).

use crate::support::*;

const FORMATS: [&str; 7] = ["msr", "spc", "systor", "alibaba", "disksim", "ssdsim", "msr-window"];
const MSR_LINE: &str = "128166385295514663,hm,0,Write,9056014336,2048,2833";

#[track_caller]
fn assert_mentions(err: &str, words: &[&str]) {
    for w in words {
        assert!(err.contains(w), "error message does not mention `{w}`:\n{err}");
    }
}

#[test]
fn unknown_preset_lists_presets() {
    for cmd in [&["run", "--quiet"][..], &["config", "show"][..]] {
        let err = rainsim([cmd, &["--config", "no-such-preset"]].concat()).fails();
        assert_mentions(&err, &["no-such-preset"]);
        assert_mentions(&err, &PRESETS);
    }
}

#[test]
fn unknown_scheme_lists_schemes() {
    let err = rainsim(["run", "--quiet", "--scheme", "no-such-scheme"]).fails();
    assert_mentions(&err, &["no-such-scheme", "baseline"]);
}

#[test]
fn unknown_config_key_is_named() {
    let err = rainsim(["run", "--quiet", "--set", "raid.stripe_wdith=3"]).fails();
    assert_mentions(&err, &["stripe_wdith"]);
    let err = rainsim(["config", "show", "--set", "no_such_section.key=1"]).fails();
    assert_mentions(&err, &["no_such_section"]);
    let err = rainsim(["run", "--quiet", "--set", "geometry.chanels=4"]).fails();
    assert_mentions(&err, &["chanels"]);
}

#[test]
fn set_without_equals_sign() {
    let err = rainsim(["run", "--quiet", "--set", "raid.stripe_width"]).fails();
    assert_mentions(&err, &["raid.stripe_width", "key=value"]);
}

#[test]
fn wrong_value_type_names_the_key() {
    let err = rainsim(["run", "--quiet", "--set", "raid.stripe_width=wide"]).fails();
    assert_mentions(&err, &["stripe_width"]);
    let err = rainsim(["run", "--quiet", "--set", "seed=-1"]).fails();
    assert_mentions(&err, &["seed"]);
}

#[test]
fn stripe_wider_than_channels() {
    for (preset, channels) in [("default", "8"), ("degraded-mode-8ch", "8"), ("adaptive-parity-6ch", "6")] {
        let err = rainsim(["run", "--quiet", "--config", preset, "--set", "raid.stripe_width=9"]).fails();
        assert_mentions(&err, &["stripe_width", "9", "channels", channels]);
    }
    // Also when the channel count shrinks under the preset's stripe width.
    let err = rainsim(["config", "show", "--set", "geometry.channels=3"]).fails();
    assert_mentions(&err, &["stripe_width", "channels"]);
}

#[test]
fn malformed_trace_line_names_file_and_line() {
    let dir = TempDir::new("bad-line");
    let bad = MSR_LINE.replace("Write", "Wrote");
    let file = dir.join("bad.csv");
    std::fs::write(&file, format!("{MSR_LINE}\n{MSR_LINE}\n{bad}\n{MSR_LINE}\n")).expect("write");
    for extra in [&[][..], &["--format", "msr"][..]] {
        let err = rainsim([&["run", "--quiet", "--trace", p(&file)][..], extra].concat()).fails();
        assert_mentions(&err, &[p(&file)]);
        assert!(err.contains(":3:") || err.contains("line 3"), "error does not name line 3:\n{err}");
        assert_mentions(&err, &["Wrote"]);
    }
    // A bad number in line 3, after a blank line 2 (physical lines count).
    let file2 = dir.join("bad2.csv");
    std::fs::write(&file2, format!("{MSR_LINE}\n\n{}\n", MSR_LINE.replace("9056014336", "90x6"))).expect("write");
    let err = rainsim(["run", "--quiet", "--trace", p(&file2)]).fails();
    assert_mentions(&err, &[p(&file2), "90x6"]);
    assert!(err.contains(":3:") || err.contains("line 3"), "error does not name line 3:\n{err}");
    // `trace stats` reports it the same way.
    let err = rainsim(["trace", "stats", p(&file)]).fails();
    assert!(err.contains(&format!("{}:3", p(&file))) || err.contains("line 3"), "trace stats:\n{err}");
}

#[test]
fn nonexistent_trace_file() {
    let dir = TempDir::new("missing");
    let missing = dir.join("no-such-trace.csv");
    let err = rainsim(["run", "--quiet", "--trace", p(&missing)]).fails();
    assert_mentions(&err, &[p(&missing)]);
    let err = rainsim(["trace", "stats", p(&missing)]).fails();
    assert_mentions(&err, &[p(&missing)]);
    // A directory is not a trace either.
    let err = rainsim(["run", "--quiet", "--trace", p(dir.path())]).fails();
    assert_mentions(&err, &[p(dir.path())]);
}

#[test]
fn empty_trace_file() {
    let dir = TempDir::new("empty");
    let empty = dir.join("empty.csv");
    std::fs::write(&empty, "").expect("write");
    let blank = dir.join("blank.csv");
    std::fs::write(&blank, "\n\n  \n").expect("write");
    for f in [&empty, &blank] {
        let err = rainsim(["run", "--quiet", "--trace", p(f)]).fails();
        assert_mentions(&err, &[p(f), "empty"]);
    }
}

#[test]
fn bad_format_name_lists_formats() {
    let t = trace("msr_hm_0_slice1000.csv");
    let err = rainsim(["run", "--quiet", "--trace", p(&t), "--format", "msrx"]).fails();
    assert_mentions(&err, &["msrx"]);
    assert_mentions(&err, &FORMATS);
    let err = rainsim(["trace", "stats", p(&t), "--format", "csv"]).fails();
    assert_mentions(&err, &FORMATS);
    let err = rainsim(["run", "--quiet", "--trace", p(&t), "--time-unit", "fortnight"]).fails();
    assert_mentions(&err, &["fortnight", "ns", "ms"]);
}

#[test]
fn wrong_explicit_format_names_file_and_line() {
    let t = trace("msr_hm_0_slice1000.csv");
    let err = rainsim(["run", "--quiet", "--trace", p(&t), "--format", "spc"]).fails();
    assert_mentions(&err, &[p(&t)]);
    assert!(err.contains(":1:") || err.contains("line 1"), "error does not name line 1:\n{err}");
}

#[test]
fn unwritable_report_path() {
    let dir = TempDir::new("unwritable");
    let out = dir.join("no-such-dir/r.json");
    let err = rainsim(["run", "--quiet", "--set", "workload.requests=100", "--out", p(&out)]).fails();
    assert_mentions(&err, &[p(&out)]);
}

#[test]
fn compare_without_runs() {
    let err = rainsim(["compare", "--set", "workload.requests=100"]).fails();
    assert_mentions(&err, &["--schemes", "--variant"]);
    // Empty, repeated or bad variants are named before anything runs.
    for (v, words) in [
        ("", &["--variant ''", "an empty one"][..]),
        ("seed=2,,raid.stripe_width=3", &["an empty one"][..]),
        ("seed=2,seed=3", &["sets seed twice"][..]),
        ("raid.stripe_width=99", &["--variant 'raid.stripe_width=99'", "stripe_width"][..]),
    ] {
        let err = rainsim(["compare", "--set", "workload.requests=100", "--variant", "seed=5", "--variant", v]).fails();
        assert_mentions(&err, words);
    }
    // A workload a variant asks for and that cannot be made or read is
    // named by that variant, too.
    let err = rainsim([
        "compare",
        "--set",
        "workload.requests=100",
        "--variant",
        "seed=5",
        "--variant",
        "workload.read_ratio=2",
    ])
    .fails();
    assert_mentions(&err, &["--variant 'workload.read_ratio=2'", "read_ratio"]);
    let t = trace("msr_hm_0_slice1000.csv");
    let err = rainsim(["compare", "--trace", p(&t), "--schemes", "baseline", "--variant", "trace.device=7"]).fails();
    assert_mentions(&err, &["--variant 'trace.device=7'", "device 7"]);
}

/// Arrival times beyond the simulator's clock are refused with a message,
/// not an arithmetic overflow.
#[test]
fn arrival_times_beyond_the_clock_are_an_error() {
    let dir = TempDir::new("late");
    let f = dir.join("late.csv");
    std::fs::write(&f, "0,hm,0,Write,9056014336,2048,2833\n184467440737095516,hm,0,Write,9056014336,2048,2833\n")
        .unwrap();
    let e = rainsim(["run", "--quiet", "--trace", p(&f)]).fails();
    assert!(e.contains("2^62 ns"), "{e}");
}

/// A huge repeat count with a small `max_requests` makes only the copies it keeps.
#[test]
fn repeat_is_bounded_by_max_requests() {
    let dir = TempDir::new("repeat");
    let t = trace("alibaba_io_traces_head7.csv");
    let r = run_report(
        &dir,
        "r",
        &["--trace", p(&t), "--set", "trace.repeat=4000000000", "--set", "trace.max_requests=10"],
    );
    assert_eq!(u(&r, "trace.requests"), 10);
}

/// Output into a pipe that closes early (`rainsim … | head -1`) ends the
/// process quietly, without a panic message, and the report file is written
/// before anything is printed.
#[cfg(unix)]
#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = crate::support::TempDir::new("pipe");
    let out = dir.join("r.json");
    let mut child = Command::new(crate::support::BIN)
        .args(["run", "--set", "workload.requests=20000", "--out", crate::support::p(&out)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rainsim");
    drop(child.stdout.take()); // the reader goes away before anything is printed
    let mut err = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut err).expect("read stderr");
    child.wait().expect("wait");
    assert!(!err.contains("panicked"), "{err}");
    crate::report::check_report(&crate::support::read_json(&out), 20_000);
}

#[test]
fn bad_ageing_keys_are_named_with_their_numbers() {
    let run = |sets: &[&str]| {
        let mut a = vec!["run", "--quiet", "--set", "workload.requests=10"];
        for s in sets {
            a.extend(["--set", s]);
        }
        rainsim(a).fails()
    };
    let e = run(&["precondition.layout=scattered"]);
    assert_mentions(&e, &["layout", "scattered", "uniform", "packed", "steady-state"]);
    let e = run(&["precondition.map_trace=everything"]);
    assert_mentions(&e, &["map_trace", "reads", "footprint"]);
    // A margin that leaves no room for the valid data (default preset: 25-block trigger, 256 blocks).
    let e = run(&["precondition.free_margin=240"]);
    assert_mentions(&e, &["precondition.free_margin = 240", "25", "256"]);
    let e = run(&["precondition.free_margin=100"]);
    assert_mentions(&e, &["precondition.free_margin = 100", "valid pages", "lower precondition.valid"]);
    let e = run(&["precondition.layout=packed", "precondition.hot_utilization=0.5"]);
    assert_mentions(&e, &["precondition.hot_utilization", "steady-state"]);
    let e = run(&["precondition.target_moves_per_gc=5"]);
    assert_mentions(&e, &["not both", "precondition.hot_utilization=default"]);
    let e = run(&["precondition.target_moves_per_gc=500", "precondition.hot_utilization=default"]);
    assert_mentions(&e, &["target_moves_per_gc = 500", "pages_per_block = 128"]);
    let e = run(&["warmup.device_writes=-1"]);
    assert_mentions(&e, &["warmup.device_writes = -1"]);
    // NaN compares false with everything: it must fail the range check, not pass it.
    for key in ["precondition.valid", "precondition.invalid"] {
        let e = run(&["precondition.layout=packed", "precondition.hot_utilization=default", &format!("{key}=nan")]);
        assert_mentions(&e, &["precondition valid = ", "NaN", "must be ≥ 0"]);
    }
    // A program time past the 10 s bound would wrap simulated time.
    let e = run(&["process_variation.enabled=true", "process_variation.base_dvp=1e14"]);
    assert_mentions(&e, &["process_variation.base_dvp = 100000000000000", "10 s"]);
    let e = run(&["ldpc.enabled=true", "ldpc.rber.epsilon=1.5"]);
    assert_mentions(&e, &["ldpc.rber.epsilon = 1.5", "at most 1"]);
    // A warm-up driven by a trace without writes.
    let dir = TempDir::new("warm-reads");
    let f = dir.join("reads.csv");
    std::fs::write(&f, format!("{}\n", MSR_LINE.replace("Write", "Read"))).unwrap();
    let e = rainsim(["run", "--quiet", "--trace", p(&f), "--set", "warmup.device_writes=1"]).fails();
    assert_mentions(&e, &["warmup.device_writes = 1", "no writes", "warmup.workload = \"synthetic\""]);
}

#[test]
fn a_mapped_footprint_that_does_not_fit_names_the_mapping() {
    // A 32k-page device: the sample's footprint (516 stripes) and 86 % invalid
    // pages leave fewer than 2 free blocks in a plane.
    let t = trace("msr_hm_0_slice1000.csv");
    let mut a = vec!["run", "--quiet", "--trace", p(&t)];
    for s in [
        "geometry.blocks_per_plane=16",
        "geometry.pages_per_block=16",
        "precondition.map_trace=footprint",
        "precondition.valid=0.0",
        "precondition.invalid=0.86",
        "precondition.layout=packed",
        "precondition.hot_utilization=default",
    ] {
        a.extend(["--set", s]);
    }
    let e = rainsim(a).fails();
    assert_mentions(&e, &["516 of its 516 stripes mapped", "precondition.map_trace", "fewer than 2 of 16 free"]);
}

/// `run` never writes a report or request log over its own input trace
/// (by any path, a symbolic link included), and the trace stays as it was.
#[test]
fn run_refuses_to_write_over_its_input_trace() {
    let dir = TempDir::new("over-input");
    let t = dir.join("copy.csv");
    std::fs::copy(trace("msr_hm_0_slice1000.csv"), &t).unwrap();
    let before = std::fs::read(&t).unwrap();
    let link = dir.join("link.json");
    #[cfg(unix)]
    std::os::unix::fs::symlink(&t, &link).unwrap();
    for flag in ["--out", "--request-log"] {
        for out in [&t, &link] {
            if !out.exists() {
                continue;
            }
            let err = rainsim(["run", "--quiet", "--trace", p(&t), flag, p(out)]).fails();
            assert_mentions(&err, &["the output is the input", p(&t)]);
        }
    }
    assert_eq!(std::fs::read(&t).unwrap(), before, "the trace was overwritten");
}

/// A report sent through a symbolic link lands in its target and the link
/// stays; one sent into a named pipe reaches its reader and leaves it a
/// pipe (a device such as /dev/null is written the same way).
#[cfg(unix)]
#[test]
fn a_report_through_a_link_or_into_a_pipe_keeps_the_node() {
    use std::os::unix::fs::FileTypeExt;
    let dir = TempDir::new("out-nodes");
    let target = dir.join("target.json");
    let link = dir.join("link.json");
    std::os::unix::fs::symlink("target.json", &link).unwrap();
    rainsim(["run", "--quiet", "--set", "workload.requests=100", "--out", p(&link)]).ok();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link was replaced");
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.starts_with('{') && text.contains("\"latency\""), "{}", &text[..text.len().min(200)]);
    let fifo = dir.join("pipe.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils) is needed for this test");
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    rainsim(["run", "--quiet", "--set", "workload.requests=100", "--out", p(&fifo)]).ok();
    let json = |t: &str| serde_json::from_str::<serde_json::Value>(t).unwrap()["latency"].clone();
    assert_eq!(json(&reader.join().unwrap()), json(&text), "the same report through the pipe");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the pipe was replaced");
}

/// Trace options without a trace are not silently dropped: `--format` and
/// `--time-unit` need `--trace`, and `[trace]` keys on a synthetic run are
/// named in a note (the summary and the report's `notes`).
#[test]
fn trace_options_without_a_trace_are_refused_or_noted() {
    for flag in [["--format", "msr"], ["--time-unit", "ms"]] {
        let err = rainsim(["run", "--quiet", "--set", "workload.requests=50", flag[0], flag[1]]).fails();
        assert_mentions(&err, &["--trace"]);
    }
    let dir = TempDir::new("trace-keys");
    let out = dir.join("r.json");
    let o = rainsim(["run", "--set", "workload.requests=50", "--set", "trace.repeat=3", "--out", p(&out)]).ok();
    assert!(o.stdout.contains("note: the [trace] keys apply to a replayed trace"), "{}", o.stdout);
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let notes = r["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().contains("[trace] keys")), "{notes:?}");
    assert_eq!(r["latency"]["all"]["count"], 50, "the synthetic requests, not three copies");
    let o = rainsim(["run", "--set", "workload.requests=50"]).ok();
    assert!(!o.stdout.contains("[trace] keys"), "{}", o.stdout);
}

/// What a trace run does not use or changes is said in a note (the summary
/// and the report's `notes`), never silently: synthetic-workload settings, requests
/// beyond the device's capacity (counted in `trace.beyond_capacity`), a trace
/// of several devices replayed into one address space; an array's report too.
#[test]
fn a_trace_runs_unused_settings_and_folded_requests_are_noted() {
    let dir = TempDir::new("trace-notes");
    let notes = |r: &serde_json::Value| -> Vec<String> {
        r["notes"].as_array().map_or(vec![], |a| a.iter().map(|n| n.as_str().unwrap().to_string()).collect())
    };
    let has = |r: &serde_json::Value, what: &str| notes(r).iter().any(|n| n.contains(what));
    // SYSTOR's offsets reach 3.9 TiB: every request lies beyond a 20 GiB device.
    let systor = trace("systor17_lun0_slice999.csv");
    let out = dir.join("s.json");
    let o = rainsim(["run", "--trace", p(&systor), "--set", "workload.requests=20", "--out", p(&out)]).ok();
    let r = read_json(&out);
    assert_eq!(u(&r, "trace.beyond_capacity"), 999, "{:?}", r["trace"]);
    assert!(has(&r, "999 of the 999 requests replayed lay beyond"), "{:?}", notes(&r));
    assert!(has(&r, "--set workload.requests describes the synthetic workload"), "{:?}", notes(&r));
    assert_eq!(u(&r, "latency.all.count"), 999, "the trace's requests, not the workload's 20");
    assert!(o.stdout.contains("lay beyond the device's capacity"), "{}", o.stdout);
    assert_eq!(o.stdout.matches("lay beyond").count(), 1, "printed once: {}", o.stdout);
    // Counted over what is replayed, copies in and requests past the cap out:
    // on a device that holds part of MSR hm_0, the 1,500 requests of three
    // copies capped are the file's 1,000 and its first 500 again.
    let msr = trace("msr_hm_0_slice1000.csv");
    let small = |max: &str, repeat: &str| {
        let args = ["--trace", p(&msr), "--set", "geometry.blocks_per_plane=64", "--set", "trace.device=0"];
        let sets = ["--set", max, "--set", repeat];
        let r = run_report(&dir, "small", &[&args[..], &sets[..]].concat());
        r["trace"].get("beyond_capacity").map_or(0, |v| v.as_u64().unwrap())
    };
    let (all, half) =
        (small("trace.max_requests=1000", "trace.repeat=1"), small("trace.max_requests=500", "trace.repeat=1"));
    assert!(0 < half && half < all && all < 1000, "{half} {all}");
    assert_eq!(small("trace.max_requests=1500", "trace.repeat=3"), all + half);
    // A trace that fits says nothing of the kind, and has no count.
    let r = run_report(&dir, "msr", &["--trace", p(&msr), "--set", "trace.device=0"]);
    assert!(r["trace"].get("beyond_capacity").is_none() && notes(&r).is_empty(), "{:?} {:?}", r["trace"], notes(&r));
    // Financial1 holds several devices (ASUs).
    let fin = trace("umass_financial1_head10k.ssdsim.ascii");
    let out = dir.join("f.json");
    rainsim(["run", "--trace", p(&fin), "--out", p(&out)]).ok();
    assert!(has(&read_json(&out), "devices, replayed into one address space"));
    // An array's report carries them too.
    let out = dir.join("a.json");
    rainsim(["run", "--config", "dls-4ssd", "--trace", p(&systor), "--out", p(&out)]).ok();
    assert!(has(&read_json(&out), "lay beyond the array's capacity"));
}

/// A workload file's errors name the file, and device tables in it are
/// refused rather than dropped.
#[test]
fn a_workload_file_is_checked_by_its_own_name() {
    let dir = TempDir::new("wl-file");
    let run = |name: &str, text: &str| {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        (rainsim(["run", "--quiet", "--workload", p(&f)]).fails(), f)
    };
    let (e, f) = run("geom.toml", "[workload]\nrequests = 100\n[geometry]\nchannels = 4\n");
    assert_mentions(&e, &[p(&f), "`geometry`", "--config"]);
    let (e, f) = run("bogus.toml", "[workload]\nrequests = 100\nbogus = 1\n");
    assert_mentions(&e, &[p(&f), "bogus"]);
    let (e, f) = run("neg.toml", "[workload]\nrequests = -5\n");
    assert_mentions(&e, &[p(&f), "requests"]);
    // Values the generator checks (against the device, too) name the file.
    let (e, f) = run("big.toml", "[workload]\nrequests = 100\nfootprint_gib = 500\n");
    assert_mentions(&e, &[p(&f), "footprint_gib = 500"]);
    let (e, f) = run("align.toml", "[workload]\nrequests = 100\nalign_bytes = 0\n");
    assert_mentions(&e, &[p(&f), "align_bytes"]);
}

/// Page sizes are whole 512-byte sectors up to 1 MiB everywhere: a tiny
/// `--page-bytes` would make `trace stats` track every byte (hours and
/// gigabytes on a profile) and is refused at once.
#[test]
fn page_sizes_are_whole_sectors_up_to_a_mebibyte() {
    for v in ["0", "3", "1000", "4294967295"] {
        let err = rainsim(["trace", "stats", "--workload", "rep-raid-hm_0", "--page-bytes", v]).fails();
        assert_mentions(&err, &["--page-bytes", v, "multiple of 512"]);
    }
    let t = trace("msr_hm_0_slice1000.csv");
    let err = rainsim([
        "trace",
        "convert",
        p(&t),
        "--to",
        "msr",
        "--address-map",
        "wrap",
        "--capacity",
        "1GiB",
        "--page-bytes",
        "1536",
        "/dev/null/x",
    ])
    .fails();
    // 1536 is whole sectors: what fails is the output path, after the argument.
    assert_mentions(&err, &["/dev/null/x"]);
    let err = rainsim(["trace", "convert", p(&t), "--to", "msr", "--page-bytes", "1000", "/dev/null/x"]).fails();
    assert_mentions(&err, &["--page-bytes", "1000", "multiple of 512"]);
    for v in ["1000", "513", "0"] {
        let err = rainsim(["run", "--quiet", "--set", &format!("geometry.page_bytes={v}")]).fails();
        assert_mentions(&err, &[&format!("geometry.page_bytes = {v}"), "512-byte sectors"]);
    }
}

/// Controller times and idle periods that would carry simulated time past
/// its limit are refused by their own key, not blamed on `[timing]`.
#[test]
fn policy_times_are_bounded_by_their_own_key() {
    for (set, words) in [
        ("policy.degraded.decision_ns=9223372036854775807", &["policy.degraded.decision_ns", "10 s"][..]),
        ("policy.adaptive.decision_ns=100000000000000000", &["policy.adaptive.decision_ns", "10 s"][..]),
        ("policy.replicas.idle_ns=9223372036854775807", &["policy.replicas.idle_ns", "2^62"][..]),
    ] {
        let err = rainsim(["run", "--quiet", "--set", "workload.requests=50", "--set", set]).fails();
        assert_mentions(&err, words);
    }
}

/// A request whose end lies past 2^64 bytes is an error naming the line,
/// not a wrapped address.
#[test]
fn a_request_ending_past_two_to_the_64_bytes_names_its_line() {
    let dir = TempDir::new("huge-offset");
    let f = dir.join("huge.csv");
    std::fs::write(&f, format!("{MSR_LINE}\n128166385295514664,hm,0,Write,18446744073709551615,4096,1\n")).unwrap();
    let err = rainsim(["trace", "stats", p(&f)]).fails();
    assert_mentions(&err, &[&format!("{}:2", p(&f)), "passes 2^64 bytes"]);
}

/// `compare --out-dir` naming a file says it is not a directory; a device
/// filter that keeps nothing lists the devices the trace has, in `trace
/// slice` as in `run`.
#[test]
fn out_dir_files_and_missing_devices_are_named() {
    let t = trace("msr_hm_0_slice1000.csv");
    let err = rainsim(["compare", "--trace", p(&t), "--schemes", "baseline", "--out-dir", p(&t)]).fails();
    assert_mentions(&err, &["--out-dir", "not a directory"]);
    let dir = TempDir::new("slice-device");
    let out = dir.join("o.csv");
    let err = rainsim(["trace", "slice", p(&t), "--requests", "5", "--device", "1", p(&out)]).fails();
    assert_mentions(&err, &["no request for device 1", "devices present: 0"]);
    let err = rainsim(["run", "--quiet", "--trace", p(&t), "--set", "trace.device=1"]).fails();
    assert_mentions(&err, &["no request for device 1", "devices present: 0"]);
}

/// `--out -` is refused with the way to standard output, not written as a
/// file named "-"; a request log named other than .parquet gets a note.
#[test]
fn out_dash_is_refused_and_a_log_s_extension_noted() {
    let dir = TempDir::new("out-dash");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rainsim"))
        .args(["run", "--set", "workload.requests=10", "--out", "-"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("/dev/stdout"), "{err}");
    assert!(!dir.join("-").exists(), "a file named - was written");
    let log = dir.join("log.csv");
    let o = rainsim(["run", "--set", "workload.requests=10", "--request-log", p(&log)]).ok();
    assert!(o.stderr.contains("written as Parquet"), "{}", o.stderr);
    assert!(std::fs::read(&log).unwrap().starts_with(b"PAR1"), "Parquet's magic bytes");
}

/// A die whose bound programs no other die may take fills up (programs bound
/// to dies by static channel-first allocation or by rotating GC): the run
/// stops naming the die and its channel, not with "the event queue ran dry"
/// (as found by fuzzing the command line). Default device: 4 dies a channel.
#[test]
fn a_die_filled_by_programs_bound_to_it_is_named() {
    let cases: [&[&str]; 2] = [
        &[
            "--set",
            "geometry.blocks_per_plane=8",
            "--set",
            "ftl.allocation=\"static-channel-first\"",
            "--set",
            "precondition.invalid=0.048",
            "--set",
            "precondition.map_trace=\"none\"",
        ],
        &[
            "--scheme",
            "cr5m",
            "--set",
            "geometry.pages_per_block=4",
            "--set",
            "host.queue_depth=2",
            "--set",
            "ftl.rotating_gc=true",
        ],
    ];
    for sets in cases {
        let err = rainsim([&["run", "--quiet"][..], sets].concat()).fails();
        assert!(!err.contains("ran dry") && err.contains("filled up with valid data"), "{err}");
        let num = |after: &str| -> u32 {
            let rest = &err[err.find(after).unwrap_or_else(|| panic!("{after} in {err}")) + after.len()..];
            rest.split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap()
        };
        assert_eq!(num("die ") / 4, num("(channel "), "{err}");
    }
}

/// `--out` and `--request-log` naming one file are refused before anything
/// runs; naming two files is fine.
#[test]
fn out_and_request_log_must_name_different_files() {
    let dir = TempDir::new("same-out");
    let (a, b) = (dir.join("r.json"), dir.join("log.parquet"));
    let args = ["run", "--set", "workload.requests=200", "--quiet", "--out"];
    let err = rainsim([&args[..], &[p(&a), "--request-log", p(&a)]].concat()).fails();
    assert!(err.contains(&format!("--out and --request-log both name {}", a.display())), "{err}");
    assert!(!a.exists(), "nothing is written");
    rainsim([&args[..], &[p(&a), "--request-log", p(&b)]].concat()).ok();
    assert!(a.exists() && b.exists());
}
