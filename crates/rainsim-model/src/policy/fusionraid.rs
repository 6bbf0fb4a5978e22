//! FusionRAID (Jiang et al., FAST'21; rep-raid §2.2, §4.1, §5): a small
//! update is written as two copies on two channels — its home channel and
//! the least-loaded other one ("the highest parallelism") — and replicas are
//! converted back into stripes during idle periods and above the
//! replica-space high-water mark. Thresholds are ours (`[policy.replicas]`).

use super::replication::{small, Replication};
use crate::device_state::DeviceView;
use crate::engine::SimTime;

/// FusionRAID's replication.
pub struct FusionRaid {
    /// Largest replicated request (0: any).
    pub max_request_bytes: u32,
    /// Idle time before conversion.
    pub idle_ns: SimTime,
}

impl Replication for FusionRaid {
    fn replicate(&mut self, _view: &DeviceView, _chunk: u32, bytes: u32) -> bool {
        small(bytes, self.max_request_bytes)
    }
    fn idle_ns(&self) -> Option<SimTime> {
        Some(self.idle_ns)
    }
}
