//! Verification of rotating GC, from the mapping alone: for every pair of
//! dies, how many stripes have a chunk on both (kept up to date at every
//! program commit; GC moves stay on their die). At each GC start, a die
//! already collecting that shares a stripe with the new one is an overlap:
//! two members of one stripe under GC at once. With rotating GC on, an
//! overlap the rotation did not force is a verification failure.

use super::rotating_gc::GcGate;
use super::Ssd;
use crate::flash::address::{Layout, Ppn};
use crate::ftl::Ftl;
use crate::metrics::observer::Observer;
use crate::raid::stripe::StripeLayout;
use crate::verify::VerifyError;

/// Stripes shared by each pair of dies.
pub(crate) struct GcOverlapCheck {
    dies: usize,
    shared: Vec<u32>,
    /// GC starts that overlapped a stripe partner's GC.
    pub(crate) overlaps: u64,
}

impl GcOverlapCheck {
    /// Counts the sharing of the current (preconditioned) mapping.
    pub(crate) fn new(ftl: &Ftl, stripes: &StripeLayout) -> GcOverlapCheck {
        let dies = ftl.layout.dies() as usize;
        let mut g = GcOverlapCheck { dies, shared: vec![0; dies * dies], overlaps: 0 };
        let mut at = Vec::new();
        for s in 0..stripes.stripes {
            at.clear();
            at.extend(
                (0..stripes.width).filter_map(|j| ftl.lookup(s * stripes.width + j)).map(|p| ftl.layout.die_of(p)),
            );
            for (i, &a) in at.iter().enumerate() {
                for &b in &at[i + 1..] {
                    g.add(a, b, 1);
                }
            }
        }
        g
    }

    fn add(&mut self, a: u32, b: u32, n: i32) {
        if a != b {
            for (x, y) in [(a, b), (b, a)] {
                let c = &mut self.shared[x as usize * self.dies + y as usize];
                *c = c.wrapping_add_signed(n);
            }
        }
    }

    /// Chunk `chunk` moved from `old` (if any) to `new`.
    pub(crate) fn commit(
        &mut self,
        ftl: &Ftl,
        layout: &Layout,
        stripes: &StripeLayout,
        chunk: u32,
        old: Option<Ppn>,
        new: Ppn,
    ) {
        let (was, now) = (old.map(|p| layout.die_of(p)), layout.die_of(new));
        if was == Some(now) {
            return;
        }
        let s = chunk / stripes.width;
        for j in 0..stripes.width {
            let c = s * stripes.width + j;
            let Some(p) = ftl.lookup(c).filter(|_| c != chunk) else { continue };
            let d = layout.die_of(p);
            if let Some(w) = was {
                self.add(w, d, -1);
            }
            self.add(now, d, 1);
        }
    }
}

impl<O: Observer> Ssd<O> {
    /// Verify mode: a GC starts on `die`; checks it against the GCs running.
    pub(crate) fn check_gc_overlap(&mut self, die: u32, gate: GcGate) -> Result<(), VerifyError> {
        let Some(g) = &mut self.gc_overlap else { return Ok(()) };
        let hit = (0..g.dies as u32).find(|&e| {
            e != die
                && self.flash.dies()[e as usize].gc_until.is_some()
                && g.shared[die as usize * g.dies + e as usize] > 0
        });
        let Some(e) = hit else { return Ok(()) };
        g.overlaps += 1;
        if self.rotating.is_some() && gate != GcGate::Forced {
            return Err(VerifyError {
                time_ns: self.q.now(),
                what: format!(
                    "rotating GC started a GC on die {die} while die {e}, which shares {} stripes with it, is collecting",
                    g.shared[die as usize * g.dies + e as usize]
                ),
            });
        }
        Ok(())
    }

    /// Verify mode: GC starts that overlapped a stripe partner's GC so far.
    #[doc(hidden)]
    pub fn gc_overlaps_seen(&self) -> Option<u64> {
        self.gc_overlap.as_ref().map(|g| g.overlaps)
    }
}
