//! Policy axes (DESIGN.md §7). Each axis is one small trait; each scheme is
//! its own file; [`PolicySpec`] (in `spec.rs`) names the implementation of
//! every axis and [`PolicySpec::build`] is the one registration point.
//!
//! **Invariant:** policies read a [`DeviceView`] and return a decision; they
//! never schedule events or touch the FTL.

pub mod adaptive;
pub mod bpu;
pub mod cr5m;
pub mod degraded_read;
pub mod degraded_update;
pub mod fewest_prereads;
pub mod fusionraid;
pub mod gc_tolerant_read;
pub mod normal_read;
pub mod queuing_cost;
pub mod rep_raid;
pub mod replication;
pub mod spec;
pub mod stripe_channel;

pub use adaptive::{AdaptiveParams, QueueScope};
pub use bpu::BpuParams;
pub use replication::{ReplicaParams, Replication, ReplicationKind};
pub use spec::{
    BlockAllocationKind, DegradedParams, GcScope, GcTolerantParams, ParityUpdateKind, Policies, PolicySpec,
    ReadRoutingKind, UpdatePlacementKind,
};

pub use crate::device_state::DeviceView;
use crate::engine::SimTime;
pub use crate::ftl::allocation::BlockAllocator;
pub use crate::raid::rmw_rcw::{ChunkUpdate, Member, Routine, UpdatePlan};

/// A host read of one chunk as the routing policy sees it.
#[derive(Debug, Clone, Copy)]
pub struct ReadTarget<'a> {
    /// The chunk to read.
    pub target: Member,
    /// The stripe's other written chunks (parity included): what a rebuild
    /// reads. Empty when the policy does not ask for them or the stripe cannot
    /// be rebuilt now (a write to it is in flight).
    pub partners: &'a [Member],
}

/// How a host read of one chunk is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Read the chunk where it lives.
    Normal,
    /// Rebuild it from the rest of its stripe (XOR), chosen by a cost model.
    Degraded,
    /// Rebuild it because its die or channel is collecting garbage.
    GcTolerant,
}

/// Read routing axis.
pub trait ReadRouting {
    /// Whether [`ReadTarget::partners`] is needed (costs a stripe walk per read).
    fn wants_partners(&self) -> bool {
        true
    }
    /// Controller time of the per-request decision (charged once per host
    /// request; with an update-placement policy that decides too, the larger).
    fn decision_ns(&self) -> SimTime {
        0
    }
    /// Decides how to serve `read`. A rebuild is only possible when
    /// `read.partners` is not empty; otherwise the model reads normally.
    fn route(&mut self, view: &DeviceView, read: &ReadTarget) -> Route;
}

/// Update placement axis: where a chunk's new version is programmed.
pub trait UpdatePlacement {
    /// Whether single-chunk updates should be offered to [`UpdatePlacement::place`].
    fn wants_updates(&self) -> bool {
        true
    }
    /// Controller time of the per-request decision (see [`ReadRouting::decision_ns`]).
    fn decision_ns(&self) -> SimTime {
        0
    }
    /// `None` keeps the chunk on its channel (a normal RMW/RCW update);
    /// `Some(ch)` makes a degraded update: the old version is rebuilt from the
    /// partners and the new one is programmed on `ch`, one of `u.outside`.
    fn place(&mut self, view: &DeviceView, u: &ChunkUpdate) -> Option<u32>;
}

/// Parity update axis.
pub trait ParityUpdate {
    /// Controller time of one routine decision, spent before the update's
    /// pre-reads are issued.
    fn decision_ns(&self) -> SimTime {
        0
    }
    /// Chooses RMW or RCW for `plan`.
    fn choose(&mut self, view: &DeviceView, plan: &UpdatePlan) -> Routine;
}
