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
/// stripes, sparse deals, and segments of 1 to 256 stripes (the last one
/// partial).
#[test]
fn the_lazy_deal_reads_as_the_eager_one() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    for (channels, width, dies, planes) in CASES {
        let lay = layout(channels, dies, planes);
        let st = StripeLayout::new(channels, width, width > 1, 97);
        // The last four are sparse (crossed by jumps, `Taken::each_in`).
        let wants = [
            (vec![], 97),
            (vec![], 40),
            (vec![3, 4, 50, 96], 41),
            (vec![3, 4, 50, 96], 12),
            (vec![], 9),
            (vec![0, 1, 2], 3),
            (vec![], 0),
        ];
        for (forced, want) in wants {
            for (zbits, shape) in [(0, Shape::Packed), (1, Shape::Steady), (3, Shape::Uniform), (8, Shape::Steady)] {
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
        // 32: one segment, as `plane_counts` counts them.
        for zbits in (0..8).chain([32]) {
            assert_eq!(LazyDeal::build_in(&st, &lay, &[3, 4, 50, 96], 41, zbits).plane_counts(), dealt);
        }
    }
}

/// The slot runs of two planes.
type TwoPlanes<'a> = [&'a [(Ppn, u32)]; 2];

/// A deal over one channel of two planes whose slots lie in the given runs.
fn with_runs(planes: TwoPlanes) -> LazyDeal {
    let lay = layout(1, 1, 2);
    let st = StripeLayout::new(1, 1, false, 0);
    LazyDeal::build_in(&st, &lay, &[], 0, 0).with_slots(planes.into_iter())
}

/// A plane's slots in runs out of page order: each slot is found at the
/// page its run puts it, with the pages left in that run; the page just
/// past a run holds no slot, and neither is there a slot past the last.
#[test]
fn slot_runs_find_each_slot_and_nothing_past_a_run() {
    let runs: &[(Ppn, u32)] = &[(10, 3), (2, 4), (40, 1)];
    let d = with_runs([runs, &[]]);
    // By hand: slots 0–2 on pages 10–12, 3–6 on 2–5, 7 on 40.
    let pages = [10, 11, 12, 2, 3, 4, 5, 40];
    let left = [3, 2, 1, 4, 3, 2, 1, 1];
    let run = [0, 0, 0, 1, 1, 1, 1, 2];
    for k in 0..8 {
        assert_eq!(d.slots.cursor(0, k as u32), (pages[k], left[k], run[k]), "slot {k}");
    }
    assert_eq!(d.slots.cursor(0, 8), (0, 0, 3), "past the last slot");
    let ppp = d.ppp;
    for ppn in 0..ppp {
        let want = pages.iter().position(|&p| p == ppn).map(|k| k as u32);
        assert_eq!(d.slots.slot_at(0, ppn), want, "page {ppn}");
    }
    for ppn in ppp..2 * ppp {
        assert_eq!(d.slots.slot_at(1, ppn), None, "page {ppn} of the plane without slots");
    }
}

/// The packed flag, which picks the arithmetic lay-out, holds exactly
/// when every plane's slots are one run from its first page, or none.
#[test]
fn the_packed_path_is_taken_only_for_one_run_from_each_planes_first_page() {
    let lay = layout(1, 1, 2);
    let ppp = lay.pages_per_block * lay.blocks_per_plane;
    let cases: [(TwoPlanes, bool); 5] = [
        ([&[(0, 5)], &[(ppp, 7)]], true),
        ([&[], &[(ppp, 7)]], true),
        ([&[], &[]], true),
        ([&[(0, 5)], &[(ppp + 8, 7)]], false),
        ([&[(0, 5)], &[(ppp, 3), (ppp + 8, 2)]], false),
    ];
    for (planes, packed) in cases {
        assert_eq!(with_runs(planes).slots.packed, packed, "{planes:?}");
    }
}

/// `build` sizes segments so that the per-segment counts stay near
/// 2^COUNT_ENTRIES_LOG2 entries: at most that many (plus one row), and more
/// than half of it unless segments are at their floor of 2^MIN_SEGMENT_LOG2
/// stripes.
#[test]
fn segments_keep_the_counts_near_their_budget() {
    for (m, k, stripes) in [(8, 4, 1 << 24), (16, 8, 3 << 21), (5, 3, 1_000_000), (8, 4, 100)] {
        let st = StripeLayout::new(m, k, true, stripes);
        let d = LazyDeal::build(&st, &layout(m, 1, 1), &[], stripes as u64);
        let entries = d.segments() * m as usize;
        let case = format!("{m} channels, {stripes} stripes, segments of 2^{}", d.zbits);
        assert!(entries <= (1 << COUNT_ENTRIES_LOG2) + m as usize, "{case}: {entries} entries");
        if d.zbits > MIN_SEGMENT_LOG2 {
            assert!(entries > 1 << (COUNT_ENTRIES_LOG2 - 1), "{case}: {entries} entries");
        } else {
            assert!(stripes as u64 * m as u64 <= 1 << (COUNT_ENTRIES_LOG2 + MIN_SEGMENT_LOG2), "{case}");
        }
    }
}
