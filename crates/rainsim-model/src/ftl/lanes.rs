//! Allocation by lane (variation-aware block allocation, vios Fig. 4): each
//! plane keeps one open block per lane, and a page takes the fastest or the
//! slowest of its die's open blocks of its lane.

use super::allocation::variation_aware::VariationAware;
use super::allocation::Lane;
use super::{Ftl, OutOfSpace};
use crate::flash::address::Ppn;

/// Planes of a die compared for a page, at most.
const CANDIDATES: usize = 64;

impl Ftl {
    /// Allocates a page for a host program on `die` in a block of `lane`
    /// (`ftl/allocation/variation_aware.rs`): each plane keeps one open block
    /// per lane, a plane without one opening the allocator's choice for the
    /// lane (its fastest or slowest erased block), and the fastest (`Fast`)
    /// or slowest (`Slow`) of the die's open blocks of the lane takes the
    /// page, the first from the die's plane cursor on ties. A lane no plane
    /// can serve (one erased block is kept for GC) falls back to the other.
    pub fn allocate_lane(&mut self, die: u32, lane: Lane) -> Result<Ppn, OutOfSpace> {
        let lane = self.alloc.lane(lane);
        if lane == Lane::Any {
            return self.allocate(die);
        }
        let other = if lane == Lane::Fast { Lane::Slow } else { Lane::Fast };
        for l in [lane, other] {
            if let Some(ppn) = self.take_lane_page(die, l) {
                return Ok(ppn);
            }
        }
        Err(OutOfSpace { die })
    }

    /// A page of `lane` on `die`, if a plane can serve the lane.
    fn take_lane_page(&mut self, die: u32, lane: Lane) -> Option<Ppn> {
        let (first, ppd) = (self.layout.first_plane(die), self.layout.planes_per_die);
        let start = self.plane_cursor[die as usize];
        // The best open block so far (plane, step): `VariationAware::pick`
        // over the first `CANDIDATES` planes that can serve, kept as they come.
        let mut best: Option<(u32, u8)> = None;
        let mut n = 0;
        // From the die's plane cursor, so that equally fast blocks rotate.
        for plane in (0..ppd).map(|i| first + (start + i) % ppd) {
            let pm = &self.planes[plane as usize];
            let slot = if lane == Lane::Fast { pm.fast } else { pm.active };
            let fb = self.layout.first_block(plane);
            // Keep one erased block for GC, as host programs always do (an
            // open block always has room).
            let ok = pm.free.len() >= 2 || (slot.is_some() && !pm.free.is_empty());
            if n < CANDIDATES && ok {
                // The plane's open block of the lane, opened if it has none
                // (`open_block`, out of line: the common case needs no call).
                if let Some(b) = slot.or_else(|| self.open_block(plane, lane)) {
                    let step = self.blocks[(fb + b) as usize].dvp_step;
                    if best.is_none_or(|(_, s)| VariationAware::better(step, s, lane)) {
                        best = Some((plane, step));
                    }
                    n += 1;
                }
            }
        }
        let (plane, _) = best?;
        self.plane_cursor[die as usize] = (plane - first + 1) % ppd;
        if lane == Lane::Fast {
            let b = self.open_block(plane, lane)?;
            Some(self.program_page(plane, self.layout.first_block(plane) + b))
        } else {
            self.take_page(plane, lane)
        }
    }
}
