//! Every real sample parses with exactly the numbers of shared/traces/README.md,
//! and the unit conversions are exact on known records.

use crate::common::*;
use rainsim_trace::parse::{LineParser, Parsed};
use rainsim_trace::{load, stats, Format, Op, Request, TimeUnit, TraceOptions};
use sha2::{Digest, Sha256};

/// One row of the README table. Text values are as printed there; the
/// comparison uses the same number of decimals.
struct Row {
    file: &'static str,
    format: Format,
    unit: Option<TimeUnit>,
    requests: u64,
    /// Write ratio in %.
    write_pct: &'static str,
    /// Mean size in KiB.
    avg_kib: &'static str,
    /// Span, with its unit's size in ns.
    span: (&'static str, f64),
    sha256: &'static str,
}

const S: f64 = 1e9;
const MS: f64 = 1e6;

#[rustfmt::skip]
const ROWS: &[Row] = &[
    Row { file: "msr_hm_0_slice1000.csv", format: Format::Msr, unit: None, requests: 1_000, write_pct: "49.2", avg_kib: "9.46", span: ("127.2", S),
          sha256: "71389b70289e6f03cc84eaeb3b0b537f487b95b36391f137fa369190ee4f8604" },
    Row { file: "msr_rsrch_0_head1000.csv", format: Format::Msr, unit: None, requests: 1_000, write_pct: "91.6", avg_kib: "12.16", span: ("143.4", S),
          sha256: "a047e31cc98188ca5f21bbe5b634dbbe24fb6ccd11942d424dd6e6a110376fef" },
    Row { file: "msr.cut.per_10k.rw_20_80.105.trace", format: Format::MsrWindow, unit: None, requests: 10_000, write_pct: "79.8", avg_kib: "5.35", span: ("242.9", S),
          sha256: "ef43beb542f4497041fc57dfdec199ba1dee96f4d578536cb31c227ee1ab0db5" },
    Row { file: "msr.cut.per_10k.rw_40_60.1370.trace", format: Format::MsrWindow, unit: None, requests: 10_000, write_pct: "59.5", avg_kib: "4.77", span: ("85.9", S),
          sha256: "54e1563bb7718a13fe4ca985c456f9c3e5d113df2db196dacea5c00174fd178a" },
    Row { file: "msr.cut.per_10k.most_thpt_rand_iops.1006.trace", format: Format::MsrWindow, unit: None, requests: 10_000, write_pct: "16.8", avg_kib: "12.71", span: ("1.02", S),
          sha256: "641d91becb6cba535cfbb8d2fb935c60278c7697f2ef05f573c7f8128742e924" },
    Row { file: "umass_websearch1_head10.spc", format: Format::Spc, unit: None, requests: 10, write_pct: "0", avg_kib: "13.6", span: ("0.024", S),
          sha256: "ce0244b0b5f95f0c35573891d1c361fbb37e09d1be9d1759115d19155c6f5f21" },
    Row { file: "umass_websearch1_head.mqsim.trace", format: Format::Disksim, unit: Some(TimeUnit::Ns), requests: 24_783, write_pct: "0.016", avg_kib: "15.06", span: ("60.06", S),
          sha256: "84ebefd565aeb5db3bb807ef3c609e952aeaa59c4e78e132181059d0c5ea74d1" },
    // An SSDsim file is detected as disksim+ns, which reads it identically
    // (checked against an explicit `ssdsim` load below).
    Row { file: "umass_financial1_head10k.ssdsim.ascii", format: Format::Disksim, unit: Some(TimeUnit::Ns), requests: 10_000, write_pct: "59.2", avg_kib: "5.40", span: ("259.6", S),
          sha256: "b2512f2dede60ecbd98573a30882cb0343373c799d0075c5ebef0f59cef22490" },
    Row { file: "systor17_lun0_slice999.csv", format: Format::Systor, unit: None, requests: 999, write_pct: "17.3", avg_kib: "38.24", span: ("2.45", S),
          sha256: "73cf059732229f28c2e6c8f606d5d3a1b3c0199c11daccf587e5410063112e76" },
    Row { file: "alibaba_io_traces_head7.csv", format: Format::Alibaba, unit: None, requests: 7, write_pct: "71", avg_kib: "16.57", span: ("0.76", MS),
          sha256: "dacb29379c7ce035704af7ea48fcfa50603cc3846ef4d140b5dc28f131ffbd54" },
];

fn decimals(text: &str) -> usize {
    text.split_once('.').map_or(0, |(_, f)| f.len())
}

#[test]
fn every_sample_matches_the_readme_table() {
    let dir = traces_dir();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = ROWS.iter().map(|r| r.file.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "every sample file must have a row in this test");

    for row in ROWS {
        let t = load_sample(row.file);
        let s = stats(&t.requests, PAGE);
        let ctx = row.file;
        assert_eq!(t.info.format, row.format.name(), "{ctx}: detected format");
        assert_eq!(t.info.time_unit, row.unit, "{ctx}: time unit");
        assert_eq!(t.info.requests, row.requests, "{ctx}: request count");
        assert_eq!(t.requests.len() as u64, row.requests, "{ctx}");
        assert_eq!(t.info.records_read, row.requests, "{ctx}: records read");
        assert_eq!(t.info.skipped_no_direction, 0, "{ctx}");
        assert_eq!(t.info.sha256, row.sha256, "{ctx}: sha256");
        assert_eq!(t.info.file_bytes, std::fs::metadata(sample(row.file)).unwrap().len(), "{ctx}");
        let wr = format!("{:.*}", decimals(row.write_pct), s.write_ratio * 100.0);
        assert_eq!(wr, row.write_pct, "{ctx}: write ratio %");
        let avg = format!("{:.*}", decimals(row.avg_kib), s.avg_size_bytes / 1024.0);
        assert_eq!(avg, row.avg_kib, "{ctx}: average size KiB");
        // The README rounds spans loosely (the SPC slice's 23.498 ms is
        // printed 0.024 s), so allow one unit of the last printed digit.
        let (text, unit_ns) = row.span;
        let stated: f64 = text.parse().unwrap();
        let got = t.info.span_ns as f64 / unit_ns;
        let tol = 10f64.powi(-(decimals(text) as i32)) + 1e-12;
        assert!((got - stated).abs() <= tol, "{ctx}: span {got} vs README {text}");
        assert_eq!(t.info.span_ns, s.span_ns, "{ctx}");
        assert_eq!(t.requests[0].time_ns, 0, "{ctx}: rebased");
        assert!(t.requests.windows(2).all(|w| w[0].time_ns <= w[1].time_ns), "{ctx}: sorted");
    }
}

#[test]
fn mqsim_write_count_and_alibaba_writes() {
    let s = stats(&load_sample("umass_websearch1_head.mqsim.trace").requests, PAGE);
    assert_eq!(s.writes, 4);
    let s = stats(&load_sample("alibaba_io_traces_head7.csv").requests, PAGE);
    assert_eq!(s.writes, 5);
}

#[test]
fn ssdsim_is_disksim_in_ns() {
    let auto = load_sample("umass_financial1_head10k.ssdsim.ascii");
    let explicit = load_with(
        "umass_financial1_head10k.ssdsim.ascii",
        &TraceOptions { format: Some(Format::Ssdsim), ..Default::default() },
    );
    assert_eq!(explicit.info.format, "ssdsim");
    assert_eq!(explicit.info.time_unit, None);
    assert_eq!(auto.requests, explicit.requests);
    // CRLF endings and the unterminated last line: `... 146550 1 0`.
    let last = explicit.requests.last().unwrap();
    assert_eq!((last.offset, last.size, last.device, last.op), (146_550 * 512, 512, 8, Op::Write));
    assert_eq!(last.time_ns, 259_601_203_125);
    // First record `0 0 303567 7 0` = SPC `0,303567,3584,w,0.000000`.
    let first = explicit.requests[0];
    assert_eq!(first, Request { time_ns: 0, offset: 303_567 * 512, size: 3584, device: 0, op: Op::Write });
}

#[test]
fn spc_and_mqsim_agree_on_the_same_requests() {
    let spc = load_sample("umass_websearch1_head10.spc");
    let mq = load_sample("umass_websearch1_head.mqsim.trace");
    assert_eq!(spc.requests[0], Request { time_ns: 0, offset: 657_728 * 512, size: 8192, device: 0, op: Op::Read });
    assert_eq!(mq.requests[0], spc.requests[0]);
    assert_eq!(&mq.requests[..10], &spc.requests[..], "first 10 requests, rebased");
    // Absolute conversions of the first line of each file.
    let mut p = LineParser::new(Format::Spc, None).unwrap();
    let mut q = LineParser::new(Format::Disksim, Some(TimeUnit::Ns)).unwrap();
    let a = p.parse(b"0,657728,8192,R,0.011413").unwrap();
    let b = q.parse(b"11413000 0 657728 16 1").unwrap();
    let want = Request { time_ns: 11_413_000, offset: 336_756_736, size: 8192, device: 0, op: Op::Read };
    assert_eq!((a, b), (Parsed::Request(want), Parsed::Request(want)));
    // The last SPC line has no trailing newline: `0,32234576,8192,R,0.034911`.
    let last = spc.requests.last().unwrap();
    assert_eq!((last.offset, last.time_ns), (32_234_576 * 512, 34_911_000 - 11_413_000));
}

#[test]
fn msr_filetime_ticks_are_100_ns() {
    let t = load_sample("msr_hm_0_slice1000.csv");
    // 128166385295514663,hm,0,Write,9056014336,2048,2833
    // 128166385295514878,hm,0,Write,11855351808,512,2617
    assert_eq!(t.requests[0], Request { time_ns: 0, offset: 9_056_014_336, size: 2048, device: 0, op: Op::Write });
    assert_eq!(t.requests[1].time_ns, 21_500);
    assert_eq!((t.requests[1].offset, t.requests[1].size), (11_855_351_808, 512));
    let mut p = LineParser::new(Format::Msr, None).unwrap();
    let Parsed::Request(r) = p.parse(b"128166385295514663,hm,0,Write,9056014336,2048,2833").unwrap() else {
        panic!("not a request")
    };
    assert_eq!(r.time_ns, 12_816_638_529_551_466_300);
    let Parsed::Request(r) = p.parse(b"128166372003061629,rsrch,0,Read,7014609920,24576,41286").unwrap() else {
        panic!("not a request")
    };
    assert_eq!((r.op, r.offset, r.size), (Op::Read, 7_014_609_920, 24_576));
}

/// Unix-seconds text with 9 decimals to ns, by string arithmetic only.
fn systor_ns(text: &str) -> u64 {
    let (s, f) = text.split_once('.').unwrap();
    assert_eq!(f.len(), 9);
    s.parse::<u64>().unwrap() * 1_000_000_000 + f.parse::<u64>().unwrap()
}

#[test]
fn systor_fractional_seconds_are_exact_and_rows_sorted() {
    let t = load_sample("systor17_lun0_slice999.csv");
    assert_eq!(t.info.unsorted_inversions, 243);
    let text = std::fs::read_to_string(sample("systor17_lun0_slice999.csv")).unwrap();
    let min = text.lines().skip(1).map(|l| systor_ns(l.split(',').next().unwrap())).min().unwrap();
    // Line 2: 1456095145.133076000,0.000806000,R,0,899056122368,131072
    let r = t.requests.iter().find(|r| r.offset == 899_056_122_368).unwrap();
    assert_eq!(r.time_ns, systor_ns("1456095145.133076000") - min);
    assert_eq!((r.size, r.op, r.device), (131_072, Op::Read, 0));
    // Every row's time is exact: multiset of rebased times equals the text's.
    let mut want: Vec<u64> = text.lines().skip(1).map(|l| systor_ns(l.split(',').next().unwrap()) - min).collect();
    want.sort_unstable();
    let got: Vec<u64> = t.requests.iter().map(|r| r.time_ns).collect();
    assert_eq!(got, want);
    let mut p = LineParser::new(Format::Systor, None).unwrap();
    let Parsed::Request(r) = p.parse(b"1456095145.133076000,0.000806000,R,0,899056122368,131072").unwrap() else {
        panic!("not a request")
    };
    assert_eq!(r.time_ns, 1_456_095_145_133_076_000);
    // Going through f64 seconds would be 32 ns off here.
    let via_f64 = ("1456095145.133076000".parse::<f64>().unwrap() * 1e9) as u64;
    assert_ne!(via_f64, r.time_ns);
}

#[test]
fn alibaba_microseconds() {
    let t = load_sample("alibaba_io_traces_head7.csv");
    // 0,R,126703661056,4096,1577808000000046 / 1,W,19496058880,77824,1577808000000426
    assert_eq!(t.requests[0], Request { time_ns: 0, offset: 126_703_661_056, size: 4096, device: 0, op: Op::Read });
    assert_eq!(
        t.requests[1],
        Request { time_ns: 380_000, offset: 19_496_058_880, size: 77_824, device: 1, op: Op::Write }
    );
    let mut p = LineParser::new(Format::Alibaba, None).unwrap();
    let Parsed::Request(r) = p.parse(b"0,R,126703661056,4096,1577808000000046").unwrap() else { panic!() };
    assert_eq!(r.time_ns, 1_577_808_000_000_046_000);
}

#[test]
fn msr_window_milliseconds() {
    let t = load_sample("msr.cut.per_10k.rw_20_80.105.trace");
    // 0.000 0 200626176 4096 0 / 223.412 0 3159347200 36864 0
    assert_eq!(t.requests[0], Request { time_ns: 0, offset: 200_626_176, size: 4096, device: 0, op: Op::Write });
    assert_eq!(
        t.requests[1],
        Request { time_ns: 223_412_000, offset: 3_159_347_200, size: 36_864, device: 0, op: Op::Write }
    );
    let t = load_sample("msr.cut.per_10k.rw_40_60.1370.trace");
    assert_eq!(t.requests[2].op, Op::Read); // `22.810 0 2205343744 4096 1`
    assert_eq!(t.requests[2].time_ns, 22_810_000);
}

#[test]
fn gzip_is_sniffed_by_magic_bytes() {
    use flate2::{write::GzEncoder, Compression};
    use std::io::Write;
    let tmp = TempDir::new("gzip");
    for name in ["systor17_lun0_slice999.csv", "umass_financial1_head10k.ssdsim.ascii", "umass_websearch1_head10.spc"] {
        let plain = std::fs::read(sample(name)).unwrap();
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(&plain).unwrap();
        let gz = enc.finish().unwrap();
        // No `.gz` extension: detection must come from the magic bytes.
        let p = tmp.file(name, &gz);
        let a = load(&p, &TraceOptions::default(), BIG, PAGE).unwrap();
        let b = load_sample(name);
        assert_eq!(a.requests, b.requests, "{name}");
        assert_eq!(a.info.format, b.info.format);
        assert_eq!(a.info.unsorted_inversions, b.info.unsorted_inversions);
        assert_eq!(a.info.file_bytes, gz.len() as u64);
        let want: String = Sha256::digest(&gz).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(a.info.sha256, want, "hash of the file as stored");
        let q = tmp.file(&format!("{name}.gz"), &gz);
        assert_eq!(load(&q, &TraceOptions::default(), BIG, PAGE).unwrap().requests, b.requests);
    }
}

#[test]
fn device_filter_counts_and_keeps_only_that_device() {
    let all = load_sample("umass_websearch1_head.mqsim.trace");
    let t = load_with("umass_websearch1_head.mqsim.trace", &TraceOptions { device: Some(2), ..Default::default() });
    assert!(t.requests.iter().all(|r| r.device == 2));
    assert_eq!(t.info.requests + t.info.filtered_out_device, all.info.requests);
    assert_eq!(t.requests[0].time_ns, 0, "rebased after the filter");
    let n2 = all.requests.iter().filter(|r| r.device == 2).count() as u64;
    assert_eq!(t.info.requests, n2);
}

#[test]
fn info_serializes() {
    let t = load_sample("umass_websearch1_head.mqsim.trace");
    let text = toml::to_string(&t.info).unwrap();
    assert!(text.contains("format = \"disksim\"") && text.contains("time_unit = \"ns\""), "{text}");
}
