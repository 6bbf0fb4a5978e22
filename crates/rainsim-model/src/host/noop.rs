//! NOOP (vios-variation-aware-scheduler §4's first baseline): the Linux
//! no-op elevator, requests in arrival order — the FIFO host scheduler under
//! its paper name (`policy.host_scheduler = "noop"`; "fifo" is the same).

pub use super::fifo::Fifo as Noop;
