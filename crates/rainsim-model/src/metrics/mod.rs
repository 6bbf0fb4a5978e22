//! Statistics gathered beside the model: the observer interface, the standard
//! collector and the JSON report.

pub mod class_latency;
pub mod collector;
pub mod fault_report;
pub mod latency_stats;
pub mod observer;
pub mod options;
pub mod pv_report;
pub mod replication_report;
pub mod report;
pub mod request_log;
pub mod stats;

/// Whether a count is zero: reports leave such optional counters out
/// (`skip_serializing_if`), so reports from before them stay as they were.
pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    /// Reports leave out a zero count and keep any other.
    #[test]
    fn only_zero_is_zero() {
        assert!(super::is_zero(&0));
        assert!(!super::is_zero(&1) && !super::is_zero(&u64::MAX));
    }
}
