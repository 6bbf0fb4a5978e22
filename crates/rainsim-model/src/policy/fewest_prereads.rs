//! Baseline parity-update rule: the routine with fewer pre-reads; on a tie,
//! RCW, as Linux md's `handle_stripe_dirtying` does (RMW only if rmw < rcw).

use super::{DeviceView, ParityUpdate, Routine, UpdatePlan};

/// Fewest pre-reads, ties to RCW.
pub struct FewestPrereads;

impl ParityUpdate for FewestPrereads {
    fn choose(&mut self, _view: &DeviceView, plan: &UpdatePlan) -> Routine {
        plan.fewest()
    }
}
