//! RAID inside one SSD (`[raid]`).

use serde::{Deserialize, Serialize};

/// RAID level inside one SSD.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RaidLevel {
    /// No parity: each logical page lives on channel `lpn % channels`.
    None,
    /// Channel-level RAID-5 (RAIN).
    Raid5,
}

/// RAID layout.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RaidParams {
    /// `none` or `raid5`.
    pub level: RaidLevel,
    /// Chunks per stripe k (k − 1 data + 1 parity), 3 ≤ k ≤ channels.
    pub stripe_width: u32,
}

impl Default for RaidParams {
    fn default() -> Self {
        RaidParams { level: RaidLevel::Raid5, stripe_width: 4 }
    }
}
