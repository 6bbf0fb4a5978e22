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
use super::stripe_count::{gcd, rest_taken};
use crate::flash::address::{Layout, Ppn};
use crate::ftl::mapping::Placer;
use crate::raid::stripe::StripeLayout;
use std::cell::Cell;

/// Entries of the per-segment counts kept at most (about; 4 bytes each).
const COUNT_ENTRIES_LOG2: u32 = 17;
/// Fewest stripes in a segment, as a power of two.
const MIN_SEGMENT_LOG2: u32 = 8;

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
    /// m / gcd(k, m)), the forced stripes are counted one by one, and the
    /// rest between them by floor sums ([`rest_taken`]).
    fn build_in(stripes: &StripeLayout, lay: &Layout, forced: &[u32], want: u64, zbits: u32) -> LazyDeal {
        debug_assert!(stripes.column(0).is_none(), "stripes bound to dies are dealt by die");
        let (w, m) = (stripes.width, stripes.channels as usize);
        let all = stripes.stripes;
        let segments = (all as usize).div_ceil(1 << zbits);
        let t = Taken::new(stripes, forced, want);
        let (rest_all, rest_want) = (t.rest_all, t.rest_want);
        let l = m / gcd(w as usize, m);
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

    /// The chunk ids of segment `g`'s stripes.
    pub(crate) fn chunks_of_segment(&self, g: usize) -> std::ops::Range<usize> {
        let s0 = (g << self.zbits).min(self.stripes as usize);
        let s1 = ((g + 1) << self.zbits).min(self.stripes as usize);
        s0 * self.width as usize..s1 * self.width as usize
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
            // Each plane: (next page, pages left in its run, run index).
            let mut cur: Vec<(Ppn, u32, u32)> = Vec::with_capacity((m * ppc) as usize);
            for (&n, ch) in row.iter().zip(0..) {
                for local in 0..ppc {
                    // Chunks the plane was dealt before: its slot index.
                    let k = n / ppc + u32::from(local < n % ppc);
                    cur.push(self.slots.cursor((ch * ppc + local) as usize, k));
                }
            }
            let slots = &self.slots;
            self.deal_segment(g, &mut at, |at, chunk| {
                map.place_run(chunk, at, |a| {
                    let (base, local) = *a;
                    a.1 = if local + 1 == ppc { 0 } else { local + 1 };
                    let plane = (base + local) as usize;
                    let c = &mut cur[plane];
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
        let s0 = (g as u32) << self.zbits;
        let mut first = ((s0 as u64 * w as u64) % m as u64) as u32;
        for s in s0..self.stripes.min(s0 + (1 << self.zbits)) {
            if t.take(s) {
                // Chunk j of the stripe lies on channel first + j (mod channels).
                let head = (m - first).min(w);
                step(&mut at[first as usize..(first + head) as usize], s * w);
                step(&mut at[..(w - head) as usize], s * w + head);
            }
            first += w;
            if first >= m {
                first -= m;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::deal::deal;
    use super::super::{packed, steady, uniform, Cursors, Slots};
    use super::*;
    use crate::ftl::mapping::Mapping;
    use rand::{RngExt, SeedableRng};

    /// A device of `channels` channels whose planes hold 16 blocks of 8 pages.
    fn layout(channels: u32, dies: u32, planes: u32) -> Layout {
        Layout::of(channels, dies, planes, 16, 8, 4096)
    }

    /// Plans of each layout's shape: one run per plane (packed), one per
    /// block in shuffled block order (steady-state), runs of a few pages
    /// (uniform).
    #[derive(Clone, Copy, Debug)]
    enum Shape {
        Packed,
        Steady,
        Uniform,
    }

    /// Both maps of a preconditioning whose planes' slots have `shape`:
    /// dealt chunk by chunk through the planes' cursors (the reference),
    /// and deferred to `LazyDeal` with segments of 2^`zbits` stripes. The
    /// valid bits are set in both; also the pages no chunk was dealt to.
    fn both(
        st: &StripeLayout,
        lay: &Layout,
        (forced, want): (&[u32], u64),
        zbits: u32,
        shape: Shape,
        rng: &mut rand_pcg::Pcg64Mcg,
    ) -> (Mapping, Mapping, Vec<u32>) {
        let d = LazyDeal::build_in(st, lay, forced, want, zbits);
        let counts = d.plane_counts();
        let ppb = lay.pages_per_block as u64;
        let slots: Vec<Slots> = (0..lay.planes())
            .map(|p| {
                let n = counts[p as usize];
                let plan = match shape {
                    Shape::Packed => packed(n, 3, ppb),
                    // Too few valid pages for a hot pool: all cold.
                    Shape::Steady => {
                        steady(n, 9, ppb, 0.6, rng).or_else(|_| steady(n, 0, ppb, 0.6, rng)).expect("cold blocks only")
                    }
                    Shape::Uniform => uniform(n, 5, ppb, rng),
                };
                Slots::of(&plan, lay.first_page(lay.first_block(p)), ppb)
            })
            .collect();
        let (chunks, pages) = (st.stripes as u64 * st.width as u64, lay.pages());
        let ppp = lay.pages_per_block * lay.blocks_per_plane;
        let mut eager = Mapping::with_tables(chunks, pages, ppp, false);
        let mut cursors = Cursors::new(&slots);
        let m = eager.placer();
        deal(st, lay, forced, want, |c, p| m.place(c, cursors.next(p as usize)));
        let mut lazy = Mapping::with_tables(chunks, pages, ppp, false);
        // Told of the segments a run reaches, or not: set-up pre-writes
        // their forward-map pages only, which must not change a value.
        let reached: Option<Vec<u64>> =
            rng.random_bool(0.5).then(|| (0..(st.stripes >> zbits) / 64 + 1).map(|_| rng.random()).collect());
        let d = d.with_slots(slots.iter().map(|s| &s.runs[..]));
        let segments = (st.stripes as usize).div_ceil(1 << zbits);
        let cover: Vec<usize> = (0..segments).flat_map(|g| d.chunks_of_segment(g)).collect();
        assert_eq!(cover, (0..chunks as usize).collect::<Vec<_>>(), "segments cover the chunks once, in order");
        lazy.defer(d, reached.as_deref());
        let mut dealt = vec![false; pages as usize];
        for s in &slots {
            for &(page, n) in &s.runs {
                eager.mark_run(page, n);
                lazy.mark_run(page, n);
                dealt[page as usize..(page + n) as usize].fill(true);
            }
        }
        (eager, lazy, (0..pages).filter(|&p| !dealt[p as usize]).collect())
    }

    const CASES: [(u32, u32, u32, u32); 5] = [(8, 4, 4, 4), (8, 8, 1, 2), (5, 3, 2, 3), (7, 7, 3, 1), (6, 1, 2, 2)];

    /// Laid out segment by segment as entries are first read, in random
    /// order, by chunk or by page, or all at once first, the deal gives
    /// every chunk and every page what the chunk-by-chunk deal gives them;
    /// over widths that do and do not divide the channel count, forced
    /// stripes, and segments of 1 to 256 stripes (the last one partial).
    #[test]
    fn the_lazy_deal_reads_as_the_eager_one() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        for (channels, width, dies, planes) in CASES {
            let lay = layout(channels, dies, planes);
            let st = StripeLayout::new(channels, width, width > 1, 97);
            for (forced, want) in
                [(vec![], 97), (vec![], 40), (vec![3, 4, 50, 96], 41), (vec![0, 1, 2], 3), (vec![], 0)]
            {
                for (zbits, shape) in [(0, Shape::Packed), (1, Shape::Steady), (3, Shape::Uniform), (8, Shape::Steady)]
                {
                    let case = format!(
                        "m={channels} k={width} planes {dies}x{planes} want={want} forced {forced:?} z={zbits} {shape:?}"
                    );
                    let (eager, lazy, _) = both(&st, &lay, (&forced, want), zbits, shape, &mut rng);
                    // Laid out whole at set-up (`reach.rs`) in every other case.
                    let whole = rng.random_bool(0.5);
                    if whole {
                        lazy.lay_out_all();
                    }
                    let case = format!("{case} whole={whole}");
                    let (chunks, pages) = (st.stripes * width, lay.pages());
                    let mut order: Vec<(bool, u32)> =
                        (0..chunks).map(|c| (true, c)).chain((0..pages).map(|p| (false, p))).collect();
                    for i in (1..order.len()).rev() {
                        order.swap(i, rng.random_range(0..=i));
                    }
                    for (by_chunk, x) in order {
                        if by_chunk {
                            assert_eq!(lazy.get(x), eager.get(x), "chunk {x}, {case}");
                        } else {
                            assert_eq!(lazy.owner(x), eager.owner(x), "page {x}, {case}");
                        }
                    }
                    let placed = (0..chunks).filter(|&c| lazy.get(c).is_some()).count();
                    assert_eq!(placed as u64, want * width as u64, "{case}");
                }
            }
        }
    }

    /// Writes, GC moves, unmaps and id swaps that reach segments not yet
    /// laid out leave the map as they leave the eagerly dealt one: each
    /// change lays out what it reads first.
    #[test]
    fn changes_before_the_layout_land_as_on_the_eager_deal() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
        for (channels, width, dies, planes) in CASES {
            let lay = layout(channels, dies, planes);
            let st = StripeLayout::new(channels, width, width > 1, 97);
            let shape = [Shape::Packed, Shape::Steady, Shape::Uniform][channels as usize % 3];
            let (mut eager, mut lazy, mut free) = both(&st, &lay, (&[5, 6], 60), 1, shape, &mut rng);
            let (chunks, pages) = (st.stripes * width, lay.pages());
            for step in 0..400 {
                let case = format!("m={channels} k={width} step {step}");
                match rng.random_range(0..4) {
                    0 if !free.is_empty() => {
                        let (c, p) = (rng.random_range(0..chunks), free.swap_remove(rng.random_range(0..free.len())));
                        let old = eager.set(c, p);
                        assert_eq!(lazy.set(c, p), old, "set {c} to {p}, {case}");
                        free.extend(old);
                    }
                    1 if !free.is_empty() => {
                        let p = rng.random_range(0..pages);
                        if eager.owner(p).is_some() {
                            let new = free.swap_remove(rng.random_range(0..free.len()));
                            assert_eq!(lazy.move_page(p, new), eager.move_page(p, new), "move {p}, {case}");
                            free.push(p);
                        }
                    }
                    2 => {
                        let p = rng.random_range(0..pages);
                        if eager.owner(p).is_some() {
                            eager.unmap(p);
                            lazy.unmap(p);
                            free.push(p);
                        }
                    }
                    _ => {
                        let (a, b) = (rng.random_range(0..chunks), rng.random_range(0..chunks));
                        if a != b {
                            eager.swap_ids(a, b);
                            lazy.swap_ids(a, b);
                        }
                    }
                }
            }
            for c in 0..chunks {
                assert_eq!(lazy.get(c), eager.get(c), "chunk {c}, m={channels} k={width}");
            }
            for p in 0..pages {
                assert_eq!(lazy.owner(p), eager.owner(p), "page {p}, m={channels} k={width}");
            }
        }
    }

    /// Counted in closed form, each segment's start (the stripe rule's state)
    /// and each channel's running count are what walking the stripes one by
    /// one with [`Taken`] gives: random channel counts, widths, forced
    /// stripes (runs of them, at segment edges), wants and segment sizes.
    #[test]
    fn the_segments_counted_in_closed_form_are_the_walked_ones() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        for case in 0..400 {
            let m = rng.random_range(1..17u32);
            let k = rng.random_range(1..=m);
            let all = rng.random_range(0..3000u32);
            let st = StripeLayout::new(m, k, k > 1, all);
            let mut forced: Vec<u32> = (0..all).filter(|_| rng.random_range(0..100) < [0, 2, 30][case % 3]).collect();
            if case % 5 == 0 && all > 70 {
                forced.extend(60..70);
                forced.sort_unstable();
                forced.dedup();
            }
            let want = rng.random_range(forced.len() as u64..=all as u64);
            let zbits = rng.random_range(0..7);
            let lay = layout(m, 1, 1);
            let d = LazyDeal::build_in(&st, &lay, &forced, want, zbits);
            // The walk.
            let mut t = Taken::new(&st, &forced, want);
            let mut count = vec![0u32; m as usize];
            let mut first = 0u32;
            for s in 0..all {
                if s % (1 << zbits) == 0 {
                    let g = (s >> zbits) as usize;
                    let case = format!("m={m} k={k} stripes={all} want={want} forced {} z={zbits} g={g}", forced.len());
                    assert_eq!(d.starts[g], (t.fi as u32, t.rem), "{case}");
                    assert_eq!(&d.counts[g * m as usize..(g + 1) * m as usize], &count[..], "{case}");
                }
                if t.take(s) {
                    for j in 0..k {
                        count[((first + j) % m) as usize] += 1;
                    }
                }
                first = (first + k) % m;
            }
            assert_eq!(&d.counts[d.segments() * m as usize..], &count[..], "totals, case {case}");
        }
    }

    /// The counts per plane are those of dealing every chunk, with segments
    /// of every size tried.
    #[test]
    fn plane_counts_do_not_depend_on_the_segments() {
        for (channels, width, dies, planes) in CASES {
            let lay = layout(channels, dies, planes);
            let st = StripeLayout::new(channels, width, width > 1, 97);
            let mut dealt = vec![0u64; lay.planes() as usize];
            deal(&st, &lay, &[3, 4, 50, 96], 41, |_, p| dealt[p as usize] += 1);
            for zbits in 0..8 {
                assert_eq!(LazyDeal::build_in(&st, &lay, &[3, 4, 50, 96], 41, zbits).plane_counts(), dealt);
            }
        }
    }
}
