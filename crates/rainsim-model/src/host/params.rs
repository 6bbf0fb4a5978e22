//! Host interface settings (`[host]`).

use serde::{Deserialize, Serialize};

/// Host interface.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct HostParams {
    /// Most host requests outstanding at once; later ones wait (their latency
    /// still counts from their trace time). 0 = no cap.
    pub queue_depth: u32,
}
