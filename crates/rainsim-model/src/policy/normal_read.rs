//! Baseline read routing: every read goes to the chunk's own channel.

use super::{DeviceView, ReadRouting, Route};
use crate::raid::stripe::ChunkId;

/// Always a normal read.
pub struct NormalRead;

impl ReadRouting for NormalRead {
    fn route(&mut self, _view: &DeviceView, _chunk: ChunkId, _channel: u32) -> Route {
        Route::Normal
    }
}
