//! CR5M (Pan & Xie, TECS 2018; rep-raid §4.1, §5): a small update is kept
//! as the page on its home channel plus a mirror on another die of the same
//! channel; a stripe returns to RAID form only once all its data chunks are
//! replicated. No GC-time reorganisation.

use super::replication::{small, Replication};
use crate::device_state::DeviceView;

/// CR5M's replication.
pub struct Cr5m {
    /// Largest replicated request (0: any).
    pub max_request_bytes: u32,
}

impl Replication for Cr5m {
    fn replicate(&mut self, _view: &DeviceView, _chunk: u32, bytes: u32) -> bool {
        small(bytes, self.max_request_bytes)
    }
    fn place(&mut self, _view: &DeviceView, home: u32) -> [u32; 2] {
        [home, home]
    }
    fn converts_full_stripes(&self) -> bool {
        true
    }
    fn same_channel(&self) -> bool {
        true
    }
}
