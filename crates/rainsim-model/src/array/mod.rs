//! An array of S devices under an array-level RAID-5 (DESIGN.md §5, the DLS
//! paper): every device is a full rainsim [`Ssd`], all of them in one
//! simulated time, and the RAID layer of `raid/` runs above them with a
//! device as the stripe member.
//!
//! ```text
//!  requests ─▶ Array (split into chunks; stripe jobs of the RaidLayer)
//!                │  RaidPort = Core: member(chunk) = (device, slot) from the ArrayMap,
//!                │  Read / Program actions become device requests (Ssd::submit),
//!                │  a Program of a data chunk goes where the write allocation says
//!                ▼
//!   Ssd 0   Ssd 1   …   Ssd S−1      each device: host → RAID? → channels → FTL
//!                │  completions (Ssd::take_done) come back as the owner's events;
//!                │  a chunk that moved is trimmed at its old slot
//! ```
//!
//! The stripe has S chunks (S − 1 data + parity), position j of every
//! stripe on device j, parity rotating one position per stripe (the layout
//! of `raid::stripe` with channels = width = S); with `array.parity =
//! false`, S data chunks and no parity. A chunk is one or more
//! device pages; its slot is its run of device logical pages.
//!
//! The RAID layer works on *units* ([`params::ArrayParams::unit_bytes`]):
//! under `static` placement a unit is one page and a stripe of the layer is
//! one page row of an array stripe's chunks (md's stripe cache: a 4 KiB
//! write pre-reads and programs one page of data and one of parity, however
//! large the chunk), the parity staying on its device for the chunk's rows;
//! under free placement a chunk moves whole, so the unit is the chunk.
//! With one-page chunks (the presets) the two are the same.
//!
//! One loop drives everything: every device's events wait in the array's
//! queue with its own, and it runs the earliest, the array's first at equal
//! times and then the devices' by index (each device's in the order it
//! scheduled them), so a run is deterministic.
//!
//! **Failure semantics:** the static layout keeps every stripe on distinct
//! devices (single-failure tolerant). Free placement (`rr`, `egs`, `dls`)
//! keeps parity on its rotating device but lets two data chunks of a stripe
//! share a device, so one device failure can lose a stripe; the report
//! counts those stripes and `--verify` refuses such a layout.

pub mod alloc;
pub use crate::raid::array_params as params;
pub mod mapping;
pub mod model;
mod port;
mod rebuild;
pub mod report;
mod run;

use crate::config::{Config, ConfigError};
use crate::controller::Controller;
use crate::engine::{EventQueue, SimTime};
use crate::flash::op::Owner;
use crate::ftl::precondition::Reach;
use crate::metrics::collector::{Collector, LatencyStats};
use crate::raid::layer::{RaidEvent, RaidLayer, RaidTimes};
use crate::raid::stripe::StripeLayout;
use crate::slab::Slab;
use crate::ssd::{SimError, Ssd};
use alloc::{ArrayWriteAllocation, DeviceLoad};
use mapping::{ArrayMap, ChannelOf};
use model::{ChannelDelays, ServiceTimes};
use params::{Allocation, ArrayParams, Replay};

/// Events of the array itself.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ArrayEv {
    /// The next request is issued (its trace time, or a free slot in closed loop).
    Arrival,
    /// A controller timer of the array's RAID layer.
    Raid(RaidEvent),
    /// An event of device `d` (each device's events wait in the array's
    /// queue, ranked by the device's index: [`Core::take_events`]).
    Device(u32, crate::ssd::Ev),
    /// `array.fail_device` fails now.
    DeviceFails,
    /// The failed device's replacement is due (`array.replace_after_ns`).
    Replace,
}

/// A device request the array has outstanding.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DevOp {
    pub owner: Owner,
    pub chunk: u32,
    pub device: u32,
    pub slot: u32,
    pub channel: u32,
    /// Its Eq. 9 wait, predicted at issue.
    pub delay: f64,
    pub write: bool,
}

/// An array request in flight.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ArrayReq {
    pub arrival: SimTime,
    pub pending: u32,
    pub write: bool,
}

/// What the array counts.
#[derive(Debug, Clone, Default)]
pub struct ArrayCounters {
    /// Reads, writes (all of them: [`ArrayCounters::latency_all`]).
    pub latency: [LatencyStats; 2],
    /// Full-stripe, RMW, RCW, fresh stripe writes.
    pub stripe_writes: [u64; 4],
    /// Pre-reads issued.
    pub prereads: u64,
    /// XORs.
    pub xors: u64,
    /// Reads rebuilt from their stripe.
    pub degraded_reads: u64,
    /// Per device: reads, data programs, parity programs the array issued.
    pub device_ops: Vec<[u64; 3]>,
    /// Per device: bytes the array programmed on it.
    pub device_bytes: Vec<u64>,
    /// Data chunks written somewhere else than where they lived.
    pub moves: u64,
    /// Of those, the ones whose old slot was trimmed only after reads of it
    /// in flight finished.
    pub deferred_trims: u64,
    /// Pages of old slots a device kept valid for its own RAID-5's parity
    /// instead of trimming them (`Ssd::trim`).
    pub trims_kept: u64,
    /// Programs of jobs planned before a device failed that were for it
    /// (not issued: the unit is lost, parity keeps its data).
    pub programs_dropped: u64,
    /// First issue and last completion.
    pub first_issue: Option<SimTime>,
    /// Last completion.
    pub last_completion: SimTime,
}

impl ArrayCounters {
    /// Latency of all requests, reads and writes together.
    pub fn latency_all(&self) -> LatencyStats {
        LatencyStats::merged(&self.latency[0], &self.latency[1])
    }

    /// Requests completed.
    pub fn completed(&self) -> u64 {
        self.latency[0].count() + self.latency[1].count()
    }
}

/// Everything of the array except its RAID layer: the layer's port.
pub(crate) struct Core {
    /// Simulated time now: the time of the event being handled.
    pub now: SimTime,
    pub devices: Vec<Ssd<Collector>>,
    pub q: EventQueue<ArrayEv>,
    pub stripes: StripeLayout,
    pub map: ArrayMap,
    pub alloc: Box<dyn ArrayWriteAllocation>,
    pub allocation: Allocation,
    pub loads: Vec<DeviceLoad>,
    pub service: ServiceTimes,
    /// Physical capacity of one device, bytes.
    pub device_bytes: u64,
    pub pe_limit: u32,
    pub chunk_bytes: u64,
    /// The RAID layer's unit (a page under static placement, else the chunk).
    pub unit_bytes: u64,
    pub page_bytes: u32,
    pub ops: Slab<DevOp>,
    pub reqs: Slab<ArrayReq>,
    pub controller: Controller,
    pub counters: ArrayCounters,
    /// Each chunk's data token (verify mode).
    pub tokens: Option<Vec<u32>>,
    pub error: Option<SimError>,
    /// Under free placement: reads in flight per (device << 32 | slot), and
    /// the slots whose trim waits for them (a queued device read must find
    /// its page).
    pub reads_at: rustc_hash::FxHashMap<u64, u32>,
    pub deferred_trims: rustc_hash::FxHashSet<u64>,
    /// Devices whose next event time may have changed since the loop looked.
    pub touched: Vec<u32>,
    /// Programs for the failed device, completed without it.
    pub dropped: Vec<u32>,
    /// Each device slot's generation (bumped when a replacement takes the
    /// slot): an event of a device that left is dropped, not run.
    pub generation: Vec<u16>,
    /// The failure and its rebuild, once a device failed.
    pub failure: Option<Box<rebuild::FailureState>>,
    /// Every device request handed in, per device (tests replay them alone).
    pub record: Option<Vec<Vec<rainsim_trace::Request>>>,
}

/// S devices under an array RAID-5.
pub struct Array {
    raid: RaidLayer,
    core: Core,
    params: ArrayParams,
    completed: u64,
    /// Arrivals scheduled in this run.
    issued: usize,
    /// Index of the next request to enter.
    next: usize,
    /// Once set, the run stops at its next progress call.
    stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The configuration of the failed device's replacement (a fresh device).
    replacement: Option<Box<Config>>,
}

/// Unit slots one device offers (whole chunks' worth), and the array's
/// stripes over them, in units ([`ArrayParams::unit_bytes`]).
pub fn shape(cfg: &Config, a: &ArrayParams) -> (u64, u32) {
    let (width, parity) = cfg.stripe_shape();
    let dev_stripes = crate::config::stripe_count(cfg.physical_pages(), cfg.geometry.over_provisioning, width);
    let page = cfg.geometry.page_bytes;
    let device = dev_stripes * width.saturating_sub(parity as u32) as u64 * page as u64;
    let (chunk, unit) = (a.chunk_bytes(page), a.unit_bytes(page));
    let slots = device / chunk * (chunk / unit);
    let usable = if a.allocation == Allocation::Static { slots } else { (slots as f64 * (1.0 - a.spare)) as u64 };
    (slots, usable.min(u32::MAX as u64 - 1) as u32)
}

/// Host-visible capacity of the array `cfg` describes, bytes.
pub fn capacity_bytes(cfg: &Config, a: &ArrayParams) -> u64 {
    let (_, stripes) = shape(cfg, a);
    stripes as u64 * a.data_per_stripe() as u64 * a.unit_bytes(cfg.geometry.page_bytes)
}

/// The configuration of device `i` of the array `cfg` describes: the same
/// device, its own seed (`seed + i`), no `[array]`, and `[fault]` only on
/// member `fault.device`.
pub fn device_config(cfg: &Config, i: u32) -> Config {
    let mut c = cfg.clone();
    c.array = None;
    c.seed = cfg.seed.wrapping_add(i as u64);
    // `[fault]` belongs to member `fault.device` alone, as its own failure.
    c.fault = match cfg.fault.device {
        Some(d) if d == i => crate::config::FaultParams { device: None, ..cfg.fault.clone() },
        _ => Default::default(),
    };
    c
}

/// The device reads that stand for what `requests` touch: every home slot
/// of every stripe they touch (the same slots on every device), as reads at
/// time 0 (preconditioning maps what a trace reads before writing it).
/// `units` is the array's stripes in units.
fn needed_slots(
    cfg: &Config,
    a: &ArrayParams,
    units: u32,
    requests: &[rainsim_trace::Request],
) -> Vec<rainsim_trace::Request> {
    if cfg.precondition.map_trace == crate::config::MapTrace::None || requests.is_empty() {
        return Vec::new();
    }
    let page = cfg.geometry.page_bytes;
    let chunk = a.chunk_bytes(page);
    let stripes = (units as u64 / (chunk / a.unit_bytes(page))) as u32;
    let dps = a.data_per_stripe() as u64;
    let mut touched = vec![false; stripes as usize];
    for r in requests {
        let first = r.offset / chunk / dps;
        let last = (r.offset + r.size.max(1) as u64 - 1) / chunk / dps;
        for s in first..=last.min(stripes as u64 - 1) {
            touched[s as usize] = true;
        }
    }
    touched
        .iter()
        .enumerate()
        .filter(|(_, &t)| t)
        .map(|(s, _)| rainsim_trace::Request {
            time_ns: 0,
            offset: s as u64 * chunk,
            size: chunk as u32,
            device: 0,
            op: rainsim_trace::Op::Read,
        })
        .collect()
}

impl Array {
    /// Builds the array `cfg.array` describes. `verify` turns on data tokens
    /// in the array and in every device; it refuses a layout that is not
    /// single-failure tolerant.
    pub fn new(cfg: &Config, verify: bool) -> Result<Self, ConfigError> {
        Self::for_requests(cfg, verify, &[])
    }

    /// [`Array::new`] for replaying `requests`: unless `precondition.map_trace`
    /// is `none`, every device maps the home slots of every stripe the
    /// requests touch (so reads, pre-reads and rebuild reads find data).
    pub fn for_requests(cfg: &Config, verify: bool, requests: &[rainsim_trace::Request]) -> Result<Self, ConfigError> {
        let a = cfg.array.clone().ok_or_else(|| ConfigError("no [array] section".into()))?;
        cfg.validate()?;
        if verify && !a.allocation.single_failure_tolerant() {
            return Err(ConfigError(format!(
                "--verify: array.allocation = \"{}\" places data chunks freely, so two chunks of a stripe can \
                 share a device and one device failure can lose data: the layout is not single-failure tolerant \
                 and cannot be verified as RAID-5; only array.allocation = \"static\" is",
                a.allocation.name()
            )));
        }
        if cfg.warmup.device_writes > 0.0 && cfg.warmup.workload == crate::config::WarmupWorkload::Trace {
            return Err(ConfigError(
                "warmup.workload = \"trace\" warms a device up on the trace's writes, but in an array the trace \
                 is the array's, not a device's: use warmup.workload = \"synthetic\" (each device warms up on the \
                 synthetic workload over its own capacity)"
                    .into(),
            ));
        }
        let s = a.devices;
        let (slots, stripes) = shape(cfg, &a);
        if stripes == 0 {
            return Err(ConfigError("the array has no stripes: the devices hold less than one chunk each".into()));
        }
        let units = stripes as u64 * s as u64;
        if units >= u32::MAX as u64 {
            let what = if a.allocation == Allocation::Static {
                "page rows × devices (under static placement the array's RAID-5 works page by page, so the \
                 chunk size does not change this): use larger pages (geometry.page_bytes), fewer or smaller \
                 devices"
            } else {
                "chunks: raise array.chunk_kib"
            };
            return Err(ConfigError(format!("the array has {units} {what}; at most 2^32 − 2 are supported")));
        }
        let reads = needed_slots(cfg, &a, stripes, requests);
        let mut devices = Vec::with_capacity(s as usize);
        let mut needed = None;
        for i in 0..s {
            let dc = device_config(cfg, i);
            let setup = crate::setup::DeviceSetup::resolve(&dc)?;
            // The members differ only in their seeds: one stripe set for all.
            let needed = needed.get_or_insert_with(|| {
                let map = dc.precondition.map_trace;
                crate::warmup::needed_stripes(&setup.stripes, setup.layout.page_bytes, map, &reads)
            });
            let mut ssd =
                Ssd::build_needed(setup, Collector::new(dc.geometry.channels), verify, &[], needed, Reach::Unknown)?;
            ssd.use_outbox();
            devices.push(ssd);
        }
        let page_bytes = cfg.geometry.page_bytes;
        let (chunk_bytes, unit_bytes) = (a.chunk_bytes(page_bytes), a.unit_bytes(page_bytes));
        let rows = chunk_bytes / unit_bytes;
        debug_assert_eq!(
            devices[0].capacity_bytes() / chunk_bytes * rows,
            slots,
            "shape() sizes the devices as they are"
        );
        let dev_stripes = devices[0].stripe_layout().clone();
        let channels = dev_stripes.channels;
        let channel_of = ChannelOf { stripes: dev_stripes, pages: unit_bytes / page_bytes as u64 };
        let map = ArrayMap::new(s, stripes, slots, channel_of);
        let t = &cfg.timing;
        let service = ServiceTimes::new(t.channel_mb_s, page_bytes, a.dls_batch, t.read_ns, t.program_ns);
        let dies = cfg.geometry.chips_per_channel * cfg.geometry.dies_per_chip;
        let loads = (0..s)
            .map(|d| DeviceLoad {
                delays: ChannelDelays::new(channels, dies).with_scope(a.delay_scope, a.delay_window_ns()),
                written_bytes: 0,
                reads: 0,
                writes: 0,
                free: map.free(d).to_vec(),
            })
            .collect();
        let times = RaidTimes { xor_ns: t.xor_ns, stripe_overhead_ns: t.stripe_overhead_ns, decision_ns: 0 };
        let layout = if a.parity {
            StripeLayout::new(s, s, true, stripes).with_parity_run(rows as u32)
        } else {
            StripeLayout::new(s, s, false, stripes)
        };
        let mut raid = RaidLayer::new(layout.clone(), times);
        raid.set_verify(verify);
        let core = Core {
            now: 0,
            devices,
            q: EventQueue::default(),
            stripes: layout,
            map,
            alloc: alloc::build(&a, &service),
            allocation: a.allocation,
            loads,
            service,
            device_bytes: cfg.physical_pages() * page_bytes as u64,
            pe_limit: cfg.ftl.pe_cycle_limit,
            chunk_bytes,
            unit_bytes,
            page_bytes,
            ops: Slab::default(),
            reqs: Slab::default(),
            controller: Controller::new(cfg.controller.cores),
            counters: ArrayCounters {
                device_ops: vec![[0; 3]; s as usize],
                device_bytes: vec![0; s as usize],
                ..Default::default()
            },
            tokens: verify.then(|| vec![0; units as usize]),
            error: None,
            reads_at: Default::default(),
            deferred_trims: Default::default(),
            touched: Vec::new(),
            dropped: Vec::new(),
            generation: vec![0; s as usize],
            failure: None,
            record: None,
        };
        let replacement = a.replace_after_ns.map(|_| Box::new(rebuild::replacement_config(cfg, &a)));
        Ok(Array { raid, core, params: a, completed: 0, issued: 0, next: 0, stop: None, replacement })
    }

    /// Stops [`Array::run`] at its next progress call once `flag` is set
    /// ([`SimError::Interrupted`]).
    pub fn set_stop(&mut self, flag: std::sync::Arc<std::sync::atomic::AtomicBool>) {
        self.stop = Some(flag);
    }

    /// Host-visible capacity, bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.core.stripes.logical_pages() * self.core.unit_bytes
    }

    /// The devices (their reports are built from their collectors).
    pub fn devices(&self) -> &[Ssd<Collector>] {
        &self.core.devices
    }

    /// Mutable access to the devices (tests inspect their FTLs).
    #[doc(hidden)]
    pub fn devices_mut(&mut self) -> &mut [Ssd<Collector>] {
        &mut self.core.devices
    }

    /// The array's counters.
    pub fn counters(&self) -> &ArrayCounters {
        &self.core.counters
    }

    /// What the write allocation sees of each device (its delay model's
    /// state among it).
    pub fn loads(&self) -> &[alloc::DeviceLoad] {
        &self.core.loads
    }

    /// Where unit `chunk` of the array's RAID layer (a chunk, or under
    /// static placement a page row's member) lives: (device, slot in units).
    pub fn location(&self, chunk: u32) -> Option<(u32, u32)> {
        self.core.map.get(chunk)
    }

    /// The array's stripe layout (chunk ids, parity positions).
    pub fn stripe_layout(&self) -> &StripeLayout {
        &self.core.stripes
    }

    /// Stripes with two chunks on one device (one device failure can lose them).
    pub fn co_resident_stripes(&self) -> u64 {
        self.core.map.co_resident_stripes(self.core.stripes.width)
    }

    /// Sends every chunk operation through each device's admission and
    /// RAID layer, never directly (`ssd/direct.rs`): the reference the
    /// direct path is tested against.
    #[doc(hidden)]
    pub fn use_full_path(&mut self) {
        for d in &mut self.core.devices {
            d.use_full_path();
        }
    }

    /// Keeps every request handed to each device from now on.
    #[doc(hidden)]
    pub fn record_device_requests(&mut self) {
        self.core.record = Some(vec![Vec::new(); self.core.devices.len()]);
    }

    /// The latest data token of unit `chunk` (verify mode; 0: never written).
    #[doc(hidden)]
    pub fn token(&self, chunk: u32) -> Option<u32> {
        self.core.tokens.as_ref().map(|t| t[chunk as usize])
    }

    /// The requests each device was handed, when recorded (a replaced
    /// device's slot: the failed device's, then its replacement's).
    #[doc(hidden)]
    pub fn device_requests(&self) -> Option<&[Vec<rainsim_trace::Request>]> {
        self.core.record.as_deref()
    }

    /// Injects a test fault into the array's RAID layer (verify must catch it).
    #[doc(hidden)]
    pub fn inject_fault(&mut self, f: crate::fault::Fault) {
        self.raid.set_fault(Some(f));
    }

    /// Requests completed so far.
    pub fn completed(&self) -> u64 {
        self.completed
    }

    /// Whether `params.replay` is closed-loop.
    fn closed(&self) -> bool {
        self.params.replay == Replay::Closed
    }
}

#[cfg(test)]
#[path = "needed_slots_tests.rs"]
mod needed_slots_tests;
#[cfg(test)]
mod test_config;
