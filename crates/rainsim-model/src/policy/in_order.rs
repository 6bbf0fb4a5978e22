//! Baseline block allocation: erased blocks are opened in the order they
//! became free (initially by block number).

use super::BlockAllocator;
use crate::ftl::block::BlockMeta;
use std::collections::VecDeque;

/// First-freed, first-opened.
pub struct InOrder;

impl BlockAllocator for InOrder {
    fn open_block(&mut self, free: &mut VecDeque<u32>, _plane_blocks: &[BlockMeta]) -> Option<u32> {
        free.pop_front()
    }
}
