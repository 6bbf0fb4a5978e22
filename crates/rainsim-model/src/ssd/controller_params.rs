//! Controller resources (`[controller]`).

use serde::{Deserialize, Serialize};

/// Controller resources.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ControllerParams {
    /// Cores executing controller work (XOR, overheads); 0 = unlimited (pure delay).
    pub cores: u32,
}
