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
use rainsim_trace::stats::counted;

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
        let s = stripes.stripe_of(chunk);
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
                    "rotating GC started a GC on die {die} while die {e}, which shares {} with it, is collecting",
                    counted(g.shared[die as usize * g.dies + e as usize].into(), "stripe", "stripes")
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

#[cfg(test)]
mod tests {
    use super::GcOverlapCheck;
    use crate::config::{Config, RaidLevel};
    use crate::metrics::observer::NullObserver;
    use crate::policy::ReplicationKind;
    use crate::ssd::rotating_gc::GcGate;
    use crate::ssd::Ssd;
    use rainsim_trace::{Op, Request};

    /// A verified, half-full 3+1 device on 4 channels of 2 dies.
    fn device(replication: ReplicationKind, rotating_gc: bool) -> Ssd<NullObserver> {
        let mut c = Config::default();
        let g = &mut c.geometry;
        (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (4, 1, 2, 1);
        (g.blocks_per_plane, g.pages_per_block, g.page_bytes) = (32, 16, 4096);
        (c.raid.level, c.raid.stripe_width) = (RaidLevel::Raid5, 4);
        (c.precondition.valid, c.precondition.invalid) = (0.5, 0.0);
        c.policy.replication = replication;
        c.ftl.rotating_gc = rotating_gc;
        Ssd::new(&c, NullObserver, true).unwrap()
    }

    /// The counts kept at every program commit equal a recount from the
    /// final mapping, after rewrites that moved chunks between the two dies
    /// of their channels (so the counts had to change); under FusionRAID,
    /// whose copies (ids beyond the stripes' chunks) belong to no stripe, too.
    #[test]
    fn counts_kept_at_commits_equal_a_recount_from_the_mapping() {
        for replication in [ReplicationKind::None, ReplicationKind::Fusionraid] {
            let mut ssd = device(replication, false);
            let before = GcOverlapCheck::new(&ssd.ftl, &ssd.stripes).shared;
            let mut x = 7u64;
            let reqs: Vec<Request> = (0..400u64)
                .map(|i| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let page = (x >> 33) % 150;
                    Request { time_ns: i * 200_000, offset: page * 4096, size: 4096, device: 0, op: Op::Write }
                })
                .collect();
            ssd.run(&reqs, &mut |_| {}).unwrap();
            let copies = ssd.replicas.as_ref().map_or(0, |t| t.max_entries);
            assert_eq!(copies > 0, replication != ReplicationKind::None, "{replication:?}");
            let recount = GcOverlapCheck::new(&ssd.ftl, &ssd.stripes).shared;
            assert_ne!(recount, before, "{replication:?}: no chunk changed dies");
            assert_eq!(ssd.gc_overlap.as_ref().unwrap().shared, recount, "{replication:?}");
        }
    }

    /// A GC starting beside a stripe partner's GC is counted; under rotating
    /// GC it stops a verified run unless the rotation forced it.
    #[test]
    fn an_overlap_the_rotation_did_not_force_is_an_error() {
        for rotating in [false, true] {
            let mut ssd = device(ReplicationKind::None, rotating);
            assert_eq!(ssd.rotating.is_some(), rotating);
            let check = ssd.gc_overlap.as_ref().unwrap();
            let (a, b) = (0..8u32)
                .flat_map(|a| (0..8u32).map(move |b| (a, b)))
                .find(|&(a, b)| a != b && check.shared[(a * 8 + b) as usize] > 0)
                .expect("two dies share a stripe");
            assert!(ssd.check_gc_overlap(a, GcGate::Free).is_ok(), "nobody collects yet");
            ssd.flash.start_gc(b, 0, 1_000_000, 0, 0);
            assert!(ssd.check_gc_overlap(a, GcGate::Forced).is_ok(), "a forced overlap is allowed");
            // The error counts the stripes the two dies share, 2 then 1.
            for (shared, stripes) in [(2, "2 stripes"), (1, "1 stripe")] {
                ssd.gc_overlap.as_mut().unwrap().shared[(a * 8 + b) as usize] = shared;
                let free = ssd.check_gc_overlap(a, GcGate::Free);
                if rotating {
                    let e = free.unwrap_err().to_string();
                    let want = format!("a GC on die {a} while die {b}, which shares {stripes} with it, is collecting");
                    assert!(e.contains(&want), "{e}");
                } else {
                    assert!(free.is_ok(), "without rotation an overlap is only counted");
                }
            }
            assert_eq!(ssd.gc_overlaps_seen(), Some(3));
        }
    }
}
