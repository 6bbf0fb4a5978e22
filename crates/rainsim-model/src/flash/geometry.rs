//! The flash array's shape (`[geometry]`).

use serde::{Deserialize, Serialize};

/// Flash array shape. Physical pages = product of all counts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Geometry {
    /// Channels (independent buses).
    pub channels: u32,
    /// Chips per channel; chips of a channel work in parallel but share its bus.
    pub chips_per_channel: u32,
    /// Dies per chip; the die is the unit that executes one flash operation at a time.
    pub dies_per_chip: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Page size in bytes; also the RAID chunk size.
    pub page_bytes: u32,
    /// Fraction of physical pages hidden from the host (0 ≤ op < 1).
    pub over_provisioning: f64,
}

impl Default for Geometry {
    fn default() -> Self {
        Geometry {
            channels: 8,
            chips_per_channel: 4,
            dies_per_chip: 1,
            planes_per_die: 4,
            blocks_per_plane: 256,
            pages_per_block: 128,
            page_bytes: 8192,
            over_provisioning: 0.15,
        }
    }
}
