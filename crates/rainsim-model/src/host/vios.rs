//! VIOS's hierarchical-batch structured queue (vios-variation-aware-scheduler
//! §3.3, Eq. 3, Fig. 3): separate read and write queues, each of chip
//! batches (no two requests of a batch share a chip) split into channel
//! batches (no two requests of one share a channel), so that channel-level
//! parallelism comes first, then chip-level. Reads are always issued first
//! (§4.1). The variation-aware half of VIOS is the block allocator
//! (`ftl/allocation/variation_aware.rs`); the scheme `vios` sets both.

use super::batches::{BatchQueue, BatchShape};
use super::{HeldRequest, HostScheduler};
use crate::device_state::DeviceView;

/// Hierarchical batches, reads first.
#[derive(Debug)]
pub struct Vios {
    reads: BatchQueue,
    writes: BatchQueue,
}

impl Default for Vios {
    fn default() -> Self {
        Vios { reads: BatchQueue::new(true), writes: BatchQueue::new(true) }
    }
}

impl Vios {
    /// The read and the write queue's batches (tests).
    pub fn shape(&self) -> (Vec<BatchShape>, Vec<BatchShape>) {
        (self.reads.shape(), self.writes.shape())
    }
}

impl HostScheduler for Vios {
    fn hold(&mut self, r: HeldRequest) {
        if r.req.write {
            self.writes.push(r);
        } else {
            self.reads.push(r);
        }
    }
    fn next(&mut self, _view: &DeviceView) -> Option<HeldRequest> {
        self.reads.pop().or_else(|| self.writes.pop())
    }
    fn waiting(&self) -> usize {
        self.reads.len() + self.writes.len()
    }
    fn wants_chips(&self) -> bool {
        true
    }
}
