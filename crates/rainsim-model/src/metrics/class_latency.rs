//! The report's latency summary per request class (percentiles, CDF).

use super::collector::LatencyStats;
use serde::Serialize;

/// Latency summary of one class.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ClassLatency {
    /// Completed requests.
    pub count: u64,
    /// Mean latency (exact).
    pub mean_ns: f64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p99_9_ns: u64,
    /// 99.99th percentile.
    pub p99_99_ns: u64,
    /// 99.999th percentile.
    pub p99_999_ns: u64,
    /// Maximum (exact).
    pub max_ns: u64,
    /// Sum of latencies, the papers' "overall I/O time" (exact).
    pub sum_ns: u128,
    /// CDF points `[latency_ns, fraction ≤]` (empty for `all` and for a
    /// class without requests).
    pub cdf: Vec<(u64, f64)>,
}

impl ClassLatency {
    pub(crate) fn new(s: &LatencyStats, cdf_points: u32, with_cdf: bool) -> ClassLatency {
        let p = s.at_quantiles(&[0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999]);
        let mut cdf: Vec<(u64, f64)> = Vec::new();
        if with_cdf && s.count() > 0 {
            let n = cdf_points.max(2);
            let mut qs: Vec<f64> = (1..n).map(|i| i as f64 / n as f64).collect();
            qs.extend([0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999, 1.0]);
            qs.sort_by(f64::total_cmp);
            qs.dedup();
            for (v, below) in s.at_quantiles(&qs) {
                if cdf.last().is_none_or(|&(last, _)| last != v) {
                    cdf.push((v, below.min(1.0)));
                }
            }
        }
        ClassLatency {
            count: s.count(),
            mean_ns: s.mean(),
            p50_ns: p[0].0,
            p90_ns: p[1].0,
            p99_ns: p[2].0,
            p99_9_ns: p[3].0,
            p99_99_ns: p[4].0,
            p99_999_ns: p[5].0,
            max_ns: s.max,
            sum_ns: s.sum,
            cdf,
        }
    }
}

/// Latency by class.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Latency {
    /// Host reads.
    pub read: ClassLatency,
    /// Host writes.
    pub write: ClassLatency,
    /// All requests.
    pub all: ClassLatency,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::latency_stats::one_to;

    /// 1 to 1,000 ns: each percentile is its rank, by hand; the CDF has the
    /// asked points and the tail's, each value once, with its share below.
    #[test]
    fn percentiles_and_cdf_of_one_to_a_thousand() {
        let c = ClassLatency::new(&one_to(1000), 4, true);
        assert_eq!((c.count, c.mean_ns, c.max_ns, c.sum_ns), (1000, 500.5, 1000, 500_500));
        let p = [c.p50_ns, c.p90_ns, c.p99_ns, c.p99_9_ns, c.p99_99_ns, c.p99_999_ns];
        assert_eq!(p, [500, 900, 990, 999, 1000, 1000]);
        let want = [(250, 0.25), (500, 0.5), (750, 0.75), (990, 0.99), (995, 0.995), (999, 0.999), (1000, 1.0)];
        assert_eq!(c.cdf, want.to_vec());
        // Fewer than two points asked: two (the median and the tail).
        let two = ClassLatency::new(&one_to(1000), 1, true);
        assert_eq!(two.cdf[0], (500, 0.5));
        assert_eq!(two.cdf.len(), 5, "the median, then 990, 995, 999 and 1,000 ns");
    }

    #[test]
    fn no_cdf_for_all_or_an_empty_class() {
        assert!(ClassLatency::new(&one_to(10), 20, false).cdf.is_empty());
        let empty = ClassLatency::new(&LatencyStats::default(), 20, true);
        assert!(empty.cdf.is_empty());
        assert_eq!((empty.count, empty.p99_ns, empty.max_ns), (0, 0, 0));
    }
}
