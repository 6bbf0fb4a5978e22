//! Report options (`[report]`).

use serde::{Deserialize, Serialize};

/// Report options.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ReportOptions {
    /// Points per latency CDF in the JSON report.
    pub cdf_points: u32,
    /// Count Table 1's conflicts (vios-variation-aware-scheduler) even under
    /// the FIFO host scheduler (always counted under NOOP, PIQ and VIOS).
    /// Left out of serialised configs while off.
    #[serde(skip_serializing_if = "is_false")]
    pub conflicts: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions { cdf_points: 200, conflicts: false }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `conflicts` is written into a config only while on.
    #[test]
    fn conflicts_are_serialised_only_when_on() {
        let off = serde_json::to_value(ReportOptions::default()).expect("serialises");
        assert!(off.get("conflicts").is_none());
        assert_eq!(off["cdf_points"], 200);
        let on = serde_json::to_value(ReportOptions { conflicts: true, ..Default::default() }).expect("serialises");
        assert_eq!(on["conflicts"], true);
    }
}
