//! Which implementation runs on each policy axis, with its parameters (TOML
//! section `[policy]`), and the one place where schemes are registered.

use super::*;
use crate::host::HostSchedulerKind;
use crate::policy::adaptive::AdaptiveParams;
use crate::policy::bpu::BpuParams;
use crate::sched::{Sched, SchedulerKind};
use serde::{Deserialize, Serialize};

/// Read routing implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ReadRoutingKind {
    /// Always read the chunk where it lives.
    #[default]
    Normal,
    /// Rebuild reads whose die (or channel) is in GC (Tiny-Tail Flash).
    GcTolerant,
    /// Rebuild reads when the queuing-cost model says so (degraded-mode scheduling).
    Degraded,
}

/// Update placement implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum UpdatePlacementKind {
    /// New versions go to the chunk's stripe channel.
    #[default]
    StripeChannel,
    /// Degraded update to the idlest channel outside the stripe when the
    /// queuing-cost model says so (degraded-mode scheduling).
    Degraded,
}

/// Parity update implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ParityUpdateKind {
    /// Fewer pre-reads wins; a tie goes to RCW (as Linux md does).
    #[default]
    FewestPrereads,
    /// Fixed-threshold classes on pre-read counts and queue lengths (BPU,
    /// Chen et al., ICPADS'16); parameters in `[policy.bpu]`.
    Bpu,
    /// The cost model of adaptive-parity-update (Eq. 3–9, Algorithm 1);
    /// parameters in `[policy.adaptive]`.
    Adaptive,
}

/// Block allocation implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BlockAllocationKind {
    /// Erased blocks are opened in the order they were freed.
    #[default]
    InOrder,
    /// Fast blocks for pages whose chip has requests waiting, slow ones
    /// otherwise (vios-variation-aware-scheduler Fig. 4).
    VariationAware,
}

impl BlockAllocationKind {
    /// Whether it places pages by the waiting requests of their chip (the
    /// device then passes a lane with each allocation).
    pub fn uses_lanes(self) -> bool {
        match self {
            BlockAllocationKind::InOrder => false,
            BlockAllocationKind::VariationAware => true,
        }
    }
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
    /// Host request scheduler: which request waiting for a slot enters next.
    pub host_scheduler: HostSchedulerKind,
    /// Per-channel request scheduler.
    pub scheduler: SchedulerKind,
    /// Serve queued reads before queued writes on each channel.
    pub read_priority: bool,
    /// Block allocation.
    pub block_allocation: BlockAllocationKind,
    /// Parameters of the degraded-mode queuing-cost model.
    pub degraded: DegradedParams,
    /// Parameters of GC-tolerant reads.
    pub gc_tolerant: GcTolerantParams,
    /// Parameters of the BPU parity-update classes.
    pub bpu: BpuParams,
    /// Parameters of the adaptive parity-update cost model.
    pub adaptive: AdaptiveParams,
    /// Parameters of variation-aware block allocation (left out of
    /// serialised configs while at their defaults).
    #[serde(skip_serializing_if = "VariationAwareParams::is_default")]
    pub variation_aware: VariationAwareParams,
    /// Replication (rep-raid and its baselines); left out of serialised
    /// configs while `none`, like its parameters while at their defaults.
    #[serde(skip_serializing_if = "ReplicationKind::is_none")]
    pub replication: ReplicationKind,
    /// Parameters shared by the replication schemes.
    #[serde(skip_serializing_if = "ReplicaParams::is_default")]
    pub replicas: ReplicaParams,
    /// Parameters of Rep-RAID's model.
    #[serde(skip_serializing_if = "super::rep_raid::RepRaidParams::is_default")]
    pub rep_raid: super::rep_raid::RepRaidParams,
}

/// Parameters of variation-aware block allocation (`[policy.variation_aware]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct VariationAwareParams {
    /// The block a page nobody waits behind takes: `slowest` or `in-order`.
    pub slow: crate::ftl::allocation::variation_aware::SlowBlock,
}

impl VariationAwareParams {
    /// Whether every parameter is at its default (left out of serialised configs).
    pub fn is_default(&self) -> bool {
        *self == VariationAwareParams::default()
    }
}

/// Parameters of the degraded-mode queuing-cost model (`[policy.degraded]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DegradedParams {
    /// Controller time of one scheduling decision, charged per host request
    /// while a degraded policy is active (the paper measured 4.9 µs on its ARM core).
    pub decision_ns: u64,
    /// Recent channel arrivals giving its request frequency f_i (the paper: 128).
    pub arrival_window: u32,
    /// Recent GCs of a channel averaged for t_gc (DM-Eq. 7; the paper: 8).
    pub gc_history: u32,
    /// Add to T_B (and T'_B) the longest GC still running on a partner's die:
    /// the rebuild waits for it. Off by default, as in the paper's Eq. 4.
    pub partner_gc: bool,
}

impl Default for DegradedParams {
    fn default() -> Self {
        DegradedParams { decision_ns: 0, arrival_window: 128, gc_history: 8, partner_gc: false }
    }
}

/// What "busy with GC" means for a GC-tolerant read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GcScope {
    /// The die holding the page is collecting.
    #[default]
    Die,
    /// Any die of the page's channel is collecting.
    Channel,
}

/// Parameters of GC-tolerant reads (`[policy.gc_tolerant]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct GcTolerantParams {
    /// Die or channel.
    pub scope: GcScope,
}
impl Default for PolicySpec {
    fn default() -> Self {
        PolicySpec {
            read_routing: ReadRoutingKind::default(),
            update_placement: UpdatePlacementKind::default(),
            parity_update: ParityUpdateKind::default(),
            host_scheduler: HostSchedulerKind::default(),
            scheduler: SchedulerKind::default(),
            read_priority: true,
            block_allocation: BlockAllocationKind::default(),
            degraded: DegradedParams::default(),
            gc_tolerant: GcTolerantParams::default(),
            bpu: BpuParams::default(),
            adaptive: AdaptiveParams::default(),
            variation_aware: VariationAwareParams::default(),
            replication: ReplicationKind::default(),
            replicas: ReplicaParams::default(),
            rep_raid: Default::default(),
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
    /// Replication.
    pub replication: Box<dyn Replication>,
}

impl PolicySpec {
    /// Longest history a channel keeps for the cost models (arrivals or GCs).
    pub const MAX_HISTORY: u32 = 1 << 16;

    /// Rejects parameters no policy can work with, naming the key.
    pub fn validate(&self) -> Result<(), String> {
        self.bpu.validate()?;
        self.replicas.validate()?;
        self.rep_raid.validate()?;
        let d = &self.degraded;
        if !(2..=Self::MAX_HISTORY).contains(&d.arrival_window) {
            return Err(format!(
                "policy.degraded.arrival_window = {} must be between 2 (a rate needs two arrivals) and {}",
                d.arrival_window,
                Self::MAX_HISTORY
            ));
        }
        if !(1..=Self::MAX_HISTORY).contains(&d.gc_history) {
            return Err(format!(
                "policy.degraded.gc_history = {} must be between 1 and {} (GCs averaged for t_gc, Eq. 7)",
                d.gc_history,
                Self::MAX_HISTORY
            ));
        }
        Ok(())
    }

    /// Builds the policy objects (the registration point of every scheme).
    pub fn build(&self) -> Policies {
        Policies {
            read: match self.read_routing {
                ReadRoutingKind::Normal => Box::new(normal_read::NormalRead),
                ReadRoutingKind::GcTolerant => Box::new(gc_tolerant_read::GcTolerantRead::new(self.gc_tolerant.scope)),
                ReadRoutingKind::Degraded => Box::new(
                    degraded_read::DegradedRead::new(self.degraded.partner_gc)
                        .with_decision_ns(self.degraded.decision_ns),
                ),
            },
            place: match self.update_placement {
                UpdatePlacementKind::StripeChannel => Box::new(stripe_channel::StripeChannel),
                UpdatePlacementKind::Degraded => Box::new(
                    degraded_update::DegradedUpdate::new(self.degraded.partner_gc)
                        .with_decision_ns(self.degraded.decision_ns),
                ),
            },
            parity: match self.parity_update {
                ParityUpdateKind::FewestPrereads => Box::new(fewest_prereads::FewestPrereads),
                ParityUpdateKind::Bpu => Box::new(bpu::Bpu::new(self.bpu.clone())),
                ParityUpdateKind::Adaptive => Box::new(adaptive::Adaptive::new(self.adaptive.clone())),
            },
            replication: Box::new(replication::NoReplication),
        }
    }

    /// The replication policy for a device of `chunks` stripe chunks whose
    /// stripe update costs `xor_plus_soft_ns` on the controller.
    pub fn build_replication(&self, chunks: u64, xor_plus_soft_ns: SimTime) -> Box<dyn Replication> {
        let r = &self.replicas;
        match self.replication {
            ReplicationKind::None => Box::new(replication::NoReplication),
            ReplicationKind::Cr5m => Box::new(cr5m::Cr5m { max_request_bytes: r.max_request_bytes }),
            ReplicationKind::Fusionraid => {
                Box::new(fusionraid::FusionRaid { max_request_bytes: r.max_request_bytes, idle_ns: r.idle_ns })
            }
            ReplicationKind::RepRaid => Box::new(rep_raid::RepRaid::new(&self.rep_raid, chunks, xor_plus_soft_ns)),
        }
    }

    /// The block allocation policy (the FTL asks it which block to open).
    pub fn build_allocator(&self) -> Box<dyn BlockAllocator> {
        match self.block_allocation {
            BlockAllocationKind::InOrder => Box::new(crate::ftl::allocation::in_order::InOrder),
            BlockAllocationKind::VariationAware => {
                Box::new(crate::ftl::allocation::variation_aware::VariationAware { slow: self.variation_aware.slow })
            }
        }
    }

    /// Whether a policy reads chip sets or the chip-state vector NR (vios
    /// Eq. 2): a host scheduler other than FIFO (NOOP included, for Table 1's
    /// conflicts), or an allocator that places by NR.
    pub fn wants_chip_state(&self) -> bool {
        self.host_scheduler != HostSchedulerKind::Fifo || self.block_allocation.uses_lanes()
    }

    /// Whether a degraded-mode policy (the queuing-cost model) is on.
    fn degraded_on(&self) -> bool {
        self.read_routing == ReadRoutingKind::Degraded || self.update_placement == UpdatePlacementKind::Degraded
    }

    /// Channel arrivals to keep for a rate (0 when no policy reads rates, so
    /// that the enqueue path records nothing).
    pub fn arrival_window(&self) -> usize {
        if self.degraded_on() {
            self.degraded.arrival_window as usize
        } else {
            0
        }
    }

    /// One scheduler per channel.
    pub fn build_scheduler(&self, dies_per_channel: u32) -> Sched {
        self.scheduler.build(dies_per_channel, self.read_priority)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::allocation::variation_aware::SlowBlock;

    /// Chip state (NR) is tracked only for a host scheduler other than FIFO
    /// or an allocator that places by it.
    #[test]
    fn chip_state_is_wanted_by_chip_aware_schedulers_and_allocators_only() {
        let fifo = PolicySpec::default();
        assert!(!fifo.wants_chip_state());
        let noop = PolicySpec { host_scheduler: HostSchedulerKind::Noop, ..PolicySpec::default() };
        let va = PolicySpec { block_allocation: BlockAllocationKind::VariationAware, ..PolicySpec::default() };
        assert!(noop.wants_chip_state() && va.wants_chip_state());
    }

    /// Channels keep arrivals for a rate only when a degraded-mode policy
    /// (either axis) reads them, as many as `arrival_window` says.
    #[test]
    fn arrivals_are_kept_only_for_a_degraded_mode_policy() {
        let window = |read: ReadRoutingKind, place: UpdatePlacementKind| {
            let mut p = PolicySpec { read_routing: read, update_placement: place, ..PolicySpec::default() };
            p.degraded.arrival_window = 7;
            p.arrival_window()
        };
        use {ReadRoutingKind as R, UpdatePlacementKind as U};
        assert_eq!(window(R::Normal, U::StripeChannel), 0);
        assert_eq!(window(R::GcTolerant, U::StripeChannel), 0);
        assert_eq!(window(R::Degraded, U::StripeChannel), 7);
        assert_eq!(window(R::Normal, U::Degraded), 7);
        assert_eq!(window(R::Degraded, U::Degraded), 7);
    }

    /// The degraded model's histories are checked at their bounds, naming
    /// the key; the BPU, replica and Rep-RAID parameters' own checks run too.
    #[test]
    fn validate_names_the_key_out_of_bounds() {
        let with = |w: u32, h: u32| {
            let mut p = PolicySpec::default();
            (p.degraded.arrival_window, p.degraded.gc_history) = (w, h);
            p.validate()
        };
        let max = PolicySpec::MAX_HISTORY;
        assert_eq!((with(2, 1), with(max, max)), (Ok(()), Ok(())));
        for (w, h, key) in
            [(1, 1, "arrival_window"), (max + 1, 1, "arrival_window"), (2, 0, "gc_history"), (2, max + 1, "gc_history")]
        {
            let e = with(w, h).unwrap_err();
            assert!(e.starts_with(&format!("policy.degraded.{key} = ")), "{e}");
        }
        let mut p = PolicySpec::default();
        p.replicas.high_water = 0;
        assert!(p.validate().is_err_and(|e| e.contains("high_water")));
    }

    /// `[policy.variation_aware]` is left out of a serialised config at its
    /// default and kept (and read back) otherwise.
    #[test]
    fn variation_aware_params_are_serialised_only_when_set() {
        let json = |p: &PolicySpec| serde_json::to_value(p).unwrap();
        assert!(json(&PolicySpec::default()).get("variation_aware").is_none());
        let set =
            PolicySpec { variation_aware: VariationAwareParams { slow: SlowBlock::InOrder }, ..PolicySpec::default() };
        assert_eq!(json(&set)["variation_aware"]["slow"], "in-order");
        assert_eq!(serde_json::from_value::<PolicySpec>(json(&set)).unwrap(), set);
    }
}
