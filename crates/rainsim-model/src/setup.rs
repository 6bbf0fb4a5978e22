//! The configuration stage: the raw [`Config`] is validated once and resolved
//! into what a device is built from — address and stripe layouts, derived
//! flash timings, capacity, the controller's times and the notes a run
//! prints. Building a device from a [`DeviceSetup`] cannot fail on
//! configuration (only preconditioning and warm-up, which depend on the
//! trace, can), and nothing reads the raw configuration during a run.

use crate::config::{Config, ConfigError, Timing};
use crate::engine::SimTime;
use crate::flash::address::Layout;
use crate::flash::ldpc::LdpcModel;
use crate::flash::timing::FlashTiming;
use crate::policy::{ParityUpdateKind, ReadRoutingKind, UpdatePlacementKind};
use crate::raid::stripe::StripeLayout;

/// Controller times the device charges during a run.
#[derive(Debug, Clone, Copy)]
pub struct ControllerTimes {
    /// Per host request, before it is split (`timing.request_overhead_ns`).
    pub request_overhead_ns: SimTime,
    /// One XOR (`timing.xor_ns`).
    pub xor_ns: SimTime,
    /// Software time per stripe write, with its XOR (`timing.stripe_overhead_ns`).
    pub stripe_overhead_ns: SimTime,
    /// Contended controller cores (`controller.cores`; 0 = uncontended).
    pub cores: u32,
}

/// A validated, resolved device configuration.
pub struct DeviceSetup {
    /// The configuration as given (after defaults), for preconditioning,
    /// policies and the report.
    pub config: Config,
    /// Address arithmetic.
    pub layout: Layout,
    /// Stripe geometry (bound to die columns under rotating GC).
    pub stripes: StripeLayout,
    /// Per-operation flash times (bus transfers included).
    pub flash: FlashTiming,
    /// Latencies as configured, for the policies' cost models.
    pub latencies: Timing,
    /// The LDPC read-retry model, when on.
    pub ldpc: Option<LdpcModel>,
    /// Controller times.
    pub controller: ControllerTimes,
    /// GC moves pages by copyback (no bus transfers).
    pub copyback: bool,
    /// Host request slots (0 = unlimited).
    pub queue_depth: u32,
    /// Setups a policy's assumptions do not hold for (printed once, reported).
    pub notes: Vec<String>,
}

impl DeviceSetup {
    /// Validates `cfg` and resolves it.
    pub fn resolve(cfg: &Config) -> Result<DeviceSetup, ConfigError> {
        cfg.validate()?;
        let layout = Layout::new(&cfg.geometry);
        let (width, parity) = cfg.stripe_shape();
        if width > 64 {
            return Err(ConfigError("raid.stripe_width must be at most 64".into()));
        }
        let nstripes = crate::config::stripe_count(layout.pages() as u64, cfg.geometry.over_provisioning, width) as u32;
        // `Config::validate` refused a device without one whole stripe.
        debug_assert!(nstripes > 0, "validate let through a device with no logical capacity");
        let mut stripes = StripeLayout::new(layout.channels, width, parity, nstripes);
        if cfg.ftl.rotating_gc && parity {
            // Rotating GC (ssd/rotating_gc.rs) binds each stripe to one die column.
            stripes = stripes.with_columns(layout.dies_per_channel);
        }
        let t = &cfg.timing;
        Ok(DeviceSetup {
            flash: FlashTiming::new(t, layout.page_bytes),
            latencies: t.clone(),
            ldpc: LdpcModel::new(&cfg.ldpc, t.read_ns),
            controller: ControllerTimes {
                request_overhead_ns: t.request_overhead_ns,
                xor_ns: t.xor_ns,
                stripe_overhead_ns: t.stripe_overhead_ns,
                cores: cfg.controller.cores,
            },
            copyback: cfg.ftl.copyback,
            queue_depth: cfg.host.queue_depth,
            notes: notes(cfg, &layout, width, parity),
            config: cfg.clone(),
            layout,
            stripes,
        })
    }

    /// Host-visible capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.stripes.logical_pages() * self.layout.page_bytes as u64
    }
}

/// What the user should know about a setup the policies' assumptions do not hold for.
fn notes(cfg: &Config, layout: &Layout, width: u32, parity: bool) -> Vec<String> {
    let mut notes = Vec::new();
    let p = &cfg.policy;
    if p.update_placement == UpdatePlacementKind::Degraded && parity && width >= layout.channels {
        notes.push(format!(
            "degraded updates need a channel outside the stripe, but raid.stripe_width = {width} uses all \
             {} channels: every update stays on its stripe channel (degraded reads still apply)",
            layout.channels
        ));
    }
    let stripe_policies = p.read_routing != ReadRoutingKind::Normal
        || p.update_placement != UpdatePlacementKind::StripeChannel
        || p.parity_update != ParityUpdateKind::FewestPrereads;
    if !parity && stripe_policies {
        notes.push(
            "raid.level = none: the read-routing, update-placement and parity-update policies have no stripes \
             to work on, so every read and write is plain (and no decision time is charged)"
                .into(),
        );
    }
    if !parity && p.replication != crate::policy::ReplicationKind::None {
        notes.push(format!(
            "raid.level = none: policy.replication = \"{}\" replicates updates of parity stripes, and there are \
             none, so every write is plain",
            p.replication.name()
        ));
    }
    if p.parity_update == ParityUpdateKind::Adaptive && !p.read_priority {
        notes.push(
            "the adaptive parity update assumes pre-reads are served before queued writes, but \
             policy.read_priority = false serves them in arrival order: its delay cost (Eq. 6-7) does not hold"
                .into(),
        );
    }
    notes
}

/// Memory a run needs, estimated from the configuration before anything is
/// allocated (see [`memory_estimate`]).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryEstimate {
    /// Total, bytes.
    pub bytes: u64,
    /// Each term with the key that controls it, largest first.
    pub parts: Vec<(&'static str, u64)>,
}

/// Fixed cost: binary, allocator, histograms, policy tables.
pub const MEM_FIXED_BYTES: u64 = 16 << 20;
/// Per physical page: mapping tables, page states, block lists (aged device;
/// measured 7.8 B fresh, 11.2 B aged, by peak RSS over 16 M and 67 M pages).
pub const MEM_PAGE_BYTES: u64 = 12;
/// Per physical page extra with `--verify` (measured 6.7 B).
pub const MEM_VERIFY_PAGE_BYTES: u64 = 8;
/// Per channel: scheduler queues, per-channel statistics and histograms
/// (measured 310–360 KiB by peak RSS from 8 to 512 channels).
pub const MEM_CHANNEL_BYTES: u64 = 384 << 10;
/// Per controller core: its busy-until time.
pub const MEM_CORE_BYTES: u64 = 8;
/// Per host request: the 32-byte request, doubled for the growth of the
/// list while a trace is read and sorted (measured 31.7 B per request of a
/// generated workload, where the list is sized exactly).
pub const MEM_REQUEST_BYTES: u64 = 64;

/// Estimates the memory of a run of `cfg` on `requests` host requests:
///
/// `16 MiB + 12 B × physical pages (+ 8 B with verify) + 384 KiB × channels
///  + 8 B × controller.cores + 64 B × requests`.
pub fn memory_estimate(cfg: &Config, requests: u64, verify: bool) -> MemoryEstimate {
    let per_page = MEM_PAGE_BYTES + if verify { MEM_VERIFY_PAGE_BYTES } else { 0 };
    let mut parts = vec![
        ("geometry (physical pages)", cfg.physical_pages().saturating_mul(per_page)),
        ("geometry.channels", (cfg.geometry.channels as u64).saturating_mul(MEM_CHANNEL_BYTES)),
        ("controller.cores", cfg.controller.cores as u64 * MEM_CORE_BYTES),
        ("requests (workload.requests, trace.repeat, trace.max_requests)", requests.saturating_mul(MEM_REQUEST_BYTES)),
    ];
    parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    let bytes = parts.iter().fold(MEM_FIXED_BYTES, |s, p| s.saturating_add(p.1));
    MemoryEstimate { bytes, parts }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_estimate_follows_the_formula() {
        // The documented figures, written out: 16 MiB + 12 B a page + 384
        // KiB a channel + 8 B a core + 64 B a request (+ 8 B a page with
        // verify).
        let mut cfg = Config::default();
        cfg.controller.cores = 3;
        let e = memory_estimate(&cfg, 1000, false);
        let pages = cfg.physical_pages();
        let want = 16 * 1024 * 1024 + 12 * pages + 8 * 384 * 1024 + 3 * 8 + 64 * 1000;
        assert_eq!(e.bytes, want);
        assert_eq!(e.parts[0].0, "geometry (physical pages)");
        assert_eq!(memory_estimate(&cfg, 1000, true).bytes, want + 8 * pages);
        // The terms, largest first, sum to the total less the fixed cost.
        let sizes: Vec<u64> = e.parts.iter().map(|p| p.1).collect();
        assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "{:?}", e.parts);
        assert_eq!(sizes.iter().sum::<u64>() + 16 * 1024 * 1024, e.bytes);
        let mut big = cfg.clone();
        big.geometry.channels = 65535;
        assert_eq!(memory_estimate(&big, 0, false).parts[0].0, "geometry (physical pages)");
    }
}
