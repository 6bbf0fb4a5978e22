//! PIQ (Gao et al., MSST'14; vios-variation-aware-scheduler §4's second
//! baseline): waiting requests are grouped into batches of requests that
//! touch no chip in common (chip-conflict-free), a conflicting request
//! opening a later batch; batches are issued in order, requests within one in
//! arrival order. Reads and writes wait in separate queues and reads are
//! always issued first (§4.1). Not stated by the paper, and not modelled:
//! channel sub-batches, a bound on how long a write may wait.

use super::batches::{BatchQueue, BatchShape};
use super::{HeldRequest, HostScheduler};
use crate::device_state::DeviceView;

/// Chip-conflict-free batches, reads first.
#[derive(Debug)]
pub struct Piq {
    reads: BatchQueue,
    writes: BatchQueue,
}

impl Default for Piq {
    fn default() -> Self {
        Piq { reads: BatchQueue::new(false), writes: BatchQueue::new(false) }
    }
}

impl Piq {
    /// The read and the write queue's batches (tests).
    pub fn shape(&self) -> (Vec<BatchShape>, Vec<BatchShape>) {
        (self.reads.shape(), self.writes.shape())
    }
}

impl HostScheduler for Piq {
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
