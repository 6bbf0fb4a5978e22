//! Report options (`[report]`).

use serde::{Deserialize, Serialize};

/// Report options.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ReportOptions {
    /// Points per latency CDF in the JSON report.
    pub cdf_points: u32,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions { cdf_points: 200 }
    }
}
