//! The report's percentiles against nearest-rank quantiles of a known
//! latency multiset, within the histogram's 3 significant digits.

use crate::{report_inputs, tiny};
use rainsim_model::flash::address::Layout;
use rainsim_model::flash::op::Origin;
use rainsim_model::ftl::Ftl;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::metrics::observer::Observer;
use rainsim_model::metrics::report::ClassLatency;
use rainsim_model::Report;
use rainsim_trace::Op;

/// Odd and not a multiple of 5, so that no p · N below is an integer.
const N: u64 = 123_457;

/// A heavy-tailed set: the r-th smallest (r = 1..=N) is 1 µs · N / (N − r + 1),
/// so the q quantile is about 1 µs / (1 − q) and every reported percentile
/// is at least 10 % from its neighbours.
fn sample(r: u64, scale: u64) -> u64 {
    scale * 1_000 * N / (N - r + 1)
}

/// Nearest rank: the ⌈p · n⌉-th smallest, p = num / den.
fn nearest_rank(sorted: &[u64], num: u64, den: u64) -> u64 {
    let n = sorted.len() as u64;
    let rank = (num * n).div_ceil(den).max(1);
    sorted[rank as usize - 1]
}

/// `got` is `want` to 3 significant digits (the histogram reports the top of
/// the bucket holding `want`).
fn close(got: u64, want: u64, what: &str) {
    assert!(got >= want && got - want <= want / 1000, "{what}: reported {got}, nearest rank {want}");
}

const PS: [(u64, u64, &str); 6] = [
    (1, 2, "p50"),
    (9, 10, "p90"),
    (99, 100, "p99"),
    (999, 1000, "p99.9"),
    (9999, 10_000, "p99.99"),
    (99_999, 100_000, "p99.999"),
];

fn check_class(c: &ClassLatency, mut xs: Vec<u64>, what: &str) {
    xs.sort();
    let got = [c.p50_ns, c.p90_ns, c.p99_ns, c.p99_9_ns, c.p99_99_ns, c.p99_999_ns];
    for ((num, den, name), g) in PS.iter().zip(got) {
        close(g, nearest_rank(&xs, *num, *den), &format!("{what} {name}"));
    }
    assert_eq!((c.count, c.max_ns), (xs.len() as u64, *xs.last().unwrap()), "{what}");
}

#[test]
fn report_percentiles_are_nearest_rank_quantiles() {
    let mut col = Collector::new(3);
    // Reads: the set; writes: the set at twice the scale, recorded in reverse.
    let reads: Vec<u64> = (1..=N).map(|r| sample(r, 1)).collect();
    let writes: Vec<u64> = (1..=N).rev().map(|r| sample(r, 2)).collect();
    for &x in &reads {
        col.request_done(0, Op::Read, 0, x, 4096);
    }
    for &x in &writes {
        col.request_done(0, Op::Write, 5, 5 + x, 4096);
    }
    // Channel 0 serves the reads' flash reads, channel 1 the set at 3× (its
    // rebuild reads, which count too), channel 2 none.
    for &x in &reads {
        col.op_done(0, Origin::HostRead, 0, x);
    }
    for r in 1..=N {
        col.op_done(1, Origin::DegradedRead, 0, sample(r, 3));
        col.op_done(2, Origin::PreRead, 0, sample(r, 5));
    }
    let cfg = tiny(3, 1, 1, 8, 4, None);
    let ftl = Ftl::new(Layout::new(&cfg.geometry), 16, 0.1, 0);
    let rep = Report::build(&col, &ftl, report_inputs(1));
    check_class(&rep.latency.read, reads.clone(), "read");
    check_class(&rep.latency.write, writes.clone(), "write");
    check_class(&rep.latency.all, [reads.clone(), writes].concat(), "all");

    // Per channel: p99, p99.9, p99.99 of the flash reads serving host reads.
    let tails = |scale: u64| {
        let xs: Vec<u64> = (1..=N).map(|r| sample(r, scale)).collect();
        [(99, 100), (999, 1000), (9999, 10_000)].map(|(num, den)| nearest_rank(&xs, num, den))
    };
    for (ch, want) in [(0, tails(1)), (1, tails(3))] {
        let c = &rep.channels[ch];
        assert_eq!(c.reads, N, "channel {ch}");
        for (got, w) in [c.read_p99_ns, c.read_p99_9_ns, c.read_p99_99_ns].into_iter().zip(want) {
            close(got, w, &format!("channel {ch} read tail"));
        }
    }
    let c2 = &rep.channels[2];
    assert_eq!(
        (c2.reads, c2.read_p99_ns, c2.read_p99_9_ns, c2.read_p99_99_ns),
        (0, 0, 0, 0),
        "pre-reads are not host reads"
    );
    // The spread over the two channels that served reads.
    let t = &rep.balance.read_tail;
    assert_eq!(t.channels, 2);
    assert_eq!((t.p99.min_ns, t.p99.max_ns), (rep.channels[0].read_p99_ns, rep.channels[1].read_p99_ns));
    assert_eq!((t.p99_99.min_ns, t.p99_99.max_ns), (rep.channels[0].read_p99_99_ns, rep.channels[1].read_p99_99_ns));
}

/// Latencies past the histograms' 2^45 ns bound: the maximum and mean stay
/// exact, percentiles stop at the bound, and the report says so in a note
/// (none when every latency fits).
#[test]
fn latencies_past_the_histogram_bound_are_noted() {
    use rainsim_model::metrics::collector::HIST_MAX_NS;
    let cfg = tiny(3, 1, 1, 8, 4, None);
    let ftl = Ftl::new(Layout::new(&cfg.geometry), 16, 0.1, 0);
    let mut col = Collector::new(3);
    col.request_done(0, Op::Write, 0, HIST_MAX_NS, 4096);
    assert!(Report::build(&col, &ftl, report_inputs(1)).notes.is_empty(), "at the bound: no note");
    let long = 110_731 * 1_000_000_000; // 30.8 h
    col.request_done(0, Op::Write, 0, long, 4096);
    let rep = Report::build(&col, &ftl, report_inputs(1));
    let w = &rep.latency.write;
    assert_eq!((w.count, w.max_ns), (2, long));
    assert_eq!(w.mean_ns, (HIST_MAX_NS + long) as f64 / 2.0);
    assert!(w.p99_ns <= HIST_MAX_NS + HIST_MAX_NS / 1000, "p99 {} stops at the bound", w.p99_ns);
    assert_eq!(rep.notes.len(), 1, "{:?}", rep.notes);
    assert!(rep.notes[0].contains("110731 s") && rep.notes[0].contains("2^45 ns"), "{}", rep.notes[0]);
}
