//! What `load` keeps and reports besides the parsed lines: the early stop
//! at `max_requests`, the notes on how times were read, the time-span limit,
//! the requests moved into the capacity, and the stored file's hash.

use crate::common::*;
use rainsim_trace::{file_sha256, load, Format, Op, Request, TimeUnit, TraceOptions, MAX_TIME_NS};

fn rq(time_ns: u64, device: u32, offset: u64, size: u32) -> Request {
    Request { time_ns, offset, size, device, op: Op::Write }
}

/// SPC lines (ASU, LBA, bytes, op, seconds) out of time order.
const UNSORTED_SPC: &str = "0,8,4096,W,0.003\n0,16,4096,W,0.001\n0,24,4096,W,0.002\n0,32,4096,W,0.000\n";

#[test]
fn max_requests_alone_stops_reading_at_the_last_request_kept() {
    let tmp = TempDir::new("stop");
    let p = tmp.file("unsorted.spc", UNSORTED_SPC.as_bytes());
    // Without repeat: the first two lines in file order, then sorted.
    let t = load(&p, &TraceOptions { max_requests: Some(2), ..Default::default() }, BIG, PAGE).unwrap();
    assert_eq!(t.requests, [rq(0, 0, 16 * 512, 4096), rq(2_000_000, 0, 8 * 512, 4096)]);
    assert_eq!((t.info.records_read, t.info.stopped_at_line), (2, Some(2)));
    // With repeat the whole file is read and sorted before truncation.
    let o = TraceOptions { max_requests: Some(2), repeat: 2, ..Default::default() };
    let t = load(&p, &o, BIG, PAGE).unwrap();
    assert_eq!(t.requests, [rq(0, 0, 32 * 512, 4096), rq(1_000_000, 0, 16 * 512, 4096)]);
    assert_eq!((t.info.records_read, t.info.stopped_at_line), (4, None));
}

#[test]
fn max_requests_with_a_device_counts_only_that_device() {
    let tmp = TempDir::new("stop-dev");
    // Alibaba: device, op, offset, size, µs.
    let text = "0,W,0,4096,10\n1,W,4096,4096,20\n1,W,8192,4096,30\n0,W,12288,4096,40\n0,W,16384,4096,50\n";
    let p = tmp.file("dev.csv", text.as_bytes());
    let o = TraceOptions { device: Some(0), max_requests: Some(2), ..Default::default() };
    let t = load(&p, &o, BIG, PAGE).unwrap();
    assert_eq!(t.requests, [rq(0, 0, 0, 4096), rq(30_000, 0, 12288, 4096)]);
    assert_eq!((t.info.records_read, t.info.filtered_out_device, t.info.stopped_at_line), (4, 2, Some(4)));
}

#[test]
fn only_the_copies_kept_are_made() {
    let tmp = TempDir::new("copies");
    // A span of 2^62 ns: 8 whole copies would pass 2^64 ns, the 2 kept do not.
    let p = tmp.file("far.trace", format!("0 0 8 8 1\n{MAX_TIME_NS} 0 16 8 1\n").as_bytes());
    let o = |max| TraceOptions { format: Some(Format::Ssdsim), repeat: 8, max_requests: max, ..Default::default() };
    let t = load(&p, &o(Some(2)), BIG, PAGE).unwrap();
    assert_eq!((t.info.requests, t.info.repeat, t.info.span_ns), (2, 8, MAX_TIME_NS));
    let msg = load_err(&p, &o(None), BIG).to_string();
    assert!(msg.contains("repeat 8: times overflow 64 bits"), "{msg}");
}

#[test]
fn the_span_of_times_may_reach_2_pow_62_ns_and_no_more() {
    let tmp = TempDir::new("span");
    let ssdsim = TraceOptions { format: Some(Format::Ssdsim), ..Default::default() };
    let text = format!("5 0 8 8 1\n{} 0 16 8 1\n", MAX_TIME_NS + 5);
    let t = load(&tmp.file("edge.trace", text.as_bytes()), &ssdsim, BIG, PAGE).unwrap();
    assert_eq!(t.info.span_ns, 1 << 62);
    // One ns more; the line that stretches the span is named.
    let text = format!("5 0 8 8 1\n7 0 8 8 1\n{} 0 16 8 1\n", MAX_TIME_NS + 6);
    let msg = load_err(&tmp.file("over.trace", text.as_bytes()), &ssdsim, BIG).to_string();
    assert!(msg.contains("over.trace:3: time 4611686018427387910 ns lies more than 2^62 ns"), "{msg}");
}

#[test]
fn requests_beyond_the_capacity_are_counted_per_copy_and_serialized_when_any() {
    let tmp = TempDir::new("beyond");
    // LBA 40 = byte 20480: past a 4-page (16 KiB) device.
    let p = tmp.file("three.spc", b"0,0,4096,W,0.0\n0,8,4096,W,0.1\n0,40,4096,W,0.2\n");
    let cap = 4 * u64::from(PAGE);
    let o = TraceOptions { repeat: 2, ..Default::default() };
    let t = load(&p, &o, cap, PAGE).unwrap();
    assert_eq!(t.requests.iter().map(|r| r.offset).collect::<Vec<_>>(), [0, 4096, 4096, 0, 4096, 4096]);
    assert_eq!(t.info.beyond_capacity, 2, "the third request of each copy");
    let o = TraceOptions { repeat: 2, max_requests: Some(5), ..Default::default() };
    assert_eq!(load(&p, &o, cap, PAGE).unwrap().info.beyond_capacity, 1, "the second copy's third is cut");
    let text = toml::to_string(&t.info).unwrap();
    assert!(text.contains("\nbeyond_capacity = 2\n"), "{text}");
    // Absent when none.
    let text = toml::to_string(&load(&p, &o, BIG, PAGE).unwrap().info).unwrap();
    assert!(!text.contains("beyond_capacity"), "{text}");
}

#[test]
fn notes_say_how_disksim_times_were_read_only_when_guessed_or_rounded() {
    let tmp = TempDir::new("notes");
    let whole = tmp.file("whole.trace", b"1000 0 8 8 1\n2000 0 16 8 0\n");
    let decimal = tmp.file("decimal.trace", b"1.5 0 8 8 1\n2.25 0 16 8 0\n3 0 24 8 0\n");
    let o = |format, time_unit| TraceOptions { format, time_unit, ..Default::default() };
    let note = |p: &std::path::Path, o: TraceOptions| load(p, &o, BIG, PAGE).unwrap().info.detection;
    // Whole-number times without a unit: ns, guessed from the 2 lines sampled.
    for format in [None, Some(Format::Disksim)] {
        let n = note(&whole, o(format, None)).unwrap_or_else(|| panic!("{format:?}: no note"));
        assert!(n.starts_with("times read as ns") && n.contains("in the first 2 lines is a whole number"), "{n}");
        // A unit given: nothing was guessed.
        assert_eq!(note(&whole, o(format, Some(TimeUnit::Ns))), None, "{format:?}");
        assert_eq!(note(&whole, o(format, Some(TimeUnit::Ms))), None, "{format:?}");
    }
    // A decimal point reads as ms; nothing to note.
    assert_eq!(note(&decimal, o(Some(Format::Disksim), None)), None);
    // In ns, 1.5 and 2.25 were rounded (3 was not).
    assert_eq!(
        note(&decimal, o(Some(Format::Disksim), Some(TimeUnit::Ns))).as_deref(),
        Some(
            "2 times have a decimal point but were read as whole ns (rounded); if they are milliseconds, \
             --time-unit ms (trace.time_unit)"
        )
    );
    let one = tmp.file("one.trace", b"1.5 0 8 8 1\n3 0 24 8 0\n");
    let n = note(&one, o(Some(Format::Disksim), Some(TimeUnit::Ns))).unwrap();
    assert!(n.starts_with("1 time has a decimal point but was read as whole ns (rounded)"), "{n}");
}

#[test]
fn a_byte_order_mark_before_the_first_line_is_ignored() {
    let tmp = TempDir::new("bom");
    let want = [rq(0, 0, 8 * 512, 4096), rq(500_000_000, 0, 16 * 512, 4096)];
    let spc = tmp.file("bom.spc", b"\xEF\xBB\xBF0,8,4096,W,0.5\n0,16,4096,W,1.0\n");
    let header = tmp.file("bom.csv", b"\xEF\xBB\xBFTimestamp,Response,IOType,LUN,Offset,Size\n0.5,0,W,0,4096,4096\n");
    for format in [None, Some(Format::Spc)] {
        let t = load(&spc, &TraceOptions { format, ..Default::default() }, BIG, PAGE).unwrap();
        assert_eq!(t.requests, want, "{format:?}");
    }
    let t = load(&header, &TraceOptions::default(), BIG, PAGE).unwrap();
    assert_eq!((t.info.format.as_str(), t.info.records_read), ("systor", 1));
}

#[test]
fn a_bad_time_scale_names_its_option() {
    let p = sample("umass_websearch1_head10.spc");
    for (scale, shown) in [(0.0, "0.0"), (-1.0, "-1.0"), (f64::INFINITY, "inf"), (f64::NAN, "NaN")] {
        let msg = load_err(&p, &TraceOptions { time_scale: scale, ..Default::default() }, BIG).to_string();
        assert_eq!(msg, format!("trace.time_scale must be finite and > 0, got {shown}"));
    }
}

#[test]
fn file_sha256_is_that_of_the_bytes_stored() {
    let tmp = TempDir::new("sha");
    // FIPS 180-2's test vector for "abc".
    let p = tmp.file("abc", b"abc");
    assert_eq!(file_sha256(&p).unwrap(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    let p = sample("alibaba_io_traces_head7.csv");
    assert_eq!(file_sha256(&p).unwrap(), load_sample("alibaba_io_traces_head7.csv").info.sha256);
}
