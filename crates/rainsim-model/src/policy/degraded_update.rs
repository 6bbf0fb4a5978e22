//! Degraded update (degraded-mode scheduling, Algorithm 1 lines 11–17): when
//! the target channel's cost T'_A exceeds T'_B, the old chunk is rebuilt from
//! the rest of the stripe and the new one goes to the idlest channel x outside
//! the stripe; parity is rewritten on its own channel.
//!
//! Not in the paper: x must have at least as many erased blocks as the
//! target's channel. A move takes a page on x and frees one on the target, so
//! free space flows from richer channels to poorer ones; without the rule a
//! workload with a hot stripe region can drain one channel until it holds only
//! valid data.

use super::queuing_cost::{free_blocks, idlest, partner_gc_ns, update_costs};
use super::{ChunkUpdate, DeviceView, UpdatePlacement};

/// Queuing-cost update placement.
#[derive(Debug, Default)]
pub struct DegradedUpdate {
    /// Where the next tie among equally idle channels starts (after the last choice).
    next: u32,
    /// A GC running on a partner's die counts in T'_B.
    partner_gc: bool,
    /// Controller time of the per-request decision.
    decision_ns: u64,
}

impl DegradedUpdate {
    /// With `partner_gc`, a GC running on a partner's die counts in T'_B.
    pub fn new(partner_gc: bool) -> Self {
        DegradedUpdate { next: 0, partner_gc, decision_ns: 0 }
    }

    /// Charges `ns` of controller time per request for the decision.
    pub fn with_decision_ns(self, ns: u64) -> Self {
        DegradedUpdate { decision_ns: ns, ..self }
    }
}

impl UpdatePlacement for DegradedUpdate {
    fn decision_ns(&self) -> u64 {
        self.decision_ns
    }
    fn place(&mut self, view: &DeviceView, u: &ChunkUpdate) -> Option<u32> {
        let floor = free_blocks(view, u.target.channel);
        let roomy = u.outside.iter().copied().filter(|&ch| free_blocks(view, ch) >= floor);
        let x = idlest(view, roomy, self.next)?;
        let (t_a, mut t_b) = update_costs(view, &u.target, u.partners, x);
        if self.partner_gc {
            t_b += partner_gc_ns(view, u.partners);
        }
        if t_a > t_b {
            self.next = x + 1;
            Some(x)
        } else {
            None
        }
    }
}
