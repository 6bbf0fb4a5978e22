//! Greedy GC victim selection: the full block with the fewest valid pages.
//!
//! [`GreedyIndex`] keeps every full block of a plane in a bucket by its valid
//! count (intrusive doubly-linked lists), so a victim is found without
//! scanning the plane. [`greedy_victim`] is the plain scan, kept as the
//! reference the index is tested against.

use super::block::BlockMeta;

const NIL: u32 = u32::MAX;
const OUT: u16 = u16::MAX;

/// A block's place in the index: its neighbours in its bucket and the
/// bucket. One record, so that moving a block between buckets (every
/// invalidation of a full block's page, at random blocks) touches one cache
/// line per block, not three.
#[derive(Debug, Clone, Copy)]
struct Link {
    prev: u32,
    next: u32,
    /// Bucket the block is in, or `OUT`.
    bucket: u16,
}

/// Full blocks bucketed by valid count, per plane.
#[derive(Debug, Clone)]
pub struct GreedyIndex {
    ppb: u32,
    blocks_per_plane: u32,
    /// `heads[plane · (ppb + 1) + v]`: first block (global) with `v` valid pages.
    heads: Vec<u32>,
    links: Vec<Link>,
    /// No non-empty bucket below this, per plane.
    low: Vec<u16>,
}

impl GreedyIndex {
    /// An empty index for `planes` planes of `blocks_per_plane` blocks of `ppb` pages.
    pub fn new(planes: u32, blocks_per_plane: u32, ppb: u32) -> GreedyIndex {
        let blocks = (planes * blocks_per_plane) as usize;
        GreedyIndex {
            ppb,
            blocks_per_plane,
            heads: vec![NIL; planes as usize * (ppb as usize + 1)],
            links: vec![Link { prev: NIL, next: NIL, bucket: OUT }; blocks],
            low: vec![ppb as u16; planes as usize],
        }
    }

    /// Adds full block `block` (global) with `valid` valid pages.
    pub fn insert(&mut self, block: u32, valid: u16) {
        debug_assert_eq!(self.links[block as usize].bucket, OUT);
        self.link(block / self.blocks_per_plane, block, valid);
    }

    /// Removes `block` if it is indexed.
    pub fn remove(&mut self, block: u32) {
        if self.links[block as usize].bucket != OUT {
            self.unlink(block / self.blocks_per_plane, block);
            self.links[block as usize].bucket = OUT;
        }
    }

    /// Puts `block` of `plane` at the head of bucket `valid`.
    #[inline(always)]
    fn link(&mut self, plane: u32, block: u32, valid: u16) {
        let h = plane as usize * (self.ppb as usize + 1) + valid as usize;
        let first = self.heads[h];
        self.links[block as usize] = Link { prev: NIL, next: first, bucket: valid };
        if first != NIL {
            self.links[first as usize].prev = block;
        }
        self.heads[h] = block;
        let low = &mut self.low[plane as usize];
        *low = (*low).min(valid);
    }

    /// Takes indexed `block` of `plane` out of its bucket's list (its own
    /// record is left for the caller to overwrite).
    #[inline(always)]
    fn unlink(&mut self, plane: u32, block: u32) {
        let Link { prev: p, next: n, bucket: v } = self.links[block as usize];
        if p == NIL {
            self.heads[plane as usize * (self.ppb as usize + 1) + v as usize] = n;
        } else {
            self.links[p as usize].next = n;
        }
        if n != NIL {
            self.links[n as usize].prev = p;
        }
    }

    /// Prefetches `block`'s record (a hint).
    #[inline]
    pub fn prefetch(&self, block: u32) {
        if let Some(l) = self.links.get(block as usize) {
            crate::prefetch::line(l);
        }
    }

    /// `block`'s valid count is now `valid` (no-op for blocks not indexed):
    /// [`Self::remove`] then [`Self::insert`], with the block's plane worked
    /// out once (a division) instead of up to three times.
    #[inline]
    pub fn update(&mut self, block: u32, valid: u16) {
        if self.links[block as usize].bucket != OUT {
            self.update_in(block / self.blocks_per_plane, block, valid);
        }
    }

    /// [`Self::update`] of a block of `plane` (its global plane index),
    /// for a caller that knows it.
    #[inline]
    pub fn update_in(&mut self, plane: u32, block: u32, valid: u16) {
        debug_assert_eq!(plane, block / self.blocks_per_plane);
        if self.links[block as usize].bucket != OUT {
            self.unlink(plane, block);
            self.link(plane, block, valid);
        }
    }

    /// The indexed block of `plane` with the fewest valid pages, if any has an
    /// invalid page.
    pub fn victim(&mut self, plane: u32) -> Option<u32> {
        let base = plane as usize * (self.ppb as usize + 1);
        let mut v = self.low[plane as usize] as usize;
        while v < self.ppb as usize {
            let b = self.heads[base + v];
            if b != NIL {
                self.low[plane as usize] = v as u16;
                return Some(b);
            }
            v += 1;
        }
        self.low[plane as usize] = self.ppb as u16;
        None
    }
}

/// Reference scan: the full, non-active block with the fewest valid pages
/// (plane-local index; ties to the lowest index), `None` when no full block
/// has an invalid page.
pub fn greedy_victim(blocks: &[BlockMeta], active: Option<u32>, ppb: u32) -> Option<u32> {
    let mut best: Option<(u16, u32)> = None;
    for (i, b) in blocks.iter().enumerate() {
        let i = i as u32;
        if Some(i) == active || b.written as u32 != ppb || b.valid as u32 == ppb {
            continue;
        }
        if best.is_none_or(|(v, _)| b.valid < v) {
            best = Some((b.valid, i));
            if b.valid == 0 {
                break;
            }
        }
    }
    best.map(|(_, i)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(valid: u16) -> BlockMeta {
        BlockMeta { valid, written: 8, ..Default::default() }
    }

    #[test]
    fn picks_fewest_valid_full_block() {
        let blocks = vec![full(5), full(2), BlockMeta { valid: 0, written: 3, ..Default::default() }, full(2), full(8)];
        // Block 2 is not full, block 4 has nothing to reclaim, ties → lowest index.
        assert_eq!(greedy_victim(&blocks, None, 8), Some(1));
        assert_eq!(greedy_victim(&blocks, Some(1), 8), Some(3));
        assert_eq!(greedy_victim(&[full(8)], None, 8), None);
    }

    #[test]
    fn index_tracks_the_minimum() {
        let mut ix = GreedyIndex::new(2, 4, 8);
        ix.insert(0, 5);
        ix.insert(1, 2);
        ix.insert(3, 8);
        ix.insert(4, 1); // plane 1
        assert_eq!(ix.victim(0), Some(1));
        ix.update(0, 1);
        assert_eq!(ix.victim(0), Some(0));
        ix.remove(0);
        assert_eq!(ix.victim(0), Some(1));
        ix.remove(1);
        assert_eq!(ix.victim(0), None, "block 3 is all valid");
        assert_eq!(ix.victim(1), Some(4));
        ix.update(2, 0); // not indexed: ignored
        assert_eq!(ix.victim(0), None);
    }

    /// `update` leaves the index as `remove` then `insert` do: the same
    /// victim of every plane after each of 20,000 random inserts, removes
    /// and updates (same bucket or another, indexed or not), and the same
    /// order within buckets (drained victim by victim at the end).
    #[test]
    fn update_is_remove_then_insert() {
        let (planes, bpp, ppb) = (3u32, 16u32, 8u32);
        let (mut a, mut b) = (GreedyIndex::new(planes, bpp, ppb), GreedyIndex::new(planes, bpp, ppb));
        let mut x: u64 = 77;
        for step in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let block = (x >> 33) as u32 % (planes * bpp);
            let valid = (x >> 20) as u16 % (ppb as u16 + 1);
            let indexed = a.links[block as usize].bucket != OUT;
            match (x >> 60) % 4 {
                0 if !indexed => {
                    a.insert(block, valid);
                    b.insert(block, valid);
                }
                1 => {
                    a.remove(block);
                    b.remove(block);
                }
                2 => {
                    a.update_in(block / bpp, block, valid);
                    if b.links[block as usize].bucket != OUT {
                        b.remove(block);
                        b.insert(block, valid);
                    }
                }
                _ => {
                    a.update(block, valid);
                    if b.links[block as usize].bucket != OUT {
                        b.remove(block);
                        b.insert(block, valid);
                    }
                }
            }
            for p in 0..planes {
                assert_eq!(a.victim(p), b.victim(p), "plane {p} after step {step}");
            }
        }
        for p in 0..planes {
            while let Some(v) = a.victim(p) {
                assert_eq!(b.victim(p), Some(v), "plane {p}");
                a.remove(v);
                b.remove(v);
            }
            assert_eq!(b.victim(p), None);
        }
    }
}
