//! Baseline update placement: a chunk's new version stays on its channel.

use super::{ChunkUpdate, DeviceView, UpdatePlacement};

/// Always the chunk's own channel.
pub struct StripeChannel;

impl UpdatePlacement for StripeChannel {
    fn wants_updates(&self) -> bool {
        false
    }
    fn place(&mut self, _view: &DeviceView, _u: &ChunkUpdate) -> Option<u32> {
        None
    }
}
