//! Page-level mapping: chunk id ↔ physical page, both directions.
//!
//! `l2p[chunk]` is the chunk's current page (or [`NONE`] if never written);
//! `p2l[ppn]` names the chunk a page holds while it is valid, else [`NONE`].
//! The reverse map is what GC reads to move a victim's valid pages.

use crate::flash::address::{Ppn, NONE};

/// Both directions of the page map.
#[derive(Debug, Clone)]
pub struct Mapping {
    l2p: Table,
    p2l: Table,
}

impl Mapping {
    /// An empty map for `chunks` logical chunks over `pages` physical pages.
    pub fn new(chunks: u64, pages: u32) -> Mapping {
        Mapping { l2p: Table::new(chunks as usize), p2l: Table::new(pages as usize) }
    }
    /// Current page of a chunk, if written.
    #[inline]
    pub fn get(&self, chunk: u32) -> Option<Ppn> {
        let p = self.l2p.get(chunk as usize);
        (p != NONE).then_some(p)
    }
    /// Chunk held by a valid page.
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> Option<u32> {
        let c = self.p2l.get(ppn as usize);
        (c != NONE).then_some(c)
    }
    /// Points `chunk` at `ppn`; returns the page it replaces (now invalid).
    #[inline]
    pub fn set(&mut self, chunk: u32, ppn: Ppn) -> Option<Ppn> {
        debug_assert_eq!(self.p2l.get(ppn as usize), NONE, "page {ppn} written twice");
        let old = self.l2p.replace(chunk as usize, ppn);
        self.p2l.set(ppn as usize, chunk);
        if old != NONE {
            self.p2l.set(old as usize, NONE);
            Some(old)
        } else {
            None
        }
    }
    /// Maps a never-written `chunk` to a free `ppn` (preconditioning).
    #[inline]
    pub fn place(&mut self, chunk: u32, ppn: Ppn) {
        debug_assert_eq!(self.p2l.get(ppn as usize), NONE, "page {ppn} written twice");
        debug_assert_eq!(self.l2p.get(chunk as usize), NONE, "chunk {chunk} placed twice");
        self.l2p.set(chunk as usize, ppn);
        self.p2l.set(ppn as usize, chunk);
    }
    /// GC move of a valid page: `chunk` leaves `old` for `new`. Writes only
    /// (no read of the random `l2p` slot), which keeps GC loops from stalling
    /// on cache misses.
    #[inline]
    pub fn relocate(&mut self, chunk: u32, old: Ppn, new: Ppn) {
        debug_assert_eq!(self.l2p.get(chunk as usize), old);
        self.l2p.set(chunk as usize, new);
        self.p2l.set(old as usize, NONE);
        self.p2l.set(new as usize, chunk);
    }

    /// Drops the chunk held by valid page `ppn` (its data is kept elsewhere):
    /// both directions become unmapped.
    pub fn unmap(&mut self, ppn: Ppn) {
        let c = self.p2l.replace(ppn as usize, NONE);
        debug_assert_ne!(c, NONE, "page {ppn} holds no chunk");
        debug_assert_eq!(self.l2p.get(c as usize), ppn);
        self.l2p.set(c as usize, NONE);
    }

    /// Ids `a` and `b` exchange their pages (either may be unmapped).
    pub fn swap_ids(&mut self, a: u32, b: u32) {
        let (pa, pb) = (self.l2p.get(a as usize), self.l2p.get(b as usize));
        self.l2p.set(a as usize, pb);
        self.l2p.set(b as usize, pa);
        if pa != NONE {
            self.p2l.set(pa as usize, b);
        }
        if pb != NONE {
            self.p2l.set(pb as usize, a);
        }
    }

    /// Touches the mapping slots of `chunks` so that a following batch of
    /// [`Mapping::relocate`] calls hits the cache: independent loads overlap
    /// their misses, dependent read-modify-writes would not.
    pub fn warm(&self, chunks: impl Iterator<Item = u32>) {
        let mut x = 0u32;
        for c in chunks {
            x ^= self.l2p.get(c as usize);
        }
        std::hint::black_box(x);
    }

    /// Number of chunk slots.
    pub fn chunks(&self) -> usize {
        self.l2p.0.len()
    }
}

/// A table of u32 entries stored complemented, so that zeroed memory reads
/// as [`NONE`]: a new table needs no fill, and entries the device never
/// writes (pages never programmed) are never touched.
#[derive(Debug, Clone)]
struct Table(Vec<u32>);

impl Table {
    fn new(n: usize) -> Table {
        Table(vec![0; n])
    }
    #[inline]
    fn get(&self, i: usize) -> u32 {
        !self.0[i]
    }
    #[inline]
    fn set(&mut self, i: usize, v: u32) {
        self.0[i] = !v;
    }
    #[inline]
    fn replace(&mut self, i: usize, v: u32) -> u32 {
        !std::mem::replace(&mut self.0[i], !v)
    }
}
