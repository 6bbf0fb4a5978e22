//! Block manager: per-block valid counts, write pointers and erase counts,
//! per-plane free lists and active (open) blocks.

use std::collections::VecDeque;

/// Bookkeeping of one erase block.
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockMeta {
    /// Valid pages.
    pub valid: u16,
    /// Pages programmed since the last erase (the write pointer).
    pub written: u16,
    /// Erase cycles so far.
    pub erases: u32,
    /// Reads since the last erase (read disturb), counted while the LDPC
    /// model, their one reader, is on.
    pub reads: u32,
    /// The FTL's clock (`Ftl::set_clock_s`, whole seconds) when the block took
    /// its first page after its last erase, or was refilled by wear levelling:
    /// the age of its data for the retention model. 0 for preconditioned blocks.
    pub opened_at_s: u32,
    /// Detected ISPP step (process variation): index into the model's ΔVp
    /// grid, 0 = slowest; 0 for every block with the model off.
    pub dvp_step: u8,
}

impl BlockMeta {
    /// What the LDPC model reads of the block.
    #[inline]
    pub fn wear(&self) -> crate::flash::ldpc::BlockWear {
        crate::flash::ldpc::BlockWear { erases: self.erases, opened_at_s: self.opened_at_s, reads: self.reads }
    }
}

/// Free and open blocks of one plane.
#[derive(Debug, Clone, Default)]
pub struct PlaneMeta {
    /// Erased blocks (plane-local indices), taken in order.
    pub free: VecDeque<u32>,
    /// Block currently taking programs (plane-local index); never full.
    pub active: Option<u32>,
    /// Block taking the fast lane's programs under variation-aware
    /// allocation (plane-local index); `None` otherwise.
    pub fast: Option<u32>,
    /// Pages invalidated in this plane (for the accounting check).
    pub invalid: u64,
    /// Fewest erases of any block in the plane.
    pub min_erases: u32,
    /// Blocks with exactly `min_erases` erases.
    pub at_min: u32,
}

impl PlaneMeta {
    /// Free pages left: erased blocks plus the active block's remainder.
    pub fn free_pages(&self, blocks: &[BlockMeta], first_block: u32, ppb: u32) -> u64 {
        let room = |slot: Option<u32>| slot.map_or(0, |b| ppb - blocks[(first_block + b) as usize].written as u32);
        self.free.len() as u64 * ppb as u64 + room(self.active) as u64 + room(self.fast) as u64
    }
}
