//! The deal: which chunk goes to which plane, in stripe order.
//!
//! Each channel's chunks go round-robin over its planes (over a die's
//! planes when stripes are bound to dies). Each plane's chunks then take its
//! valid slots in order: through a cursor per plane ([`deal_cursors`];
//! [`deal`] for stripes bound to dies), or, when each plane's slots are one
//! run from its first page (the packed layout), by arithmetic, segment by
//! segment as the run first reads them (`lazy.rs`). [`deal`], chunk by
//! chunk, is the reference the other two are tested against.

use super::Cursors;
use crate::flash::address::Layout;
use crate::ftl::mapping::Placer;
use crate::raid::stripe::StripeLayout;

/// Deals the chunks of `want` stripes, the `forced` ones and others spread
/// evenly, in stripe order, round-robin over the planes of each chunk's
/// channel: `f(chunk, global plane)` for each.
pub(super) fn deal(stripes: &StripeLayout, lay: &Layout, forced: &[u32], want: u64, mut f: impl FnMut(u32, u32)) {
    let (w, channels) = (stripes.width, stripes.channels);
    let planes_per_ch = lay.dies_per_channel * lay.planes_per_die;
    if stripes.column(0).is_none() {
        // Unbound (the common case): each channel's next plane, local. The
        // position is stored before `f` runs, so nothing is reloaded after
        // `f`'s stores.
        let mut next = vec![0u32; channels as usize];
        let last = channels - 1;
        taken(stripes, forced, want, |s, first| {
            let mut ch = first;
            for chunk in s * w..(s + 1) * w {
                let n = &mut next[ch as usize];
                let local = *n;
                *n = if local + 1 == planes_per_ch { 0 } else { local + 1 };
                f(chunk, ch * planes_per_ch + local);
                ch = if ch == last { 0 } else { ch + 1 };
            }
        });
        return;
    }
    // Bound to a die (rotating GC): each stripe deals over its column's
    // planes, a round-robin position per die, kept reduced.
    let mut deal_die = vec![0u32; lay.dies() as usize];
    taken(stripes, forced, want, |s, first| {
        debug_assert_eq!(stripes.channel(s, 0), first);
        let mut ch = first;
        let col = stripes.column(s).expect("every stripe bound when the first is");
        for j in 0..w {
            let n = &mut deal_die[(ch * lay.dies_per_channel + col) as usize];
            let local = col * lay.planes_per_die + *n;
            *n = if *n + 1 == lay.planes_per_die { 0 } else { *n + 1 };
            f(s * w + j, ch * planes_per_ch + local);
            ch += 1;
            if ch == channels {
                ch = 0;
            }
        }
    });
}

/// The stripes that hold data, ascending: the `forced` ones and the rest
/// spread evenly, `want` in all; `f(stripe, channel of its first chunk)`.
fn taken(stripes: &StripeLayout, forced: &[u32], want: u64, f: impl FnMut(u32, u32)) {
    Taken::new(stripes, forced, want).each_in(0..stripes.stripes, stripes.width, stripes.channels, f);
}

/// Which stripes [`taken`] takes, asked in stripe order; its state can be
/// kept and resumed (the lazy deal starts mid-way, `lazy.rs`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Taken<'a> {
    pub(super) forced: &'a [u32],
    /// Stripes not forced (S) and how many of them to take (W).
    pub(super) rest_all: u64,
    pub(super) rest_want: u64,
    /// Forced stripes passed.
    pub(super) fi: usize,
    /// (i·W) mod S for the next stripe i of the rest.
    pub(super) rem: u64,
    /// `forced[fi]`, or `u32::MAX` past the last (kept apart: one compare a stripe).
    pub(super) next_forced: u32,
}

impl<'a> Taken<'a> {
    pub fn new(stripes: &StripeLayout, forced: &'a [u32], want: u64) -> Self {
        let rest_all = stripes.stripes as u64 - forced.len() as u64;
        let rest_want = want - forced.len() as u64;
        debug_assert!(rest_want <= rest_all);
        Taken { forced, rest_all, rest_want, fi: 0, rem: 0, next_forced: forced.first().copied().unwrap_or(u32::MAX) }
    }
    /// The state after `fi` forced stripes and the rest's remainder `rem`.
    pub fn resume(forced: &'a [u32], rest_all: u64, rest_want: u64, fi: usize, rem: u64) -> Self {
        Taken { forced, rest_all, rest_want, fi, rem, next_forced: forced.get(fi).copied().unwrap_or(u32::MAX) }
    }
    /// Whether stripe `s`, the one after the last asked, holds data.
    #[inline(always)]
    pub fn take(&mut self, s: u32) -> bool {
        if s == self.next_forced {
            self.fi += 1;
            self.next_forced = self.forced.get(self.fi).copied().unwrap_or(u32::MAX);
            return true;
        }
        // Stripe i of the rest is taken when ⌊(i+1)·W/S⌋ > ⌊i·W/S⌋, i.e. when
        // (i·W mod S) + W reaches S (W ≤ S). Here rest_all > 0 (a stripe not
        // forced), so W = 0 never takes one.
        self.rem += self.rest_want;
        let t = self.rem >= self.rest_all;
        if t {
            self.rem -= self.rest_all;
        }
        t
    }

    /// The first stripe from `s` (the one after the last asked) below `end`
    /// that holds data, as if [`Self::take`] were asked each stripe up to
    /// it; `None`, every stripe below `end` asked, when none does. Runs of
    /// the rest are crossed by arithmetic: the j-th of them (from 1) is the
    /// first taken when rem + j·W ≥ S.
    #[inline]
    pub fn next_taken(&mut self, s: u32, end: u32) -> Option<u32> {
        let stop = self.next_forced.min(end);
        if s < stop {
            let n = (stop - s) as u64;
            if self.rest_want > 0 {
                // rem < S, so j ≥ 1; rem + j·W < 2S fits easily.
                let j = (self.rest_all - self.rem).div_ceil(self.rest_want);
                if j <= n {
                    self.rem = self.rem + j * self.rest_want - self.rest_all;
                    return Some(s + j as u32 - 1);
                }
            }
            // None of the n taken: rem + n·W < S.
            self.rem += n * self.rest_want;
        }
        if stop == end {
            return None;
        }
        self.fi += 1;
        self.next_forced = self.forced.get(self.fi).copied().unwrap_or(u32::MAX);
        Some(stop)
    }

    /// Asks stripes `range` in order (its first is the one after the last
    /// asked): `f(stripe, channel of its first chunk)` for each that holds
    /// data, on `channels` channels and stripes `width` wide. When few of
    /// the rest are taken (the trace's stripes on a device otherwise
    /// empty), it jumps from one taken stripe to the next rather than
    /// asking each of tens of millions.
    #[inline(always)]
    pub fn each_in(&mut self, range: std::ops::Range<u32>, width: u32, channels: u32, mut f: impl FnMut(u32, u32)) {
        let first_of = |s: u32| ((s as u64 * width as u64) % channels as u64) as u32;
        if self.rest_want.saturating_mul(SPARSE) < self.rest_all {
            let mut s = range.start;
            while let Some(x) = self.next_taken(s, range.end) {
                f(x, first_of(x));
                s = x + 1;
            }
            return;
        }
        // (s·k) mod m, kept reduced (k ≤ m).
        let mut first = first_of(range.start);
        for s in range {
            if self.take(s) {
                f(s, first);
            }
            first += width;
            if first >= channels {
                first -= channels;
            }
        }
    }
}

/// The rest is sparse, and crossed by jumps ([`Taken::each_in`]), when
/// fewer than one stripe in this many of it is taken.
const SPARSE: u64 = 8;

/// Chunks dealt to each plane. Stripes not bound to a die deal each
/// channel's chunks round-robin over its planes from plane 0, so counting
/// each channel's chunks is enough (`LazyDeal`); bound ones are dealt.
pub(super) fn plane_counts(stripes: &StripeLayout, lay: &Layout, forced: &[u32], want: u64) -> Vec<u64> {
    if stripes.column(0).is_some() {
        let mut counts = vec![0u64; lay.planes() as usize];
        deal(stripes, lay, forced, want, |_, plane| counts[plane as usize] += 1);
        return counts;
    }
    // Counted as one segment: the totals are all that is asked here.
    super::lazy::LazyDeal::build_in(stripes, lay, forced, want, 32).plane_counts()
}

/// [`deal`] of stripes not bound to dies, each chunk placed at its plane's
/// next slot from `cursors`, a stripe's chunks on consecutive channels in
/// one [`Placer::place_run`]: false, placing nothing, if stripes are bound.
pub(super) fn deal_cursors(
    stripes: &StripeLayout,
    lay: &Layout,
    forced: &[u32],
    want: u64,
    cursors: &mut Cursors<'_>,
    map: &mut Placer<'_>,
) -> bool {
    if stripes.column(0).is_some() {
        return false;
    }
    let (w, channels) = (stripes.width, stripes.channels);
    let ppc = lay.dies_per_channel * lay.planes_per_die;
    // Each channel: (its first plane, the next plane's index within it).
    let mut at: Vec<(u32, u32)> = (0..channels).map(|ch| (ch * ppc, 0)).collect();
    let mut step = |at: &mut [(u32, u32)], chunk: u32| {
        map.place_run(chunk, at, |a| {
            let (base, local) = *a;
            a.1 = if local + 1 == ppc { 0 } else { local + 1 };
            cursors.next((base + local) as usize)
        });
    };
    taken(stripes, forced, want, |s, first| {
        let (first, head) = (first as usize, (channels - first).min(w));
        step(&mut at[first..first + head as usize], s * w);
        step(&mut at[..(w - head) as usize], s * w + head);
    });
    true
}

#[cfg(test)]
mod tests {
    use super::super::Slots;
    use super::*;

    fn layout(channels: u32, dies: u32, planes: u32) -> Layout {
        Layout::of(channels, dies, planes, 8, 4, 4096)
    }

    /// The per-stripe count equals dealing every chunk, for widths that do
    /// and do not divide the channel count, with and without forced stripes.
    #[test]
    fn plane_counts_equal_the_dealt_counts() {
        for (channels, width, dies, planes) in [(8, 4, 4, 4), (8, 8, 1, 2), (5, 3, 2, 3), (7, 7, 3, 1), (6, 1, 2, 2)] {
            let lay = layout(channels, dies, planes);
            let st = StripeLayout::new(channels, width, width > 1, 97);
            for (forced, want) in
                [(vec![], 97), (vec![], 40), (vec![3, 4, 50, 96], 41), (vec![0, 1, 2], 3), (vec![], 0)]
            {
                let mut dealt = vec![0u64; lay.planes() as usize];
                deal(&st, &lay, &forced, want, |_, p| dealt[p as usize] += 1);
                assert_eq!(dealt.iter().sum::<u64>(), want * width as u64);
                assert_eq!(plane_counts(&st, &lay, &forced, want), dealt, "m={channels} k={width} want={want}");
            }
        }
    }

    /// Stripes bound to die columns (rotating GC), checked by hand: chunk
    /// j of stripe s goes to channel (s·k + j) mod m, on the die of its
    /// stripe's column, and each die's chunks go round its planes in turn.
    #[test]
    fn a_bound_deal_keeps_stripes_on_their_column_and_turns_each_die_round_its_planes() {
        for (channels, width, dies, planes) in [(4, 4, 2, 2), (5, 3, 3, 2), (4, 2, 2, 3)] {
            let lay = layout(channels, dies, planes);
            let st = StripeLayout::new(channels, width, width > 1, 60).with_columns(dies);
            let mut turns = vec![0u32; lay.dies() as usize];
            let mut columns = std::collections::BTreeSet::new();
            deal(&st, &lay, &[5, 59], 30, |chunk, plane| {
                let (s, j) = (chunk / width, chunk % width);
                let col = st.column(s).expect("bound");
                columns.insert(col);
                let die = (s * width + j) % channels * dies + col;
                assert_eq!(plane, die * planes + turns[die as usize] % planes, "chunk {chunk}, m={channels}");
                turns[die as usize] += 1;
            });
            assert_eq!(turns.iter().sum::<u32>(), 30 * width);
            assert!(columns.len() > 1, "more than one column: {columns:?}");
            assert!(turns.iter().any(|&t| t > planes), "some die turns round its planes");
        }
    }

    /// Every stripe taken once, the forced ones among them, and each
    /// one's first channel is (s·k) mod m.
    #[test]
    fn taken_stripes_include_the_forced_ones_and_number_want() {
        let st = StripeLayout::new(6, 4, true, 50);
        let mut got = Vec::new();
        taken(&st, &[7, 8, 49], 20, |s, first| {
            assert_eq!(first, (s * 4) % 6);
            got.push(s);
        });
        assert_eq!(got.len(), 20);
        assert!(got.windows(2).all(|p| p[0] < p[1]));
        assert!([7, 8, 49].iter().all(|s| got.contains(s)));
    }

    /// Jumping between taken stripes asks exactly what asking each stripe
    /// does: the same stripes, first channels and state, across forced
    /// stripes and range ends, sparse and dense (every want from 0 to all).
    #[test]
    fn each_in_takes_what_take_takes_stripe_by_stripe() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let (mut sparse, mut dense) = (0, 0);
        for _ in 0..400 {
            let m = rng.random_range(1..9u32);
            let w = rng.random_range(1..=m);
            let n = rng.random_range(1..3000u32);
            let st = StripeLayout::new(m, w, w > 1, n);
            let mut forced: Vec<u32> = (0..rng.random_range(0..20)).map(|_| rng.random_range(0..n)).collect();
            forced.sort_unstable();
            forced.dedup();
            // Half of them sparse (a rest of at most a tenth), half anything.
            let rest = n as u64 - forced.len() as u64;
            let most = if rng.random_bool(0.5) { rest / 10 } else { rest };
            let want = forced.len() as u64 + rng.random_range(0..=most);
            let mut by_one = Taken::new(&st, &forced, want);
            let expected: Vec<(u32, u32)> = (0..n).filter(|&s| by_one.take(s)).map(|s| (s, s * w % m)).collect();
            assert_eq!(expected.len() as u64, want);
            // In pieces, as the lazy deal asks segment by segment.
            let mut cuts: Vec<u32> = (0..rng.random_range(0..5)).map(|_| rng.random_range(0..=n)).collect();
            cuts.extend([0, n]);
            cuts.sort_unstable();
            let mut t = Taken::new(&st, &forced, want);
            let mut got = Vec::new();
            for c in cuts.windows(2) {
                t.each_in(c[0]..c[1], w, m, |s, first| got.push((s, first)));
            }
            assert_eq!(got, expected, "m={m} k={w} n={n} forced={forced:?} want={want}");
            assert_eq!((t.fi, t.rem), (by_one.fi, by_one.rem));
            if (want - forced.len() as u64) * SPARSE < n as u64 - forced.len() as u64 {
                sparse += 1;
            } else {
                dense += 1;
            }
        }
        assert!(sparse > 50 && dense > 50, "both paths: {sparse} sparse, {dense} dense");
    }

    /// Dealing through the cursors a channel slice at a time places every
    /// chunk where the chunk-by-chunk deal does, on planes laid out
    /// uniformly (slots in many runs); bound stripes are refused.
    #[test]
    fn the_cursor_deal_by_runs_places_chunks_as_chunk_by_chunk() {
        use super::super::{uniform, Cursors};
        use crate::ftl::mapping::Mapping;
        use rand::SeedableRng;
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        for (channels, width, dies, planes) in [(8, 4, 4, 4), (8, 8, 1, 2), (5, 3, 2, 3), (7, 7, 3, 1), (6, 1, 2, 2)] {
            let lay = layout(channels, dies, planes);
            let st = StripeLayout::new(channels, width, width > 1, 97);
            // As many stripes as the smallest of these devices holds.
            for (forced, want) in [(vec![], 60), (vec![3, 4, 50, 96], 41)] {
                let counts = plane_counts(&st, &lay, &forced, want);
                let ppb = lay.pages_per_block as u64;
                let slots: Vec<Slots> = (0..lay.planes())
                    .map(|p| {
                        // Invalid pages where the plane has room for them.
                        let room = ppb * lay.blocks_per_plane as u64 - counts[p as usize];
                        let plan = uniform(counts[p as usize], room.min(6), ppb, &mut rng);
                        Slots::of(&plan, lay.first_page(lay.first_block(p)), ppb)
                    })
                    .collect();
                assert!(slots.iter().any(|s| s.runs.len() > 1), "runs to cross");
                let (chunks, pages) = (st.stripes as u64 * width as u64, lay.pages());
                let mut one_by_one = Mapping::new(chunks, pages);
                let mut cursors = Cursors::new(&slots);
                let m = one_by_one.placer();
                deal(&st, &lay, &forced, want, |c, p| m.place(c, cursors.next(p as usize)));
                let mut by_runs = Mapping::new(chunks, pages);
                let mut cursors = Cursors::new(&slots);
                assert!(deal_cursors(&st, &lay, &forced, want, &mut cursors, &mut by_runs.placer()));
                assert!(cursors.at.iter().all(|a| a.1 == 0), "every slot taken");
                for c in 0..chunks as u32 {
                    assert_eq!(by_runs.get(c), one_by_one.get(c), "chunk {c}, m={channels} k={width} want={want}");
                }
            }
            let bound = StripeLayout::new(channels, width, width > 1, 97).with_columns(dies);
            let slots: Vec<Slots> = (0..lay.planes()).map(|_| Slots { runs: vec![] }).collect();
            let mut m = Mapping::new(97 * width as u64, lay.pages());
            assert!(!deal_cursors(&bound, &lay, &[], 97, &mut Cursors::new(&slots), &mut m.placer()));
        }
    }
}
