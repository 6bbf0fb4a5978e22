//! The deal, laid out on demand.
//!
//! A channel's n-th dealt chunk takes slot ⌊n/P⌋ of its plane n mod P (P
//! planes per channel), so where a chunk goes follows from how many chunks
//! its channel was dealt before it and where the plane's slots lie (runs of
//! pages: one per plane under the packed layout, one per block under the
//! steady-state one). Set-up cuts the stripes into segments of 2^z and
//! keeps, for each, where the deal stands at its start ([`Taken`]'s state
//! and each channel's count): a few bytes per segment and per run instead
//! of 8 bytes per page written. The
//! mapping lays a segment out, both directions at once, the first time it
//! reads an entry of it: a chunk of one of its stripes, or a page one of
//! them was dealt to (`mapping.rs`). Until then no entry of the segment has
//! been read or written, so laying it out late puts every chunk where the
//! set-up would have put it (a test compares every entry with the eager
//! deal, in random order of first reads).
//!
//! Why: writing the two tables was nearly all of set-up (128 MiB of fresh
//! memory for the 128 GiB preset, 29,000 page faults); a run touches the
//! segments its requests and GCs reach, and pays for those only. The
//! uniform layout's slots lie in runs of a few pages, as many as a table
//! would take: it is dealt at set-up (`deal_cursors`).

use super::deal::Taken;
use super::stripe_count::rest_taken;
use crate::flash::address::{Layout, Ppn};
use crate::ftl::mapping::Placer;
use crate::raid::stripe::StripeLayout;
use std::cell::Cell;

/// Entries of the per-segment counts kept at most (about; 4 bytes each).
const COUNT_ENTRIES_LOG2: u32 = 17;
/// Fewest stripes in a segment, as a power of two.
const MIN_SEGMENT_LOG2: u32 = 8;
/// A plane cursor not yet found (no run index is this large).
const UNSET: u32 = u32::MAX;

/// Where the packed deal stands at each segment's start.
#[derive(Debug, Clone)]
pub struct LazyDeal {
    width: u32,
    channels: u32,
    /// Planes per channel.
    ppc: u32,
    /// Pages per plane.
    ppp: u32,
    stripes: u32,
    /// A segment is 2^`zbits` stripes.
    zbits: u32,
    forced: Vec<u32>,
    rest_all: u64,
    rest_want: u64,
    /// [`Taken`]'s state at each segment's first stripe: (`fi`, `rem`).
    starts: Vec<(u32, u64)>,
    /// Row g (of `segments + 1`): chunks dealt to each channel before segment g.
    counts: Vec<u32>,
    /// Bit g: segment g is laid out.
    done: Vec<Cell<u64>>,
    slots: SlotRuns,
}

/// Each plane's slots, as runs of consecutive pages in the order the
/// plane's chunks take them.
#[derive(Debug, Clone, Default)]
struct SlotRuns {
    /// (first page, length): plane by plane, each plane's in slot order.
    runs: Vec<(Ppn, u32)>,
    /// The plane's slot index of each run's first page.
    slot0: Vec<u32>,
    /// Plane p's runs are `runs[first[p]..first[p + 1]]`.
    first: Vec<u32>,
    /// Each plane's run indices by page, ascending (same ranges as `runs`).
    by_page: Vec<u32>,
    /// Every plane's slots are one run from its first page, or none.
    packed: bool,
}

impl SlotRuns {
    /// Runs of plane `p`: its range in `runs`.
    fn of(&self, p: usize) -> std::ops::Range<usize> {
        self.first[p] as usize..self.first[p + 1] as usize
    }
    /// Plane `p`'s slot `k` as (page, pages left in its run, run index);
    /// (0, 0, end) past the plane's last slot.
    fn cursor(&self, p: usize, k: u32) -> (Ppn, u32, u32) {
        let r = self.of(p);
        // The last run starting at or before slot k.
        let i = r.start + self.slot0[r.clone()].partition_point(|&s| s <= k);
        match i.checked_sub(1).filter(|&i| i >= r.start) {
            Some(i) if k - self.slot0[i] < self.runs[i].1 => {
                let off = k - self.slot0[i];
                (self.runs[i].0 + off, self.runs[i].1 - off, i as u32)
            }
            _ => (0, 0, r.end as u32),
        }
    }
    /// The slot of plane `p` at page `ppn`, if one is there.
    fn slot_at(&self, p: usize, ppn: Ppn) -> Option<u32> {
        let ix = &self.by_page[self.of(p)];
        let j = ix.partition_point(|&i| self.runs[i as usize].0 <= ppn).checked_sub(1)?;
        let i = ix[j] as usize;
        let (page, n) = self.runs[i];
        (ppn - page < n).then(|| self.slot0[i] + (ppn - page))
    }
}

impl LazyDeal {
    /// The segments' starting points for dealing `want` stripes (the
    /// `forced` ones among them) of stripes not bound to dies.
    pub(super) fn build(stripes: &StripeLayout, lay: &Layout, forced: &[u32], want: u64) -> LazyDeal {
        let entries = (stripes.stripes as u64 * stripes.channels as u64).max(1).next_power_of_two().trailing_zeros();
        let zbits = entries.saturating_sub(COUNT_ENTRIES_LOG2).max(MIN_SEGMENT_LOG2);
        Self::build_in(stripes, lay, forced, want, zbits)
    }

    /// [`Self::build`] with segments of 2^`zbits` stripes. Each segment's
    /// taken stripes are counted in closed form, not stripe by stripe: a
    /// stripe's first channel (s·k) mod m depends on s mod L only (L =
    /// m / gcd(k, m), the layout's period), the forced stripes are counted
    /// one by one, and the rest between them by floor sums ([`rest_taken`]).
    pub(super) fn build_in(stripes: &StripeLayout, lay: &Layout, forced: &[u32], want: u64, zbits: u32) -> LazyDeal {
        debug_assert!(stripes.column(0).is_none(), "stripes bound to dies are dealt by die");
        let (w, m) = (stripes.width, stripes.channels as usize);
        let all = stripes.stripes;
        let segments = (all as usize).div_ceil(1 << zbits);
        let t = Taken::new(stripes, forced, want);
        let (rest_all, rest_want) = (t.rest_all, t.rest_want);
        let l = stripes.period() as usize;
        let mut starts = Vec::with_capacity(segments);
        let mut counts = vec![0u32; (segments + 1) * m];
        let (mut by_res, mut by_first) = (vec![0u64; l], vec![0u32; m]);
        let mut fi = 0usize;
        for g in 0..segments {
            let s0 = (g as u64) << zbits;
            let s1 = (all as u64).min(s0 + (1 << zbits));
            // Taken's state here: fi forced stripes passed, i rest ones.
            let i0 = s0 - fi as u64;
            let rem = if rest_all == 0 { 0 } else { (i0 as u128 * rest_want as u128 % rest_all as u128) as u64 };
            starts.push((fi as u32, rem));
            by_res.fill(0);
            let mut from = s0;
            loop {
                let to = forced.get(fi).map_or(s1, |&f| (f as u64).min(s1));
                // Stripes from..to are the rest's from - fi..to - fi.
                let rest = (from - fi as u64, to - fi as u64);
                for c in 0..l {
                    by_res[(c + fi) % l] += rest_taken(rest_want, rest_all, rest, (c as u64, l as u64));
                }
                if to == s1 {
                    break;
                }
                by_res[to as usize % l] += 1;
                fi += 1;
                from = to + 1;
            }
            by_first.fill(0);
            for (r, &n) in by_res.iter().enumerate() {
                by_first[r * w as usize % m] += n as u32;
            }
            for ch in 0..m {
                // Chunk j of a stripe lies on channel first + j (mod m); j < k ≤ m.
                let n: u32 = (0..w as usize).map(|j| by_first[(ch + m - j) % m]).sum();
                counts[(g + 1) * m + ch] = counts[g * m + ch] + n;
            }
        }
        LazyDeal {
            width: w,
            channels: m as u32,
            ppc: lay.dies_per_channel * lay.planes_per_die,
            ppp: lay.pages_per_block * lay.blocks_per_plane,
            stripes: all,
            zbits,
            forced: forced.to_vec(),
            rest_all,
            rest_want,
            starts,
            counts,
            done: vec![Cell::new(0); segments.div_ceil(64)],
            slots: SlotRuns::default(),
        }
    }

    /// Sets where each plane's slots lie, plane by plane (runs of pages in
    /// the order the plane's chunks take them; [`Self::plane_counts`] of them
    /// in each plane).
    pub(super) fn with_slots<'a>(mut self, planes: impl Iterator<Item = &'a [(Ppn, u32)]>) -> LazyDeal {
        let mut s = SlotRuns { first: vec![0], packed: true, ..Default::default() };
        for (runs, p) in planes.zip(0..) {
            s.packed &= match runs {
                [] => true,
                [(page, _)] => *page == p * self.ppp,
                _ => false,
            };
            let start = s.runs.len();
            let mut k = 0;
            for &(page, n) in runs {
                s.runs.push((page, n));
                s.slot0.push(k);
                k += n;
            }
            let mut order: Vec<u32> = (start as u32..s.runs.len() as u32).collect();
            order.sort_unstable_by_key(|&i| s.runs[i as usize].0);
            s.by_page.extend(order);
            s.first.push(s.runs.len() as u32);
        }
        debug_assert_eq!(s.first.len(), self.channels as usize * self.ppc as usize + 1);
        self.slots = s;
        self
    }

    fn segments(&self) -> usize {
        self.starts.len()
    }

    /// A segment is 2^`zbits` stripes.
    pub(super) fn zbits(&self) -> u32 {
        self.zbits
    }

    /// Segment `g`'s stripes (the last segment may be partial; none past it).
    fn stripes_of_segment(&self, g: usize) -> std::ops::Range<u32> {
        let s0 = ((g as u64) << self.zbits).min(self.stripes as u64) as u32;
        s0..self.stripes.min(s0 + (1 << self.zbits))
    }

    /// The chunk ids of segment `g`'s stripes.
    pub(crate) fn chunks_of_segment(&self, g: usize) -> std::ops::Range<usize> {
        let s = self.stripes_of_segment(g);
        let w = self.width as usize;
        s.start as usize * w..s.end as usize * w
    }

    /// Chunks dealt to each plane (global plane order): a channel deals
    /// round-robin over its planes from its first.
    pub(super) fn plane_counts(&self) -> Vec<u64> {
        let m = self.channels as usize;
        let total = &self.counts[self.segments() * m..];
        let ppc = self.ppc as u64;
        let mut out = Vec::with_capacity(m * ppc as usize);
        for &n in total {
            let n = n as u64;
            out.extend((0..ppc).map(|i| n / ppc + u64::from(i < n % ppc)));
        }
        out
    }

    /// Lays out the segment holding `chunk`'s stripe, if not yet.
    pub(crate) fn ensure_chunk(&self, chunk: u32, map: &Placer<'_>) {
        let g = (chunk / self.width) as usize >> self.zbits;
        if g < self.segments() && !self.is_done(g) {
            self.lay_out(g, map);
        }
    }

    /// Lays out the segment whose chunk was dealt to page `ppn`, if not yet
    /// (nothing if no chunk was dealt there).
    pub(crate) fn ensure_page(&self, ppn: Ppn, map: &Placer<'_>) {
        let m = self.channels as usize;
        let plane = ppn / self.ppp;
        let (ch, local) = ((plane / self.ppc) as usize, plane % self.ppc);
        if ch >= m {
            return;
        }
        let Some(k) = self.slots.slot_at(plane as usize, ppn) else { return };
        // The channel's n-th chunk takes slot ⌊n/P⌋ of plane n mod P.
        let n = k as u64 * self.ppc as u64 + local as u64;
        let count = |g: usize| self.counts[g * m + ch] as u64;
        if n >= count(self.segments()) {
            return;
        }
        // The last segment whose row starts at or before n: it deals the n-th.
        let (mut g, mut hi) = (0, self.segments());
        while hi - g > 1 {
            let mid = (g + hi) / 2;
            if count(mid) <= n {
                g = mid;
            } else {
                hi = mid;
            }
        }
        if !self.is_done(g) {
            self.lay_out(g, map);
        }
    }

    /// Segments not yet laid out.
    #[cfg(test)]
    pub(crate) fn pending(&self) -> usize {
        (0..self.segments()).filter(|&g| !self.is_done(g)).count()
    }

    /// Lays out every segment not yet laid out, in order (at set-up).
    pub(crate) fn lay_out_all(&self, map: &Placer<'_>) {
        for g in 0..self.segments() {
            if !self.is_done(g) {
                self.lay_out(g, map);
            }
        }
    }

    fn is_done(&self, g: usize) -> bool {
        self.done[g / 64].get() >> (g % 64) & 1 != 0
    }

    /// Deals segment `g`'s stripes into both tables, as the set-up's deal
    /// would have from where it stood at the segment's start.
    #[cold]
    fn lay_out(&self, g: usize, map: &Placer<'_>) {
        let (m, ppc, ppp) = (self.channels, self.ppc, self.ppp);
        let row = &self.counts[g * m as usize..(g + 1) * m as usize];
        if self.slots.packed {
            // Slot t of a plane is its page t: each channel keeps its next
            // page and plane, a load and a store per chunk.
            let last = ppc - 1;
            // From a channel's last plane, slot t, to its first plane, slot t + 1.
            let back = (last * ppp).wrapping_sub(1);
            let mut at: Vec<(Ppn, u32)> =
                row.iter().zip(0..).map(|(&n, ch)| ((ch * ppc + n % ppc) * ppp + n / ppc, n % ppc)).collect();
            self.deal_segment(g, &mut at, |at, chunk| {
                map.place_run(chunk, at, |a| {
                    let (page, local) = *a;
                    *a = if local == last { (page.wrapping_sub(back), 0) } else { (page + ppp, local + 1) };
                    page
                })
            });
        } else {
            // Each channel: (its first plane, the next plane's index within it).
            let mut at: Vec<(u32, u32)> = row.iter().zip(0..).map(|(&n, ch)| (ch * ppc, n % ppc)).collect();
            // Each plane: (next page, pages left in its run, run index),
            // found at its first chunk (`UNSET` until then): a segment of a
            // sparse deal reaches few of the planes.
            let mut cur: Vec<(Ppn, u32, u32)> = vec![(0, 0, UNSET); (m * ppc) as usize];
            let slots = &self.slots;
            self.deal_segment(g, &mut at, |at, chunk| {
                map.place_run(chunk, at, |a| {
                    let (base, local) = *a;
                    a.1 = if local + 1 == ppc { 0 } else { local + 1 };
                    let plane = (base + local) as usize;
                    let c = &mut cur[plane];
                    if c.2 == UNSET {
                        // Chunks the plane was dealt before: its slot index.
                        let n = row[(base / ppc) as usize];
                        *c = slots.cursor(plane, n / ppc + u32::from(local < n % ppc));
                    }
                    let page = c.0;
                    (c.0, c.1) = (page + 1, c.1 - 1);
                    if c.1 == 0 && c.2 + 1 < slots.first[plane + 1] {
                        c.2 += 1;
                        (c.0, c.1) = slots.runs[c.2 as usize];
                    }
                    page
                })
            });
        }
        let d = &self.done[g / 64];
        d.set(d.get() | 1 << (g % 64));
    }

    /// Segment `g`'s taken stripes, in order: `step(channels' states, first
    /// chunk)` for each run of a stripe's chunks on consecutive channels
    /// (`at` holds one state per channel).
    #[inline(always)]
    fn deal_segment<T>(&self, g: usize, at: &mut [T], mut step: impl FnMut(&mut [T], u32)) {
        let (w, m) = (self.width, self.channels);
        let (fi, rem) = self.starts[g];
        let mut t = Taken::resume(&self.forced, self.rest_all, self.rest_want, fi as usize, rem);
        t.each_in(self.stripes_of_segment(g), w, m, |s, first| {
            // Chunk j of the stripe lies on channel first + j (mod channels).
            let head = (m - first).min(w);
            step(&mut at[first as usize..(first + head) as usize], s * w);
            step(&mut at[..(w - head) as usize], s * w + head);
        });
    }
}

#[cfg(test)]
#[path = "lazy_tests.rs"]
mod tests;
