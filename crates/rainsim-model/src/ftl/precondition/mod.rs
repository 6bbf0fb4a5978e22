//! Direct preconditioning: builds an aged state (fractions of valid and
//! invalid pages, laid out in blocks as `precondition.layout` says) without
//! replaying writes.
//!
//! Which stripes hold data: the stripes the trace needs (`map_trace`) first,
//! then others spread evenly over the logical space (stripe s of the rest is
//! written when ⌊(s+1)·W/S⌋ > ⌊s·W/S⌋), all k chunks of each, parity
//! included. Each channel's chunks are dealt round-robin over its planes; each
//! plane then lays its valid pages and its share of invalid pages in whole
//! blocks by the layout (`uniform`, `packed`, `steady-state`).

mod deal;
pub(crate) mod lazy;
pub mod params;
mod reach;
pub mod steady_state;
mod stripe_count;

use super::Ftl;
use crate::error::ConfigError;
use crate::flash::address::Ppn;
use crate::raid::stripe::StripeLayout;
use deal::{deal, deal_cursors, plane_counts};
use lazy::LazyDeal;
use params::{AgeLayout, Precondition};
use rand::{seq::SliceRandom, RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
pub use reach::Reach;
use serde::Serialize;

/// What preconditioning built (the report's `precondition` section).
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct PreconditionReport {
    /// The layout used.
    pub layout: String,
    /// Valid pages (data and parity).
    pub valid_pages: u64,
    /// Invalid pages.
    pub invalid_pages: u64,
    /// Stripes written.
    pub stripes_written: u64,
    /// Stripes written because the trace needs them (`map_trace`).
    pub stripes_mapped_for_trace: u64,
    /// Host pages the trace needs mapped (`map_trace`), before rounding to stripes.
    pub trace_pages_needed: u64,
    /// Fewest free blocks of any plane at time 0.
    pub free_blocks_min: u32,
    /// GC trigger: a plane collects when it has fewer free blocks than this.
    pub gc_trigger_blocks: u32,
    /// Fewest valid pages of any full block (what the first GCs move), over planes: mean.
    pub victim_valid_mean: f64,
    /// Mean valid fraction of the written blocks.
    pub written_valid_fraction: f64,
    /// Steady-state layout: valid fraction of the hot pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_utilization: Option<f64>,
    /// Steady-state layout: share of the valid pages that lie in the hot pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hot_valid_share: Option<f64>,
    /// Invalid pages left out to keep `free_margin` free blocks.
    pub invalid_pages_dropped: u64,
}

/// Which stripes must hold data at time 0.
pub struct Needed {
    /// Stripe ids, ascending, no repeats.
    pub stripes: Vec<u32>,
    /// Host pages behind them.
    pub pages: u64,
}

/// Fills `ftl` (fresh) as `p` says; `seed` drives every random choice;
/// `reach` only says when the tables are filled (`reach.rs`).
pub fn precondition(
    ftl: &mut Ftl,
    stripes: &StripeLayout,
    p: &Precondition,
    seed: u64,
    needed: &Needed,
    reach: Reach,
) -> Result<PreconditionReport, ConfigError> {
    let mut rep = PreconditionReport {
        layout: layout_name(p.layout).into(),
        gc_trigger_blocks: ftl.gc_trigger_blocks,
        trace_pages_needed: needed.pages,
        stripes_mapped_for_trace: needed.stripes.len() as u64,
        free_blocks_min: ftl.layout.blocks_per_plane,
        ..Default::default()
    };
    if p.valid <= 0.0 && p.invalid <= 0.0 && needed.stripes.is_empty() {
        return Ok(rep);
    }
    let lay = ftl.layout.clone();
    let total = lay.pages() as u64;
    let k = stripes.width as u64;
    let all = stripes.stripes as u64;
    let forced = needed.stripes.len() as u64;
    let want = ((p.valid * total as f64) as u64 / k).min(all).max(forced);
    rep.stripes_written = want;
    // Two passes: count each plane's chunks, then (once each plane's plan
    // fixes its slots) map them in stripe order.
    let counts = plane_counts(stripes, &lay, &needed.stripes, want);
    let mut slots: Vec<Slots> = Vec::with_capacity(counts.len());
    let ppb = lay.pages_per_block as u64;
    let bpp = lay.blocks_per_plane as u64;
    let plane_pages = ppb * bpp;
    let invalid_per_plane = (p.invalid * plane_pages as f64).round() as u64;
    let room = match p.free_margin {
        Some(m) => bpp.saturating_sub(ftl.gc_trigger_blocks as u64 + m as u64),
        None => bpp.saturating_sub(2),
    };
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x7072_6563_6f6e_6431);
    let (mut victims, mut planes_with_victim, mut written_blocks) = (0u64, 0u64, 0u64);
    let (mut hot_valid, mut hot_pages) = (0u64, 0u64);
    for (plane, &nvalid) in counts.iter().enumerate() {
        let mut ninvalid = invalid_per_plane;
        if (nvalid + ninvalid).div_ceil(ppb) > room {
            if nvalid.div_ceil(ppb) > room || p.free_margin.is_none() {
                let what = match p.free_margin {
                    Some(m) => format!(
                        "precondition.free_margin = {m} (plus the GC trigger's {} blocks) leaves {room} of {bpp} blocks per \
                         plane for data, but plane {plane} holds {nvalid} valid pages ({} blocks)",
                        ftl.gc_trigger_blocks,
                        nvalid.div_ceil(ppb)
                    ),
                    None => format!(
                        "preconditioning needs {} full blocks in plane {plane}, leaving fewer than 2 of {bpp} free",
                        (nvalid + ninvalid).div_ceil(ppb)
                    ),
                };
                let mapped = if forced > 0 {
                    format!(" ({forced} of its {want} stripes mapped because precondition.map_trace asks for them)")
                } else {
                    String::new()
                };
                return Err(ConfigError(format!("{what}{mapped}; lower precondition.valid or .invalid")));
            }
            let keep = room * ppb - nvalid;
            rep.invalid_pages_dropped += ninvalid - keep;
            ninvalid = keep;
        }
        let plane = plane as u32;
        let plan = match p.layout {
            AgeLayout::Uniform => uniform(nvalid, ninvalid, ppb, &mut rng),
            AgeLayout::Packed => packed(nvalid, ninvalid, ppb),
            AgeLayout::SteadyState => {
                let rho = hot_rho(p, lay.pages_per_block, nvalid, ninvalid)?;
                let plan = steady(nvalid, ninvalid, ppb, rho, &mut rng).map_err(|need| {
                    ConfigError(format!(
                        "steady-state layout: a hot pool at utilisation {rho:.3} holding plane {plane}'s {ninvalid} invalid \
                         pages needs {need} valid pages, but the plane has {nvalid}; raise precondition.valid, lower \
                         precondition.invalid, or lower precondition.hot_utilization (raise target_moves_per_gc)"
                    ))
                })?;
                hot_valid += plan.hot_valid;
                hot_pages += plan.hot_blocks * ppb;
                plan
            }
        };
        let first_block = lay.first_block(plane);
        slots.push(Slots::of(&plan, lay.first_page(first_block), ppb));
        debug_assert_eq!(slots[plane as usize].runs.iter().map(|r| r.1 as u64).sum::<u64>(), nvalid);
        let mut min_valid = u64::MAX;
        for (b, &v) in plan.valid.iter().enumerate() {
            let meta = &mut ftl.blocks[(first_block + b as u32) as usize];
            meta.valid = v as u16;
            meta.written = ppb as u16;
            min_valid = min_valid.min(v as u64);
        }
        let used = plan.valid.len() as u64;
        let invalid = used * ppb - nvalid;
        ftl.planes[plane as usize].invalid = invalid;
        ftl.planes[plane as usize].free = (used as u32..lay.blocks_per_plane).collect();
        rep.valid_pages += nvalid;
        rep.invalid_pages += invalid;
        rep.free_blocks_min = rep.free_blocks_min.min((bpp - used) as u32);
        written_blocks += used;
        if used > 0 {
            victims += min_valid;
            planes_with_victim += 1;
        }
    }
    // Stripe order: the forward map fills sequentially, the reverse map in
    // one sequential run per plane.
    // Each chunk takes its plane's next slot; the slots' valid bits are
    // set run by run afterwards (a plane's slots are all taken).
    let runs: usize = slots.iter().map(|s| s.runs.len()).sum();
    if runs <= lay.blocks() as usize && stripes.column(0).is_none() {
        // A run of slots per block or fewer (packed, steady-state): the deal
        // is laid out as the run reads it (`lazy.rs`), or now if the run
        // will reach most of it (`reach.rs`).
        let d = LazyDeal::build(stripes, &lay, &needed.stripes, want);
        debug_assert_eq!(d.plane_counts(), counts, "segments count what one segment counts");
        let touched = reach.touched(stripes, lay.page_bytes, d.zbits());
        let now = touched.share >= reach::EAGER_SHARE;
        ftl.map.defer(d.with_slots(slots.iter().map(|s| &s.runs[..])), touched.segments.as_deref());
        if now {
            ftl.map.lay_out_all();
        }
    } else {
        let mut map = ftl.map.placer();
        let mut cursors = Cursors::new(&slots);
        if !deal_cursors(stripes, &lay, &needed.stripes, want, &mut cursors, &mut map) {
            deal(stripes, &lay, &needed.stripes, want, |chunk, plane| map.place(chunk, cursors.next(plane as usize)));
        }
        debug_assert!(cursors.at.iter().all(|a| a.1 == 0), "every slot taken");
    }
    for s in &slots {
        for &(page, n) in &s.runs {
            ftl.map.mark_run(page, n);
        }
    }
    rep.victim_valid_mean = if planes_with_victim == 0 { 0.0 } else { victims as f64 / planes_with_victim as f64 };
    rep.written_valid_fraction =
        if written_blocks == 0 { 0.0 } else { rep.valid_pages as f64 / (written_blocks * ppb) as f64 };
    if p.layout == AgeLayout::SteadyState {
        rep.hot_utilization = Some(if hot_pages == 0 { 0.0 } else { hot_valid as f64 / hot_pages as f64 });
        rep.hot_valid_share = Some(if rep.valid_pages == 0 { 0.0 } else { hot_valid as f64 / rep.valid_pages as f64 });
    }
    ftl.rebuild_index();
    ftl.recount_free_lists();
    Ok(rep)
}

/// The key's spelling of a layout.
pub fn layout_name(l: AgeLayout) -> &'static str {
    match l {
        AgeLayout::Uniform => "uniform",
        AgeLayout::Packed => "packed",
        AgeLayout::SteadyState => "steady-state",
    }
}

/// A plane's valid slots in the order its dealt chunks take them: runs of
/// consecutive pages (hot blocks first, then cold ones, each in block order,
/// so hot blocks take the plane's lowest stripes, where a skewed workload's
/// hot region starts).
struct Slots {
    runs: Vec<(Ppn, u32)>,
}

impl Slots {
    fn of(plan: &Plan, first_page: Ppn, ppb: u64) -> Slots {
        if let Some(runs) = &plan.slots {
            debug_assert!(plan.hot.is_none(), "runs of slots are in slot order, so in block order");
            return Slots { runs: runs.iter().map(|&(off, n)| (first_page + off, n)).collect() };
        }
        let mut runs: Vec<(Ppn, u32)> = Vec::new();
        let mut push = |page: Ppn, n: u32| match runs.last_mut() {
            Some((p, m)) if *p + *m == page => *m += n,
            _ if n > 0 => runs.push((page, n)),
            _ => {}
        };
        let ppb32 = ppb as u32;
        for hot in [true, false] {
            for (b, &v) in plan.valid.iter().enumerate() {
                if plan.hot.as_ref().is_none_or(|h| h[b]) != hot {
                    continue;
                }
                push(first_page + b as u32 * ppb32, v);
            }
        }
        Slots { runs }
    }
}

/// Every plane's next slot, in one flat array indexed by plane: the deal's
/// inner loop takes a slot with a load, a store and a branch that is taken
/// once per run (once per plane under the packed layout).
struct Cursors<'a> {
    /// Each plane's next slot and how many of its run are left (0: none).
    at: Vec<(Ppn, u32)>,
    /// Each plane's runs not yet started.
    rest: Vec<&'a [(Ppn, u32)]>,
}

impl<'a> Cursors<'a> {
    fn new(slots: &'a [Slots]) -> Self {
        let mut c = Cursors { at: vec![(0, 0); slots.len()], rest: slots.iter().map(|s| &s.runs[..]).collect() };
        (0..slots.len()).for_each(|p| c.start_run(p));
        c
    }

    /// The next slot of `plane` (the caller takes exactly as many as there are).
    #[inline]
    fn next(&mut self, plane: usize) -> Ppn {
        let at = &mut self.at[plane];
        let page = at.0;
        *at = (page + 1, at.1 - 1);
        if at.1 == 0 {
            self.start_run(plane);
        }
        page
    }

    #[cold]
    fn start_run(&mut self, plane: usize) {
        if let Some((&run, rest)) = self.rest[plane].split_first() {
            self.at[plane] = run;
            self.rest[plane] = rest;
        }
    }
}

/// How one plane's used blocks are filled: valid pages per block, and (for
/// the uniform layout) which slots hold them, as runs (first slot of the
/// plane, length: ascending, none touching the next); otherwise each
/// block's first slots.
struct Plan {
    valid: Vec<u32>,
    slots: Option<Vec<(u32, u32)>>,
    /// Steady-state layout: which blocks belong to the hot pool.
    hot: Option<Vec<bool>>,
    hot_blocks: u64,
    hot_valid: u64,
}

/// Valid pages placed by selection sampling over every used slot (an exact
/// count, uniformly placed): blocks differ only by chance.
fn uniform(nvalid: u64, ninvalid: u64, ppb: u64, rng: &mut Pcg64Mcg) -> Plan {
    let blocks = (nvalid + ninvalid).div_ceil(ppb);
    let slots = blocks * ppb;
    let mut runs: Vec<(u32, u32)> = Vec::new();
    let mut valid = vec![0u32; blocks as usize];
    let mut left = nvalid;
    // Block by block, so that no slot needs a division to find its block.
    for (b, v) in valid.iter_mut().enumerate() {
        for slot in b as u64 * ppb..(b as u64 + 1) * ppb {
            if left > 0 && rng.random_range(0..slots - slot) < left {
                left -= 1;
                match runs.last_mut() {
                    Some((first, n)) if (*first + *n) as u64 == slot => *n += 1,
                    _ => runs.push((slot as u32, 1)),
                }
                *v += 1;
            }
        }
    }
    Plan { valid, slots: Some(runs), hot: None, hot_blocks: 0, hot_valid: 0 }
}

/// Valid pages first, in whole blocks; invalid pages fill the rest: at most
/// one block is mixed.
fn packed(nvalid: u64, ninvalid: u64, ppb: u64) -> Plan {
    let blocks = (nvalid + ninvalid).div_ceil(ppb);
    let valid = (0..blocks).map(|b| (nvalid.saturating_sub(b * ppb)).min(ppb) as u32).collect();
    Plan { valid, slots: None, hot: None, hot_blocks: 0, hot_valid: 0 }
}

/// The hot pool's utilisation the keys ask for; by default every written
/// block is hot (the whole pool in steady state).
fn hot_rho(p: &Precondition, ppb: u32, nvalid: u64, ninvalid: u64) -> Result<f64, ConfigError> {
    Ok(match (p.hot_utilization, p.target_moves_per_gc) {
        (Some(r), _) => r,
        (None, Some(m)) => steady_state::utilization(m / ppb as f64),
        (None, None) if nvalid + ninvalid == 0 => 0.5,
        (None, None) => nvalid as f64 / (nvalid + ninvalid) as f64,
    })
}

/// Cold data in full blocks; the hot pool holds every invalid page, at
/// utilisation `rho`, its blocks' valid counts on the steady-state curve and
/// shuffled among the used blocks. Err(valid pages needed) when the plane
/// lacks the hot pool's valid pages.
fn steady(nvalid: u64, ninvalid: u64, ppb: u64, rho: f64, rng: &mut Pcg64Mcg) -> Result<Plan, u64> {
    let hot_blocks =
        if ninvalid == 0 { 0 } else { ((ninvalid as f64 / (ppb as f64 * (1.0 - rho))).round() as u64).max(1) };
    let mut need = (rho * (hot_blocks * ppb) as f64).round() as u64;
    if need > nvalid + ppb {
        return Err(need);
    }
    // Rounding to whole blocks may ask for up to a block more than there is.
    let short = need > nvalid;
    need = need.min(nvalid);
    let cold = (nvalid - need) / ppb;
    let hot_valid = nvalid - cold * ppb;
    // Short of valid pages, the pool is only as many blocks as its pages
    // fill: the utilisation's count could take a block the room check left
    // free. Valid pages that do not fill a cold block join the pool (one
    // more block if its invalid pages left no room for them).
    let hot_blocks = if short { (hot_valid + ninvalid).div_ceil(ppb) } else { hot_blocks };
    let hot_blocks = hot_blocks.max(hot_valid.div_ceil(ppb));
    let mut blocks: Vec<(u32, bool)> = vec![(ppb as u32, false); cold as usize];
    blocks.extend(
        steady_state::block_valid_counts(hot_blocks as u32, ppb as u32, hot_valid).into_iter().map(|v| (v, true)),
    );
    blocks.shuffle(rng);
    let (valid, hot) = blocks.into_iter().unzip();
    Ok(Plan { valid, slots: None, hot: Some(hot), hot_blocks, hot_valid })
}

/// Gives every written block of a preconditioned `ftl` a data age drawn
/// uniformly (seeded) from 0 to `age_days` (the LDPC model's
/// `ldpc.precondition_age_days`), as a stamp on its age clock, which reads
/// the full age at time 0.
pub fn spread_ages(ftl: &mut Ftl, age_days: f64, seed: u64) {
    let age_s = (age_days * 86_400.0).round() as u32;
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x6167_6573);
    for b in ftl.blocks.iter_mut().filter(|b| b.written > 0) {
        b.opened_at_s = rng.random_range(0..=age_s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plane's slots: each valid page once, hot blocks first, runs of
    /// consecutive pages merged (block 3 continues block 2's run), no run
    /// for an empty block, and a run ending inside block 1 not continued
    /// into block 2 (its page 16 is 8 × 2, not 8 + 2).
    #[test]
    fn slots_hand_out_each_valid_page_once_hot_blocks_first() {
        let plan = Plan {
            valid: vec![0, 2, 8, 8, 3],
            slots: None,
            hot: Some(vec![false, false, false, false, true]),
            hot_blocks: 1,
            hot_valid: 3,
        };
        let s = [Slots::of(&plan, 0, 8)];
        assert_eq!(s[0].runs, [(32, 3), (8, 2), (16, 16)]);
        let mut c = Cursors::new(&s);
        let pages: Vec<Ppn> = (0..21).map(|_| c.next(0)).collect();
        assert_eq!(c.at[0].1, 0, "all taken");
        let want: Vec<Ppn> = [32, 33, 34, 8, 9].into_iter().chain(16..32).collect();
        assert_eq!(pages, want);
    }

    /// The uniform plan's runs hold exactly `nvalid` slots, ascending and
    /// maximal (no run ends where the next starts), inside the used blocks,
    /// and count each block's valid pages as `valid` does; over many planes
    /// each slot is about equally likely (selection sampling), so the first
    /// and the last block hold about the same share.
    #[test]
    fn uniform_runs_agree_with_the_block_counts() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let (ppb, nvalid, ninvalid) = (8u64, 50u64, 21u64);
        let (mut first_block, mut last_block) = (0u64, 0u64);
        for _ in 0..2000 {
            let plan = uniform(nvalid, ninvalid, ppb, &mut rng);
            let runs = plan.slots.as_ref().expect("uniform plans have runs");
            assert_eq!(runs.iter().map(|r| r.1 as u64).sum::<u64>(), nvalid);
            assert!(runs.windows(2).all(|w| w[0].0 + w[0].1 < w[1].0), "{runs:?}");
            let mut per_block = vec![0u32; plan.valid.len()];
            for &(first, n) in runs {
                for slot in first..first + n {
                    per_block[(slot as u64 / ppb) as usize] += 1;
                }
            }
            assert_eq!(per_block, plan.valid);
            assert_eq!(plan.valid.len() as u64, (nvalid + ninvalid).div_ceil(ppb));
            first_block += plan.valid[0] as u64;
            last_block += *plan.valid.last().unwrap() as u64;
        }
        // 72 slots, 50 valid: 8 · 50/72 ≈ 5.56 a block on average.
        let (a, b) = (first_block as f64 / 2000.0, last_block as f64 / 2000.0);
        assert!((a - 5.56).abs() < 0.15 && (b - 5.56).abs() < 0.15, "{a} {b}");
    }
}
