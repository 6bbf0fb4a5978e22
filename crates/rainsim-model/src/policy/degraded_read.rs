//! Degraded read (degraded-mode scheduling, Algorithm 1 lines 3–9): rebuild
//! the chunk from its stripe when the target channel's queuing cost T_A
//! exceeds the cost T_B the rebuild's reads add to the other stripe channels.

use super::queuing_cost::{partner_gc_ns, read_costs};
use super::{DeviceView, ReadRouting, ReadTarget, Route};

/// Queuing-cost read routing.
#[derive(Debug, Default)]
pub struct DegradedRead {
    partner_gc: bool,
    decision_ns: u64,
}

impl DegradedRead {
    /// With `partner_gc`, a GC running on a partner's die counts in T_B.
    pub fn new(partner_gc: bool) -> Self {
        DegradedRead { partner_gc, decision_ns: 0 }
    }

    /// Charges `ns` of controller time per request for the decision.
    pub fn with_decision_ns(self, ns: u64) -> Self {
        DegradedRead { decision_ns: ns, ..self }
    }
}

impl ReadRouting for DegradedRead {
    fn decision_ns(&self) -> u64 {
        self.decision_ns
    }
    fn route(&mut self, view: &DeviceView, read: &ReadTarget) -> Route {
        if read.partners.is_empty() {
            return Route::Normal;
        }
        let (t_a, mut t_b) = read_costs(view, &read.target, read.partners);
        if self.partner_gc {
            t_b += partner_gc_ns(view, read.partners);
        }
        if t_a > t_b {
            Route::Degraded
        } else {
            Route::Normal
        }
    }
}
