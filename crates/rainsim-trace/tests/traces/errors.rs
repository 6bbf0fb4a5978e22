//! Malformed input: every error names the file and the line, and nothing is
//! silently skipped.

use crate::common::*;
use rainsim_trace::{load, Format, TimeUnit, TraceError, TraceOptions};

fn opts(format: Option<Format>) -> TraceOptions {
    TraceOptions { format, ..Default::default() }
}

/// Good lines of each format, a bad line for line 4, and what its error must say.
struct Case {
    format: Format,
    /// Whether auto-detection finds `format` (ssdsim is detected as disksim).
    detectable: bool,
    file: &'static str,
    good: [&'static str; 3],
    bad: &'static str,
    says: &'static str,
}

#[rustfmt::skip]
const CASES: &[Case] = &[
    Case { format: Format::Msr, detectable: true, file: "bad_msr.csv",
           good: ["128166385295514663,hm,0,Write,9056014336,2048,2833", "128166385295514878,hm,0,Write,11855351808,512,2617", "128166385295515175,hm,0,Write,5548077056,4096,2320"],
           bad: "128166385301451520,hm,0,Write,3163095040,40960", says: "expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found 6" },
    Case { format: Format::Spc, detectable: true, file: "bad.spc",
           good: ["0,657728,8192,R,0.011413", "1,31244784,32768,R,0.011565", "1,21868784,8192,R,0.011721"],
           bad: "0,34567136,32768,X,0.016187", says: "field 4 (Opcode): expected `R` or `W`, found `X`" },
    Case { format: Format::Systor, detectable: true, file: "bad_systor.csv",
           good: ["Timestamp,Response,IOType,LUN,Offset,Size", "1456095145.133076000,0.000806000,R,0,899056122368,131072", "1456095145.126285000,0.008044000,W,0,4256049987072,122880"],
           bad: "1456095145.127398000,0.007571000,R,0,3772288305664,0", says: "size 0" },
    Case { format: Format::Alibaba, detectable: true, file: "bad_alibaba.csv",
           good: ["0,R,126703661056,4096,1577808000000046", "1,W,19496058880,77824,1577808000000426", "2,W,9811763200,12288,1577808000000494"],
           bad: "3,W,573190144,12288,1577808000000.553", says: "field 5 (timestamp): expected an unsigned integer (µs since the epoch)" },
    Case { format: Format::Disksim, detectable: true, file: "bad_mqsim.trace",
           good: ["11413000 0 657728 16 1", "11565000 1 31244784 64 1", "11721000 1 21868784 16 1"],
           bad: "16187000 0 34567136 sixteen 1", says: "field 4 (size_sectors)" },
    Case { format: Format::Ssdsim, detectable: false, file: "bad.ssdsim.ascii",
           good: ["0 0 303567 7 0\r", "0 1 55590 6 0\r", "26214000 0 303574 7 0\r"],
           bad: "78643005 1 55596 6 2\r", says: "field 5 (op): expected 1 (read) or 0 (write), found `2`" },
    Case { format: Format::MsrWindow, detectable: true, file: "bad_window.trace",
           good: ["0.000 0 200626176 4096 0", "223.412 0 3159347200 36864 0", "223.434 0 3154132992 4096 0"],
           bad: "-223.437 0 3154128896 4096 0", says: "negative" },
];

#[test]
fn a_bad_line_names_file_and_line_in_every_format() {
    let tmp = TempDir::new("bad-lines");
    for c in CASES {
        let mut text = c.good.join("\n");
        text.push('\n');
        text.push_str(c.bad);
        text.push('\n');
        text.push_str(c.good[2]);
        let p = tmp.file(c.file, text.as_bytes());
        let tries: &[Option<Format>] = if c.detectable { &[None, Some(c.format)] } else { &[Some(c.format)] };
        for &f in tries {
            let err = load_err(&p, &opts(f), BIG);
            let msg = err.to_string();
            assert!(matches!(err, TraceError::Parse { line: 4, .. }), "{}: {msg}", c.file);
            assert!(msg.contains(&format!("{}:4: ", c.file)), "{msg}");
            assert!(msg.contains(c.says), "{}: `{msg}` should say `{}`", c.file, c.says);
        }
    }
}

#[test]
fn a_bad_line_after_the_detection_sample_is_found_too() {
    let tmp = TempDir::new("late-bad");
    let mut text = String::new();
    for i in 0..300u32 {
        if i == 249 {
            text.push_str("0,1,0,R,0.5\n");
        } else {
            text.push_str(&format!("0,{},4096,W,{}.25\n", i * 8, i));
        }
    }
    let p = tmp.file("late.spc", text.as_bytes());
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("late.spc:250: size 0"), "{msg}");
    // Blank lines still count in line numbers.
    let p = tmp.file("blank.spc", b"\n0,8,4096,W,0.5\n\n0,8,4096,W,0.5,\n0,8,4096,Q,0.5\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("blank.spc:5: field 4 (Opcode)"), "{msg}");
}

#[test]
fn bad_times_are_rejected() {
    let tmp = TempDir::new("times");
    for (name, text, says) in [
        ("nan.spc", "0,8,4096,W,0.5\n0,8,4096,W,NaN\n", "not finite"),
        ("inf.trace", "1.5 0 8 8 1\ninf 0 8 8 1\n", "not finite"),
        ("neg.spc", "0,8,4096,W,0.5\n0,8,4096,W,-0.25\n", "negative"),
        ("word.trace", "1 0 8 8 1\nabc 0 8 8 1\n", "field 1 (arrival_time)"),
    ] {
        let p = tmp.file(name, text.as_bytes());
        let f = if name.ends_with(".trace") { Some(Format::Disksim) } else { None };
        let msg = load_err(&p, &opts(f), BIG).to_string();
        assert!(msg.contains(&format!("{name}:2: ")) && msg.contains(says), "{msg}");
    }
}

#[test]
fn zero_requests_is_an_error() {
    let tmp = TempDir::new("empty");
    for (name, text, format, says) in [
        ("empty.csv", "", None, "empty"),
        ("blank.csv", "\n \r\n\n", Some(Format::Msr), "empty"),
        ("header.csv", "Timestamp,Response,IOType,LUN,Offset,Size\n", None, "no data record"),
        (
            "nodir.csv",
            "Timestamp,Response,IOType,LUN,Offset,Size\n1.5,,,0,0,4096\n2.5,,,0,0,4096\n",
            None,
            "blank IOType",
        ),
    ] {
        let p = tmp.file(name, text.as_bytes());
        let err = load_err(&p, &opts(format), BIG);
        let msg = err.to_string();
        assert!(matches!(err, TraceError::Empty { .. }), "{msg}");
        assert!(msg.starts_with(&p.display().to_string()) && msg.contains(says), "{msg}");
    }
}

/// A lone record is "the only record", and each reason's noun agrees with its count.
#[test]
fn an_empty_trace_counts_its_records_in_words_that_agree() {
    let tmp = TempDir::new("empty-counts");
    let nodir = "Timestamp,Response,IOType,LUN,Offset,Size\n1.5,,,0,0,4096\n";
    for (name, text, says) in [
        ("one.csv", nodir.to_string(), "no request: the only record has a blank IOType (no direction)"),
        ("two.csv", format!("{nodir}2.5,,,0,0,4096\n"), "no request: all 2 records have a blank IOType"),
        ("one.log", "fio version 2 iolog\n/dev/a wait 5 0\n".into(), "the only record was skipped (1 fio wait)"),
        (
            "three.log",
            "fio version 2 iolog\n/dev/a trim 0 4096\n/dev/a wait 5 0\n/dev/a wait 5 0\n".into(),
            "no request: all 3 records were skipped (1 fio trim, 2 fio waits)",
        ),
    ] {
        let format = name.ends_with(".log").then_some(Format::Fio);
        let msg = load_err(&tmp.file(name, text.as_bytes()), &opts(format), BIG).to_string();
        assert!(msg.contains(says), "{msg}");
    }
}

#[test]
fn systor_rows_without_direction_are_counted_not_hidden() {
    let tmp = TempDir::new("nodir");
    let text = "Timestamp,Response,IOType,LUN,Offset,Size\n\
                1.000000002,0.1,R,0,0,4096\n\
                1.000000001,,,0,0,4096\n\
                1.000000000,0.1,W,0,8192,512\n";
    let p = tmp.file("some.csv", text.as_bytes());
    let t = load(&p, &opts(None), BIG, PAGE).unwrap();
    assert_eq!((t.info.records_read, t.info.skipped_no_direction, t.info.requests), (3, 1, 2));
    assert_eq!(t.info.unsorted_inversions, 1);
    assert_eq!(t.requests.iter().map(|r| r.time_ns).collect::<Vec<_>>(), [0, 2]);
}

#[test]
fn missing_device_lists_the_devices_present() {
    let p = sample("alibaba_io_traces_head7.csv");
    let o = TraceOptions { device: Some(9), ..Default::default() };
    let msg = load_err(&p, &o, BIG).to_string();
    assert!(msg.contains("no request for device 9; devices present: 0, 1, 2, 3, 4, 5"), "{msg}");
}

#[test]
fn detection_and_option_errors_are_explained() {
    let tmp = TempDir::new("detect");
    let p = tmp.file("what.txt", b"hello world\nthis is not a trace\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("what.txt: cannot detect the trace format: line 1"), "{msg}");
    let p = tmp.file("mixed.txt", b"0,657728,8192,R,0.011413\n1 0 8 8 1\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("ambiguous") && msg.contains("format explicitly"), "{msg}");

    let msr = sample("msr_hm_0_slice1000.csv");
    let o = TraceOptions { time_unit: Some(TimeUnit::Ms), ..Default::default() };
    let msg = load_err(&msr, &o, BIG).to_string();
    assert!(msg.contains("time_unit") && msg.contains("msr"), "{msg}");
    let o = TraceOptions { format: Some(Format::Msr), time_unit: Some(TimeUnit::Ms), ..Default::default() };
    assert!(load_err(&msr, &o, BIG).to_string().contains("only applies to the disksim format"));
    for (o, says) in [
        (TraceOptions { repeat: 0, ..Default::default() }, "repeat"),
        (TraceOptions { time_scale: 0.0, ..Default::default() }, "time_scale"),
        (TraceOptions { time_scale: f64::NAN, ..Default::default() }, "time_scale"),
        (TraceOptions { max_requests: Some(0), ..Default::default() }, "max_requests"),
    ] {
        let msg = load_err(&msr, &o, BIG).to_string();
        assert!(msg.contains(says), "{msg}");
    }
    let missing = tmp.0.join("nope.csv");
    let msg = load_err(&missing, &opts(None), BIG).to_string();
    assert!(msg.starts_with(&missing.display().to_string()), "{msg}");
    let p = tmp.file("corrupt.gz", &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4]);
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.starts_with(&p.display().to_string()), "{msg}");
}

#[test]
fn a_request_larger_than_the_capacity_is_an_error() {
    let p = sample("alibaba_io_traces_head7.csv"); // has a 77,824-byte request
    let msg = load_err(&p, &TraceOptions::default(), 64 * 1024).to_string();
    assert!(msg.contains("alibaba_io_traces_head7.csv: address map wrap") && msg.contains("77824"), "{msg}");
}
