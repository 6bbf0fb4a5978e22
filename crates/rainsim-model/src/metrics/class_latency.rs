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
