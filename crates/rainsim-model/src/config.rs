//! Run configuration: TOML sections mirroring the request path, with every
//! unit in the key name. Parsing is two-stage: [`Config`] is what the user
//! wrote (after defaults); [`Config::validate`] rejects impossible setups with
//! a message that says what to change, and the model derives its geometry
//! from the validated value.

pub use crate::controller::ControllerParams;
pub use crate::error::ConfigError;
pub use crate::flash::geometry::Geometry;
pub use crate::flash::ldpc_params::{AgeSpread, Ldpc, RberModel};
pub use crate::flash::process_variation::PvParams;
pub use crate::flash::timing::Timing;
pub use crate::ftl::params::FtlParams;
pub use crate::host::params::HostParams;
pub use crate::metrics::options::ReportOptions;
use crate::policy::PolicySpec;
pub use crate::raid::array_params::{Allocation, ArrayParams, Replay};
pub use crate::raid::fault_params::{FaultParams, RebuildPriority};
pub use crate::raid::params::{RaidLevel, RaidParams};
use rainsim_trace::{SyntheticSpec, TraceOptions};
use serde::{Deserialize, Serialize};

/// Everything a run needs besides the trace file itself.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Seed of every random choice (preconditioning, synthetic workload, policies).
    pub seed: u64,
    /// Flash array shape.
    pub geometry: Geometry,
    /// Flash and controller latencies.
    pub timing: Timing,
    /// Controller resources.
    pub controller: ControllerParams,
    /// Flash translation layer.
    pub ftl: FtlParams,
    /// RAID inside the SSD.
    pub raid: RaidParams,
    /// Aged starting state.
    pub precondition: Precondition,
    /// Optional timing-free warm-up after preconditioning.
    pub warmup: Warmup,
    /// LDPC read-retry latency model (DESIGN.md §6).
    pub ldpc: Ldpc,
    /// Per-block program speed (DESIGN.md §6). Left out of serialised configs
    /// while at its defaults, so that reports without it stay as they were.
    #[serde(skip_serializing_if = "PvParams::is_default")]
    pub process_variation: PvParams,
    /// Policy axes (DESIGN.md §7).
    pub policy: PolicySpec,
    /// Host interface.
    pub host: HostParams,
    /// How a trace file is read and transformed.
    pub trace: TraceOptions,
    /// Built-in workload used when no trace is given.
    pub workload: SyntheticSpec,
    /// Report options.
    pub report: ReportOptions,
    /// A channel failure and its rebuild. Left out of serialised configs when
    /// nothing fails, so that reports stay as they were.
    #[serde(skip_serializing_if = "FaultParams::is_default")]
    pub fault: FaultParams,
    /// How the run is guarded (memory budget). Left out of serialised
    /// configs while at its default, so that reports stay as they were.
    #[serde(skip_serializing_if = "RunParams::is_default")]
    pub run: RunParams,
    /// An array of devices like this one (`[array]`); absent: one device.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<ArrayParams>,
}

/// `[run]`: how a run uses the machine, not part of the simulated device.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RunParams {
    /// Run even when the memory estimate exceeds the memory available
    /// (the run may then be killed by the operating system).
    pub ignore_memory_budget: bool,
    /// Ask the OS for huge pages under the mapping tables (Linux; speed
    /// only, never results). Off by default: on a VM whose host backs
    /// memory lazily, fresh huge pages make the set-up much slower.
    pub huge_pages: bool,
}

impl RunParams {
    fn is_default(&self) -> bool {
        *self == RunParams::default()
    }
}

/// Largest value of every latency key in `[timing]`, ns (10 s; real flash
/// operations take micro- to milliseconds). With every duration below this
/// bound, one addition to a simulated time at or below
/// [`crate::engine::TIME_LIMIT_NS`] cannot wrap a u64 (see there).
pub const MAX_TIMING_NS: u64 = 10_000_000_000;
/// Largest `report.cdf_points`: a latency CDF is read from a histogram that
/// holds about 121 distinct values per class, so more points only repeat them.
pub const MAX_CDF_POINTS: u32 = 10_000;
/// Largest `controller.cores` (each core is one busy-until time).
pub const MAX_CORES: u32 = 4096;
/// Largest `geometry.page_bytes` (1 MiB).
pub const MAX_PAGE_BYTES: u32 = 1 << 20;
/// Largest `host.queue_depth` (0 = no cap).
pub const MAX_QUEUE_DEPTH: u32 = 1 << 20;
/// Largest `timing.channel_mb_s` (1 TB/s).
pub const MAX_CHANNEL_MB_S: u64 = 1_000_000;

pub use crate::ftl::precondition::params::{AgeLayout, MapTrace, Precondition};
pub use crate::warmup::{Warmup, WarmupWorkload};

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            geometry: Geometry::default(),
            timing: Timing::default(),
            controller: ControllerParams::default(),
            ftl: FtlParams::default(),
            raid: RaidParams::default(),
            precondition: Precondition::default(),
            warmup: Warmup::default(),
            ldpc: Ldpc::default(),
            process_variation: PvParams::default(),
            policy: PolicySpec::default(),
            host: HostParams::default(),
            trace: TraceOptions::default(),
            workload: SyntheticSpec::default(),
            report: ReportOptions::default(),
            fault: FaultParams::default(),
            run: RunParams::default(),
            array: None,
        }
    }
}

impl Config {
    /// What is wrong with `fault.device` (the member of an array whose
    /// channel or die fails), if anything; the other `[fault]` keys are
    /// checked against the member's own geometry as for one device.
    fn member_fault_error(&self) -> Option<String> {
        let f = &self.fault;
        let Some(a) = &self.array else {
            return f.device.map(|d| {
                format!("fault.device = {d} names a member of an [array], and this configuration has none: remove it")
            });
        };
        if !f.active() {
            return None;
        }
        let Some(d) = f.device else {
            return Some(format!(
                "[fault] inside an array fails a channel or die of one member: give fault.device = 0..{}",
                a.devices.saturating_sub(1)
            ));
        };
        if d >= a.devices {
            return Some(format!("fault.device = {d} but the array has devices 0..{}", a.devices.saturating_sub(1)));
        }
        if f.second_channel.is_some() {
            return Some(format!(
                "fault.second_channel on member {d} is not modelled: a member that loses data does not stop the \
                 array; leave fault.second_channel out inside an array"
            ));
        }
        if a.fail_device == Some(d) {
            return Some(format!(
                "fault.device = {d} is array.fail_device: that member fails whole; choose another member for [fault]"
            ));
        }
        None
    }

    /// Parses TOML text (unknown keys are errors).
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError(e.to_string()))
    }

    /// Rejects impossible geometries and parameters.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let g = &self.geometry;
        let err = |m: String| Err(ConfigError(m));
        for (name, v) in [
            ("geometry.channels", g.channels),
            ("geometry.chips_per_channel", g.chips_per_channel),
            ("geometry.dies_per_chip", g.dies_per_chip),
            ("geometry.planes_per_die", g.planes_per_die),
            ("geometry.blocks_per_plane", g.blocks_per_plane),
            ("geometry.pages_per_block", g.pages_per_block),
        ] {
            if v == 0 {
                return err(format!("{name} must be at least 1"));
            }
        }
        if g.page_bytes < 512 || !g.page_bytes.is_multiple_of(512) {
            return err(format!(
                "geometry.page_bytes = {} must be a whole number of 512-byte sectors (e.g. 2048, 4096, 16384)",
                g.page_bytes
            ));
        }
        if g.pages_per_block > u16::MAX as u32 {
            return err(format!("geometry.pages_per_block = {} exceeds {}", g.pages_per_block, u16::MAX));
        }
        if g.channels > u16::MAX as u32 || g.chips_per_channel as u64 * g.dies_per_chip as u64 > u16::MAX as u64 {
            return err(format!(
                "geometry.channels = {} and chips_per_channel × dies_per_chip = {}: at most 65535 each",
                g.channels,
                g.chips_per_channel as u64 * g.dies_per_chip as u64
            ));
        }
        let pages = self.physical_pages();
        if pages >= u32::MAX as u64 {
            return err(format!(
                "the device has {pages} physical pages; at most {} are supported — lower geometry.channels, \
                 chips_per_channel, dies_per_chip, planes_per_die, blocks_per_plane or pages_per_block",
                u32::MAX - 1
            ));
        }
        if !(0.0..1.0).contains(&g.over_provisioning) {
            return err(format!("geometry.over_provisioning = {} must be in [0, 1)", g.over_provisioning));
        }
        if g.page_bytes > MAX_PAGE_BYTES {
            return err(format!("geometry.page_bytes = {} exceeds {MAX_PAGE_BYTES} (1 MiB)", g.page_bytes));
        }
        self.validate_bounds()?;
        if !(0.0..1.0).contains(&self.ftl.gc_threshold) {
            return err(format!("ftl.gc_threshold = {} must be in [0, 1)", self.ftl.gc_threshold));
        }
        if g.over_provisioning <= self.ftl.gc_threshold {
            return err(format!(
                "geometry.over_provisioning = {} must exceed ftl.gc_threshold = {}: once the host has written every \
                 logical page, GC could not reclaim space (raise over_provisioning or lower gc_threshold)",
                g.over_provisioning, self.ftl.gc_threshold
            ));
        }
        // A plane whose spare space is less than one block can fill with valid
        // pages and leave GC no victim, whatever the placement of updates.
        let spare = g.blocks_per_plane as f64 * g.over_provisioning;
        if spare < 1.0 {
            let min_op = 1.0 / g.blocks_per_plane as f64;
            let min_blocks = (1.0 / g.over_provisioning).ceil().min(u32::MAX as f64) as u64;
            // over_provisioning stays below 1: a plane of one block has no spare to give.
            let raise = if min_op < 1.0 {
                format!("raise over_provisioning to at least {min_op:.3} or blocks_per_plane to at least {min_blocks}")
            } else {
                format!("raise blocks_per_plane to at least {min_blocks}")
            };
            return err(format!(
                "geometry.over_provisioning = {} leaves {spare:.2} spare blocks per plane (blocks_per_plane = {} × \
                 over_provisioning); GC needs at least one block of spare pages in every plane to make progress: \
                 {raise}",
                g.over_provisioning, g.blocks_per_plane,
            ));
        }
        if self.raid.level == RaidLevel::Raid5 {
            let k = self.raid.stripe_width;
            if g.channels < 3 {
                return err(format!(
                    "raid.level = \"raid5\" needs at least 3 channels (a stripe of two data chunks and parity, \
                     one chunk a channel), but geometry.channels = {}: raise geometry.channels or set \
                     raid.level = \"none\"",
                    g.channels
                ));
            }
            if k < 3 || k > g.channels {
                return err(format!(
                    "raid.stripe_width = {k} must be between 3 and geometry.channels = {}",
                    g.channels
                ));
            }
        }
        self.policy.validate().map_err(ConfigError)?;
        let p = &self.policy;
        for (key, v) in [
            ("policy.degraded.decision_ns", p.degraded.decision_ns),
            ("policy.adaptive.decision_ns", p.adaptive.decision_ns),
        ] {
            if v > MAX_TIMING_NS {
                return err(format!(
                    "{key} = {v} ns exceeds {MAX_TIMING_NS} ns (10 s), the longest controller time the simulator \
                     supports"
                ));
            }
        }
        if p.replicas.idle_ns > rainsim_trace::MAX_TIME_NS {
            return err(format!(
                "policy.replicas.idle_ns = {} exceeds 2^62 ns (146 years, the longest a trace may span: no idle \
                 period that long can occur, so 2^62 already means never)",
                p.replicas.idle_ns
            ));
        }
        let dies_per_channel = g.chips_per_channel.saturating_mul(g.dies_per_chip);
        if let Some(e) = self.member_fault_error() {
            return err(e);
        }
        self.fault.validate(g.channels, dies_per_channel, self.raid.level == RaidLevel::Raid5).map_err(ConfigError)?;
        if self.policy.replication != crate::policy::ReplicationKind::None
            && (self.fault.channel.is_some() || self.fault.die.is_some())
        {
            return err("policy.replication with a [fault] failure is not modelled (replicas would need their \
                        own rebuild); use policy.replication = \"none\" with [fault]"
                .into());
        }
        if self.ftl.rotating_gc
            && self.raid.level == RaidLevel::Raid5
            && matches!(
                self.policy.replication,
                crate::policy::ReplicationKind::Fusionraid | crate::policy::ReplicationKind::RepRaid
            )
        {
            return err("ftl.rotating_gc with policy.replication = \"fusionraid\" or \"rep-raid\" is not \
                        modelled: their copies sit on other channels' dies and take stripe slots there, outside \
                        the die column rotating GC binds each stripe to; use ftl.rotating_gc = false, or \
                        policy.replication = \"cr5m\" (copies on the slot's own channel) or \"none\""
                .into());
        }
        if self.policy.replication == crate::policy::ReplicationKind::Cr5m && dies_per_channel < 2 {
            return err(format!(
                "policy.replication = \"cr5m\" keeps a chunk's two copies on two dies of one channel: it needs \
                 at least 2 dies a channel, and geometry.chips_per_channel × dies_per_chip = {dies_per_channel}"
            ));
        }
        let p = &self.precondition;
        if !(p.valid >= 0.0 && p.invalid >= 0.0 && p.valid + p.invalid <= 1.0) {
            return err(format!(
                "precondition valid = {} and invalid = {} must be ≥ 0 with valid + invalid ≤ 1 (a key not set \
                 takes its default: valid 0.5, invalid 0.2)",
                p.valid, p.invalid
            ));
        }
        let usable = 1.0 - g.over_provisioning;
        if p.valid > usable {
            return err(format!(
                "precondition.valid = {} exceeds the host-visible fraction 1 − over_provisioning = {usable}",
                p.valid
            ));
        }
        p.validate_layout(g, self.ftl.gc_threshold)?;
        let w = &self.warmup;
        if !(w.device_writes.is_finite() && (0.0..=1000.0).contains(&w.device_writes)) {
            return err(format!("warmup.device_writes = {} must be between 0 (off) and 1000", w.device_writes));
        }
        let free = 1.0 - p.valid - p.invalid;
        // With a rounding allowance: 1 − 0.65 − 0.1 of 8 blocks is 2, not
        // 1.9999999999999996. Nothing preconditioned passes: the spare-block
        // check above leaves every plane at least 2 blocks.
        if p.free_margin.is_none() && free * (g.blocks_per_plane as f64) < 2.0 - 1e-9 {
            return err(format!(
                "preconditioning leaves {:.1} free blocks per plane; at least 2 are needed — lower precondition.valid or .invalid",
                free * g.blocks_per_plane as f64
            ));
        }
        self.process_variation.validate()?;
        let pv = &self.process_variation;
        let slowest = self.timing.program_ns as f64 * pv.base_dvp / pv.dvp_min;
        if pv.enabled && (slowest.is_nan() || slowest > MAX_TIMING_NS as f64) {
            return err(format!(
                "process_variation.base_dvp = {} with dvp_min = {} makes the slowest program {slowest:.3e} ns \
                 (timing.program_ns × base_dvp / dvp_min), above {MAX_TIMING_NS} ns (10 s), the longest operation \
                 the simulator supports",
                pv.base_dvp, pv.dvp_min
            ));
        }
        if let Some(a) = &self.array {
            a.validate(g.page_bytes).map_err(ConfigError)?;
        }
        self.ldpc.validate()
    }

    /// Bounds of the timing and size-like keys that are not geometry.
    fn validate_bounds(&self) -> Result<(), ConfigError> {
        let err = |m: String| Err(ConfigError(m));
        let t = &self.timing;
        if !(1..=MAX_CHANNEL_MB_S).contains(&t.channel_mb_s) {
            return err(format!("timing.channel_mb_s = {} must be between 1 and {MAX_CHANNEL_MB_S}", t.channel_mb_s));
        }
        for (name, v) in [
            ("timing.read_ns", t.read_ns),
            ("timing.program_ns", t.program_ns),
            ("timing.erase_ns", t.erase_ns),
            ("timing.command_ns", t.command_ns),
            ("timing.xor_ns", t.xor_ns),
            ("timing.request_overhead_ns", t.request_overhead_ns),
            ("timing.stripe_overhead_ns", t.stripe_overhead_ns),
        ] {
            if v > MAX_TIMING_NS {
                return err(format!(
                    "{name} = {v} ns exceeds {MAX_TIMING_NS} ns (10 s), the longest operation the simulator \
                     supports (so that simulated time cannot overflow)"
                ));
            }
        }
        let cdf = self.report.cdf_points;
        if cdf > MAX_CDF_POINTS {
            return err(format!(
                "report.cdf_points = {cdf} exceeds {MAX_CDF_POINTS}; a latency CDF holds about 121 distinct values \
                 (the histogram's buckets), so more points only repeat them"
            ));
        }
        if self.controller.cores > MAX_CORES {
            return err(format!("controller.cores = {} exceeds {MAX_CORES} (0 = uncontended)", self.controller.cores));
        }
        if self.host.queue_depth > MAX_QUEUE_DEPTH {
            return err(format!("host.queue_depth = {} exceeds {MAX_QUEUE_DEPTH} (0 = no cap)", self.host.queue_depth));
        }
        if self.ftl.rotating_gc
            && self.raid.level == RaidLevel::Raid5
            && self.ftl.allocation == crate::ftl::params::PageAllocation::StaticChannelFirst
        {
            return err("ftl.allocation = \"static-channel-first\" and ftl.rotating_gc = true both bind RAID-5 \
                        programs to dies; turn one off"
                .into());
        }
        if self.ftl.pe_cycle_limit == 0 {
            return err(
                "ftl.pe_cycle_limit must be at least 1: blocks that endure no program/erase cycle give no lifetime"
                    .into(),
            );
        }
        let (width, _) = self.stripe_shape();
        if stripe_count(self.physical_pages(), self.geometry.over_provisioning, width) == 0 {
            return err(format!(
                "the device has no logical capacity: its {} physical pages less geometry.over_provisioning = {} \
                 leave no whole stripe of {width} pages; raise geometry.blocks_per_plane or pages_per_block, or \
                 lower over_provisioning",
                self.physical_pages(),
                self.geometry.over_provisioning
            ));
        }
        Ok(())
    }

    /// Chunks per stripe and whether one of them is parity.
    pub fn stripe_shape(&self) -> (u32, bool) {
        match self.raid.level {
            RaidLevel::None => (1, false),
            RaidLevel::Raid5 => (self.raid.stripe_width, true),
        }
    }

    /// Total physical pages (saturating: validation refuses ≥ 2^32 − 1).
    pub fn physical_pages(&self) -> u64 {
        let g = &self.geometry;
        [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die, g.blocks_per_plane, g.pages_per_block]
            .iter()
            .fold(1u64, |p, &v| p.saturating_mul(v as u64))
    }
}

/// Stripes of `width` chunks the physical pages hold once the
/// over-provisioned share is set aside: the one place the host-visible
/// capacity is computed (configuration checks refuse a device without one).
pub fn stripe_count(physical_pages: u64, over_provisioning: f64, width: u32) -> u64 {
    let usable = (physical_pages as f64 * (1.0 - over_provisioning)) as u64;
    usable / width.max(1) as u64
}
