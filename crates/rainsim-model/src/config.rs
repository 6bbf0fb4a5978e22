//! Run configuration: TOML sections mirroring the request path, with every
//! unit in the key name. Parsing is two-stage: [`Config`] is what the user
//! wrote (after defaults); [`Config::validate`] rejects impossible setups with
//! a message that says what to change, and the model derives its geometry
//! from the validated value.

use crate::policy::PolicySpec;
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
    pub controller: Controller,
    /// Flash translation layer.
    pub ftl: Ftl,
    /// RAID inside the SSD.
    pub raid: Raid,
    /// Aged starting state.
    pub precondition: Precondition,
    /// Optional timing-free warm-up after preconditioning.
    pub warmup: Warmup,
    /// LDPC read-retry latency model (DESIGN.md §6).
    pub ldpc: Ldpc,
    /// Policy axes (DESIGN.md §7).
    pub policy: PolicySpec,
    /// Host interface.
    pub host: Host,
    /// How a trace file is read and transformed.
    pub trace: TraceOptions,
    /// Built-in workload used when no trace is given.
    pub workload: SyntheticSpec,
    /// Report options.
    pub report: ReportOptions,
}

/// Flash array shape. Physical pages = product of all counts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Geometry {
    /// Channels (independent buses).
    pub channels: u32,
    /// Chips per channel; chips of a channel work in parallel but share its bus.
    pub chips_per_channel: u32,
    /// Dies per chip; the die is the unit that executes one flash operation at a time.
    pub dies_per_chip: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Page size in bytes; also the RAID chunk size.
    pub page_bytes: u32,
    /// Fraction of physical pages hidden from the host (0 ≤ op < 1).
    pub over_provisioning: f64,
}

impl Default for Geometry {
    fn default() -> Self {
        Geometry {
            channels: 8,
            chips_per_channel: 4,
            dies_per_chip: 1,
            planes_per_die: 4,
            blocks_per_plane: 256,
            pages_per_block: 128,
            page_bytes: 8192,
            over_provisioning: 0.15,
        }
    }
}

/// Latencies in nanoseconds; bus rate in bytes per microsecond (= MB/s).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Timing {
    /// Array read time tR (LDPC level 0).
    pub read_ns: u64,
    /// Program time tPROG.
    pub program_ns: u64,
    /// Block erase time tBERS.
    pub erase_ns: u64,
    /// Channel bus rate in MB/s (bytes per microsecond).
    pub channel_mb_s: u64,
    /// Command and address cycles charged to the bus per transfer.
    pub command_ns: u64,
    /// Controller time to XOR the chunks of one stripe update.
    pub xor_ns: u64,
    /// Controller software overhead per host request, before it is split.
    pub request_overhead_ns: u64,
    /// Controller software overhead per stripe write, charged with its XOR.
    pub stripe_overhead_ns: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            read_ns: 45_000,
            program_ns: 700_000,
            erase_ns: 3_500_000,
            channel_mb_s: 400,
            command_ns: 200,
            xor_ns: 19_000,
            request_overhead_ns: 0,
            stripe_overhead_ns: 0,
        }
    }
}

/// Controller resources.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Controller {
    /// Cores executing controller work (XOR, overheads); 0 = unlimited (pure delay).
    pub cores: u32,
}

/// Flash translation layer settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Ftl {
    /// GC starts on a plane when its free blocks fall to this fraction of its blocks.
    pub gc_threshold: f64,
    /// Move valid pages by copyback inside the die (no bus transfer).
    pub copyback: bool,
    /// Static wear levelling: swap in the coldest block when a plane's erase-count
    /// spread exceeds this many cycles; 0 = off.
    pub wear_level_spread: u32,
    /// Program/erase cycles a block endures (for the predicted lifetime).
    pub pe_cycle_limit: u32,
    /// ttFlash's rotating GC (`ssd/rotating_gc.rs`). Left out of serialised
    /// configs while off, so that reports without it stay as they were.
    #[serde(skip_serializing_if = "is_false")]
    pub rotating_gc: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for Ftl {
    fn default() -> Self {
        Ftl { gc_threshold: 0.10, copyback: true, wear_level_spread: 100, pe_cycle_limit: 3000, rotating_gc: false }
    }
}

/// RAID level inside one SSD.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum RaidLevel {
    /// No parity: each logical page lives on channel `lpn % channels`.
    None,
    /// Channel-level RAID-5 (RAIN).
    Raid5,
}

/// RAID layout.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Raid {
    /// `none` or `raid5`.
    pub level: RaidLevel,
    /// Chunks per stripe k (k − 1 data + 1 parity), 3 ≤ k ≤ channels.
    pub stripe_width: u32,
}

impl Default for Raid {
    fn default() -> Self {
        Raid { level: RaidLevel::Raid5, stripe_width: 4 }
    }
}

pub use crate::ftl::precondition::params::{AgeLayout, MapTrace, Precondition};
pub use crate::warmup::{Warmup, WarmupWorkload};

/// LDPC read retry: a read senses for `timing.read_ns` plus `retries[level]`
/// retry steps, where the page's level follows its block's raw bit error rate
/// (RBER) through `rber_thresholds`. Defaults and their sources: README
/// "Modelling choices" (LDPC).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Ldpc {
    /// Turn the model on; off, every read senses for `timing.read_ns`.
    pub enabled: bool,
    /// Sensing time added by one read retry, ns (adaptive-parity Table II: 0.024 ms).
    pub retry_step_ns: u64,
    /// Read retries of each level, level 0 first (non-decreasing); the number of
    /// entries is the number of levels.
    pub retries: Vec<u32>,
    /// RBER above which each level beyond 0 is needed: a page reads at level l
    /// when its RBER exceeds `rber_thresholds[l − 1]` (one fewer entry than
    /// `retries`, strictly increasing).
    pub rber_thresholds: Vec<f64>,
    /// P/E cycles every block had endured before the run, added to the FTL's
    /// erase counts for the RBER (the wear report counts only the run's erases).
    pub initial_pe_cycles: u32,
    /// Age of the preconditioned data at time 0, in days (retention).
    pub precondition_age_days: f64,
    /// How old each preconditioned block's data is: all `precondition_age_days`
    /// ("fixed"), or drawn per block, seeded, uniformly from 0 to it ("uniform").
    pub precondition_age_spread: AgeSpread,
    /// The RBER model's constants.
    pub rber: RberModel,
}

impl Default for Ldpc {
    fn default() -> Self {
        Ldpc {
            enabled: false,
            retry_step_ns: 24_000,
            retries: vec![0, 1, 2, 4, 8, 16, 32],
            rber_thresholds: vec![2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 7e-3],
            initial_pe_cycles: 1000,
            precondition_age_days: 30.0,
            precondition_age_spread: AgeSpread::Fixed,
            rber: RberModel::default(),
        }
    }
}

/// Ages of the preconditioned blocks' data.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AgeSpread {
    /// Every block as old as `precondition_age_days`.
    Fixed,
    /// Each block's age uniform on [0, `precondition_age_days`].
    Uniform,
}

/// RBER = epsilon + alpha·PE^k + beta·PE^m·t^n + gamma·PE^p·reads^q, with PE the
/// block's P/E cycles, t the age of its data in days and reads the reads of
/// the block since its last erase. All constants must be ≥ 0, so that the RBER
/// never falls as PE, t or reads grow.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RberModel {
    /// RBER of a fresh block.
    pub epsilon: f64,
    /// Wear coefficient.
    pub alpha: f64,
    /// Wear exponent.
    pub k: f64,
    /// Retention coefficient.
    pub beta: f64,
    /// Retention: P/E exponent.
    pub m: f64,
    /// Retention: time exponent (t in days).
    pub n: f64,
    /// Read-disturb coefficient.
    pub gamma: f64,
    /// Read disturb: P/E exponent.
    pub p: f64,
    /// Read disturb: read-count exponent.
    pub q: f64,
}

impl Default for RberModel {
    /// 72-layer TLC constants from an MQSim fork (research/baselines.md §10).
    fn default() -> Self {
        RberModel {
            epsilon: 1.48e-3,
            alpha: 3.90e-10,
            k: 2.05,
            beta: 6.28e-5,
            m: 0.14,
            n: 0.54,
            gamma: 3.73e-9,
            p: 0.33,
            q: 1.71,
        }
    }
}

/// Host interface.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Host {
    /// Most host requests outstanding at once; later ones wait (their latency
    /// still counts from their trace time). 0 = no cap.
    pub queue_depth: u32,
}

/// Report options.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ReportOptions {
    /// Points per latency CDF in the JSON report.
    pub cdf_points: u32,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions { cdf_points: 200 }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            geometry: Geometry::default(),
            timing: Timing::default(),
            controller: Controller::default(),
            ftl: Ftl::default(),
            raid: Raid::default(),
            precondition: Precondition { valid: 0.5, invalid: 0.2, ..Default::default() },
            warmup: Warmup::default(),
            ldpc: Ldpc::default(),
            policy: PolicySpec::default(),
            host: Host::default(),
            trace: TraceOptions::default(),
            workload: SyntheticSpec::default(),
            report: ReportOptions::default(),
        }
    }
}

/// A configuration that cannot be simulated, with what to change.
#[derive(Debug, thiserror::Error)]
#[error("invalid configuration: {0}")]
pub struct ConfigError(pub String);

impl Ldpc {
    /// Most levels a table may have (levels are counted in a byte).
    pub const MAX_LEVELS: usize = 64;

    /// Rejects tables and constants the model cannot use, whether or not it is on.
    fn validate(&self) -> Result<(), ConfigError> {
        let err = |m: String| Err(ConfigError(m));
        let n = self.retries.len();
        if n == 0 || n > Self::MAX_LEVELS {
            return err(format!("ldpc.retries has {n} levels; give 1 to {} (level 0 first)", Self::MAX_LEVELS));
        }
        if let Some(i) = self.retries.windows(2).position(|w| w[1] < w[0]) {
            return err(format!(
                "ldpc.retries must not decrease (a higher level never reads faster): level {} has {} retries, \
                 level {} has {}",
                i,
                self.retries[i],
                i + 1,
                self.retries[i + 1]
            ));
        }
        let worst = self.retries[n - 1] as u128 * self.retry_step_ns as u128;
        if worst > 1_000_000_000 {
            return err(format!(
                "ldpc: the top level retries for {} × {} ns = {worst} ns; at most 1 s of retries per read is supported \
                 (lower ldpc.retry_step_ns or the largest ldpc.retries)",
                self.retries[n - 1], self.retry_step_ns
            ));
        }
        let t = &self.rber_thresholds;
        if t.len() != n - 1 {
            return err(format!(
                "ldpc.rber_thresholds has {} entries but ldpc.retries has {n} levels: give one threshold per level \
                 above 0 ({} entries)",
                t.len(),
                n - 1
            ));
        }
        if let Some(v) = t.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
            return err(format!("ldpc.rber_thresholds: {v} is not a positive finite RBER"));
        }
        if let Some(i) = t.windows(2).position(|w| w[1] <= w[0]) {
            return err(format!(
                "ldpc.rber_thresholds must increase strictly: entry {} is {} after {}",
                i + 1,
                t[i + 1],
                t[i]
            ));
        }
        let a = self.precondition_age_days;
        if !(a.is_finite() && (0.0..=36_500.0).contains(&a)) {
            return err(format!("ldpc.precondition_age_days = {a} must be between 0 and 36500 (100 years)"));
        }
        let r = &self.rber;
        for (name, v) in [
            ("epsilon", r.epsilon),
            ("alpha", r.alpha),
            ("k", r.k),
            ("beta", r.beta),
            ("m", r.m),
            ("n", r.n),
            ("gamma", r.gamma),
            ("p", r.p),
            ("q", r.q),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return err(format!(
                    "ldpc.rber.{name} = {v} must be finite and ≥ 0 (the RBER must not fall as wear, age or reads grow)"
                ));
            }
        }
        Ok(())
    }
}

impl Config {
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
            ("geometry.page_bytes", g.page_bytes),
        ] {
            if v == 0 {
                return err(format!("{name} must be at least 1"));
            }
        }
        if g.page_bytes < 512 {
            return err(format!("geometry.page_bytes = {} is below one 512-byte sector", g.page_bytes));
        }
        if g.pages_per_block > u16::MAX as u32 {
            return err(format!("geometry.pages_per_block = {} exceeds {}", g.pages_per_block, u16::MAX));
        }
        if g.channels > u16::MAX as u32 || g.chips_per_channel * g.dies_per_chip > u16::MAX as u32 {
            return err("too many channels or dies per channel (at most 65535 each)".into());
        }
        let pages = self.physical_pages();
        if pages >= u32::MAX as u64 {
            return err(format!(
                "the device has {pages} physical pages; at most {} are supported — use larger pages or fewer blocks",
                u32::MAX - 1
            ));
        }
        if !(0.0..1.0).contains(&g.over_provisioning) {
            return err(format!("geometry.over_provisioning = {} must be in [0, 1)", g.over_provisioning));
        }
        if self.timing.channel_mb_s == 0 {
            return err("timing.channel_mb_s must be at least 1".into());
        }
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
        if self.raid.level == RaidLevel::Raid5 {
            let k = self.raid.stripe_width;
            if k < 3 || k > g.channels {
                return err(format!(
                    "raid.stripe_width = {k} must be between 3 and geometry.channels = {}",
                    g.channels
                ));
            }
        }
        self.policy.validate().map_err(ConfigError)?;
        let p = &self.precondition;
        if p.valid < 0.0 || p.invalid < 0.0 || p.valid + p.invalid > 1.0 {
            return err(format!(
                "precondition valid = {} and invalid = {} must be ≥ 0 with valid + invalid ≤ 1",
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
        if p.free_margin.is_none() && (p.valid > 0.0 || p.invalid > 0.0) && free * (g.blocks_per_plane as f64) < 2.0 {
            return err(format!(
                "preconditioning leaves {:.1} free blocks per plane; at least 2 are needed — lower precondition.valid or .invalid",
                free * g.blocks_per_plane as f64
            ));
        }
        self.ldpc.validate()
    }

    /// Total physical pages.
    pub fn physical_pages(&self) -> u64 {
        let g = &self.geometry;
        [g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die, g.blocks_per_plane, g.pages_per_block]
            .iter()
            .map(|&v| v as u64)
            .product()
    }
}
