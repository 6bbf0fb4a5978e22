//! Baseline block allocation: erased blocks are opened in the order they
//! became free (initially by block number).

use super::{BlockAllocator, Lane};
use crate::ftl::block::BlockMeta;
use std::collections::VecDeque;

/// First-freed, first-opened.
pub struct InOrder;

impl BlockAllocator for InOrder {
    fn choose(&mut self, free: &VecDeque<u32>, _blocks: &[BlockMeta], _steps: &[u32], _lane: Lane) -> Option<usize> {
        (!free.is_empty()).then_some(0)
    }
}
