//! The SSD controller's cores: its parameters (`[controller]`) and the
//! model that queues XORs, overheads and decisions on them.

use crate::engine::SimTime;
use serde::{Deserialize, Serialize};

/// Controller resources.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct ControllerParams {
    /// Cores executing controller work (XOR, overheads); 0 = unlimited (pure delay).
    pub cores: u32,
}

/// Controller cores (contended when `controller.cores > 0`).
pub struct Controller {
    free_at: Vec<SimTime>,
}

impl Controller {
    /// `cores` contended cores (0: every job runs at once, a pure delay).
    pub fn new(cores: u32) -> Self {
        Controller { free_at: vec![0; cores as usize] }
    }

    /// When work of `ns` submitted now ends.
    pub fn run(&mut self, now: SimTime, ns: SimTime) -> SimTime {
        let Some(core) = self.free_at.iter_mut().min() else { return now + ns };
        let end = (*core).max(now) + ns;
        *core = end;
        end
    }
}
