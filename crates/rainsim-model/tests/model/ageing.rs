//! Preconditioning layouts, trace mapping, the free margin and the warm-up:
//! each checked against what it promises, on hand-sized devices.

use crate::{preset, scheme, tiny, trace_files};
use rainsim_model::config::{AgeLayout, Config, MapTrace, WarmupWorkload};
use rainsim_model::engine::cpu_seconds;
use rainsim_model::ftl::precondition::{steady_state, PreconditionReport};
use rainsim_model::ftl::GcWork;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::metrics::observer::{NullObserver, Observer};
use rainsim_model::run::capacity_bytes;
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};

/// 4 channels × 1 die × 2 planes × 64 blocks × 64 pages, RAID-5 3+1.
fn small(layout: AgeLayout, valid: f64, invalid: f64) -> Config {
    let mut c = tiny(4, 1, 2, 64, 64, Some(4));
    c.geometry.over_provisioning = 0.25;
    c.precondition.valid = valid;
    c.precondition.invalid = invalid;
    c.precondition.layout = layout;
    c
}

/// Valid counts of the full (written) blocks of every plane, plane by plane.
fn written_blocks<O: Observer>(ssd: &Ssd<O>) -> Vec<Vec<u16>> {
    let l = ssd.layout();
    let bpp = l.blocks_per_plane as usize;
    ssd.ftl
        .blocks
        .chunks(bpp)
        .map(|p| p.iter().filter(|b| b.written as u32 == l.pages_per_block).map(|b| b.valid).collect())
        .collect()
}

#[test]
fn packed_blocks_are_all_valid_or_all_invalid() {
    let cfg = small(AgeLayout::Packed, 0.6, 0.2);
    let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
    let mut valid = 0u64;
    for (plane, blocks) in written_blocks(&ssd).iter().enumerate() {
        let mixed = blocks.iter().filter(|&&v| v != 0 && v != 64).count();
        assert!(mixed <= 1, "plane {plane}: {mixed} mixed blocks in {blocks:?}");
        let in_plane = blocks.iter().map(|&v| v as u64).sum::<u64>();
        valid += in_plane;
        // The plane's valid pages plus its 0.2 × 4096 invalid ones, in whole blocks.
        assert_eq!(blocks.len() as u64, (in_plane + 819).div_ceil(64), "plane {plane}");
    }
    // Whole stripes of 4 chunks: ⌊0.6 × pages / 4⌋ stripes.
    let pages = 4 * 2 * 64 * 64u64;
    assert_eq!(valid, (((0.6 * pages as f64) as u64) / 4) * 4);
    assert_eq!(ssd.prep.valid_pages, valid);
    assert_eq!(ssd.prep.victim_valid_mean, 0.0, "a packed plane's victim holds nothing");
}

#[test]
fn steady_state_blocks_follow_the_fifo_greedy_distribution() {
    let mut cfg = small(AgeLayout::SteadyState, 0.6, 0.2);
    cfg.precondition.hot_utilization = Some(0.7);
    let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
    let x = steady_state::victim_fraction(0.7);
    for (plane, blocks) in written_blocks(&ssd).iter().enumerate() {
        let hot: Vec<u16> = blocks.iter().copied().filter(|&v| v < 64).collect();
        // Plane's invalid share: 0.2 × 4096 pages = 819 → ≈ 819 / (64 × 0.3) = 43 hot blocks.
        let n = hot.len() as f64;
        assert!((n - 819.0 / (64.0 * 0.3)).abs() <= 2.0, "plane {plane}: {n} hot blocks");
        let mean = hot.iter().map(|&v| v as f64).sum::<f64>() / (n * 64.0);
        assert!((mean - 0.7).abs() < 0.02, "plane {plane}: hot pool mean {mean}");
        let min = *hot.iter().min().unwrap() as f64;
        assert!(min >= (64.0 * x).floor() - 1.0, "plane {plane}: emptiest block {min} below X·B = {}", 64.0 * x);
        assert!(min <= 64.0 * x + 2.0, "plane {plane}: emptiest block {min}, X·B = {}", 64.0 * x);
    }
    let share = ssd.prep.hot_valid_share.unwrap();
    assert!(share > 0.4 && share < 0.95, "hot share {share}");
    // target_moves_per_gc sets the victim directly.
    cfg.precondition.hot_utilization = None;
    cfg.precondition.target_moves_per_gc = Some(20.0);
    let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
    assert!((ssd.prep.victim_valid_mean - 20.0).abs() <= 1.0, "victims at {}", ssd.prep.victim_valid_mean);
}

/// 4 channels × 2 planes × 16 blocks × 8 pages, 3+1 stripes, valid 0.5:
/// ⌊512 / 4⌋ = 128 stripes, one chunk of each per channel, so 64 valid
/// pages a plane (8 blocks); invalid 0.25 adds round(0.25 × 128) = 32 a
/// plane (4 blocks). GC triggers below max(2, ⌊0.1 × 16⌋) = 2 free blocks.
fn by_hand(layout: AgeLayout) -> Config {
    let mut c = tiny(4, 1, 2, 16, 8, Some(4));
    (c.precondition.valid, c.precondition.invalid, c.precondition.layout) = (0.5, 0.25, layout);
    c
}

/// The whole report, worked by hand: packed (12 blocks used a plane, the
/// invalid ones empty); a free margin of 4 leaving 16 − 2 − 4 = 10 blocks
/// for data (16 invalid pages a plane dropped); steady state at ρ = 0.5
/// (a hot pool of round(32 / (8 × 0.5)) = 8 blocks holding 32 valid pages,
/// the other 32 in 4 cold blocks).
#[test]
fn the_precondition_report_by_hand() {
    let packed = PreconditionReport {
        layout: "packed".into(),
        valid_pages: 8 * 64,
        invalid_pages: 8 * 32,
        stripes_written: 128,
        stripes_mapped_for_trace: 0,
        trace_pages_needed: 0,
        free_blocks_min: 4,
        gc_trigger_blocks: 2,
        victim_valid_mean: 0.0,
        written_valid_fraction: 64.0 / 96.0,
        hot_utilization: None,
        hot_valid_share: None,
        invalid_pages_dropped: 0,
    };
    let ssd = Ssd::new(&by_hand(AgeLayout::Packed), NullObserver, false).unwrap();
    assert_eq!(ssd.prep, packed);
    let mut cfg = by_hand(AgeLayout::Packed);
    cfg.precondition.free_margin = Some(4);
    let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
    let margin = PreconditionReport {
        invalid_pages: 8 * 16,
        invalid_pages_dropped: 8 * 16,
        free_blocks_min: 6,
        written_valid_fraction: 64.0 / 80.0,
        ..packed.clone()
    };
    assert_eq!(ssd.prep, margin);
    let mut cfg = by_hand(AgeLayout::SteadyState);
    cfg.precondition.hot_utilization = Some(0.5);
    let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
    let hot = steady_state::block_valid_counts(8, 8, 32);
    assert_eq!(hot.iter().sum::<u32>(), 32);
    let steady = PreconditionReport {
        layout: "steady-state".into(),
        victim_valid_mean: *hot.iter().min().unwrap() as f64,
        hot_utilization: Some(0.5),
        hot_valid_share: Some(0.5),
        ..packed
    };
    assert_eq!(ssd.prep, steady);
    let mut counts = written_blocks(&ssd);
    for (plane, blocks) in counts.iter_mut().enumerate() {
        blocks.sort_unstable();
        let mut want: Vec<u16> = hot.iter().map(|&v| v as u16).chain([8; 4]).collect();
        want.sort_unstable();
        assert_eq!(*blocks, want, "plane {plane}: the hot pool's counts and 4 full cold blocks");
    }
}

/// The room check at its bound: 14 of 16 blocks used (2 left free, the
/// GC trigger) is allowed; a free margin leaving exactly the valid data's 8
/// blocks drops every invalid page; invalid pages alone (valid 0) are laid.
#[test]
fn preconditioning_fills_a_plane_up_to_its_room() {
    let mut cfg = by_hand(AgeLayout::Packed);
    cfg.precondition.invalid = 48.0 / 128.0;
    let ssd = Ssd::new(&cfg, NullObserver, false).expect("8 + 6 blocks leave the trigger's 2 free");
    assert_eq!((ssd.prep.free_blocks_min, ssd.prep.invalid_pages), (2, 8 * 48));
    cfg.precondition.free_margin = Some(6);
    let ssd = Ssd::new(&cfg, NullObserver, false).expect("the valid data fits the margin's 8 blocks");
    assert_eq!((ssd.prep.free_blocks_min, ssd.prep.invalid_pages, ssd.prep.invalid_pages_dropped), (8, 0, 8 * 48));
    let mut cfg = by_hand(AgeLayout::Packed);
    cfg.precondition.valid = 0.0;
    let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
    assert_eq!((ssd.prep.valid_pages, ssd.prep.invalid_pages, ssd.prep.free_blocks_min), (0, 8 * 32, 12));
}

/// A plane too full names what filled it, and mentions `map_trace` only
/// when the trace forced stripes in: a free margin leaving 7 blocks for
/// 8 blocks of valid data; invalid pages at 0.875 (14 blocks, all the
/// room) plus the one page a forced stripe puts on each channel's first
/// plane.
#[test]
fn a_plane_too_full_says_whether_the_trace_filled_it() {
    let mut cfg = by_hand(AgeLayout::Packed);
    cfg.precondition.free_margin = Some(7);
    let e = Ssd::new(&cfg, NullObserver, false).err().expect("too full").to_string();
    assert!(e.contains("leaves 7 of 16 blocks") && !e.contains("map_trace"), "{e}");
    let mut cfg = by_hand(AgeLayout::Packed);
    (cfg.precondition.valid, cfg.precondition.invalid) = (0.0, 0.875);
    cfg.precondition.map_trace = MapTrace::Footprint;
    let reqs = [Request { time_ns: 0, offset: 0, size: 4096, device: 0, op: Op::Read }];
    let e = Ssd::for_requests(&cfg, NullObserver, false, &reqs).err().expect("too full").to_string();
    assert!(e.contains("needs 15 full blocks in plane 0"), "{e}");
    assert!(e.contains("(1 of its 1 stripes mapped because precondition.map_trace asks for them)"), "{e}");
}

/// Each seed lays its own random layout: seeds that differ in any low bit
/// give different uniform layouts (a seed mixed by `|` or `&` with a
/// constant would give some of them the same one).
#[test]
fn each_seed_lays_its_own_uniform_layout() {
    let layouts: Vec<Vec<Vec<u16>>> = (0..4u64)
        .map(|seed| {
            let mut cfg = by_hand(AgeLayout::Uniform);
            cfg.seed = seed;
            written_blocks(&Ssd::new(&cfg, NullObserver, false).unwrap())
        })
        .collect();
    for a in 0..4 {
        for b in a + 1..4 {
            assert_ne!(layouts[a], layouts[b], "seeds {a} and {b}");
        }
    }
}

/// For every layout, each written block holds exactly as many mapped
/// chunks as its valid count says (a slot handed out twice, or a block
/// skipped, breaks it), including a steady state so sparse (ρ = 0.1) that
/// hot blocks without a valid page lie between partly valid ones; and at
/// ρ = 0.5 the plane's lowest stripes lie in the hot pool (the hot blocks'
/// valid counts), where a skewed workload's hot region starts.
#[test]
fn the_map_agrees_with_every_blocks_valid_count() {
    use AgeLayout::*;
    for (layout, rho, seeds) in
        [(Uniform, None, 1), (Packed, None, 1), (SteadyState, Some(0.5), 1), (SteadyState, Some(0.1), 8)]
    {
        for seed in 0..seeds {
            let mut cfg = by_hand(layout);
            (cfg.precondition.hot_utilization, cfg.seed) = (rho, seed);
            let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
            let l = ssd.layout();
            let (ppb, bpp) = (l.pages_per_block, l.blocks_per_plane);
            let chunks = ssd.stripe_layout().stripes * ssd.stripe_layout().width;
            let mut held = vec![0u16; ssd.ftl.blocks.len()];
            let mut seen = std::collections::HashSet::new();
            let mut plane0 = Vec::new();
            for c in 0..chunks {
                let Some(ppn) = ssd.ftl.lookup(c) else { continue };
                assert!(seen.insert(ppn), "{layout:?}: page {ppn} mapped twice");
                held[(ppn / ppb) as usize] += 1;
                if ppn / ppb / bpp == 0 {
                    plane0.push(ppn / ppb);
                }
            }
            let valid: Vec<u16> = ssd.ftl.blocks.iter().map(|b| b.valid).collect();
            assert_eq!(held, valid, "{layout:?} ρ {rho:?} seed {seed}");
            if rho == Some(0.5) {
                let hot = steady_state::block_valid_counts(8, 8, 32);
                let mut want: Vec<u16> = hot.iter().filter(|&&v| v > 0).map(|&v| v as u16).collect();
                let mut blocks: Vec<u32> = plane0[..32].to_vec();
                blocks.dedup();
                let mut got: Vec<u16> = blocks.iter().map(|&b| valid[b as usize]).collect();
                want.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, want, "plane 0's first 32 chunks fill the hot blocks");
            }
        }
    }
}

/// Selection sampling gives every slot the same chance: with 4 valid pages
/// among a plane's 8 used slots (two blocks of 4), the first block holds 2
/// on average (hypergeometric; sd 0.76). Over 8 planes × 200 seeds the mean
/// is within 0.1 of 2 (5 standard errors); a bias towards early slots
/// (drawing with `≤` instead of `<`) puts it near 2.5.
#[test]
fn uniform_layout_gives_every_slot_the_same_chance() {
    let (mut sum, mut n) = (0u64, 0u64);
    for seed in 0..200 {
        let mut cfg = tiny(4, 1, 2, 8, 4, Some(4));
        (cfg.precondition.valid, cfg.precondition.invalid, cfg.precondition.layout) =
            (0.125, 0.125, AgeLayout::Uniform);
        cfg.seed = seed;
        let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
        for blocks in written_blocks(&ssd) {
            assert_eq!(blocks.iter().map(|&v| v as u64).sum::<u64>(), 4, "4 valid pages a plane");
            (sum, n) = (sum + blocks[0] as u64, n + 1);
        }
    }
    let mean = sum as f64 / n as f64;
    assert!((mean - 2.0).abs() < 0.1, "first block's mean valid count {mean}");
}

/// The steady state's hot pool at its bound: 24 invalid pages at ρ = 0.75
/// take round(24 / 2) = 12 hot blocks, which want 0.75 × 96 = 72 valid
/// pages, the plane's 64 plus one block's rounding: laid. At ρ = 0.76 they
/// take 13 blocks wanting 79, more than rounding covers: an error.
#[test]
fn the_hot_pool_may_round_up_by_one_block_and_no_more() {
    let mut cfg = by_hand(AgeLayout::SteadyState);
    (cfg.precondition.invalid, cfg.precondition.hot_utilization) = (0.1875, Some(0.75));
    let ssd = Ssd::new(&cfg, NullObserver, false).expect("72 = 64 + 8 valid pages is within rounding");
    assert_eq!(ssd.prep.valid_pages, 8 * 64);
    cfg.precondition.hot_utilization = Some(0.76);
    let e = Ssd::new(&cfg, NullObserver, false).err().expect("79 > 72").to_string();
    assert!(e.contains("needs 79 valid pages, but the plane has 64"), "{e}");
}

/// A steady state of invalid pages alone (valid 0): the hot pool is all
/// invalid (ρ = 0), in round(32 / 8) = 4 blocks a plane.
#[test]
fn a_steady_state_of_invalid_pages_alone() {
    let mut cfg = by_hand(AgeLayout::SteadyState);
    cfg.precondition.valid = 0.0;
    let ssd = Ssd::new(&cfg, NullObserver, false).expect("no valid page is needed");
    assert_eq!((ssd.prep.valid_pages, ssd.prep.invalid_pages, ssd.prep.free_blocks_min), (0, 8 * 32, 12));
}

#[test]
fn uniform_layout_scatters_valid_pages_over_every_written_block() {
    let cfg = small(AgeLayout::Uniform, 0.6, 0.2);
    let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
    for blocks in written_blocks(&ssd) {
        let mean = blocks.iter().map(|&v| v as f64).sum::<f64>() / blocks.len() as f64;
        // 0.6 / 0.8 of each block valid on average; no block empty or nearly so.
        assert!((mean / 64.0 - 0.75).abs() < 0.02, "{mean}");
        assert!(blocks.iter().all(|&v| v > 32), "{blocks:?}");
    }
}

#[test]
fn free_margin_keeps_blocks_free_and_gives_way_with_invalid_pages() {
    let mut cfg = small(AgeLayout::Packed, 0.6, 0.3);
    cfg.precondition.free_margin = Some(4);
    let ssd = Ssd::new(&cfg, NullObserver, false).unwrap();
    let trigger = ssd.prep.gc_trigger_blocks;
    assert_eq!(trigger, 6, "⌊0.1 × 64⌋");
    assert!(ssd.prep.free_blocks_min >= trigger + 4, "{:?}", ssd.prep);
    assert!(ssd.prep.invalid_pages_dropped > 0);
    for p in 0..8 {
        let (free, valid, invalid, total) = ssd.ftl.plane_accounting(p);
        assert_eq!(free + valid + invalid, total);
    }
    // A margin that leaves no room for the valid data is an error naming it.
    cfg.precondition.free_margin = Some(30);
    let e = Ssd::new(&cfg, NullObserver, false).err().expect("no room").to_string();
    assert!(e.contains("free_margin = 30") && e.contains("valid pages"), "{e}");
}

/// GC moves in the order the collections ran.
#[derive(Default)]
struct GcLog(Vec<u32>);
impl Observer for GcLog {
    fn gc_done(&mut self, _ch: u32, work: &GcWork, _d: u64, _e: f64) {
        self.0.push(work.moved);
    }
}

#[test]
fn steady_state_stays_steady_under_its_matching_workload() {
    // Every stripe written (valid = usable), all of it hot: full-stripe writes
    // spread uniformly over the stripes overwrite every page at one rate,
    // which is the workload whose steady state the layout lays down.
    let mut cfg = small(AgeLayout::SteadyState, 0.75, 0.1);
    cfg.workload.read_ratio = 0.0;
    cfg.workload.sizes = vec![rainsim_trace::SizeWeight { bytes: 3 * 4096, weight: 1.0 }];
    cfg.workload.align_bytes = 3 * 4096;
    cfg.workload.footprint = 1.0;
    cfg.workload.hot_fraction = 0.0;
    cfg.workload.requests = 40_000;
    cfg.workload.mean_interarrival_ns = 2_000_000;
    let trace = rainsim_trace::generate(&cfg.workload, capacity_bytes(&cfg), 7).unwrap();
    let mut ssd = Ssd::new(&cfg, GcLog::default(), false).unwrap();
    let x = steady_state::victim_fraction(ssd.prep.hot_utilization.unwrap());
    ssd.run(&trace.requests, &mut |_| {}).unwrap();
    let g = &ssd.obs.0;
    assert!(g.len() > 500, "{} GCs", g.len());
    let tenth = g.len() / 10;
    let mean = |s: &[u32]| s.iter().map(|&m| m as f64).sum::<f64>() / s.len() as f64;
    let (first, last) = (mean(&g[..tenth]), mean(&g[g.len() - tenth..]));
    assert!((first - last).abs() <= 0.15 * last, "moves per GC: first tenth {first:.1}, last tenth {last:.1}");
    // And both near the model's victim, X·B.
    assert!((first - 64.0 * x).abs() <= 0.2 * 64.0 * x, "first tenth {first:.1} vs X·B {:.1}", 64.0 * x);
}

#[test]
fn map_trace_reads_leaves_no_read_of_an_unwritten_page_on_any_shared_trace() {
    for path in trace_files() {
        let mut cfg = preset("degraded-mode-8ch");
        cfg.precondition.valid = 0.0;
        cfg.precondition.invalid = 0.3;
        cfg.precondition.layout = AgeLayout::Packed;
        cfg.precondition.target_moves_per_gc = None;
        cfg.precondition.free_margin = None;
        cfg.precondition.map_trace = MapTrace::Reads;
        let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes).unwrap();
        let mut ssd = Ssd::for_requests(&cfg, Collector::new(8), false, &trace.requests).unwrap();
        ssd.run(&trace.requests, &mut |_| {}).unwrap();
        assert_eq!(ssd.obs.unmapped_reads, 0, "{}", path.display());
        let reads = trace.requests.iter().any(|r| r.op == Op::Read);
        assert_eq!(ssd.prep.trace_pages_needed > 0, reads, "{}: {:?}", path.display(), ssd.prep);
        // Without it, the same replay on a fresh device reads unwritten pages.
        if reads {
            cfg.precondition.map_trace = MapTrace::None;
            let mut bare = Ssd::for_requests(&cfg, Collector::new(8), false, &trace.requests).unwrap();
            bare.run(&trace.requests, &mut |_| {}).unwrap();
            assert!(bare.obs.unmapped_reads > 0, "{}", path.display());
        }
    }
}

/// Reads of never-written pages take no flash time: counted by page and, for
/// a request that reads nothing else, by request, with a note in the report.
#[test]
fn reads_of_unwritten_pages_are_counted_by_page_and_by_request() {
    let mut cfg = small(AgeLayout::Packed, 0.0, 0.0);
    cfg.timing.request_overhead_ns = 3_000;
    let r = |t: u64, page: u64, pages: u32, op| Request {
        time_ns: t * 1_000_000,
        offset: page * 4096,
        size: pages * 4096,
        device: 0,
        op,
    };
    // Page 0 written, then read with page 1 (one unwritten page, the request
    // reads flash); pages 5-7 (three, wholly unwritten); page 9 (one, wholly).
    let reqs = [r(0, 0, 1, Op::Write), r(1, 0, 2, Op::Read), r(2, 5, 3, Op::Read), r(3, 9, 1, Op::Read)];
    let rep =
        rainsim_model::run::simulate(&cfg, &reqs, rainsim_model::run::RunOptions::new("baseline", false, &mut |_| {}))
            .unwrap();
    assert_eq!((rep.host.unmapped_reads, rep.host.unmapped_read_requests), (5, 2));
    let note = rep.notes.iter().find(|n| n.contains("never-written")).expect("a note names them");
    assert!(note.contains("5 page reads") && note.contains("2 of the 3 read requests"), "{note}");
    // The two wholly unwritten requests complete at the controller's overhead.
    let reads = &rep.latency.read;
    assert_eq!(reads.count, 3);
    assert_eq!(reads.sum_ns - reads.max_ns as u128, 2 * 3_000, "{reads:?}");
    // One of each: the counts' words agree with them.
    let rep = rainsim_model::run::simulate(
        &cfg,
        &reqs[3..],
        rainsim_model::run::RunOptions::new("baseline", false, &mut |_| {}),
    )
    .unwrap();
    let note = rep.notes.iter().find(|n| n.contains("never-written")).expect("a note names it");
    assert!(
        note.starts_with("1 page read hit a never-written page (")
            && note.contains("1 of the 1 read request (100.0 %)"),
        "{note}"
    );
}

#[test]
fn map_trace_footprint_maps_every_touched_stripe() {
    let mut cfg = small(AgeLayout::Packed, 0.0, 0.0);
    cfg.precondition.map_trace = MapTrace::Footprint;
    let r = |t: u64, off: u64, op| Request { time_ns: t, offset: off * 4096, size: 4096, device: 0, op };
    // Pages 0 (stripe 0), 7 (stripe 2), 9 (stripe 3): write-then-read and plain writes all count.
    let reqs = [r(0, 0, Op::Write), r(1, 7, Op::Read), r(2, 9, Op::Write), r(3, 0, Op::Read)];
    let ssd = Ssd::for_requests(&cfg, NullObserver, false, &reqs).unwrap();
    assert_eq!(ssd.prep.trace_pages_needed, 3);
    assert_eq!(ssd.prep.stripes_written, 3);
    assert_eq!(ssd.prep.stripes_mapped_for_trace, 3);
    let l = ssd.stripe_layout();
    for s in [0u32, 2, 3] {
        assert!((0..4).all(|j| ssd.ftl.lookup(s * l.width + j).is_some()), "stripe {s} with parity");
    }
    cfg.precondition.map_trace = MapTrace::Reads;
    let ssd = Ssd::for_requests(&cfg, NullObserver, false, &reqs).unwrap();
    assert_eq!(ssd.prep.trace_pages_needed, 1, "only page 7 is read before it is written");
}

fn warm(cfg: &mut Config) {
    cfg.warmup.device_writes = 1.5;
    cfg.warmup.workload = WarmupWorkload::Synthetic;
    cfg.workload.read_ratio = 0.0;
}

#[test]
fn warm_up_resets_statistics_but_keeps_policy_histories() {
    let mut cfg = small(AgeLayout::Uniform, 0.6, 0.1);
    warm(&mut cfg);
    // The warm-up's CPU time is a difference of the process's CPU clock:
    // let that clock run a while first, so that a sum or ratio stands out.
    let until = cpu_seconds() + 0.3;
    for _ in 0..1_000_000 {
        if cpu_seconds() >= until {
            break;
        }
    }
    let c0 = cpu_seconds();
    let ssd = Ssd::new(&cfg, Collector::new(4), false).unwrap();
    let c1 = cpu_seconds();
    assert!((0.0..=c1 - c0).contains(&ssd.warmup_cpu_s), "{} within {c0}..{c1}", ssd.warmup_cpu_s);
    let w = ssd.warmup.clone().expect("warm-up ran");
    let logical = ssd.stripe_layout().logical_pages();
    assert!(w.host_pages >= (1.5 * logical as f64) as u64 && w.host_pages < (1.5 * logical as f64) as u64 + 64);
    assert!(w.gc_count > 0 && w.erases > 0, "{w:?}");
    assert!(ssd.ftl.blocks.iter().map(|b| b.erases as u64).sum::<u64>() >= w.erases, "wear stays");
    // Nothing reached the statistics; the GC histories the policies read did.
    assert!(ssd.obs.channels.iter().all(|c| c.gc_count == 0 && c.erases == 0 && c.total_ops() == 0));
    assert!((0..4).all(|ch| ssd.gc_history_len(ch) > 0), "GC history empty after warm-up");
    let cold = Ssd::new(&small(AgeLayout::Uniform, 0.6, 0.1), Collector::new(4), false).unwrap();
    assert!((0..4).all(|ch| cold.gc_history_len(ch) == 0));
}

/// A run's timing figures are of its own CPU time: the loop's CPU seconds
/// lie within what the process spent during the call (the clock runs a
/// while first, so that a sum or ratio with its earlier reading stands
/// out), the request rate is the requests over them, and the warm-up's
/// page rate is its pages (host, parity and moved) over its CPU seconds.
#[test]
fn a_runs_timing_figures_are_rates_of_its_own_cpu_time() {
    let mut cfg = small(AgeLayout::Uniform, 0.6, 0.1);
    warm(&mut cfg);
    let mut w = cfg.workload.clone();
    w.requests = 2000;
    let trace = rainsim_trace::generate(&w, capacity_bytes(&cfg), 5).unwrap();
    let until = cpu_seconds() + 0.3;
    for _ in 0..1_000_000 {
        if cpu_seconds() >= until {
            break;
        }
    }
    let c0 = cpu_seconds();
    let r =
        rainsim_model::simulate(&cfg, &trace.requests, rainsim_model::RunOptions::new("baseline", false, &mut |_| {}))
            .unwrap();
    let c1 = cpu_seconds();
    let t = &r.timing;
    assert!(t.cpu_s > 0.0 && t.cpu_s <= c1 - c0, "{} within {c0}..{c1}", t.cpu_s);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs();
    assert!(close(t.requests_per_cpu_s * t.cpu_s, 2000.0), "{t:?}");
    let wu = r.warmup.as_ref().expect("warm-up ran");
    assert!(t.warmup_cpu_s > 0.0 && t.warmup_cpu_s + t.cpu_s <= c1 - c0, "{t:?}");
    let pages = (wu.host_pages + wu.parity_pages + wu.pages_moved) as f64;
    assert!(pages > 0.0 && close(t.warmup_pages_per_cpu_s * t.warmup_cpu_s, pages), "{t:?}, {pages} pages");
}

#[test]
fn warm_up_is_deterministic_and_verifiable_with_every_layout_and_scheme() {
    let trace_cfg = small(AgeLayout::Uniform, 0.6, 0.1);
    let mut w = trace_cfg.workload.clone();
    w.requests = 3000;
    w.mean_interarrival_ns = 1_000_000;
    let trace = rainsim_trace::generate(&w, capacity_bytes(&trace_cfg), 3).unwrap();
    for layout in [AgeLayout::Uniform, AgeLayout::Packed, AgeLayout::SteadyState] {
        for s in ["baseline", "gc-tolerant-read", "degraded", "bpu", "adaptive"] {
            for warmup in [false, true] {
                let mut cfg = small(layout, 0.6, 0.1);
                cfg.policy = scheme(s).policy;
                if warmup {
                    cfg.warmup.device_writes = 1.0;
                }
                // gc-tolerant-read turns rotating GC on: stripes bound to die columns, warm-up included.
                cfg.ftl.rotating_gc = scheme(s).ftl.rotating_gc;
                let at = format!("{layout:?}, {s}, warm-up {warmup}");
                let report = |verify| {
                    let mut r = rainsim_model::simulate(
                        &cfg,
                        &trace.requests,
                        rainsim_model::RunOptions::new(s, verify, &mut |_| {}),
                    )
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
                    r.timing = Default::default();
                    serde_json::to_string(&r).unwrap()
                };
                let a = report(true);
                assert_eq!(a, report(true), "{at}: two runs differ");
                let r: serde_json::Value = serde_json::from_str(&a).unwrap();
                assert!(r["gc"]["count"].as_u64().unwrap() > 0, "{at}: no GC ran");
                assert_eq!(r["warmup"].is_null(), !warmup, "{at}");
            }
        }
    }
}

#[test]
fn warm_up_without_writes_is_an_error_naming_the_key() {
    let mut cfg = small(AgeLayout::Uniform, 0.6, 0.1);
    cfg.warmup.device_writes = 1.0;
    let reads = [Request { time_ns: 0, offset: 0, size: 4096, device: 0, op: Op::Read }];
    let e = Ssd::for_requests(&cfg, NullObserver, false, &reads).err().expect("no writes").to_string();
    assert!(e.contains("warmup.device_writes") && e.contains("synthetic"), "{e}");
}

/// The steady-state layout keeps the room check's promise of 2 free blocks
/// per plane. One plane of 8 blocks × 8 pages without RAID: 8 valid and 37
/// invalid pages (6 blocks, within the room of 8 − 2) and a hot pool at
/// utilisation 0.29. `steady` sizes the pool from the invalid pages
/// (round(37 / (8 · 0.71)) = 7 blocks) and then, finding only 8 valid
/// pages for the 16 it wants, keeps all 7 blocks: 7 are written and 1 is
/// free, and nothing checks the plan against the room (`precondition/mod.rs`).
#[test]
fn steady_state_layout_keeps_two_free_blocks() {
    let p = one_steady_plane(8, 37, 0.29);
    assert_eq!((p.valid_pages, p.free_blocks_min), (8, 2), "{p:?}");
}

/// The aged state of one plane of 8 blocks × 8 pages without RAID, laid out
/// steady-state with `valid` and `invalid` pages and a hot pool at `rho`.
fn one_steady_plane(valid: u32, invalid: u32, rho: f64) -> rainsim_model::ftl::precondition::PreconditionReport {
    let mut cfg = tiny(1, 1, 1, 8, 8, None);
    cfg.geometry.over_provisioning = 0.5;
    cfg.precondition.layout = AgeLayout::SteadyState;
    cfg.precondition.valid = valid as f64 / 64.0;
    cfg.precondition.invalid = invalid as f64 / 64.0;
    cfg.precondition.hot_utilization = Some(rho);
    Ssd::new(&cfg, NullObserver, false).expect("the pages fit the room").prep
}

/// A steady-state pool whose valid pages are exactly what its utilisation
/// asks keeps the utilisation's block count (only a pool short of them is
/// sized by its pages). One plane of 8 blocks × 8 pages: 1 valid and 8
/// invalid pages at utilisation 0.1 make a pool of round(8 / (8 · 0.9)) = 1
/// block needing round(0.1 · 8) = 1 valid page: 1 block written (1 valid, 7
/// invalid), 7 free, where sizing it by its pages would take 2.
#[test]
fn a_steady_state_pool_with_just_enough_valid_pages_keeps_its_size() {
    let p = one_steady_plane(1, 8, 0.1);
    assert_eq!((p.valid_pages, p.invalid_pages, p.free_blocks_min), (1, 7, 7), "{p:?}");
}
