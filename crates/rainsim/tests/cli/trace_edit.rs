//! `rainsim trace convert|slice|merge` on small hand-written traces, with
//! every expected output line computed by hand.

use crate::support::*;

/// Tencent CBS: Unix seconds, sectors, 0 read / 1 write, volume.
const CBS: &str = "1538323200,100,8,1,5\n1538323200,16,16,0,7\n1538323201,24,8,1,5\n1538323203,1,1,0,5\n";

fn write(dir: &TempDir, name: &str, text: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write fixture");
    path
}

fn lines(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path).expect("output written").lines().map(str::to_string).collect()
}

#[test]
fn convert_writes_each_target_in_its_units() {
    let dir = TempDir::new("convert");
    let input = write(&dir, "cbs.csv", CBS);
    let sectors_ns = ["0 5 100 8 0", "0 7 16 16 1", "1000000000 5 24 8 0", "3000000000 5 1 1 1"];
    let want: [(&str, Vec<&str>); 5] = [
        ("ssdsim", sectors_ns.to_vec()),
        ("mqsim", sectors_ns.to_vec()),
        ("disksim", vec!["0.000000 5 100 8 0", "0.000000 7 16 16 1", "1000.000000 5 24 8 0", "3000.000000 5 1 1 1"]),
        (
            "msr",
            vec![
                "0,rainsim,5,Write,51200,4096,0",
                "0,rainsim,7,Read,8192,8192,0",
                "10000000,rainsim,5,Write,12288,4096,0",
                "30000000,rainsim,5,Read,512,512,0",
            ],
        ),
        (
            "fio",
            vec![
                "fio version 2 iolog",
                "rainsim-dev5 add",
                "rainsim-dev7 add",
                "rainsim-dev5 open",
                "rainsim-dev7 open",
                "rainsim-dev5 write 51200 4096",
                "rainsim-dev7 read 8192 8192",
                "rainsim-dev5 write 12288 4096",
                "rainsim-dev5 read 512 512",
                "rainsim-dev5 close",
                "rainsim-dev7 close",
            ],
        ),
    ];
    for (to, expected) in want {
        let out = dir.join(&format!("out.{to}"));
        let o = rainsim(["trace", "convert", p(&input), "--to", to, p(&out)]).ok();
        assert!(o.stdout.contains("read ") && o.stdout.contains("(cbs): 4 requests"), "{}", o.stdout);
        assert!(o.stdout.contains(&format!("wrote 4 requests to {} ({to})", out.display())), "{}", o.stdout);
        assert_eq!(lines(&out), expected, "{to}");
        // The written file reads back as the same 4 requests.
        let st = rainsim(["trace", "stats", "--json", p(&out)]).ok();
        let v: serde_json::Value = serde_json::from_str(&st.stdout).expect("JSON");
        assert_eq!(u(&v, "stats.requests"), 4, "{to}");
        assert_eq!(u(&v, "stats.bytes_read") + u(&v, "stats.bytes_written"), 4096 + 8192 + 4096 + 512, "{to}");
    }
}

#[test]
fn convert_applies_device_window_and_address_map_first() {
    let dir = TempDir::new("convert-select");
    let input = write(&dir, "cbs.csv", CBS);
    let out = dir.join("w.trace");
    let args = ["--device", "5", "--start", "0.5", "--duration", "3"];
    rainsim([&["trace", "convert", p(&input), "--to", "mqsim", p(&out)][..], &args].concat()).ok();
    // Device 5 at 0, 1, 3 s; the window [0.5 s, 3.5 s) keeps 1 s and 3 s, counted from 0.5 s.
    assert_eq!(lines(&out), ["500000000 5 24 8 0", "2500000000 5 1 1 1"]);

    // Two 4 KiB pages: byte 51200 (page 12, in-page 2048, spans 2 pages) → 2048;
    // 12288 (page 3) → page 1; 512 stays.
    let out = dir.join("m.csv");
    let args = ["--device", "5", "--address-map", "wrap", "--capacity", "8KiB", "--page-bytes", "4096"];
    rainsim([&["trace", "convert", p(&input), "--to", "msr", p(&out)][..], &args].concat()).ok();
    assert_eq!(
        lines(&out),
        ["0,rainsim,5,Write,2048,4096,0", "10000000,rainsim,5,Write,4096,4096,0", "30000000,rainsim,5,Read,512,512,0"]
    );
}

#[test]
fn slice_by_count_and_by_time() {
    let dir = TempDir::new("slice");
    let input = write(&dir, "cbs.csv", CBS);
    let out = dir.join("s.trace");
    rainsim(["trace", "slice", p(&input), "--skip", "1", "--requests", "2", "--to", "ssdsim", p(&out)]).ok();
    assert_eq!(lines(&out), ["0 7 16 16 1", "1000000000 5 24 8 0"]);
    // Output in the input's format by default, where there is a writer.
    let msr = write(&dir, "a.csv", "1000,h,0,Read,0,512,1\n1500,h,0,Write,512,1024,1\n3000,h,0,Read,0,512,1\n");
    let out = dir.join("a-slice.csv");
    let o = rainsim(["trace", "slice", p(&msr), "--start", "0.0000001", "--duration", "0.0002", p(&out)]).ok();
    assert!(o.stdout.contains("(msr)"), "{}", o.stdout);
    // Times 0, 50 µs, 200 µs; the window [0.1 µs, 200.1 µs) keeps 50 µs and 200 µs, from 0.1 µs.
    assert_eq!(lines(&out), ["499,rainsim,0,Write,512,1024,0", "1999,rainsim,0,Read,0,512,0"]);
    let msg = rainsim(["trace", "slice", p(&input), "--to", "ssdsim", p(&out)]).fails();
    assert!(msg.contains("needs a window"), "{msg}");
    let msg = rainsim(["trace", "slice", p(&input), "--requests", "2", p(&dir.join("x"))]).fails();
    assert!(msg.contains("no writer for the cbs format") && msg.contains("--to"), "{msg}");
    let msg = rainsim(["trace", "slice", p(&input), "--start", "9", "--to", "ssdsim", p(&dir.join("x"))]).fails();
    assert!(msg.contains("cbs.csv: no request in the window"), "{msg}");
    assert!(!dir.join("x").exists());
}

#[test]
fn merge_by_time_keeps_input_order_on_ties() {
    let dir = TempDir::new("merge");
    let a = write(&dir, "a.csv", "100,h,0,Read,0,512,1\n300,h,0,Read,512,512,1\n");
    let b = write(&dir, "b.csv", "100,h,1,Write,4096,512,1\n200,h,1,Write,8192,512,1\n");
    let out = dir.join("ab.csv");
    let o = rainsim(["trace", "merge", p(&a), p(&b), p(&out)]).ok();
    assert!(o.stdout.contains("wrote 4 requests"), "{}", o.stdout);
    assert_eq!(
        lines(&out),
        [
            "0,rainsim,0,Read,0,512,0",
            "0,rainsim,1,Write,4096,512,0",
            "100,rainsim,1,Write,8192,512,0",
            "200,rainsim,0,Read,512,512,0"
        ]
    );
    let out = dir.join("ba.csv");
    rainsim(["trace", "merge", p(&b), p(&a), "--to", "mqsim", p(&out)]).ok();
    assert_eq!(lines(&out), ["0 1 8 1 0", "0 0 0 1 1", "10000 1 16 1 0", "20000 0 1 1 1"]);
    let out = dir.join("a0.csv");
    rainsim(["trace", "merge", p(&b), p(&a), "--device", "0", p(&out)]).ok();
    assert_eq!(lines(&out), ["0,rainsim,0,Read,0,512,0", "200,rainsim,0,Read,512,512,0"]);
}

/// `--distinct-devices` numbers each input's devices after the largest of the
/// inputs before it: a's 0 and 2 stay, b's 0 and 1 become 3 and 4.
#[test]
fn merge_numbers_each_inputs_devices_apart() {
    let dir = TempDir::new("merge-devices");
    let a = write(&dir, "a.csv", "100,h,0,Read,0,512,1\n300,h,2,Read,512,512,1\n");
    let b = write(&dir, "b.csv", "100,h,1,Write,4096,512,1\n200,h,0,Write,8192,512,1\n");
    let out = dir.join("ab.csv");
    let o = rainsim(["trace", "merge", p(&a), p(&b), "--distinct-devices", p(&out)]).ok();
    assert!(o.stdout.contains("b.csv: devices numbered from 3"), "{}", o.stdout);
    assert_eq!(
        lines(&out),
        [
            "0,rainsim,0,Read,0,512,0",
            "0,rainsim,4,Write,4096,512,0",
            "100,rainsim,3,Write,8192,512,0",
            "200,rainsim,2,Read,512,512,0"
        ]
    );
    let msg =
        rainsim(["trace", "merge", p(&a), p(&b), "--distinct-devices", "--device", "0", p(&dir.join("x"))]).fails();
    assert!(msg.contains("give one of them"), "{msg}");
    assert!(!dir.join("x").exists());
}

#[test]
fn errors_name_the_file_and_leave_no_output() {
    let dir = TempDir::new("edit-errors");
    let input = write(&dir, "cbs.csv", CBS);
    let before = std::fs::read(&input).expect("read");
    let msg = rainsim(["trace", "convert", p(&input), "--to", "msr", p(&input)]).fails();
    assert!(msg.contains("refusing to overwrite"), "{msg}");
    assert_eq!(std::fs::read(&input).expect("read"), before, "input untouched");
    let a = write(&dir, "a.csv", "100,h,0,Read,0,512,1\n");
    let msg = rainsim(["trace", "merge", p(&a), p(&input), p(&a)]).fails();
    assert!(msg.contains("refusing to overwrite"), "{msg}");

    let bad = write(&dir, "bad.csv", "1538323200,100,8,1,5\n1538323200,16,16,0,7\n1538323201,24,8,2,5\n");
    let out = dir.join("never.trace");
    let msg = rainsim(["trace", "convert", p(&bad), "--to", "ssdsim", p(&out)]).fails();
    assert!(msg.contains("bad.csv:3: field 4 (IOType)"), "{msg}");
    assert!(!out.exists());
    let msg = rainsim(["trace", "convert", p(&input), "--to", "spc", p(&out)]).fails();
    assert!(msg.contains("--to: unknown output format `spc`"), "{msg}");
    let msg = rainsim(["trace", "convert", p(&input), "--to", "msr", "--address-map", "wrap", p(&out)]).fails();
    assert!(msg.contains("--capacity"), "{msg}");
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp-")), "temporary file left: {names:?}");
}

#[test]
fn stats_reports_what_blkparse_skipped() {
    let dir = TempDir::new("blk-stats");
    let text = "  8,0 3 1 0.000000000 697 Q W 223490 + 8 [kjournald]\n\
                \x20 8,0 3 2 0.000002000 697 D W 223490 + 8 [kjournald]\n\
                \x20 8,0 0 3 0.000300000 699 Q FWS [jbd2]\n\
                \x20 8,0 0 4 0.000400000 700 Q DS 4096 + 2048 [fstrim]\n\
                CPU0 (8,0):\n Reads Queued: 0, 0KiB\n";
    let path = write(&dir, "sda.blkparse", text);
    let o = rainsim(["trace", "stats", p(&path)]).ok();
    for line in [
        "(blkparse,",
        "skipped 1 blkparse event of another action",
        "skipped 1 blkparse event without sector + count (flush, message)",
        "skipped 1 blkparse discard (D in RWBS)",
        "skipped 2 blkparse summary lines",
    ] {
        assert!(o.stdout.contains(line), "missing `{line}`:\n{}", o.stdout);
    }
    let o = rainsim(["trace", "stats", "--format", "blkparse-c", p(&path)]).fails();
    assert!(o.contains("no request") && o.contains("4 blkparse events of another action"), "{o}");
    // convert lists the same reasons, each agreeing with its count.
    let o = rainsim(["trace", "convert", p(&path), "--to", "msr", p(&dir.join("sda.csv"))]).ok();
    for line in ["\n  skipped 1 blkparse discard (D in RWBS)\n", "\n  skipped 2 blkparse summary lines\n"] {
        assert!(o.stdout.contains(line), "missing `{line}`:\n{}", o.stdout);
    }
}

/// Files of different clocks (MSR's FILETIME from 1601, SYSTOR's Unix time
/// from 1970) lie centuries apart: merging them is refused, naming both,
/// instead of writing a file no reader takes; converted first (each then
/// starts at 0), they merge.
#[test]
fn merging_files_of_different_clocks_is_refused_with_the_way_out() {
    let dir = TempDir::new("merge-epochs");
    let (msr, systor) = (trace("msr_hm_0_slice1000.csv"), trace("systor17_lun0_slice999.csv"));
    let out = dir.join("m.csv");
    let msg = rainsim(["trace", "merge", p(&msr), p(&systor), p(&out)]).fails();
    assert!(msg.contains("years after") && msg.contains("trace convert"), "{msg}");
    assert!(msg.contains(p(&msr)) && msg.contains(p(&systor)), "{msg}");
    assert!(!out.exists());
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    rainsim(["trace", "convert", p(&msr), "--to", "msr", p(&a)]).ok();
    rainsim(["trace", "convert", p(&systor), "--to", "msr", p(&b)]).ok();
    let o = rainsim(["trace", "merge", p(&a), p(&b), p(&out)]).ok();
    assert!(o.stdout.contains("wrote 1999 requests"), "{}", o.stdout);
    rainsim(["trace", "stats", p(&out)]).ok();
}

/// `trace merge` offers no window options (its help listed them and it
/// refused them); a slice's time window keeps its start as the origin when a
/// count window is given too.
#[test]
fn merge_has_no_window_and_a_slice_counts_from_its_start() {
    let help = rainsim(["trace", "merge", "--help"]).ok().stdout;
    for flag in ["--start", "--duration", "--skip", "--requests"] {
        assert!(!help.contains(flag), "{flag} in merge's help:\n{help}");
    }
    assert!(help.contains("--address-map") && help.contains("--device"), "{help}");
    let dir = TempDir::new("slice-origin");
    let input = dir.join("t.ssdsim");
    let text: String = (1..=6).map(|s| format!("{} 0 {} 8 1\n", s * 1_000_000_000u64, s * 8)).collect();
    std::fs::write(&input, text).unwrap();
    let out = dir.join("o.ssdsim");
    let args = ["trace", "slice", p(&input), "--format", "ssdsim", "--start", "1.5", "--skip", "1", p(&out)];
    rainsim(args).ok();
    let times: Vec<u64> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    // Times count from the first request (1 s → 0): kept from 1.5 s are 2, 3, 4
    // and 5 s after it; the first is skipped; the rest count from 1.5 s.
    assert_eq!(times, [1_500_000_000, 2_500_000_000, 3_500_000_000]);
}

/// Each note of the report appears exactly when it applies: records without
/// a direction, requests widened to whole sectors, times rounded to FILETIME
/// ticks, fio's lack of timing.
#[test]
fn convert_notes_only_what_happened() {
    let dir = TempDir::new("convert-notes");
    // The second record has no IOType; the third starts at byte 100 (not a
    // sector boundary), 150 ns after the first (not a 100 ns tick).
    let systor = write(
        &dir,
        "s.csv",
        "Timestamp,Response,IOType,LUN,Offset,Size\n1.000000000,0,R,0,4096,4096\n1.000000150,0,,0,0,512\n\
         1.000000150,0,W,0,100,512\n",
    );
    let cbs = write(&dir, "cbs.csv", CBS);
    let notes =
        ["without a direction", "not sector-aligned", "rounded to the nearest 100 ns", "fio iolog v2 has no timing"];
    let cases: [(&std::path::Path, &str, [bool; 4]); 5] = [
        (&systor, "ssdsim", [true, true, false, false]),
        (&systor, "msr", [true, false, true, false]),
        (&systor, "fio", [true, false, false, true]),
        (&systor, "mqsim", [true, true, false, false]),
        (&cbs, "msr", [false; 4]),
    ];
    for (i, (input, to, want)) in cases.into_iter().enumerate() {
        let out = dir.join(&format!("{i}.{to}"));
        let o = rainsim(["trace", "convert", p(input), "--to", to, p(&out)]).ok();
        for (note, want) in notes.iter().zip(want) {
            assert_eq!(o.stdout.contains(note), want, "`{note}` converting {} to {to}:\n{}", p(input), o.stdout);
        }
    }
    let o = rainsim(["trace", "convert", p(&systor), "--to", "ssdsim", p(&dir.join("n"))]).ok();
    assert!(o.stdout.contains("): 2 requests of 3 records\n  skipped 1 record without a direction\n"), "{}", o.stdout);
    assert!(o.stdout.contains("  1 request was not sector-aligned"), "{}", o.stdout);
    let o = rainsim(["trace", "convert", p(&systor), "--to", "msr", p(&dir.join("m"))]).ok();
    assert!(o.stdout.contains("  1 time rounded to the nearest 100 ns"), "{}", o.stdout);
}

/// `--time-unit` and `--format` reach the reader of convert and merge: whole
/// numbers are detected as ns, `--time-unit ms` reads them as ms.
#[test]
fn the_input_format_options_are_applied() {
    let dir = TempDir::new("input-format");
    let input = write(&dir, "d.txt", "1000 0 0 8 1\n3000 0 8 8 0\n");
    let out = dir.join("ns.trace");
    rainsim(["trace", "convert", p(&input), "--to", "ssdsim", p(&out)]).ok();
    assert_eq!(lines(&out), ["0 0 0 8 1", "2000 0 8 8 0"]);
    let out = dir.join("ms.trace");
    let o = rainsim(["trace", "convert", p(&input), "--time-unit", "ms", "--to", "ssdsim", p(&out)]).ok();
    assert!(o.stdout.contains("(disksim (ms))"), "{}", o.stdout);
    assert_eq!(lines(&out), ["0 0 0 8 1", "2000000000 0 8 8 0"]);
    let o = rainsim(["trace", "convert", p(&input), "--format", "ssdsim", "--to", "ssdsim", p(&dir.join("s"))]).ok();
    assert!(o.stdout.contains("(ssdsim)"), "{}", o.stdout);
    let out = dir.join("merged.trace");
    rainsim(["trace", "merge", p(&input), p(&input), "--time-unit", "ms", "--to", "ssdsim", p(&out)]).ok();
    assert_eq!(lines(&out), ["0 0 0 8 1", "0 0 0 8 1", "2000000000 0 8 8 0", "2000000000 0 8 8 0"]);
}

/// Merge takes two or more inputs: one is refused, three are merged.
#[test]
fn merge_needs_two_inputs_and_takes_more() {
    let dir = TempDir::new("merge-count");
    let a = write(&dir, "a.csv", "100,h,0,Read,0,512,1\n");
    let b = write(&dir, "b.csv", "300,h,0,Read,512,512,1\n");
    let c = write(&dir, "c.csv", "200,h,0,Write,1024,512,1\n");
    let msg = rainsim(["trace", "merge", p(&a), p(&dir.join("x"))]).fails();
    assert!(msg.contains("at least two input files"), "{msg}");
    assert!(!dir.join("x").exists());
    let out = dir.join("abc.csv");
    rainsim(["trace", "merge", p(&a), p(&b), p(&c), p(&out)]).ok();
    assert_eq!(
        lines(&out),
        ["0,rainsim,0,Read,0,512,0", "100,rainsim,0,Write,1024,512,0", "200,rainsim,0,Read,512,512,0"]
    );
}

/// `--distinct-devices` may number up to device 2^32 - 1 and no further:
/// after a's device 0, b's 2^32 - 2 becomes 2^32 - 1; c's 2^32 - 1 would
/// become 2^32.
#[test]
fn distinct_devices_reach_the_largest_device_number_and_stop() {
    let dir = TempDir::new("merge-device-limit");
    let a = write(&dir, "a.csv", "0,h,0,Read,0,512,1\n");
    let b = write(&dir, "b.csv", "0,h,4294967294,Read,0,512,1\n");
    let c = write(&dir, "c.csv", "0,h,4294967295,Read,0,512,1\n");
    let out = dir.join("ab.csv");
    rainsim(["trace", "merge", p(&a), p(&b), "--distinct-devices", p(&out)]).ok();
    assert_eq!(lines(&out), ["0,rainsim,0,Read,0,512,0", "0,rainsim,4294967295,Read,0,512,0"]);
    let msg = rainsim(["trace", "merge", p(&a), p(&c), "--distinct-devices", p(&dir.join("x"))]).fails();
    assert!(msg.contains("c.csv: its devices numbered from 1 pass 2^32 - 1"), "{msg}");
    assert!(!dir.join("x").exists());
}

/// Merged files may span 2^62 ns, as one file may, and not 1 ns more; the
/// span is the last end minus the first start (5 ns here, not 0).
#[test]
fn merged_files_may_span_exactly_two_to_the_62_ns() {
    let dir = TempDir::new("merge-span");
    let max = 1u64 << 62;
    let a = write(&dir, "a.trace", "5 0 0 8 1\n");
    let b = write(&dir, "b.trace", &format!("{} 0 8 8 0\n", max + 5));
    let c = write(&dir, "c.trace", &format!("{} 0 8 8 0\n", max + 6));
    let out = dir.join("ab.trace");
    rainsim(["trace", "merge", p(&a), p(&b), "--format", "ssdsim", p(&out)]).ok();
    assert_eq!(lines(&out), ["0 0 0 8 1".to_string(), format!("{max} 0 8 8 0")]);
    let msg = rainsim(["trace", "merge", p(&a), p(&c), "--format", "ssdsim", p(&dir.join("x"))]).fails();
    assert!(msg.contains("c.trace ends 146 years after") && msg.contains("a.trace starts"), "{msg}");
    assert!(!dir.join("x").exists());
}
