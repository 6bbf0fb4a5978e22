//! The machine-readable report of one run (DESIGN.md §8). Everything but
//! `timing` is a pure function of config, trace and seed.

use super::collector::{Collector, LdpcCounters};
use super::stats::{chi2_uniform, spread, ChiSquare, Spread};
use crate::flash::op::Origin;
use crate::ftl::Ftl;
use serde::Serialize;

pub use super::class_latency::{ClassLatency, Latency};
/// One channel.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ChannelReport {
    /// Completed flash operations (all origins).
    pub ops: u64,
    /// Completed operations by origin.
    pub ops_by_origin: OpsByOrigin,
    /// Queue length sampled at each completion, summed, over completions.
    pub avg_blocked: f64,
    /// Queue length sampled at each completion, summed (the numerator of
    /// `avg_blocked`; the count `balance.blocked_chi2` tests).
    pub blocked_sum: u64,
    /// Die busy time (I/O and GC) / (dies × active span), where the active span
    /// also covers die work before the first arrival or after the last completion.
    pub busy_fraction: f64,
    /// Garbage collections.
    pub gc_count: u64,
    /// GC page moves.
    pub pages_moved: u64,
    /// Erases.
    pub erases: u64,
    /// Host read sub-requests served here.
    pub reads: u64,
    /// 99th percentile of host read sub-request latency here (enqueue to completion).
    pub read_p99_ns: u64,
    /// 99.9th percentile of host read sub-request latency here.
    pub read_p99_9_ns: u64,
    /// 99.99th percentile of host read sub-request latency here.
    pub read_p99_99_ns: u64,
    /// Mean GC duration here in ns (0 without GC).
    pub gc_mean_ns: f64,
    /// Mean of the GC durations DM-Eq. 7 predicted here before each GC, in ns.
    pub gc_estimate_mean_ns: f64,
}

/// Completed operations by origin.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct OpsByOrigin {
    /// Host reads.
    pub host_read: u64,
    /// Host data programs.
    pub host_program: u64,
    /// Pre-reads.
    pub pre_read: u64,
    /// Degraded-read chunk reads.
    pub degraded_read: u64,
    /// Parity programs.
    pub parity_program: u64,
    /// Replication's own programs (second copies, conversions' rewrites).
    pub replica_program: u64,
}

impl OpsByOrigin {
    fn new(ops: &[u64; Origin::COUNT]) -> Self {
        OpsByOrigin {
            host_read: ops[Origin::HostRead as usize],
            host_program: ops[Origin::HostProgram as usize],
            pre_read: ops[Origin::PreRead as usize],
            degraded_read: ops[Origin::DegradedRead as usize],
            parity_program: ops[Origin::ParityProgram as usize],
            replica_program: ops[Origin::ReplicaProgram as usize],
        }
    }
}

/// Coefficients of variation across channels (σ / μ, population σ).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Balance {
    /// Of `avg_blocked`.
    pub cv_blocked: f64,
    /// Of completed operations.
    pub cv_completed: f64,
    /// Of GC counts.
    pub cv_gc: f64,
    /// Of busy fractions.
    pub cv_busy: f64,
    /// Of GC page moves.
    pub cv_moved: f64,
    /// Of erases.
    pub cv_erases: f64,
    /// Of per-channel read p99.9 latency, over the channels that served
    /// host reads (as `read_tail`: a channel without any has no tail).
    pub cv_read_p99_9: f64,
    /// Per-channel read tail latencies across channels (Figs. 12–13 of
    /// adaptive-parity-update).
    pub read_tail: ReadTail,
    /// χ² of the per-channel `blocked_sum` against a uniform spread over the
    /// channels (adaptive-parity-update, Appendix A).
    pub blocked_chi2: ChiSquare,
}

/// Smallest, mean and largest per-channel read tail latency, over the
/// channels that served host reads.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReadTail {
    /// Channels that served at least one host read (the others are left out).
    pub channels: u32,
    /// Of `channels[i].read_p99_ns`.
    pub p99: Spread,
    /// Of `channels[i].read_p99_9_ns`.
    pub p99_9: Spread,
    /// Of `channels[i].read_p99_99_ns`.
    pub p99_99: Spread,
}

/// Flash operations by origin over the device.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlashOps {
    /// Host reads.
    pub host_read: u64,
    /// Host data programs.
    pub host_program: u64,
    /// Pre-reads (parity update and page merge).
    pub pre_read: u64,
    /// Degraded-read chunk reads.
    pub degraded_read: u64,
    /// Parity programs.
    pub parity_program: u64,
    /// Replication's own programs: a replicated chunk's second copy, a
    /// conversion's rewrite of a chunk with no copy on its slot's channel.
    pub replica_program: u64,
    /// GC reads (one per moved page).
    pub gc_read: u64,
    /// GC programs (one per moved page).
    pub gc_program: u64,
    /// Erases.
    pub erase: u64,
}

/// RAID decisions.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RaidReport {
    /// Full-stripe writes.
    pub full_stripe_writes: u64,
    /// RMW updates.
    pub rmw: u64,
    /// RCW updates.
    pub rcw: u64,
    /// Routines that differ from fewest pre-reads.
    pub adjusted: u64,
    /// Adjusted decisions that chose RMW.
    pub adjusted_to_rmw: u64,
    /// Adjusted decisions that chose RCW.
    pub adjusted_to_rcw: u64,
    /// Shares of the RMW + RCW updates (Fig. 6 of adaptive-parity-update).
    pub routines: RoutineShares,
    /// Host reads rebuilt from their stripe by the queuing-cost model.
    pub degraded_reads: u64,
    /// Host reads rebuilt because their die (or channel) was in GC.
    pub gc_tolerant_reads: u64,
    /// Chunk reads issued for both kinds of rebuilt read.
    pub rebuild_reads: u64,
    /// Single-chunk updates written outside their stripe.
    pub degraded_updates: u64,
    /// XORs computed by the controller (parity updates and rebuilds).
    pub xors: u64,
    /// Page writes without parity (RAID off).
    pub plain_writes: u64,
    /// Writes to stripes that held no data yet (no pre-read, not an update).
    pub new_stripe_writes: u64,
    /// Pre-reads issued.
    pub prereads: u64,
}

/// How partial-stripe updates were carried out, as fractions of all RMW and
/// RCW updates (each 0 without any); the three add up to 1.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RoutineShares {
    /// RMW, as fewest pre-reads would have chosen.
    pub rmw: f64,
    /// RCW, as fewest pre-reads would have chosen.
    pub rcw: f64,
    /// Either routine against the fewest-pre-reads choice.
    pub adjusted: f64,
}

impl RoutineShares {
    fn new(rmw: u64, rcw: u64, adjusted_rmw: u64, adjusted: u64) -> Self {
        let n = (rmw + rcw) as f64;
        if n == 0.0 {
            return RoutineShares { rmw: 0.0, rcw: 0.0, adjusted: 0.0 };
        }
        let adjusted_rcw = adjusted - adjusted_rmw;
        RoutineShares {
            rmw: (rmw - adjusted_rmw) as f64 / n,
            rcw: (rcw - adjusted_rcw) as f64 / n,
            adjusted: adjusted as f64 / n,
        }
    }
}

/// Garbage collection over the whole device.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GcSummary {
    /// Collections.
    pub count: u64,
    /// Valid pages moved per collection (wear levelling included).
    pub moves_per_gc: f64,
    /// Mean time a collection holds its die, ns.
    pub mean_ns: f64,
}

/// Wear state at the end of the run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Wear {
    /// Fewest erases of any block.
    pub erase_min: u32,
    /// Most erases of any block.
    pub erase_max: u32,
    /// Mean erases per block.
    pub erase_mean: f64,
    /// Wear-levelling page moves.
    pub wl_pages_moved: u64,
    /// Configured P/E cycle limit per block.
    pub pe_cycle_limit: u32,
    /// Seconds until the average block reaches the P/E limit if this run's
    /// erase rate continued (null when the run erased nothing).
    pub predicted_lifetime_s: Option<f64>,
}

/// Flash reads by LDPC level (present only with `ldpc.enabled`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LdpcReport {
    /// Sensing time of each level (tR + retries × step), ns, level 0 first.
    pub level_read_ns: Vec<u64>,
    /// Flash reads (host, pre-read, degraded; not GC copyback) started at each level.
    pub reads_by_level: Vec<u64>,
    /// Mean level of those reads (0 without reads).
    pub mean_level: f64,
    /// Mean sensing time per read beyond tR, spent on read retries, ns.
    pub mean_retry_ns: f64,
}

impl LdpcReport {
    fn new(c: &LdpcCounters, level_read_ns: &[u64]) -> LdpcReport {
        let mut reads = c.reads.clone();
        reads.resize(level_read_ns.len().max(reads.len()), 0);
        let n: u64 = reads.iter().sum();
        let weighted: u64 = reads.iter().enumerate().map(|(l, &r)| l as u64 * r).sum();
        let mean = |x: f64| if n == 0 { 0.0 } else { x / n as f64 };
        LdpcReport {
            level_read_ns: level_read_ns.to_vec(),
            reads_by_level: reads,
            mean_level: mean(weighted as f64),
            mean_retry_ns: mean(c.retry_ns as f64),
        }
    }
}

/// Host-side counts.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct HostReport {
    /// Reads of never-written pages (served as zeros, no flash access).
    pub unmapped_reads: u64,
    /// Read requests that read only never-written pages: they complete with
    /// no flash time, at the controller's overhead.
    pub unmapped_read_requests: u64,
    /// Requests held back by `host.queue_depth`.
    pub held_by_queue_depth: u64,
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
}

/// Simulated span.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SimSpan {
    /// First arrival to last completion, ns.
    pub span_ns: u64,
    /// Host-visible capacity in bytes.
    pub capacity_bytes: u64,
}

/// Host-side cost of the run: the only part that differs between identical runs.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct RunTiming {
    /// Wall-clock seconds of the simulation (excluding trace loading).
    pub wall_s: f64,
    /// CPU seconds of the process during the simulation.
    pub cpu_s: f64,
    /// Host requests simulated per CPU second.
    pub requests_per_cpu_s: f64,
    /// Seconds spent building and preconditioning the device (warm-up included).
    pub setup_s: f64,
    /// CPU seconds of the warm-up (0 without one).
    pub warmup_cpu_s: f64,
    /// Flash page writes (host, parity, GC moves) of the warm-up per CPU second.
    pub warmup_pages_per_cpu_s: f64,
}

impl RunTiming {
    /// `count` per CPU second over `cpu_s`; 0 when no CPU time was measured
    /// (a coarse clock can read 0 for a short run: no rate, not infinity).
    pub fn per_cpu_second(count: u64, cpu_s: f64) -> f64 {
        if cpu_s > 0.0 {
            count as f64 / cpu_s
        } else {
            0.0
        }
    }
}

/// The report of one run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Report {
    /// rainsim version.
    pub version: String,
    /// Scheme name given on the command line, if any.
    pub scheme: String,
    /// Seed.
    pub seed: u64,
    /// Latency by class.
    pub latency: Latency,
    /// Completed requests per simulated second.
    pub iops: f64,
    /// Per channel.
    pub channels: Vec<ChannelReport>,
    /// Balance across channels.
    pub balance: Balance,
    /// Flash operations by origin.
    pub flash_ops: FlashOps,
    /// RAID decisions.
    pub raid: RaidReport,
    /// Write amplification: all programs (host, parity, replica, GC) / host
    /// page programs.
    pub waf: f64,
    /// Garbage collection over the whole device.
    pub gc: GcSummary,
    /// The aged starting state preconditioning built.
    pub precondition: crate::ftl::precondition::PreconditionReport,
    /// The warm-up before time 0 (null when off).
    pub warmup: Option<crate::warmup::WarmupReport>,
    /// Wear.
    pub wear: Wear,
    /// Flash reads by LDPC level (null with the LDPC model off).
    pub ldpc: Option<LdpcReport>,
    /// Rotating GC's counters (absent with `ftl.rotating_gc` off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotating_gc: Option<RotatingGcReport>,
    /// A channel failure and its rebuild (absent when nothing failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<super::fault_report::FaultReport>,
    /// Program speeds (absent with process variation off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process_variation: Option<super::pv_report::PvReport>,
    /// Table 1's conflicts (absent unless counted: `report.conflicts`, or a
    /// host scheduler other than FIFO).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflicts: Option<super::pv_report::ConflictReport>,
    /// What replication did (absent without a replication scheme).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replication: Option<super::replication_report::ReplicationReport>,
    /// Host-side counts.
    pub host: HostReport,
    /// Simulated span.
    pub sim: SimSpan,
    /// Trace identity.
    pub trace: serde_json::Value,
    /// The effective configuration.
    pub config: serde_json::Value,
    /// Things the run wants the user to know (e.g. a policy half that could not apply).
    pub notes: Vec<String>,
    /// Host cost of the run.
    pub timing: RunTiming,
}

/// What rotating GC did.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct RotatingGcReport {
    /// GCs that had to wait for a stripe partner's GC to end (each counted once).
    pub deferred: u64,
    /// GCs started while a partner's GC ran, because a plane reached its reserve.
    pub forced_overlaps: u64,
}

/// Coefficient of variation (population σ / μ; 0 when μ = 0).
pub fn cv(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    if n == 0.0 {
        return 0.0;
    }
    let mean = xs.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return 0.0;
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    var.sqrt() / mean
}

/// Seconds until the mean block erase count reaches `limit` at the erase rate
/// of this run (`erases` in `span_ns`); `None` when nothing was erased.
fn lifetime(ftl: &Ftl, erases: u64, span_ns: u64, limit: u32) -> Option<f64> {
    if erases == 0 || span_ns == 0 {
        return None;
    }
    let blocks = ftl.blocks.len() as f64;
    let done: f64 = ftl.blocks.iter().map(|b| b.erases as f64).sum();
    let left = (limit as f64 * blocks - done).max(0.0);
    Some(left / (erases as f64 / (span_ns as f64 / 1e9)))
}

/// What the report needs besides the collector.
pub struct ReportInputs<'a> {
    /// Scheme name.
    pub scheme: &'a str,
    /// Seed.
    pub seed: u64,
    /// Effective configuration.
    pub config: serde_json::Value,
    /// Trace identity.
    pub trace: serde_json::Value,
    /// Dies per channel.
    pub dies_per_channel: u32,
    /// Host-visible capacity.
    pub capacity_bytes: u64,
    /// Points per CDF.
    pub cdf_points: u32,
    /// P/E cycle limit per block.
    pub pe_cycle_limit: u32,
    /// Sensing time of each LDPC level when the model is on.
    pub ldpc_level_read_ns: Option<&'a [u64]>,
}

impl Report {
    /// Builds the report from a finished run.
    pub fn build(c: &Collector, ftl: &Ftl, inp: ReportInputs) -> Report {
        let span = c.span_ns();
        let active = c.active_span_ns();
        let channels: Vec<ChannelReport> = c
            .channels
            .iter()
            .map(|ch| {
                let tail = ch.read_lat.at_quantiles(&[0.99, 0.999, 0.9999]);
                let ops = ch.total_ops();
                ChannelReport {
                    ops,
                    ops_by_origin: OpsByOrigin::new(&ch.ops),
                    avg_blocked: if ops == 0 { 0.0 } else { ch.blocked_sum as f64 / ops as f64 },
                    blocked_sum: ch.blocked_sum,
                    busy_fraction: if active == 0 {
                        0.0
                    } else {
                        ch.busy_ns as f64 / (active as f64 * inp.dies_per_channel as f64)
                    },
                    gc_count: ch.gc_count,
                    pages_moved: ch.pages_moved,
                    erases: ch.erases,
                    reads: ch.read_lat.count(),
                    read_p99_ns: tail[0].0,
                    read_p99_9_ns: tail[1].0,
                    read_p99_99_ns: tail[2].0,
                    gc_mean_ns: if ch.gc_count == 0 { 0.0 } else { ch.gc_ns as f64 / ch.gc_count as f64 },
                    gc_estimate_mean_ns: if ch.gc_count == 0 { 0.0 } else { ch.gc_estimate_ns / ch.gc_count as f64 },
                }
            })
            .collect();
        let col = |f: &dyn Fn(&ChannelReport) -> f64| channels.iter().map(f).collect::<Vec<_>>();
        let moved: u64 = c.channels.iter().map(|x| x.pages_moved).sum();
        let erases: u64 = c.channels.iter().map(|x| x.erases).sum();
        let host_program = c.ops(Origin::HostProgram);
        let parity_program = c.ops(Origin::ParityProgram);
        let replica_program = c.ops(Origin::ReplicaProgram);
        let (emin, emax, emean) = ftl.erase_spread();
        let all = c.latency_all();
        let count = all.count();
        let read = || channels.iter().filter(|r| r.reads > 0);
        let read_tail = ReadTail {
            channels: read().count() as u32,
            p99: spread(&read().map(|r| r.read_p99_ns).collect::<Vec<_>>()),
            p99_9: spread(&read().map(|r| r.read_p99_9_ns).collect::<Vec<_>>()),
            p99_99: spread(&read().map(|r| r.read_p99_99_ns).collect::<Vec<_>>()),
        };
        let blocked_chi2 = chi2_uniform(&channels.iter().map(|r| r.blocked_sum).collect::<Vec<_>>());
        Report {
            version: env!("CARGO_PKG_VERSION").to_string(),
            scheme: inp.scheme.to_string(),
            seed: inp.seed,
            latency: Latency {
                read: ClassLatency::new(&c.latency[0], inp.cdf_points, true),
                write: ClassLatency::new(&c.latency[1], inp.cdf_points, true),
                all: ClassLatency::new(&all, inp.cdf_points, false),
            },
            iops: if span == 0 { 0.0 } else { count as f64 * 1e9 / span as f64 },
            balance: Balance {
                cv_blocked: cv(&col(&|r| r.avg_blocked)),
                cv_completed: cv(&col(&|r| r.ops as f64)),
                cv_gc: cv(&col(&|r| r.gc_count as f64)),
                cv_busy: cv(&col(&|r| r.busy_fraction)),
                cv_moved: cv(&col(&|r| r.pages_moved as f64)),
                cv_erases: cv(&col(&|r| r.erases as f64)),
                cv_read_p99_9: cv(&read().map(|r| r.read_p99_9_ns as f64).collect::<Vec<_>>()),
                read_tail,
                blocked_chi2,
            },
            channels,
            flash_ops: FlashOps {
                host_read: c.ops(Origin::HostRead),
                host_program,
                pre_read: c.ops(Origin::PreRead),
                degraded_read: c.ops(Origin::DegradedRead),
                parity_program,
                replica_program,
                gc_read: moved,
                gc_program: moved,
                erase: erases,
            },
            raid: RaidReport {
                full_stripe_writes: c.raid.full,
                rmw: c.raid.rmw,
                rcw: c.raid.rcw,
                adjusted: c.raid.adjusted,
                adjusted_to_rmw: c.raid.adjusted_rmw,
                adjusted_to_rcw: c.raid.adjusted - c.raid.adjusted_rmw,
                routines: RoutineShares::new(c.raid.rmw, c.raid.rcw, c.raid.adjusted_rmw, c.raid.adjusted),
                degraded_reads: c.raid.degraded_reads,
                gc_tolerant_reads: c.raid.gc_tolerant_reads,
                rebuild_reads: c.raid.rebuild_reads,
                degraded_updates: c.raid.degraded_updates,
                xors: c.raid.xors,
                plain_writes: c.raid.plain,
                new_stripe_writes: c.raid.fresh,
                prereads: c.raid.prereads,
            },
            gc: {
                let count: u64 = c.channels.iter().map(|x| x.gc_count).sum();
                let ns: u64 = c.channels.iter().map(|x| x.gc_ns).sum();
                let per = |x: f64| if count == 0 { 0.0 } else { x / count as f64 };
                GcSummary { count, moves_per_gc: per(moved as f64), mean_ns: per(ns as f64) }
            },
            precondition: Default::default(),
            warmup: None,
            waf: if host_program == 0 {
                0.0
            } else {
                (host_program + parity_program + replica_program + moved) as f64 / host_program as f64
            },
            wear: Wear {
                erase_min: emin,
                erase_max: emax,
                erase_mean: emean,
                wl_pages_moved: c.channels.iter().map(|x| x.wl_moved).sum(),
                pe_cycle_limit: inp.pe_cycle_limit,
                predicted_lifetime_s: lifetime(ftl, erases, span, inp.pe_cycle_limit),
            },
            ldpc: inp.ldpc_level_read_ns.map(|t| LdpcReport::new(&c.ldpc, t)),
            fault: None,
            rotating_gc: (inp.config.pointer("/ftl/rotating_gc") == Some(&serde_json::Value::Bool(true)))
                .then_some(RotatingGcReport { deferred: c.gc_deferred, forced_overlaps: c.gc_forced_overlaps }),
            process_variation: None,
            conflicts: None,
            replication: None,
            host: HostReport {
                unmapped_reads: c.unmapped_reads,
                unmapped_read_requests: c.unmapped_read_requests,
                held_by_queue_depth: c.held,
                bytes_read: c.bytes[0],
                bytes_written: c.bytes[1],
            },
            sim: SimSpan { span_ns: span, capacity_bytes: inp.capacity_bytes },
            trace: inp.trace,
            config: inp.config,
            notes: super::collector::saturation_note(c.latency[0].max.max(c.latency[1].max))
                .into_iter()
                .chain(super::collector::unmapped_note(c))
                .collect(),
            timing: RunTiming::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{cv, lifetime, RunTiming};
    use crate::testkit::small_ftl;

    /// A rate over a measured CPU time, and none (0, not infinity or NaN)
    /// when the clock read no time at all.
    #[test]
    fn a_rate_per_cpu_second_needs_cpu_time() {
        assert_eq!(RunTiming::per_cpu_second(300, 1.5), 200.0);
        assert_eq!(RunTiming::per_cpu_second(0, 2.0), 0.0);
        assert_eq!(RunTiming::per_cpu_second(300, 0.0), 0.0);
        assert_eq!(RunTiming::per_cpu_second(0, 0.0), 0.0);
        assert_eq!(RunTiming::per_cpu_second(300, -0.01), 0.0);
    }

    /// Population σ over μ, worked by hand: 2, 4, 4, 4, 5, 5, 7, 9 have
    /// μ = 5 and σ = 2; 1 and 3 have μ = 2, σ = 1. No samples, or μ = 0,
    /// give 0 rather than a division by zero.
    #[test]
    fn cv_is_the_population_deviation_over_the_mean() {
        assert_eq!(cv(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), 0.4);
        assert_eq!(cv(&[1.0, 3.0]), 0.5);
        assert_eq!(cv(&[6.0, 6.0, 6.0]), 0.0);
        assert_eq!(cv(&[]), 0.0);
        assert_eq!(cv(&[-1.0, 1.0]), 0.0);
    }

    /// Seconds until the mean erase count reaches the limit at this run's
    /// erase rate: 8 blocks erased once each, a limit of 3 leaves 16 erases;
    /// 4 erases in 2 s is 2 a second, so 8 s. Past the limit, 0 s; no
    /// erases, or no time, predict nothing.
    #[test]
    fn lifetime_is_the_erases_left_over_the_erase_rate() {
        let mut ftl = small_ftl(1, 1, 1, 8);
        assert_eq!(ftl.blocks.len(), 8);
        for b in &mut ftl.blocks {
            b.erases = 1;
        }
        assert_eq!(lifetime(&ftl, 4, 2_000_000_000, 3), Some(8.0));
        assert_eq!(lifetime(&ftl, 4, 2_000_000_000, 0), Some(0.0));
        assert_eq!(lifetime(&ftl, 0, 2_000_000_000, 3), None);
        assert_eq!(lifetime(&ftl, 4, 0, 3), None);
    }
}
