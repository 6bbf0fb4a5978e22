//! FIFO (NOOP) host scheduling: waiting requests enter in arrival order.

use super::{HeldRequest, HostScheduler};
use crate::device_state::DeviceView;
use std::collections::VecDeque;

/// Arrival order.
#[derive(Debug, Default)]
pub struct Fifo {
    waiting: VecDeque<HeldRequest>,
}

impl HostScheduler for Fifo {
    fn hold(&mut self, r: HeldRequest) {
        self.waiting.push_back(r);
    }
    fn next(&mut self, _view: &DeviceView) -> Option<HeldRequest> {
        self.waiting.pop_front()
    }
    fn waiting(&self) -> usize {
        self.waiting.len()
    }
}
