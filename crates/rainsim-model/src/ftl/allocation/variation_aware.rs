//! Variation-aware block allocation (vios-variation-aware-scheduler §3.3,
//! Fig. 4): a page whose chip still has requests waiting goes to a fast
//! block, otherwise to a slow one, so that the requests queued behind it
//! wait less. Speeds are the blocks' detected ISPP steps (process
//! variation, `flash/process_variation.rs`; without it every block is
//! equally fast and this is in-order allocation).
//!
//! The paper keeps each chip's blocks in a red-black tree by speed. Here
//! each plane keeps one open block per lane (`PlaneMeta::active` for the
//! slow lane and in-order pages, `PlaneMeta::fast` for the fast lane), opened
//! with its fastest erased block for the fast lane, its slowest for the slow
//! one (ties to the oldest freed); a page takes the fastest (fast) or slowest
//! (slow) of its die's open blocks of its lane (`ftl/lanes.rs`).
//! GC relocations take the slow lane (our choice: no host request waits on
//! their individual pages). `policy.variation_aware.slow = "in-order"` reads
//! "a slower block" as "not a fast one": pages nobody waits behind, and GC
//! relocations, are then allocated in order.

use super::{BlockAllocator, Lane};
use crate::ftl::block::BlockMeta;
use std::collections::VecDeque;

/// Fast blocks for conflicting pages.
#[derive(Debug, Clone, Copy, Default)]
pub struct VariationAware {
    /// Which block a page nobody waits behind takes.
    pub slow: SlowBlock,
}

/// What "a slower block" is (`policy.variation_aware.slow`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlowBlock {
    /// The slowest open block (the right end of the paper's tree; the default).
    #[default]
    Slowest,
    /// In-order allocation: only conflicting pages are steered (to fast blocks).
    InOrder,
}

impl VariationAware {
    /// Of `steps` (detected ISPP steps, larger = faster), the position the
    /// lane picks: the first fastest for `Fast`, the first slowest for
    /// `Slow`, the first for `Any`.
    pub fn pick(mut steps: impl Iterator<Item = u8>, lane: Lane) -> Option<usize> {
        if lane == Lane::Any {
            return steps.next().map(|_| 0);
        }
        let mut best: Option<(usize, u8)> = None;
        for (i, s) in steps.enumerate() {
            if best.is_none_or(|(_, b)| Self::better(s, b, lane)) {
                best = Some((i, s));
            }
        }
        best.map(|(i, _)| i)
    }

    /// Whether step `s` beats `best`, the first best so far, for `lane`
    /// (never for `Any`: the first stays).
    #[inline]
    pub fn better(s: u8, best: u8, lane: Lane) -> bool {
        match lane {
            Lane::Any => false,
            Lane::Fast => s > best,
            Lane::Slow => s < best,
        }
    }
}

impl BlockAllocator for VariationAware {
    fn choose(
        &mut self,
        free: &VecDeque<u32>,
        plane_blocks: &[BlockMeta],
        free_steps: &[u32],
        lane: Lane,
    ) -> Option<usize> {
        let lane = self.lane(lane);
        let mut steps = free.iter().map(|&b| plane_blocks[b as usize].dvp_step);
        if lane == Lane::Any || free_steps.is_empty() {
            return Self::pick(steps, lane);
        }
        // The fastest (slowest) step among the free blocks: its first block
        // is `pick`'s answer, found without reading the rest of the list
        // (thousands of blocks on a fresh device).
        let target = match lane {
            Lane::Fast => free_steps.iter().rposition(|&n| n > 0)?,
            _ => free_steps.iter().position(|&n| n > 0)?,
        };
        steps.position(|s| s as usize == target)
    }
    fn uses_lanes(&self) -> bool {
        true
    }
    fn lane(&self, lane: Lane) -> Lane {
        match (lane, self.slow) {
            (Lane::Slow, SlowBlock::InOrder) => Lane::Any,
            _ => lane,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// With the free blocks counted by step, the choice is the first fastest
    /// (slowest) block, as `pick` finds it reading the whole list: random
    /// lists over every lane and both readings of "slow".
    #[test]
    fn the_counted_choice_is_the_first_fastest_or_slowest() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(4);
        for _ in 0..500 {
            let (nblocks, steps) = (rng.random_range(1..200usize), rng.random_range(1..12usize));
            let blocks: Vec<BlockMeta> = (0..nblocks)
                .map(|_| BlockMeta { dvp_step: rng.random_range(0..steps as u8), ..Default::default() })
                .collect();
            let mut free: Vec<u32> = (0..nblocks as u32).filter(|_| rng.random_bool(0.7)).collect();
            // In freed order, not block order.
            for i in (1..free.len()).rev() {
                free.swap(i, rng.random_range(0..=i));
            }
            let free: VecDeque<u32> = free.into();
            let mut counts = vec![0u32; steps];
            free.iter().for_each(|&b| counts[blocks[b as usize].dvp_step as usize] += 1);
            for slow in [SlowBlock::Slowest, SlowBlock::InOrder] {
                let mut va = VariationAware { slow };
                for lane in [Lane::Fast, Lane::Slow, Lane::Any] {
                    let by_list =
                        VariationAware::pick(free.iter().map(|&b| blocks[b as usize].dvp_step), va.lane(lane));
                    assert_eq!(va.choose(&free, &blocks, &counts, lane), by_list, "{lane:?} {slow:?} {free:?}");
                    assert_eq!(va.choose(&free, &blocks, &[], lane), by_list, "uncounted, {lane:?} {slow:?}");
                }
            }
        }
    }
}
