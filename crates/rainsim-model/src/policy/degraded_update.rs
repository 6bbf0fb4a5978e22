//! Degraded update (degraded-mode scheduling, Algorithm 1 lines 11–17): when
//! the target channel's cost T'_A exceeds T'_B, the old chunk is rebuilt from
//! the rest of the stripe and the new one goes to the idlest channel x outside
//! the stripe; parity is rewritten on its own channel.

use super::queuing_cost::{idlest, update_costs};
use super::{ChunkUpdate, DeviceView, UpdatePlacement};

/// Queuing-cost update placement.
pub struct DegradedUpdate;

impl UpdatePlacement for DegradedUpdate {
    fn place(&mut self, view: &DeviceView, u: &ChunkUpdate) -> Option<u32> {
        let x = idlest(view, u.outside)?;
        let (t_a, t_b) = update_costs(view, &u.target, u.partners, x);
        (t_a > t_b).then_some(x)
    }
}
