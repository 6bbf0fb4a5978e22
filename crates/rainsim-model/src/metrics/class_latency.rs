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
        let q = |p: f64| if s.count() == 0 { 0 } else { s.hist.value_at_quantile(p).min(s.max) };
        let mut cdf = Vec::new();
        if with_cdf && s.count() > 0 {
            let n = cdf_points.max(2);
            let mut qs: Vec<f64> = (1..n).map(|i| i as f64 / n as f64).collect();
            qs.extend([0.99, 0.995, 0.999, 0.9995, 0.9999, 0.99999, 1.0]);
            qs.sort_by(f64::total_cmp);
            qs.dedup();
            let mut last = None;
            for p in qs {
                let v = q(p);
                if last != Some(v) {
                    cdf.push((v, s.hist.quantile_below(v).min(1.0)));
                    last = Some(v);
                }
            }
        }
        ClassLatency {
            count: s.count(),
            mean_ns: s.mean(),
            p50_ns: q(0.5),
            p90_ns: q(0.9),
            p99_ns: q(0.99),
            p99_9_ns: q(0.999),
            p99_99_ns: q(0.9999),
            p99_999_ns: q(0.99999),
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
