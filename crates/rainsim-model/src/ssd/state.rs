//! Channel and die state, readable by policies through `DeviceView`.

use crate::engine::SimTime;
use crate::flash::op::FlashOp;
use crate::sched::ChannelScheduler;

/// One channel: its bus and its queues.
pub struct ChannelState {
    /// When the bus finishes its last reserved transfer.
    pub bus_free_at: SimTime,
    /// Queued operations and their service order.
    pub sched: Box<dyn ChannelScheduler>,
}

impl ChannelState {
    /// Operations waiting in the channel's queues.
    #[inline]
    pub fn queued(&self) -> u32 {
        self.sched.reads_queued() + self.sched.writes_queued()
    }
}

/// One die.
#[derive(Debug, Clone, Copy, Default)]
pub struct DieState {
    /// The operation in progress, if any.
    pub op: Option<FlashOp>,
    /// End of the GC in progress, if any (predicted = actual here).
    pub gc_until: Option<SimTime>,
    /// When the current operation or GC started.
    pub busy_since: SimTime,
}

impl DieState {
    /// Whether the die can start something.
    #[inline]
    pub fn idle(&self) -> bool {
        self.op.is_none() && self.gc_until.is_none()
    }
}
