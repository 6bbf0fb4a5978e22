//! Baseline update placement: a chunk's new version goes to its stripe channel.

use super::{DeviceView, UpdatePlacement};
use crate::raid::stripe::ChunkId;

/// Write in place (at the stripe level).
pub struct StripeChannel;

impl UpdatePlacement for StripeChannel {
    fn channel_for(&mut self, _view: &DeviceView, _chunk: ChunkId, home: u32) -> u32 {
        home
    }
}
