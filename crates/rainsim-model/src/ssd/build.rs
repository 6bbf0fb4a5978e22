//! Building a device: its components from a resolved setup, then
//! preconditioning, the optional warm-up and verify mode.

use super::{gc_overlap, replication, rotating_gc, Controller, RunTotals, Ssd};
use crate::config::{Config, ConfigError};
use crate::device_state::{ArrivalWindow, ChannelState, GcHistory};
use crate::engine::EventQueue;
use crate::flash::interface::FlashInterface;
use crate::flash::process_variation::ProcessVariation;
use crate::ftl::precondition::{precondition, Needed, Reach};
use crate::ftl::Ftl;
use crate::host::chips::ChipMap;
use crate::host::HostInterface;
use crate::metrics::observer::Observer;
use crate::raid::layer::{RaidLayer, RaidTimes};
use crate::setup::DeviceSetup;
use crate::verify::Verifier;
use rainsim_trace::{Op, Request};

impl<O: Observer> Ssd<O> {
    /// Builds and preconditions a device. `verify` turns on data tokens.
    pub fn new(cfg: &Config, obs: O, verify: bool) -> Result<Self, ConfigError> {
        Self::for_requests(cfg, obs, verify, &[])
    }

    /// Builds a device for replaying `requests`: preconditioning maps what
    /// `precondition.map_trace` asks of them, and the warm-up (if any) may
    /// replay their writes.
    pub fn for_requests(cfg: &Config, obs: O, verify: bool, requests: &[Request]) -> Result<Self, ConfigError> {
        Self::build(DeviceSetup::resolve(cfg)?, obs, verify, requests)
    }

    /// Builds a device from a resolved setup for replaying `requests`. Only
    /// preconditioning and the warm-up can fail here (what the trace needs
    /// mapped may not fit; a warm-up may have no writes to replay).
    pub fn build(setup: DeviceSetup, obs: O, verify: bool, requests: &[Request]) -> Result<Self, ConfigError> {
        let map = setup.config.precondition.map_trace;
        let needed = crate::warmup::needed_stripes(&setup.stripes, setup.layout.page_bytes, map, requests);
        // No requests held: a stream, of the configured synthetic workload.
        let (workload, seed) = (setup.config.workload.clone(), setup.config.seed);
        let reach = match requests {
            [] => Reach::Synthetic(&workload, seed),
            r => Reach::Requests(r),
        };
        Self::build_needed(setup, obs, verify, requests, &needed, reach)
    }

    /// [`Ssd::build`] with the stripes to map at time 0 already worked out
    /// (an array's members all need the same ones).
    pub(crate) fn build_needed(
        setup: DeviceSetup,
        obs: O,
        verify: bool,
        requests: &[Request],
        needed: &Needed,
        reach: Reach,
    ) -> Result<Self, ConfigError> {
        let DeviceSetup {
            config: cfg,
            layout,
            stripes,
            flash,
            latencies,
            ldpc,
            controller,
            copyback,
            queue_depth,
            notes,
        } = setup;
        let cfg = &cfg;
        let parity = stripes.parity;
        // Replication works on parity stripes; without them it is inert (a note says so).
        let replicating = cfg.policy.replication != crate::policy::ReplicationKind::None && parity;
        let pairs = if replicating { cfg.policy.replicas.capacity() } else { 0 };
        let ids = stripes.chunks() + crate::raid::replica::ReplicaTable::ids(pairs);
        let (threshold, spread) = (cfg.ftl.gc_threshold, cfg.ftl.wear_level_spread);
        let mut ftl = Ftl::with_tables(layout.clone(), ids, threshold, spread, cfg.run.huge_pages);
        ftl.set_allocator(cfg.policy.build_allocator());
        if cfg.process_variation.enabled {
            let pv = &cfg.process_variation;
            let blocks = layout.blocks();
            ftl.set_process_variation(ProcessVariation::new(pv, blocks, cfg.timing.program_ns, cfg.seed));
        }
        let prep = precondition(&mut ftl, &stripes, &cfg.precondition, cfg.seed, needed, reach)?;
        if cfg.ldpc.enabled && cfg.ldpc.precondition_age_spread == crate::config::AgeSpread::Uniform {
            crate::ftl::precondition::spread_ages(&mut ftl, cfg.ldpc.precondition_age_days, cfg.seed);
        }
        let rotating = rotating_gc::RotatingGc::new(cfg, &layout, &stripes);
        let channels = (0..layout.channels)
            .map(|_| ChannelState {
                sched: rotating_gc::RotatingGc::scheduler(cfg, &layout, &stripes),
                arrivals: ArrivalWindow::new(cfg.policy.arrival_window()),
                gc_recent: GcHistory::new(cfg.policy.degraded.gc_history as usize),
            })
            .collect();
        let policies = cfg.policy.build();
        // One per-request decision covers both degraded-mode axes (Algorithm 1).
        let decision_ns = policies.read.decision_ns().max(policies.place.decision_ns());
        let parity_decision_ns = policies.parity.decision_ns();
        let raid_times = RaidTimes {
            xor_ns: controller.xor_ns,
            stripe_overhead_ns: controller.stripe_overhead_ns,
            decision_ns: if parity { parity_decision_ns } else { 0 },
        };
        let raid_stripes = stripes.clone();
        let host = HostInterface::new(queue_depth, cfg.policy.host_scheduler.build())
            .with_chips(ChipMap::new(&layout), cfg.report.conflicts || cfg.policy.wants_chip_state());
        let mut ssd = Ssd {
            obs,
            t: flash,
            ldpc,
            latencies,
            times: controller,
            copyback,
            program_cursor: (cfg.ftl.allocation == crate::ftl::params::PageAllocation::RoundRobin)
                .then(|| vec![0; layout.channels as usize]),
            direct_starts: true,
            flash: FlashInterface::new(layout.channels, layout.dies_per_channel, flash),
            policies,
            controller: Controller::new(controller.cores),
            layout,
            stripes,
            ftl,
            q: EventQueue::default(),
            channels,
            host,
            raid: Some(Box::new(RaidLayer::new(raid_stripes, raid_times))),
            scratch: Vec::new(),
            decision_ns: if parity { decision_ns } else { 0 },
            notes,
            verifier: None,
            prep,
            warmup: None,
            warmup_cpu_s: 0.0,
            stop: None,
            rotating,
            gc_overlap: None,
            fault: None,
            fault_params: cfg.fault.clone(),
            dead: None,
            replace_pending: false,
            fault_times: Default::default(),
            stopped: false,
            repl: None,
            replicas: None,
            seq: 0,
            arrivals: Default::default(),
            totals: RunTotals::default(),
            error: None,
            external: None,
        };
        if replicating {
            let chunks = ssd.stripes.chunks();
            let table = crate::raid::replica::ReplicaTable::new(chunks as u32, pairs);
            ssd.replicas = Some(table);
            let soft = ssd.times.xor_ns + ssd.times.stripe_overhead_ns;
            ssd.policies.replication = cfg.policy.build_replication(chunks, soft);
            let pin = ssd.policies.replication.same_channel().then_some(cfg.policy.replicas.strict_mirror_die);
            let any = ssd.policies.replication.reorganizes() && ssd.policies.replication.any_chunk();
            ssd.repl = Some(replication::ReplState::new(cfg.policy.replicas.high_water, pin, any));
        }
        if cfg.warmup.device_writes > 0.0 {
            let c0 = crate::engine::cpu_seconds();
            ssd.warm_up(cfg, requests)?;
            ssd.warmup_cpu_s = crate::engine::cpu_seconds() - c0;
        }
        if verify {
            ssd.verifier = Some(Verifier::new(&ssd.ftl, &ssd.stripes));
            ssd.raid.as_mut().expect("built").set_verify(true);
            ssd.gc_overlap = Some(gc_overlap::GcOverlapCheck::new(&ssd.ftl, &ssd.stripes));
        }
        Ok(ssd)
    }

    /// Replays writes through the FTL with timing off (`[warmup]`); GC
    /// durations go into the channels' histories, nothing into statistics.
    fn warm_up(&mut self, cfg: &Config, requests: &[Request]) -> Result<(), ConfigError> {
        let w = &cfg.warmup;
        let (name, writes): (&str, Vec<(u64, u32)>) = match w.workload {
            crate::config::WarmupWorkload::Trace => {
                ("trace", requests.iter().filter(|r| r.op == Op::Write).map(|r| (r.offset, r.size)).collect())
            }
            crate::config::WarmupWorkload::Synthetic => {
                let seed = crate::config::WarmupWorkload::synthetic_seed(cfg.seed);
                let t = rainsim_trace::generate(&cfg.workload, self.capacity_bytes(), seed)
                    .map_err(|e| ConfigError(format!("warmup.workload = \"synthetic\": {e}")))?;
                ("synthetic", t.requests.iter().filter(|r| r.op == Op::Write).map(|r| (r.offset, r.size)).collect())
            }
        };
        if writes.is_empty() {
            return Err(ConfigError(format!(
                "warmup.device_writes = {} but its workload (warmup.workload = \"{name}\") has no writes{}",
                w.device_writes,
                if name == "trace" { "; use warmup.workload = \"synthetic\"" } else { "" }
            )));
        }
        let target = (w.device_writes * self.stripes.logical_pages() as f64).ceil() as u64;
        let channels = &mut self.channels;
        let mut on_gc = |ch: u32, work: &crate::ftl::GcWork| {
            channels[ch as usize].gc_recent.record(work.moved, work.erased);
        };
        let mut rep =
            crate::warmup::replay(&mut self.ftl, &self.stripes, &writes, self.layout.page_bytes, target, &mut on_gc)
                .map_err(|e| ConfigError(format!("warm-up: {e}")))?;
        rep.workload = name.into();
        rep.device_writes = w.device_writes;
        self.warmup = Some(rep);
        Ok(())
    }
}
