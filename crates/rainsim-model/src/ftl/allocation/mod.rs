//! Block allocation axis (DESIGN.md §7): which erased block a plane opens
//! next. The policy decides from the plane's free list and block metadata;
//! the FTL removes the block from the list and opens it.

pub mod in_order;

use crate::ftl::block::BlockMeta;
use std::collections::VecDeque;

/// Block allocation axis.
pub trait BlockAllocator {
    /// The position in `free` (plane-local block indices, erased) of the
    /// block to open next; `None` when it would rather not open any.
    fn choose(&mut self, free: &VecDeque<u32>, plane_blocks: &[BlockMeta]) -> Option<usize>;
}
