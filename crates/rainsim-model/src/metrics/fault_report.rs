//! The report's `fault` section: a channel failure, its rebuild, and host
//! latency before, during and after it.

use super::collector::LatencyStats;
use super::latency_stats::tail_samples;
use serde::Serialize;

/// Latency of one request class in one phase of a failure. A percentile is
/// given only with enough samples to hold 10 beyond it (null otherwise).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PhaseLatency {
    /// Requests completed in the phase.
    pub count: u64,
    /// Mean, µs.
    pub mean_us: f64,
    /// 99th percentile, µs.
    pub p99_us: Option<f64>,
    /// 99.9th percentile, µs.
    pub p99_9_us: Option<f64>,
    /// 99.99th percentile, µs.
    pub p99_99_us: Option<f64>,
}

impl PhaseLatency {
    /// From the phase's statistics.
    pub fn of(s: &LatencyStats) -> Self {
        let n = s.count();
        let q = |p: f64| (n >= tail_samples(p)).then(|| s.quantile(p) as f64 / 1e3);
        PhaseLatency { count: n, mean_us: s.mean() / 1e3, p99_us: q(0.99), p99_9_us: q(0.999), p99_99_us: q(0.9999) }
    }
}

/// Read and write latency of one phase.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PhaseReport {
    /// Host reads.
    pub read: PhaseLatency,
    /// Host writes.
    pub write: PhaseLatency,
}

impl PhaseReport {
    /// From a phase's statistics of reads and writes.
    pub fn of(phase: &[LatencyStats; 2]) -> Self {
        PhaseReport { read: PhaseLatency::of(&phase[0]), write: PhaseLatency::of(&phase[1]) }
    }
}

/// What a channel failure did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FaultReport {
    /// The failed channel (the failed die's channel when a die failed).
    pub channel: u32,
    /// The failed die (global index), when only a die failed.
    pub die: Option<u32>,
    /// When it failed, ns.
    pub failed_at_ns: u64,
    /// When the replacement went in (null: never).
    pub replaced_at_ns: Option<u64>,
    /// When the rebuild ended (null: it did not).
    pub rebuilt_at_ns: Option<u64>,
    /// Chunks the channel held when it failed.
    pub chunks_lost_at_failure: u64,
    /// Chunks that became lost after the failure (absorbed writes, skipped
    /// parity updates, programs that drained onto the failed channel).
    pub chunks_lost_after_failure: u64,
    /// Chunks still lost at the end.
    pub chunks_lost_at_end: u64,
    /// Host reads of lost chunks served by reconstruction.
    pub reads_reconstructed: u64,
    /// Host writes of lost chunks kept only in parity.
    pub writes_absorbed: u64,
    /// Parity updates that could not be written (lost parity).
    pub parity_skipped: u64,
    /// Chunks the rebuild wrote onto the replacement.
    pub pages_rebuilt: u64,
    /// Lost chunks the host wrote onto the replacement before the rebuild did.
    pub rewritten_by_host: u64,
    /// Requests completed before the failure.
    pub before: PhaseReport,
    /// Completed from the failure until the rebuild ended (or the run did).
    pub during: PhaseReport,
    /// Completed after the rebuild ended.
    pub after: PhaseReport,
    /// A second channel failure, if one was configured and happened.
    pub second: Option<SecondFailure>,
}

/// A second channel failure.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SecondFailure {
    /// The channel.
    pub channel: u32,
    /// When, ns.
    pub at_ns: u64,
    /// `"data_loss"` (before the rebuild ended, a stripe on both channels),
    /// `"no_shared_stripe"` (before it ended, no stripe on both: nothing
    /// lost, the run stopped) or `"rebuilt_first"`.
    pub outcome: String,
    /// Chunks lost for good: both they and a partner were on failed channels.
    pub chunks_lost: u64,
    /// Stripes those chunks belong to.
    pub stripes_lost: u64,
    /// The first lost chunk ids (at most 20).
    pub first_chunks: Vec<u32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::latency_stats::one_to;

    /// A percentile needs 10 samples beyond it: 1,000 requests give p99 but
    /// not p99.9, 999 give neither; values in µs (1 to `n` ns recorded).
    #[test]
    fn percentiles_only_with_ten_samples_beyond() {
        let p = PhaseLatency::of(&one_to(1000));
        assert_eq!((p.count, p.mean_us), (1000, 0.5005));
        assert_eq!((p.p99_us, p.p99_9_us, p.p99_99_us), (Some(0.99), None, None));
        let p = PhaseLatency::of(&one_to(999));
        assert_eq!(p.p99_us, None, "9.99 samples beyond p99");
        let p = PhaseLatency::of(&one_to(10_000));
        assert!(p.p99_9_us.is_some() && p.p99_99_us.is_none());
        let r = PhaseReport::of(&[one_to(1000), LatencyStats::default()]);
        assert_eq!((r.read.count, r.write.count, r.write.mean_us), (1000, 0, 0.0));
    }

    /// 100,000 samples: p99.99 is the ⌈0.9999 · 100,000⌉ = 99,990th, so
    /// exactly 10 lie beyond it — the rule above, as 1,000 give p99 and
    /// 10,000 give p99.9 (and as the summary's `*` rule and
    /// `scripts/verdict.py`'s `min_samples("99.99")` = 100,000 read it).
    /// In floating point 1 − 0.9999 is a little under 10⁻⁴, so
    /// `n · (1 − p) >= 10` fails at n = 100,000.
    #[test]
    fn p99_99_is_given_with_exactly_ten_samples_beyond() {
        let p = PhaseLatency::of(&one_to(100_000));
        assert!(p.p99_9_us.is_some());
        assert!(p.p99_99_us.is_some(), "p99.99 withheld at n = 100,000");
    }
}
