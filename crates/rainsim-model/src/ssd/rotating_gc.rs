//! Rotating GC (Tiny-Tail Flash, FAST'17; `ftl.rotating_gc`): at most
//! one GC at a time among the dies that hold a stripe, so a read blocked by
//! GC can always be rebuilt from partners that are not collecting.
//!
//! How the guarantee is made to hold in this model:
//! - every chunk of stripe s lives on die column `StripeLayout::column(s)`
//!   of its channel: preconditioning deals it there, programs wait in that
//!   die's queue (`sched::column_bound`), and GC moves stay inside a plane;
//! - a GC on (channel c, column j) starts only when no *partner* channel of
//!   c (one sharing a stripe with it; every channel once degraded updates may
//!   move chunks anywhere) has a GC running on column j; otherwise it is
//!   deferred and the die keeps serving I/O;
//! - when a GC ends, the deferred dies of that column on the partner channels
//!   are offered a start at once, in channel order after the finishing one;
//! - the floor: a plane down to its last erased block (the GC reserve; host
//!   programs cannot use it) starts its GC regardless, so writes never
//!   deadlock; such starts are counted as forced overlaps.

use super::Ssd;
use crate::config::Config;
use crate::flash::address::Layout;
use crate::metrics::observer::Observer;
use crate::policy::UpdatePlacementKind;
use crate::raid::stripe::StripeLayout;
use crate::sched::Sched;

/// Rotation state.
pub(crate) struct RotatingGc {
    /// Per channel: the other channels sharing a stripe with it, in rotation
    /// order starting after it.
    partners: Vec<Vec<u32>>,
    /// Per die: its due GC has been deferred (counted) and has not started.
    deferred: Vec<bool>,
}

/// What rotation says about a GC due on a die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GcGate {
    /// No partner of the die's column is collecting.
    Free,
    /// A partner is collecting, but a plane is at its reserve: start anyway.
    Forced,
    /// Wait for the partner's GC to end.
    Defer,
}

impl RotatingGc {
    /// Rotation for `cfg`, or `None` when off or without parity (no stripes
    /// to protect).
    pub(crate) fn new(cfg: &Config, layout: &Layout, stripes: &StripeLayout) -> Option<RotatingGc> {
        if !cfg.ftl.rotating_gc || !stripes.parity {
            return None;
        }
        let m = layout.channels;
        let anywhere = cfg.policy.update_placement == UpdatePlacementKind::Degraded && stripes.width < m;
        // The stripes' channel sets repeat every m / gcd(m, k) ≤ m stripes.
        let mut share = vec![vec![false; m as usize]; m as usize];
        for s in 0..m.min(stripes.stripes) {
            for a in 0..stripes.width {
                for b in 0..stripes.width {
                    share[stripes.channel(s, a) as usize][stripes.channel(s, b) as usize] = true;
                }
            }
        }
        let partners = (0..m)
            .map(|c| (1..m).map(|i| (c + i) % m).filter(|&o| anywhere || share[c as usize][o as usize]).collect())
            .collect();
        Some(RotatingGc { partners, deferred: vec![false; layout.dies() as usize] })
    }

    /// The stripe layout with columns bound when rotation is on.
    /// A channel's scheduler: one per die, bound to its column, when the
    /// stripes are bound; else the configured one.
    pub(crate) fn scheduler(cfg: &Config, layout: &Layout, stripes: &StripeLayout) -> Sched {
        if cfg.ftl.allocation == crate::ftl::params::PageAllocation::StaticChannelFirst {
            let per_die = (0..layout.dies_per_channel).map(|_| cfg.policy.build_scheduler(1)).collect();
            return Sched::Dyn(Box::new(crate::sched::chip_bound::chip_bound(per_die, layout.channels)));
        }
        if stripes.column(0).is_none() {
            return cfg.policy.build_scheduler(layout.dies_per_channel);
        }
        let per_die = (0..layout.dies_per_channel).map(|_| cfg.policy.build_scheduler(1)).collect();
        Sched::Dyn(Box::new(crate::sched::column_bound::column_bound(per_die, stripes.clone())))
    }
}

impl<O: Observer> Ssd<O> {
    /// Whether rotation lets a GC due on `die` start now.
    pub(crate) fn rotation_gate(&mut self, die: u32) -> GcGate {
        let Some(r) = &mut self.rotating else { return GcGate::Free };
        let ch = self.layout.channel_of_die(die);
        let col = die - self.layout.first_die(ch);
        let dies = self.flash.dies();
        let first = |c: u32| self.layout.first_die(c);
        if !r.partners[ch as usize].iter().any(|&c| dies[(first(c) + col) as usize].gc_until.is_some()) {
            return GcGate::Free;
        }
        let fp = self.layout.first_plane(die);
        if (fp..fp + self.layout.planes_per_die).any(|p| self.ftl.planes[p as usize].free.len() <= 1) {
            return GcGate::Forced;
        }
        if !r.deferred[die as usize] {
            r.deferred[die as usize] = true;
            self.obs.gc_deferred(ch);
        }
        GcGate::Defer
    }

    /// A GC passed the gate and started on `die`.
    pub(crate) fn rotation_started(&mut self, die: u32, gate: GcGate) {
        if let Some(r) = &mut self.rotating {
            r.deferred[die as usize] = false;
            if gate == GcGate::Forced {
                self.obs.gc_forced_overlap(self.layout.channel_of_die(die));
            }
        }
    }

    /// The GC on `die` ended: offer its column's deferred partners a start.
    pub(crate) fn rotation_wake(&mut self, die: u32) {
        let Some(r) = &self.rotating else { return };
        let ch = self.layout.channel_of_die(die);
        let col = die - self.layout.first_die(ch);
        let n = r.partners[ch as usize].len();
        for i in 0..n {
            let Some(r) = &self.rotating else { return };
            let d = self.layout.first_die(r.partners[ch as usize][i]) + col;
            if r.deferred[d as usize] && self.flash.idle(d) {
                self.try_start(d);
            }
        }
    }
}
