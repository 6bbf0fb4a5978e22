//! Policy axes (DESIGN.md §7). Each axis is one small trait; each scheme is
//! its own file; [`PolicySpec`] names the implementation of every axis and
//! [`PolicySpec::build`] is the one registration point.
//!
//! **Invariant:** policies read a [`DeviceView`] and return a decision; they
//! never schedule events or touch the FTL.

pub mod fewest_prereads;
pub mod in_order;
pub mod normal_read;
pub mod stripe_channel;

use crate::config::Timing;
use crate::engine::SimTime;
use crate::flash::address::Layout;
use crate::ftl::block::BlockMeta;
use crate::raid::stripe::{ChunkId, StripeLayout};
use crate::sched::{ChannelScheduler, SchedulerKind};
use crate::ssd::state::{ChannelState, DieState};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Read-only snapshot of the device handed to policies.
pub struct DeviceView<'a> {
    /// Current time.
    pub now: SimTime,
    /// Channel states (bus, queue lengths).
    pub channels: &'a [ChannelState],
    /// Die states (busy, GC) by global die index.
    pub dies: &'a [DieState],
    /// Latencies.
    pub timing: &'a Timing,
    /// Address arithmetic.
    pub layout: &'a Layout,
    /// Stripe geometry.
    pub stripes: &'a StripeLayout,
}

/// How a host read of one chunk is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// Read the chunk where it lives.
    Normal,
    /// Rebuild it from the rest of its stripe (XOR).
    Degraded,
}

/// Read routing axis.
pub trait ReadRouting {
    /// Decides how to serve a read of `chunk`, which currently lives on `channel`.
    fn route(&mut self, view: &DeviceView, chunk: ChunkId, channel: u32) -> Route;
}

/// Update placement axis: the channel that receives a chunk's new version.
pub trait UpdatePlacement {
    /// Channel for the new copy of `chunk`; `home` is its stripe channel.
    fn channel_for(&mut self, view: &DeviceView, chunk: ChunkId, home: u32) -> u32;
}

/// Parity update routine for a partial-stripe write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routine {
    /// Read-modify-write: pre-read the old chunks being written and the old parity.
    Rmw,
    /// Reconstruct-write: pre-read the data chunks not being written.
    Rcw,
}

/// A partial-stripe write as the parity-update policy sees it.
#[derive(Debug, Clone, Copy)]
pub struct UpdatePlan {
    /// Stripe number.
    pub stripe: u32,
    /// Positions RMW must pre-read (bit j = position j).
    pub rmw: u64,
    /// Positions RCW must pre-read.
    pub rcw: u64,
    /// Positions being written.
    pub written: u64,
}

/// Parity update axis.
pub trait ParityUpdate {
    /// Chooses RMW or RCW for `plan`.
    fn choose(&mut self, view: &DeviceView, plan: &UpdatePlan) -> Routine;
}

/// Block allocation axis: which erased block a plane opens next.
pub trait BlockAllocator {
    /// Removes and returns the plane-local index of the block to open.
    fn open_block(&mut self, free: &mut VecDeque<u32>, plane_blocks: &[BlockMeta]) -> Option<u32>;
}

/// Read routing implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ReadRoutingKind {
    /// Always read the chunk where it lives.
    #[default]
    Normal,
}

/// Update placement implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum UpdatePlacementKind {
    /// New versions go to the chunk's stripe channel.
    #[default]
    StripeChannel,
}

/// Parity update implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ParityUpdateKind {
    /// Fewer pre-reads wins; a tie goes to RCW (as Linux md does).
    #[default]
    FewestPrereads,
}

/// Block allocation implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BlockAllocationKind {
    /// Erased blocks are opened in the order they were freed.
    #[default]
    InOrder,
}

/// The implementation chosen on every axis (TOML section `[policy]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PolicySpec {
    /// Read routing.
    pub read_routing: ReadRoutingKind,
    /// Update placement.
    pub update_placement: UpdatePlacementKind,
    /// Parity update routine.
    pub parity_update: ParityUpdateKind,
    /// Per-channel request scheduler.
    pub scheduler: SchedulerKind,
    /// Serve queued reads before queued writes on each channel.
    pub read_priority: bool,
    /// Block allocation.
    pub block_allocation: BlockAllocationKind,
}

impl Default for PolicySpec {
    fn default() -> Self {
        PolicySpec {
            read_routing: ReadRoutingKind::default(),
            update_placement: UpdatePlacementKind::default(),
            parity_update: ParityUpdateKind::default(),
            scheduler: SchedulerKind::default(),
            read_priority: true,
            block_allocation: BlockAllocationKind::default(),
        }
    }
}

/// The built policy objects of one device.
pub struct Policies {
    /// Read routing.
    pub read: Box<dyn ReadRouting>,
    /// Update placement.
    pub place: Box<dyn UpdatePlacement>,
    /// Parity update routine.
    pub parity: Box<dyn ParityUpdate>,
    /// Block allocation.
    pub alloc: Box<dyn BlockAllocator>,
}

impl PolicySpec {
    /// Builds the policy objects (the registration point of every scheme).
    pub fn build(&self) -> Policies {
        Policies {
            read: match self.read_routing {
                ReadRoutingKind::Normal => Box::new(normal_read::NormalRead),
            },
            place: match self.update_placement {
                UpdatePlacementKind::StripeChannel => Box::new(stripe_channel::StripeChannel),
            },
            parity: match self.parity_update {
                ParityUpdateKind::FewestPrereads => Box::new(fewest_prereads::FewestPrereads),
            },
            alloc: match self.block_allocation {
                BlockAllocationKind::InOrder => Box::new(in_order::InOrder),
            },
        }
    }

    /// One scheduler per channel.
    pub fn build_scheduler(&self, dies_per_channel: u32) -> Box<dyn ChannelScheduler> {
        self.scheduler.build(dies_per_channel, self.read_priority)
    }
}
