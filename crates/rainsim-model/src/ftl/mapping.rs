//! Page-level mapping: chunk id ↔ physical page, both directions.
//!
//! `l2p[chunk]` is the chunk's current page (or [`NONE`] if never written);
//! `p2l[ppn]` names the chunk a page holds while it is valid, which one bit
//! per page says (`valid`). The reverse map is what GC reads to move a
//! victim's valid pages.
//!
//! Why the bits: an overwrite invalidates the chunk's old page, a random
//! place in a table of 4 bytes per page (64 MiB for the 128 GiB preset).
//! Clearing a bit in a table 32 times smaller, which stays in cache and
//! within the TLB's reach, spares that write a memory round trip; the old
//! page's reverse entry is left as it was, and read only under its bit.
//!
//! Why the reverse map is skewed: preconditioning writes it in one stream
//! per plane, a store to each in turn, and planes lie a power of two of
//! bytes apart (512 KiB for the 128 GiB preset), so every stream would sit
//! in the same set of the L1 cache, which holds 8 to 12 lines of a set. A
//! cache line of padding after each 2^`skew` pages (about one per plane)
//! spreads the streams over the sets (README, "Preconditioning's cache
//! sets": a loop of such stores ran 3.2 times faster).
//!
//! Why the tables can be filled late: under the packed and steady-state
//! layouts set-up leaves its deal undone (`LazyDeal`, `precondition/lazy.rs`),
//! and a read of an entry the deal would have written (stored as 0,
//! "unmapped") first lays out its segment. So every read of a stored 0 goes
//! to a cold path that asks the deal; the tables are cells, since reads
//! through `&self` may fill them.

use super::precondition::lazy::LazyDeal;
use crate::flash::address::{Ppn, NONE};
use std::cell::Cell;

/// Both directions of the page map.
#[derive(Debug, Clone)]
pub struct Mapping {
    l2p: Table,
    p2l: Table,
    /// Page `ppn`'s reverse entry is at `ppn + 16 · (ppn >> skew)`.
    skew: u32,
    /// Bit `ppn % 64` of word `ppn / 64`: page `ppn` holds a chunk.
    valid: Vec<u64>,
    /// Preconditioning's deal not yet laid out (see the module's note).
    lazy: Option<Box<LazyDeal>>,
}

impl Mapping {
    /// An empty map for `chunks` logical chunks over `pages` physical pages
    /// (one plane).
    pub fn new(chunks: u64, pages: u32) -> Mapping {
        Mapping::with_tables(chunks, pages, pages, false)
    }
    /// [`Mapping::new`] for planes of `plane_pages` pages each, asking for
    /// huge pages under both tables when `huge_pages` (`huge_pages.rs`).
    pub fn with_tables(chunks: u64, pages: u32, plane_pages: u32, huge_pages: bool) -> Mapping {
        let skew = plane_pages.max(1).ilog2();
        Mapping {
            l2p: Table::new(chunks as usize, huge_pages),
            p2l: Table::new(pages as usize + ((pages as usize >> skew) + 1) * 16, huge_pages),
            skew,
            valid: vec![0; (pages as usize).div_ceil(64)],
            lazy: None,
        }
    }
    /// Leaves preconditioning's deal to be laid out as its entries
    /// are first read (the tables hold nothing of it yet). `reached`: the
    /// segments the run will touch, one bit each, when known.
    pub(crate) fn defer(&mut self, deal: LazyDeal, reached: Option<&[u64]>) {
        // A slot is read before its segment is laid out (that read is what
        // asks for the layout), and the first read of a table page never
        // written maps the kernel's shared zero page: the layout's write
        // would then take a second fault and flush the TLB of every core
        // running a thread of the process (`compare` ran 1.3× slower for
        // it). So the forward map's pages the run will reach are written
        // once now, one store each: all of them unless the segments it
        // touches are known (a held trace), and then only theirs (a trace
        // that touches a fifth of them spares the zeroing of the rest,
        // 51 MiB at 128 GiB). The reverse map is read first only in GC of
        // a block whose segment was never reached, which is rare; so is a
        // read of the forward map outside the reached segments (GC moving
        // a page dealt there), which costs that second fault, no more.
        const PAGE: usize = 4096 / std::mem::size_of::<u32>();
        let t = &self.l2p.0;
        let touch = |r: std::ops::Range<usize>| {
            if !r.is_empty() {
                (r.start / PAGE..=(r.end - 1) / PAGE).for_each(|p| t[p * PAGE].set(0));
            }
        };
        match reached {
            None => touch(0..t.len()),
            Some(bits) => {
                for (w, &word) in bits.iter().enumerate() {
                    for b in crate::raid::replica_job::ones(word) {
                        let r = deal.chunks_of_segment(w * 64 + b as usize);
                        touch(r.start.min(t.len())..r.end.min(t.len()));
                    }
                }
            }
        }
        self.lazy = Some(Box::new(deal));
    }
    /// Segments of the deferred deal not yet laid out (None: none deferred).
    #[cfg(test)]
    pub(crate) fn pending_segments(&self) -> Option<usize> {
        self.lazy.as_ref().map(|d| d.pending())
    }
    /// Lays out the whole deferred deal now (a run that will reach most of
    /// it: `precondition/reach.rs`).
    pub(crate) fn lay_out_all(&self) {
        if let Some(d) = &self.lazy {
            d.lay_out_all(&self.cells());
        }
    }
    /// Lays out the deal's segment holding `chunk`, if there is one to lay
    /// out: called when its slot reads 0.
    #[cold]
    #[inline(never)]
    fn fill_chunk(&self, chunk: u32) {
        if let Some(d) = &self.lazy {
            d.ensure_chunk(chunk, &self.cells());
        }
    }
    /// [`Self::fill_chunk`] for the chunk dealt to page `ppn`.
    #[cold]
    #[inline(never)]
    fn fill_page(&self, ppn: Ppn) {
        if let Some(d) = &self.lazy {
            d.ensure_page(ppn, &self.cells());
        }
    }
    fn cells(&self) -> Placer<'_> {
        Placer { l2p: &self.l2p.0, p2l: &self.p2l.0, skew: self.skew }
    }
    /// The chunk valid page `ppn` holds.
    #[inline(always)]
    fn reverse(&self, ppn: Ppn) -> u32 {
        let at = self.at(ppn);
        if self.p2l.raw(at) == 0 {
            self.fill_page(ppn);
        }
        self.p2l.get(at)
    }
    /// Where the reverse map holds page `ppn` (see the module's note).
    #[inline(always)]
    fn at(&self, ppn: Ppn) -> usize {
        skewed(ppn, self.skew)
    }
    #[inline(always)]
    fn is_valid(&self, ppn: Ppn) -> bool {
        self.valid[ppn as usize / 64] >> (ppn % 64) & 1 != 0
    }
    #[inline(always)]
    fn mark(&mut self, ppn: Ppn, valid: bool) {
        let w = &mut self.valid[ppn as usize / 64];
        let bit = 1u64 << (ppn % 64);
        *w = if valid { *w | bit } else { *w & !bit };
    }
    /// Current page of a chunk, if written.
    #[inline]
    pub fn get(&self, chunk: u32) -> Option<Ppn> {
        if self.l2p.raw(chunk as usize) == 0 {
            self.fill_chunk(chunk);
        }
        let p = self.l2p.get(chunk as usize);
        (p != NONE).then_some(p)
    }
    /// Chunk held by a valid page.
    #[inline]
    pub fn owner(&self, ppn: Ppn) -> Option<u32> {
        self.is_valid(ppn).then(|| self.reverse(ppn))
    }
    /// Points `chunk` at `ppn`; returns the page it replaces (now invalid).
    #[inline]
    pub fn set(&mut self, chunk: u32, ppn: Ppn) -> Option<Ppn> {
        debug_assert!(!self.is_valid(ppn), "page {ppn} written twice");
        if self.l2p.raw(chunk as usize) == 0 {
            self.fill_chunk(chunk);
        }
        let old = self.l2p.replace(chunk as usize, ppn);
        self.p2l.set(self.at(ppn), chunk);
        self.mark(ppn, true);
        if old != NONE {
            self.mark(old, false);
            Some(old)
        } else {
            None
        }
    }
    /// Maps a never-written `chunk` to a free `ppn` (preconditioning).
    #[inline]
    pub fn place(&mut self, chunk: u32, ppn: Ppn) {
        debug_assert!(!self.is_valid(ppn), "page {ppn} written twice");
        self.placer().place(chunk, ppn);
        self.mark(ppn, true);
    }
    /// Both tables, for placing chunks in bulk without their valid bits
    /// ([`Placer`]; the caller sets the bits run by run, [`Mapping::mark_run`]).
    pub fn placer(&mut self) -> Placer<'_> {
        self.cells()
    }
    /// Marks pages `first..first + n` valid (each must hold its chunk).
    pub fn mark_run(&mut self, first: Ppn, n: u32) {
        let (mut p, end) = (first as usize, first as usize + n as usize);
        while p < end {
            let (w, b) = (p / 64, p % 64);
            let take = (64 - b).min(end - p);
            let bits = if take == 64 { !0 } else { ((1u64 << take) - 1) << b };
            debug_assert_eq!(self.valid[w] & bits, 0, "a page of {first}..{end} marked twice");
            self.valid[w] |= bits;
            p += take;
        }
    }
    /// GC move of valid page `old` to `new`: returns the chunk it holds.
    /// Writes only to the chunk's random `l2p` slot (no read), which keeps
    /// GC loops from stalling on cache misses.
    #[inline]
    pub fn move_page(&mut self, old: Ppn, new: Ppn) -> u32 {
        debug_assert!(self.is_valid(old), "page {old} holds no chunk");
        debug_assert!(!self.is_valid(new), "page {new} written twice");
        // The stored (complemented) id moves as it is.
        let stored = !self.reverse(old);
        let at = self.at(new);
        self.p2l.0[at].set(stored);
        self.mark(old, false);
        self.mark(new, true);
        let chunk = !stored;
        self.l2p.set(chunk as usize, new);
        chunk
    }
    /// Appends `(page, 0)` for each page of `first..first + n` that holds a
    /// chunk, ascending.
    #[inline]
    pub fn push_valid(&self, first: Ppn, n: u32, out: &mut Vec<(Ppn, Ppn)>) {
        // Branch-free: write every page, keep those that hold a chunk.
        let mut k = out.len();
        out.resize(k + n as usize, (0, 0));
        for p in first..first + n {
            out[k] = (p, 0);
            k += usize::from(self.is_valid(p));
        }
        out.truncate(k);
    }
    /// Drops the chunk held by valid page `ppn` (its data is kept elsewhere):
    /// both directions become unmapped.
    pub fn unmap(&mut self, ppn: Ppn) {
        debug_assert!(self.is_valid(ppn), "page {ppn} holds no chunk");
        let c = self.reverse(ppn);
        self.mark(ppn, false);
        debug_assert_eq!(self.l2p.get(c as usize), ppn);
        self.l2p.set(c as usize, NONE);
    }

    /// Ids `a` and `b` exchange their pages (either may be unmapped).
    pub fn swap_ids(&mut self, a: u32, b: u32) {
        let (pa, pb) = (self.get(a).unwrap_or(NONE), self.get(b).unwrap_or(NONE));
        self.l2p.set(a as usize, pb);
        self.l2p.set(b as usize, pa);
        if pa != NONE {
            self.p2l.set(self.at(pa), b);
        }
        if pb != NONE {
            self.p2l.set(self.at(pb), a);
        }
    }

    /// Touches the mapping slots of `chunks` so that a following batch of
    /// [`Mapping::move_page`] calls hits the cache: independent loads overlap
    /// their misses, dependent read-modify-writes would not.
    pub fn warm(&self, chunks: impl Iterator<Item = u32>) {
        let mut x = 0u32;
        for c in chunks {
            x ^= self.l2p.get(c as usize);
        }
        std::hint::black_box(x);
    }

    /// Prefetches the slots of chunks `first..=last` (at most two cache
    /// lines: the first and the last; ids past the table are left out).
    /// A hint: see `prefetch.rs`.
    #[inline]
    pub fn prefetch(&self, first: u32, last: u32) {
        let t = &self.l2p.0;
        let (a, b) = (first as usize, (last as usize).min(t.len().saturating_sub(1)));
        if a > b {
            return;
        }
        crate::prefetch::line(&t[a]);
        if (t[a].as_ptr() as usize) / 64 != (t[b].as_ptr() as usize) / 64 {
            crate::prefetch::line(&t[b]);
        }
    }

    /// Prefetches page `ppn`'s valid bit (a hint).
    #[inline]
    pub fn prefetch_page(&self, ppn: Ppn) {
        if let Some(x) = self.valid.get(ppn as usize / 64) {
            crate::prefetch::line(x);
        }
    }

    /// Number of chunk slots.
    pub fn chunks(&self) -> usize {
        self.l2p.0.len()
    }
}

/// Both tables of a [`Mapping`] lent out to preconditioning's loop over
/// millions of chunks, which then holds the two slices instead of reloading
/// them through the map after each store (27M fewer instructions for the
/// 128 GiB preset).
pub struct Placer<'a> {
    l2p: &'a [Cell<u32>],
    p2l: &'a [Cell<u32>],
    skew: u32,
}

impl Placer<'_> {
    /// [`Mapping::place`] without the valid bit.
    #[inline(always)]
    pub fn place(&self, chunk: u32, ppn: Ppn) {
        debug_assert_eq!(!self.l2p[chunk as usize].get(), NONE, "chunk {chunk} placed twice");
        self.l2p[chunk as usize].set(!ppn);
        self.p2l[skewed(ppn, self.skew)].set(!chunk);
    }
    /// [`Placer::place`] of chunks `first, first + 1, …`, one per item of
    /// `items`, at the page `page` gives for it, in order: one bounds check
    /// for all their forward slots.
    #[inline(always)]
    pub fn place_run<T>(&self, first: u32, items: &mut [T], mut page: impl FnMut(&mut T) -> Ppn) {
        let l2p = &self.l2p[first as usize..first as usize + items.len()];
        for (k, (slot, item)) in l2p.iter().zip(items).enumerate() {
            debug_assert_eq!(!slot.get(), NONE, "chunk {} placed twice", first as usize + k);
            let ppn = page(item);
            slot.set(!ppn);
            self.p2l[skewed(ppn, self.skew)].set(!(first + k as u32));
        }
    }
}

/// Index of page `ppn` in a reverse map with a line of padding (16 entries)
/// after each 2^`skew` pages.
#[inline(always)]
fn skewed(ppn: Ppn, skew: u32) -> usize {
    let p = ppn as usize;
    p + (p >> skew << 4)
}

/// A table of u32 entries stored complemented, so that zeroed memory reads
/// as [`NONE`]: a new table needs no fill, and entries the device never
/// writes (pages never programmed) are never touched.
#[derive(Debug, Clone)]
struct Table(Box<[Cell<u32>]>);

impl Table {
    fn new(n: usize, huge_pages: bool) -> Table {
        let v = vec![0u32; n].into_boxed_slice();
        if huge_pages {
            crate::huge_pages::advise(&v);
        }
        // SAFETY: `Cell<u32>` has the same in-memory representation as `u32`
        // (`repr(transparent)`), so the allocation is a valid `[Cell<u32>]`
        // of the same length and layout. Built from zeroed memory this way,
        // the table's pages stay untouched until used (a `Cell` fill would
        // write every one).
        Table(unsafe { Box::from_raw(Box::into_raw(v) as *mut [Cell<u32>]) })
    }
    /// The stored (complemented) entry: 0 is unmapped, or not yet laid out.
    #[inline(always)]
    fn raw(&self, i: usize) -> u32 {
        self.0[i].get()
    }
    #[inline]
    fn get(&self, i: usize) -> u32 {
        !self.0[i].get()
    }
    #[inline]
    fn set(&mut self, i: usize, v: u32) {
        self.0[i].set(!v);
    }
    #[inline]
    fn replace(&mut self, i: usize, v: u32) -> u32 {
        !self.0[i].replace(!v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh map is unmapped both ways; a placed chunk reads back both
    /// ways; a GC move carries the chunk and frees its old page.
    #[test]
    fn place_move_and_scan_by_hand() {
        let mut m = Mapping::new(10, 16);
        assert!((0..10).all(|c| m.get(c).is_none()) && (0..16).all(|p| m.owner(p).is_none()));
        m.place(0, 3);
        m.place(9, 5);
        assert_eq!(m.set(4, 6), None);
        assert_eq!((m.get(0), m.get(9), m.owner(6)), (Some(3), Some(5), Some(4)));
        // An update invalidates the old page.
        assert_eq!(m.set(4, 7), Some(6));
        assert_eq!((m.owner(6), m.owner(7)), (None, Some(4)));
        let mut out = vec![(99, 99)];
        m.push_valid(0, 8, &mut out);
        assert_eq!(out, [(99, 99), (3, 0), (5, 0), (7, 0)], "pages 0..8 holding a chunk, in order");
        m.push_valid(8, 8, &mut out);
        assert_eq!(out.len(), 4, "no page of 8..16 holds one");
        assert_eq!(m.move_page(5, 12), 9);
        assert_eq!((m.get(9), m.owner(5), m.owner(12)), (Some(12), None, Some(9)));
        m.unmap(12);
        assert_eq!((m.get(9), m.owner(12)), (None, None));
        // Prefetches past either table's end are left out, not a panic.
        m.prefetch(0, u32::MAX);
        m.prefetch(11, 20);
        m.prefetch(9, 3);
        m.prefetch_page(16);
        m.prefetch_page(u32::MAX);
        // Chunk 0 and page 0 are ids like any other (unmapped is not zero).
        m.place(1, 0);
        assert_eq!((m.get(1), m.owner(0)), (Some(0), Some(1)));
    }

    /// Random writes, GC moves, unmaps and id swaps against a plain
    /// reference (chunk → page and page → chunk maps): both directions and
    /// the valid pages of odd ranges agree after every step, across the
    /// words of the valid bits (200 pages), though an overwritten page's
    /// reverse entry is left stale.
    #[test]
    fn matches_a_reference_under_random_operations() {
        // One plane (a line of padding after page 127), planes of 24 pages
        // (after every 16th), and of one page (after every page).
        for plane_pages in [200, 24, 1] {
            against_a_reference(plane_pages);
        }
    }

    fn against_a_reference(plane_pages: u32) {
        use std::collections::BTreeMap;
        let (chunks, pages) = (40u32, 200u32);
        let mut m = Mapping::with_tables(chunks as u64, pages, plane_pages, false);
        let mut l2p: BTreeMap<u32, u32> = BTreeMap::new();
        let mut p2l: BTreeMap<u32, u32> = BTreeMap::new();
        let mut x: u64 = 99;
        let mut next = |n: u32| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) % n as u64) as u32
        };
        for step in 0..20_000 {
            let free: Vec<u32> = (0..pages).filter(|p| !p2l.contains_key(p)).collect();
            match next(4) {
                0 | 1 if !free.is_empty() => {
                    let (c, p) = (next(chunks), free[next(free.len() as u32) as usize]);
                    let old = l2p.insert(c, p);
                    if let Some(o) = old {
                        p2l.remove(&o);
                    }
                    p2l.insert(p, c);
                    assert_eq!(m.set(c, p), old, "step {step}, {plane_pages} pages a plane");
                }
                2 if !p2l.is_empty() && !free.is_empty() => {
                    let old = *p2l.keys().nth(next(p2l.len() as u32) as usize).unwrap();
                    let new = free[next(free.len() as u32) as usize];
                    let c = p2l.remove(&old).unwrap();
                    p2l.insert(new, c);
                    l2p.insert(c, new);
                    assert_eq!(m.move_page(old, new), c);
                }
                3 if !p2l.is_empty() && next(3) == 0 => {
                    let p = *p2l.keys().nth(next(p2l.len() as u32) as usize).unwrap();
                    let c = p2l.remove(&p).unwrap();
                    l2p.remove(&c);
                    m.unmap(p);
                }
                _ => {
                    let (a, b) = (next(chunks), next(chunks));
                    let (pa, pb) = (l2p.remove(&a), l2p.remove(&b));
                    if let Some(p) = pb {
                        l2p.insert(a, p);
                        p2l.insert(p, a);
                    }
                    if let Some(p) = pa {
                        l2p.insert(b, p);
                        p2l.insert(p, b);
                    }
                    m.swap_ids(a, b);
                }
            }
            for c in 0..chunks {
                assert_eq!(m.get(c), l2p.get(&c).copied(), "chunk {c}, step {step}");
            }
            for p in 0..pages {
                assert_eq!(m.owner(p), p2l.get(&p).copied(), "page {p}, step {step}");
            }
            let (first, n) = (next(pages), next(70));
            let n = n.min(pages - first);
            let mut got = vec![(7, 7)];
            m.push_valid(first, n, &mut got);
            let want: Vec<_> = std::iter::once((7, 7))
                .chain((first..first + n).filter(|p| p2l.contains_key(p)).map(|p| (p, 0)))
                .collect();
            assert_eq!(got, want, "pages {first}..+{n}, step {step}");
        }
    }

    /// The first reverse entries of 128 planes, the streams preconditioning
    /// writes side by side, fall at most 6 to a set of a 32 KiB 8-way L1
    /// cache (64 sets of 64-byte lines; 4-byte entries; 2 where the planes
    /// spread evenly), for plane sizes that are a power of two and that are
    /// not (98,304 pages is 96 × 4 KiB of entries: aligned too).
    /// Unskewed, the power-of-two ones would all share one set. The last
    /// page of the device has its entry inside the table.
    #[test]
    fn the_reverse_map_spreads_planes_over_cache_sets() {
        for plane_pages in [1u32 << 17, 1 << 19, 98_304, 100_000, 256 * 1000] {
            let planes = 128u32;
            let skew = plane_pages.ilog2();
            let mut per_set = [0u32; 64];
            for p in 0..planes {
                per_set[skewed(p * plane_pages, skew) * 4 / 64 % 64] += 1;
            }
            let set = |p: u32| skewed(p * plane_pages, 40) * 4 / 64 % 64;
            let unskewed = (0..planes).filter(|&p| set(p) == set(0)).count();
            assert!(!plane_pages.is_power_of_two() || unskewed == 128, "no padding: one set");
            let most = per_set.iter().max().unwrap();
            assert!(*most <= 6, "{plane_pages} pages a plane: {most} planes in one set");
            let m = Mapping::with_tables(1, planes * plane_pages, plane_pages, false);
            assert!(m.at(planes * plane_pages - 1) < m.p2l.0.len());
        }
    }
}
