//! Baseline read routing: every read goes to the chunk's own channel.

use super::{DeviceView, ReadRouting, ReadTarget, Route};

/// Always a normal read.
pub struct NormalRead;

impl ReadRouting for NormalRead {
    fn wants_partners(&self) -> bool {
        false
    }
    fn route(&mut self, _view: &DeviceView, _read: &ReadTarget) -> Route {
        Route::Normal
    }
}
