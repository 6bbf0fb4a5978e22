//! Direct preconditioning: builds an aged state (a given fraction of valid and
//! invalid pages) without replaying writes.
//!
//! The written stripes are spread evenly over the logical space (stripe s is
//! written when ⌊(s+1)·W/S⌋ > ⌊s·W/S⌋ for W written out of S stripes), all k
//! chunks of each, parity included. Each channel's chunks are dealt round-robin
//! over its planes; in each plane, enough blocks are filled to hold its valid
//! pages plus its share of invalid pages, and which pages of those blocks are
//! valid is drawn by selection sampling (an exact count, uniformly placed), so
//! blocks differ in how many valid pages they hold, as after real use.

use super::Ftl;
use crate::config::ConfigError;
use crate::raid::stripe::StripeLayout;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Fills `ftl` (fresh) to `valid` and `invalid` fractions of its physical pages.
pub fn precondition(
    ftl: &mut Ftl,
    stripes: &StripeLayout,
    valid: f64,
    invalid: f64,
    seed: u64,
) -> Result<(), ConfigError> {
    if valid <= 0.0 && invalid <= 0.0 {
        return Ok(());
    }
    let lay = ftl.layout.clone();
    let total = lay.pages() as u64;
    let k = stripes.width as u64;
    let want = ((valid * total as f64) as u64 / k).min(stripes.stripes as u64);
    let all = stripes.stripes as u64;
    let planes_per_ch = lay.dies_per_channel * lay.planes_per_die;
    // Chunks per plane, dealt round-robin inside each channel.
    let mut per_plane: Vec<Vec<u32>> = vec![Vec::new(); lay.planes() as usize];
    let mut deal = vec![0u32; lay.channels as usize];
    let mut deal_die = vec![0u32; lay.dies() as usize];
    for s in 0..all {
        if want == 0 || (s + 1) * want / all == s * want / all {
            continue;
        }
        let s = s as u32;
        for j in 0..stripes.width {
            let ch = stripes.channel(s, j);
            let local = match stripes.column(s) {
                // Bound to a die (rotating GC): deal over that die's planes.
                Some(col) => {
                    let n = &mut deal_die[(ch * lay.dies_per_channel + col) as usize];
                    *n += 1;
                    col * lay.planes_per_die + (*n - 1) % lay.planes_per_die
                }
                None => deal[ch as usize] % planes_per_ch,
            };
            deal[ch as usize] += 1;
            per_plane[(ch * planes_per_ch + local) as usize].push(s * stripes.width + j);
        }
    }
    let ppb = lay.pages_per_block as u64;
    let plane_pages = ppb * lay.blocks_per_plane as u64;
    let invalid_per_plane = (invalid * plane_pages as f64).round() as u64;
    let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x7072_6563_6f6e_6431);
    for (plane, chunks) in per_plane.iter().enumerate() {
        let nvalid = chunks.len() as u64;
        let used = nvalid + invalid_per_plane;
        let blocks = used.div_ceil(ppb);
        if blocks + 2 > lay.blocks_per_plane as u64 {
            return Err(ConfigError(format!(
                "preconditioning needs {blocks} full blocks in plane {plane}, leaving fewer than 2 of {} free; lower precondition.valid or .invalid",
                lay.blocks_per_plane
            )));
        }
        let plane = plane as u32;
        let first_block = lay.first_block(plane);
        let slots = blocks * ppb;
        let mut left_valid = nvalid;
        let mut next = 0usize;
        for slot in 0..slots {
            let left_slots = slots - slot;
            let ppn = lay.first_page(first_block) + slot as u32;
            if left_valid > 0 && rng.random_range(0..left_slots) < left_valid {
                left_valid -= 1;
                ftl.map.set(chunks[next], ppn);
                next += 1;
                ftl.blocks[lay.block_of(ppn) as usize].valid += 1;
            } else {
                ftl.planes[plane as usize].invalid += 1;
            }
        }
        for b in 0..blocks as u32 {
            ftl.blocks[(first_block + b) as usize].written = ppb as u16;
        }
        let pm = &mut ftl.planes[plane as usize];
        pm.free = (blocks as u32..lay.blocks_per_plane).collect();
    }
    ftl.rebuild_index();
    Ok(())
}
