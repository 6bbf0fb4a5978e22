//! Static placement: plain RAID-5. A chunk lives at its layout home (the
//! device of its stripe position, the slot of its stripe) and is updated in
//! place; every stripe keeps its chunks on distinct devices.

use super::{ArrayView, ArrayWriteAllocation, Choice};

/// Plain RAID-5 placement.
#[derive(Debug, Default)]
pub struct StaticHome;

impl ArrayWriteAllocation for StaticHome {
    fn choose(&mut self, _: &ArrayView, _: &[bool]) -> Option<Choice> {
        None
    }
}
