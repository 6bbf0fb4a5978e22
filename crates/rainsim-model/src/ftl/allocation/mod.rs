//! Block allocation axis (DESIGN.md §7): which erased block a plane opens
//! next, and — for allocators that place by lane — which of a die's open
//! blocks takes a page. The policy decides from the plane's free list and
//! block metadata; the FTL removes the block from the list and opens it.

pub mod in_order;
pub mod variation_aware;

use crate::ftl::block::BlockMeta;
use std::collections::VecDeque;

/// What a page asks of its block (vios-variation-aware-scheduler §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// No preference: the allocator's order.
    Any,
    /// Other requests wait for the chip: a fast block.
    Fast,
    /// None waits: a slow block.
    Slow,
}

/// Block allocation axis.
pub trait BlockAllocator {
    /// The position in `free` (plane-local block indices, erased) of the
    /// block to open next for a page of `lane`; `None` when it would rather
    /// not open any. `free_steps`: how many of the free blocks are at each
    /// speed step (`BlockMeta::dvp_step`) when the FTL counts them (under an
    /// allocator by lane or process variation), else empty.
    fn choose(
        &mut self,
        free: &VecDeque<u32>,
        plane_blocks: &[BlockMeta],
        free_steps: &[u32],
        lane: Lane,
    ) -> Option<usize>;
    /// Whether it places pages by lane (the device then passes one with
    /// every program, and the FTL picks the die's open block by it).
    fn uses_lanes(&self) -> bool {
        false
    }
    /// The lane it serves a page of `lane` from (`Lane::Any`: its order).
    fn lane(&self, lane: Lane) -> Lane {
        lane
    }
}
