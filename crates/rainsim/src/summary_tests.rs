//! Tests of the summary's text, on hand-made values: each expected string is
//! worked out from the input and the documented units.

use super::*;
use rainsim_model::metrics::fault_report::{FaultReport, PhaseLatency, PhaseReport, SecondFailure};
use std::sync::OnceLock;

/// The report of a small run, for the fields a test does not set itself.
fn base() -> Report {
    static BASE: OnceLock<Report> = OnceLock::new();
    BASE.get_or_init(|| {
        let spec = crate::RunSpec { sets: vec!["workload.requests=100".into()], ..Default::default() };
        crate::run(&spec, false).expect("a small run")
    })
    .clone()
}

/// A line's words after its first `skip` characters.
fn words(line: &str, skip: usize) -> Vec<&str> {
    line[skip..].split_whitespace().collect()
}

fn line_starting<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines().find(|l| l.trim_start().starts_with(start)).unwrap_or_else(|| panic!("no `{start}` line:\n{text}"))
}

/// Units go s, ms (3 decimals), µs (1), ns (0); a unit is left where the
/// smaller one would round up to 1000.
#[test]
fn durations_take_the_unit_that_fits() {
    let cases = [
        (0.0, "0 ns"),
        (999.0, "999 ns"),
        (999.4, "999 ns"),
        (999.5, "1.0 µs"),
        (1e3, "1.0 µs"),
        (1_500.0, "1.5 µs"),
        (999_949.0, "999.9 µs"),
        (999_950.0, "1.000 ms"),
        (999_999.0, "1.000 ms"),
        (1e6, "1.000 ms"),
        (2_500_000.0, "2.500 ms"),
        (999_999_000.0, "999.999 ms"),
        (999_999_999.0, "1.000 s"),
        (1e9, "1.000 s"),
        (3.6e12, "3600.000 s"),
    ];
    for (v, want) in cases {
        assert_eq!(ns(v), want, "{v} ns");
    }
}

#[test]
fn lifetimes_take_the_unit_that_fits() {
    const DAY: f64 = 86_400.0;
    let cases = [
        (None, "-"),
        (Some(59.0), "59.0 s"),
        (Some(3_599.9), "3599.9 s"),
        (Some(3_599.95), "1.0 h"),
        (Some(3_600.0), "1.0 h"),
        (Some(23.9 * 3_600.0), "23.9 h"),
        (Some(86_399.0), "1.0 days"),
        (Some(7_200.0), "2.0 h"),
        (Some(DAY), "1.0 days"),
        (Some(100_000.0), "1.2 days"),
        (Some(364.0 * DAY), "364.0 days"),
        (Some(365.25 * DAY), "1.0 years"),
        (Some(2.0 * 365.25 * DAY), "2.0 years"),
    ];
    for (s, want) in cases {
        assert_eq!(lifetime(s), want, "{s:?} s");
    }
}

/// Percentile q leaves 10 samples beyond it from 10 / (1 − q) samples on:
/// 1,000 for p99, 10,000 for p99.9, 100,000 for p99.99.
#[test]
fn a_percentile_is_marked_below_ten_samples_beyond_it() {
    assert_eq!(pct(2_000, 0.99, 0), "-", "no samples, no value");
    for (q, enough) in [(0.99, 1_000), (0.999, 10_000), (0.9999, 100_000)] {
        assert_eq!(pct(2_000, q, 1), "2.0 µs*", "p{q} of 1");
        assert_eq!(pct(2_000, q, enough - 1), "2.0 µs*", "p{q} of {}", enough - 1);
        assert_eq!(pct(2_000, q, enough), "2.0 µs", "p{q} of {enough}");
        assert_eq!(pct(2_000, q, enough + 1), "2.0 µs", "p{q} of {}", enough + 1);
    }
}

/// A class of `count` samples with a value in each unit.
fn class(count: u64) -> ClassLatency {
    ClassLatency {
        count,
        mean_ns: 1_500.0,
        p50_ns: 1_000,
        p90_ns: 1_200,
        p99_ns: 2_000_000,
        p99_9_ns: 3_000_000_000,
        p99_99_ns: 4_000_000_000,
        p99_999_ns: 4_500_000_000,
        max_ns: 5_000_000_000,
        sum_ns: 7_000_000_000_000,
        cdf: vec![],
    }
}

fn table_of(read: u64, write: u64) -> String {
    let l = rainsim_model::metrics::class_latency::Latency {
        read: class(read),
        write: class(write),
        all: class(read + write),
    };
    let mut o = String::new();
    latency_table(&mut o, &l);
    o
}

/// A row: count, mean, p50, p99, p99.9, p99.99, max, sum, each in its unit;
/// 99,999 samples leave fewer than 10 beyond p99.99 only.
#[test]
fn a_latency_row_shows_each_column_in_its_unit() {
    let t = table_of(99_999, 100_000);
    let read = line_starting(&t, "read ");
    let want = ["read", "99999", "1.5", "µs", "1.0", "µs", "2.000", "ms", "3.000", "s", "4.000", "s*", "5.000", "s"];
    assert_eq!(words(read, 0)[..want.len()], want, "{t}");
    assert_eq!(words(read, 0)[want.len()..], ["7000.000", "s"], "sum of 7,000 s:\n{t}");
    let write = line_starting(&t, "write ");
    assert!(!write.contains('*') && words(write, 0)[1] == "100000", "{t}");
    assert_eq!(words(line_starting(&t, "all "), 0)[1], "199999", "{t}");
    let header = line_starting(&t, "latency ");
    assert_eq!(words(header, 0), ["latency", "count", "mean", "p50", "p99", "p99.9", "p99.99", "max", "sum"]);
}

/// The footnote comes with a marked percentile and only then; a class
/// without samples shows "-", not a mark.
#[test]
fn the_footnote_comes_with_a_mark() {
    for (read, write, marked) in [
        (100_000, 100_000, false),
        (0, 100_000, false),
        (0, 0, false),
        (99_999, 100_000, true),
        (100_000, 50, true),
        (1, 100_000, true),
    ] {
        let t = table_of(read, write);
        assert_eq!(t.contains('*'), marked, "{read} reads, {write} writes:\n{t}");
        assert_eq!(t.contains(THIN_NOTE), marked, "{read} reads, {write} writes:\n{t}");
    }
    assert_eq!(words(line_starting(&table_of(0, 0), "read "), 0)[6..9], ["-", "-", "-"]);
}

fn trace(format: &str, span_ns: u64) -> serde_json::Value {
    serde_json::json!({ "format": format, "span_ns": span_ns })
}

/// `scripts/verdict.py`'s rule: busiest channel busy ≥ 95 %, or the run
/// longer than 1.1 × the trace's span; the advice depends on the source.
#[test]
fn saturation_by_busy_time_or_by_span() {
    let busy = saturation_line(Some(0.95), 1_000, &trace("synthetic", 1_000)).expect("95 % busy");
    assert!(busy.starts_with("saturated: its busiest channel was busy 95.0 % of the run;"), "{busy}");
    assert!(busy.ends_with("(a larger workload.mean_interarrival_ns slows the arrivals)"), "{busy}");
    assert_eq!(saturation_line(Some(0.94), 1_000, &trace("synthetic", 1_000)), None);

    let long = saturation_line(None, 2_500, &trace("msr", 1_000)).expect("run 2.5 × the span");
    assert!(long.starts_with("saturated: the run went on 150 % of the trace's span past its last arrival;"), "{long}");
    assert!(long.ends_with("(trace.time_scale above 1 slows the arrivals)"), "{long}");
    assert!(saturation_line(None, 1_101, &trace("msr", 1_000)).is_some(), "just over 10 % past");
    for sim in [1_000, 1_050, 1_100] {
        assert_eq!(saturation_line(Some(0.5), sim, &trace("msr", 1_000)), None, "{sim} ns of a 1,000 ns trace");
    }
    // Without a span there is nothing to measure the run against.
    assert_eq!(saturation_line(None, 5_000, &trace("msr", 0)), None);
    assert_eq!(saturation_line(None, 5_000, &serde_json::json!({ "format": "msr" })), None);
}

/// The run's saturation goes by its busiest channel.
#[test]
fn a_summary_says_saturated_by_its_busiest_channel() {
    let mut r = base();
    r.trace = trace("synthetic", 1_000_000);
    r.sim.span_ns = 1_000_000;
    for c in &mut r.channels {
        c.busy_fraction = 0.2;
    }
    assert!(!render(&r).contains("saturated"), "{}", render(&r));
    r.channels[1].busy_fraction = 0.97;
    let text = render(&r);
    assert!(text.contains("\nsaturated: its busiest channel was busy 97.0 % of the run;"), "{text}");
}

#[test]
fn the_queue_depth_note_comes_with_held_requests() {
    let mut r = base();
    r.host.held_by_queue_depth = 0;
    assert!(!render(&r).contains("queue-depth"), "{}", render(&r));
    r.host.held_by_queue_depth = 3;
    assert!(render(&r).contains("\nnote: 3 requests waited for the host queue-depth cap\n"), "{}", render(&r));
    r.host.held_by_queue_depth = 1;
    assert!(render(&r).contains("\nnote: 1 request waited for the host queue-depth cap\n"), "{}", render(&r));
}

/// Every count of the device summary agrees with its noun: 1 in the
/// singular, 2 in the plural.
#[test]
fn the_summary_counts_in_words_that_agree() {
    let text = |n: u64| {
        let mut r = base();
        r.rotating_gc = Some(rainsim_model::metrics::report::RotatingGcReport { deferred: n, forced_overlaps: n });
        r.balance.read_tail.channels = n as u32;
        r.gc.count = n;
        let p = &mut r.precondition;
        (p.invalid_pages, p.free_blocks_min, p.stripes_mapped_for_trace) = (n, n as u32, n);
        r.warmup = Some(rainsim_model::warmup::WarmupReport {
            workload: "trace".into(),
            device_writes: n as f64,
            host_pages: n,
            gc_count: n,
            ..Default::default()
        });
        let conflicts = rainsim_model::metrics::pv_report::ConflictReport {
            reads: n,
            writes: n,
            read_conflicts: 0,
            write_conflicts: 0,
            ratio: 0.0,
        };
        r.conflicts = Some(conflicts);
        render(&r)
    };
    let (one, two) = (text(1), text(2));
    let lines = [
        (
            "  rotating GC: ",
            "1 GC deferred for a stripe partner's GC, 1 forced overlap",
            "2 GCs deferred",
            "2 forced overlaps",
        ),
        ("  read p99.9 over ", "over 1 channel:", "over 2 channels:", ""),
        ("GC: ", "GC: 1 collection,", "GC: 2 collections,", ""),
        ("aged state ", "/ 1 invalid page, victims", "/ 2 invalid pages, victims", ""),
        ("aged state ", "1 free block per plane at least", "2 free blocks per plane", ""),
        ("aged state ", "1 stripe mapped for the trace", "2 stripes mapped for the trace", ""),
        (
            "warm-up ",
            "(trace, 1 device write): 1 host page, 1 GC,",
            "(trace, 2 device writes): 2 host pages, 2 GCs,",
            "",
        ),
        ("conflicts ", "0 of 1 read, 0 of 1 write,", "0 of 2 reads, 0 of 2 writes,", ""),
    ];
    for (start, singular, plural, also) in lines {
        let (l1, l2) = (line_starting(&one, start.trim_start()), line_starting(&two, start.trim_start()));
        assert!(l1.contains(singular), "`{singular}` in {l1}");
        assert!(l2.contains(plural) && l2.contains(also), "`{plural}` in {l2}");
    }
}

fn phase(count: u64, mean_us: f64, p99_9_us: Option<f64>) -> PhaseLatency {
    PhaseLatency { count, mean_us, p99_us: None, p99_9_us, p99_99_us: None }
}

/// Die 5 of channel 1 fails at 2 ms, is replaced at 3 ms and rebuilt at
/// 1.503 s; the phases' latencies are in µs. (The array summary's tests
/// use it for a member's fault.)
pub(crate) fn fault() -> FaultReport {
    let quiet = PhaseReport { read: phase(0, 0.0, None), write: phase(0, 0.0, None) };
    FaultReport {
        channel: 1,
        die: Some(5),
        failed_at_ns: 2_000_000,
        replaced_at_ns: Some(3_000_000),
        rebuilt_at_ns: Some(1_503_000_000),
        chunks_lost_at_failure: 11,
        chunks_lost_after_failure: 12,
        chunks_lost_at_end: 13,
        reads_reconstructed: 14,
        writes_absorbed: 15,
        parity_skipped: 16,
        pages_rebuilt: 17,
        rewritten_by_host: 18,
        before: PhaseReport { read: phase(20_000, 2.5, Some(1_500.0)), write: phase(5, 40.0, None) },
        during: PhaseReport { read: phase(30, 7.5, None), write: phase(40, 12.0, None) },
        after: quiet,
        second: None,
    }
}

fn render_fault(f: FaultReport) -> String {
    let mut r = base();
    r.fault = Some(f);
    render(&r)
}

#[test]
fn a_failure_says_when_what_and_how_long() {
    let text = render_fault(fault());
    let line = line_starting(&text, "fault: ");
    assert!(
        line.starts_with("fault: die 5 (channel 1) failed at 2.000 ms (replaced at 3.000 ms, rebuilt at 1.503 s, 1.500 s later): chunks lost 11 at the failure, 12 after, 13 at the end; 17 pages rebuilt"),
        "{line}"
    );
    assert!(line.contains("18 rewritten by the host; 14 host reads reconstructed, 15 writes"), "{line}");
    assert!(line.ends_with("16 parity updates skipped"), "{line}");
    // µs in the report, the summary's own units on screen.
    assert_eq!(
        words(line_starting(&text, "before "), 0),
        ["before", "20000", "2.5", "µs", "1.500", "ms", "5", "40.0", "µs", "-"]
    );
    assert_eq!(words(line_starting(&text, "during "), 0), ["during", "30", "7.5", "µs", "-", "40", "12.0", "µs", "-"]);
    assert_eq!(words(line_starting(&text, "after "), 0), ["after", "0", "0", "ns", "-", "0", "0", "ns", "-"]);
    assert!(!text.contains("second failure"), "{text}");

    let f = FaultReport { die: None, rebuilt_at_ns: None, ..fault() };
    let text = render_fault(f);
    assert!(
        text.contains("\nfault: channel 1 failed at 2.000 ms (replaced at 3.000 ms, rebuild unfinished at the end)"),
        "{text}"
    );
    let f = FaultReport { replaced_at_ns: None, rebuilt_at_ns: None, ..fault() };
    assert!(render_fault(f).contains("failed at 2.000 ms (no replacement):"));
    // One of each: the singular.
    let one =
        FaultReport { pages_rebuilt: 1, reads_reconstructed: 1, writes_absorbed: 1, parity_skipped: 1, ..fault() };
    let text = render_fault(one);
    let line = line_starting(&text, "fault: ");
    assert!(line.contains("13 at the end; 1 page rebuilt (their programs"), "{line}");
    assert!(line.contains("by the host; 1 host read reconstructed, 1 write kept in parity only"), "{line}");
    assert!(line.ends_with(", 1 parity update skipped"), "{line}");
}

#[test]
fn a_second_failure_says_its_outcome() {
    let second = |outcome: &str| SecondFailure {
        channel: 6,
        at_ns: 4_000_000,
        outcome: outcome.into(),
        chunks_lost: 3,
        stripes_lost: 2,
        first_chunks: vec![],
    };
    let cases = [
        ("data_loss", "before the rebuild ended: 3 chunks in 2 stripes lost, the run stopped"),
        ("no_shared_stripe", "before the rebuild ended, sharing no stripe with it: nothing lost, but two failed"),
        ("rebuilt_first", "after the rebuild ended: nothing lost"),
    ];
    let one = SecondFailure { chunks_lost: 1, stripes_lost: 1, ..second("data_loss") };
    let text = render_fault(FaultReport { second: Some(one), ..fault() });
    assert!(text.contains("before the rebuild ended: 1 chunk in 1 stripe lost, the run stopped"), "{text}");
    for (outcome, want) in cases {
        let text = render_fault(FaultReport { second: Some(second(outcome)), ..fault() });
        assert!(text.contains(&format!("\n  second failure: channel 6 at 4.000 ms {want}")), "{outcome}:\n{text}");
    }
}

/// A run without a failure gets "-" in the failure's rows; without any
/// failure there are no such rows.
#[test]
fn side_by_side_shows_a_failure_where_a_run_has_one() {
    let with = Report { fault: Some(fault()), ..base() };
    let runs = [("failed".to_string(), with), ("whole".to_string(), base())];
    let text = side_by_side(&runs);
    let row = |name: &str| words(line_starting(&text, name), name.len());
    assert_eq!(row("fault: failed at"), ["2.000", "ms", "-"], "{text}");
    assert_eq!(row("fault: rebuild time"), ["1.500", "s", "-"], "{text}");
    assert_eq!(row("fault: reads reconstr."), ["14", "-"], "{text}");
    assert_eq!(row("fault: lost at end"), ["13", "-"], "{text}");
    assert_eq!(row("fault: read mean dur."), ["7.5", "µs", "-"], "{text}");
    assert_eq!(row("fault: write mean dur."), ["12.0", "µs", "-"], "{text}");
    assert_eq!(words(text.lines().next().unwrap_or(""), 0), ["metric", "failed", "whole"]);

    let unfinished = Report { fault: Some(FaultReport { rebuilt_at_ns: None, ..fault() }), ..base() };
    let text = side_by_side(&[("u".to_string(), unfinished)]);
    assert_eq!(words(line_starting(&text, "fault: rebuild time"), 19), ["unfinished"]);
    let plain = side_by_side(&[("a".to_string(), base()), ("b".to_string(), base())]);
    assert!(!plain.contains("fault:"), "{plain}");
}
