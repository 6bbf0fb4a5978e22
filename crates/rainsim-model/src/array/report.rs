//! The array's report: array-level latency, IOPS and execution time, the
//! RAID-5 routines, and per device its operations, blocked requests, GC,
//! erases, bytes written and predicted lifetime, with the spread (cv) of
//! each across the devices.

use super::model::{life_days, use_life_years};
use super::params::ArrayParams;
use super::Array;
use crate::config::Config;
use crate::engine::SimTime;
use crate::metrics::class_latency::{ClassLatency, Latency};
use crate::metrics::collector::Collector;
use crate::metrics::fault_report::PhaseReport;
use crate::metrics::report::{cv, Report};
use serde::Serialize;

/// One device of the array.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DeviceSummary {
    /// Reads the array sent it (host reads, pre-reads, rebuild reads).
    pub reads: u64,
    /// Data units the array wrote to it (pages under `static`, else chunks).
    pub data_programs: u64,
    /// Parity units the array wrote to it.
    pub parity_programs: u64,
    /// Requests it held back at its host queue depth (blocked).
    pub blocked_requests: u64,
    /// Σ over its channels of the queue length at each completion.
    pub blocked_sum: u64,
    /// Average blocked requests: `blocked_sum` over its channels' completed
    /// operations (a device report's `avg_blocked`, over all its channels).
    pub avg_blocked: f64,
    /// Garbage collections.
    pub gc: u64,
    /// Erases.
    pub erases: u64,
    /// GC page moves.
    pub pages_moved: u64,
    /// Bytes programmed: the array's writes, the device's own parity and GC moves.
    pub bytes_written: u64,
    /// Its write amplification (flash programs per host page program).
    pub waf: f64,
    /// Predicted lifetime from its erase rate (`wear.predicted_lifetime_s` of a device report).
    pub predicted_lifetime_s: Option<f64>,
    /// Remaining life by Eq. 12 at the end of the run, days (absent: nothing written).
    pub life_days_eq12: Option<f64>,
    /// Years of use by Eq. 11 at the run's write rate, the time already
    /// used included (absent: nothing written).
    pub use_life_years_eq11: Option<f64>,
    /// Its mean request latency, ns.
    pub mean_latency_ns: f64,
}

/// Spread of the per-device values.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DeviceBalance {
    /// cv of the units written (data + parity; chunks, or pages under static): the paper's Fig. 8.
    pub cv_programs: f64,
    /// cv of bytes written.
    pub cv_bytes_written: f64,
    /// cv of erases.
    pub cv_erases: f64,
    /// cv of GCs.
    pub cv_gc: f64,
    /// cv of the devices' average blocked requests (`avg_blocked`).
    pub cv_blocked: f64,
    /// Largest over smallest chunks written (1: even; 0 when a device took none).
    pub max_min_programs: f64,
}

/// Array RAID-5 routines, counted per stripe job: under `static` placement
/// one page row of a stripe's chunks (md's stripe head), else a stripe.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ArrayRaid {
    /// Full-stripe writes.
    pub full_stripe_writes: u64,
    /// Read-modify-writes.
    pub rmw: u64,
    /// Reconstruct-writes.
    pub rcw: u64,
    /// Writes to stripes with nothing to pre-read.
    pub fresh: u64,
    /// Pre-reads.
    pub prereads: u64,
    /// XORs.
    pub xors: u64,
    /// Reads rebuilt from their stripe (a failed device).
    pub degraded_reads: u64,
    /// Data chunks written to another place than where they lived.
    pub moves: u64,
    /// Pages of their old slots kept valid (not trimmed) by devices with
    /// their own RAID-5, whose parity still covers them.
    pub trims_kept: u64,
    /// Programs for a failed device by jobs planned before it failed (not
    /// issued; left out while 0).
    #[serde(skip_serializing_if = "crate::metrics::is_zero")]
    pub programs_dropped: u64,
}

/// A device's failure, its replacement and rebuild.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ArrayFailureReport {
    /// The failed device.
    pub device: u32,
    /// When it failed, ns.
    pub failed_at_ns: u64,
    /// When the replacement went in (null: never).
    pub replaced_at_ns: Option<u64>,
    /// When the rebuild ended (null: it did not).
    pub rebuilt_at_ns: Option<u64>,
    /// Units the device held when it failed (every page row's member on it).
    pub units_lost_at_failure: u64,
    /// Units that became lost after the failure, not being lost already. Under
    /// `static` placement (the only one that fails a device) every unit of the
    /// failed device is lost at the failure, so this stays 0: its absorbed
    /// writes and skipped parity are `writes_absorbed` and `parity_skipped`.
    pub units_lost_after_failure: u64,
    /// Units still lost at the end.
    pub units_lost_at_end: u64,
    /// Host reads of lost units served by reconstruction.
    pub reads_reconstructed: u64,
    /// Host writes of lost units kept only in parity.
    pub writes_absorbed: u64,
    /// Parity updates that could not be written (lost parity).
    pub parity_skipped: u64,
    /// Units the rebuild wrote onto the replacement.
    pub units_rebuilt: u64,
    /// Lost units the host wrote onto the replacement before the rebuild did.
    pub rewritten_by_host: u64,
    /// Lost units of rows no surviving device holds data of, left unwritten
    /// (`array.rebuild = "written"`).
    pub units_skipped_empty: u64,
    /// Requests completed before the failure.
    pub before: PhaseReport,
    /// Completed from the failure until the rebuild ended (or the run did).
    pub during: PhaseReport,
    /// Completed after the rebuild ended.
    pub after: PhaseReport,
    /// The failed device until its replacement took its place (its row of
    /// `devices` is the replacement's since then; null: not replaced).
    pub failed_device: Option<DeviceSummary>,
}

/// A failure inside one member (`[fault]` with `fault.device`): the member's
/// own fault report, as a single device reports it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MemberFault {
    /// The member.
    pub device: u32,
    /// What the failure did inside it.
    #[serde(flatten)]
    pub fault: crate::metrics::fault_report::FaultReport,
}

/// The report of an array run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ArrayReport {
    /// Simulator version.
    pub version: String,
    /// Scheme name.
    pub scheme: String,
    /// Seed (device i uses seed + i).
    pub seed: u64,
    /// `[array]` as run.
    pub array: ArrayParams,
    /// Whether one device failure can never lose a stripe.
    pub single_failure_tolerant: bool,
    /// Stripes with two chunks on one device at the end.
    pub co_resident_stripes: u64,
    /// When a device failed (`array.fail_device`; left out while none did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_failed_at_ns: Option<u64>,
    /// What the failure did, its replacement and rebuild (left out while no
    /// device failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<ArrayFailureReport>,
    /// The channel or die failure inside member `fault.device` and its own
    /// rebuild (left out while `[fault]` fails nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member_fault: Option<MemberFault>,
    /// Host-visible capacity, bytes.
    pub capacity_bytes: u64,
    /// Stripes (of chunks; under `static` each is its chunk's page rows).
    pub stripes: u32,
    /// Requests completed.
    pub requests: u64,
    /// Array-level latency (from arrival, or from issue in closed loop).
    pub latency: Latency,
    /// Requests per second over the execution time.
    pub iops: f64,
    /// First issue to last completion, ns (the trace's execution time in closed loop).
    pub execution_time_ns: u64,
    /// Array RAID-5 routines.
    pub raid: ArrayRaid,
    /// Per device.
    pub devices: Vec<DeviceSummary>,
    /// Spread across devices.
    pub balance: DeviceBalance,
    /// Shortest predicted lifetime of any device, s.
    pub min_predicted_lifetime_s: Option<f64>,
    /// Trace identity.
    pub trace: serde_json::Value,
    /// The configuration.
    pub config: serde_json::Value,
    /// How long the simulation took (filled by the caller).
    pub timing: crate::metrics::report::RunTiming,
    /// What the reader of the numbers should know about the model (left
    /// out while empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// What a member device measured (`Ssd::measured_report`: no timing, notes
/// or set-up sections), for the array's per-device figures.
pub fn device_report(ssd: &Ssd, cfg: &Config, scheme: &str) -> Report {
    ssd.measured_report(cfg, scheme, serde_json::Value::Null)
}

type Ssd = crate::ssd::Ssd<Collector>;

/// Whether a member's own failed channel or die was replaced (its rebuild
/// may run on after the trace).
fn rebuilds_own(ssd: &Ssd) -> bool {
    ssd.fault_report().is_some_and(|f| f.replaced_at_ns.is_some())
}

impl Array {
    /// The report after [`Array::run`].
    pub fn report(&self, cfg: &Config, scheme: &str, trace: serde_json::Value) -> ArrayReport {
        let c = &self.core.counters;
        let replaced = self.core.failure.as_ref().filter(|f| f.retired.is_some());
        let end = self.life_horizon();
        let devices: Vec<DeviceSummary> = (0..self.core.devices.len())
            .map(|i| {
                let ssd = &self.core.devices[i];
                let (ops, bytes) = (c.device_ops[i], c.device_bytes[i]);
                match replaced.filter(|f| f.device == i as u32) {
                    // The replacement's own life: since it went in, to the
                    // run's end (its rebuild writes run on after the trace).
                    Some(f) => {
                        let since = self.core.now.saturating_sub(f.replaced_at.expect("replaced"));
                        let cfg = self.replacement.as_deref().expect("replaced");
                        self.device_summary(ssd, cfg, scheme, ops, bytes, since)
                    }
                    // A member rebuilding a channel of its own writes until the run's end.
                    None => {
                        let end = if rebuilds_own(ssd) { self.core.now } else { end };
                        self.device_summary(ssd, &super::device_config(cfg, i as u32), scheme, ops, bytes, end)
                    }
                }
            })
            .collect();
        let col = |f: &dyn Fn(&DeviceSummary) -> f64| devices.iter().map(f).collect::<Vec<f64>>();
        let programs = col(&|d| (d.data_programs + d.parity_programs) as f64);
        let (lo, hi) = programs.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &x| (l.min(x), h.max(x)));
        let balance = DeviceBalance {
            cv_programs: cv(&programs),
            cv_bytes_written: cv(&col(&|d| d.bytes_written as f64)),
            cv_erases: cv(&col(&|d| d.erases as f64)),
            cv_gc: cv(&col(&|d| d.gc as f64)),
            cv_blocked: cv(&col(&|d| d.avg_blocked)),
            max_min_programs: if lo > 0.0 { hi / lo } else { 0.0 },
        };
        let span = c.last_completion.saturating_sub(c.first_issue.unwrap_or(0));
        let all = c.latency_all();
        let count = all.count();
        let cdf = cfg.report.cdf_points;
        let min_life = devices.iter().filter_map(|d| d.predicted_lifetime_s).min_by(f64::total_cmp);
        ArrayReport {
            version: env!("CARGO_PKG_VERSION").to_string(),
            scheme: scheme.to_string(),
            seed: cfg.seed,
            array: self.params.clone(),
            single_failure_tolerant: self.params.single_failure_tolerant(),
            co_resident_stripes: self.co_resident_stripes(),
            device_failed_at_ns: self.core.failure.as_ref().map(|f| f.failed_at),
            failure: self.failure_report(cfg, scheme),
            member_fault: cfg.fault.device.and_then(|d| {
                let fault = self.core.devices.get(d as usize)?.fault_report()?;
                Some(MemberFault { device: d, fault })
            }),
            capacity_bytes: self.capacity_bytes(),
            stripes: (self.core.stripes.stripes as u64 / (self.core.chunk_bytes / self.core.unit_bytes)) as u32,
            requests: count,
            latency: Latency {
                read: ClassLatency::new(&c.latency[0], cdf, true),
                write: ClassLatency::new(&c.latency[1], cdf, true),
                all: ClassLatency::new(&all, cdf, false),
            },
            iops: if span == 0 { 0.0 } else { count as f64 * 1e9 / span as f64 },
            execution_time_ns: span,
            raid: ArrayRaid {
                full_stripe_writes: c.stripe_writes[0],
                rmw: c.stripe_writes[1],
                rcw: c.stripe_writes[2],
                fresh: c.stripe_writes[3],
                prereads: c.prereads,
                xors: c.xors,
                degraded_reads: c.degraded_reads,
                moves: c.moves,
                trims_kept: c.trims_kept,
                programs_dropped: c.programs_dropped,
            },
            devices,
            balance,
            min_predicted_lifetime_s: min_life,
            trace,
            config: serde_json::to_value(cfg).expect("config serialises"),
            timing: Default::default(),
            notes: self.notes(cfg),
        }
    }

    /// One device's row: its report's counts and what the array sent it
    /// (`ops`: reads, data and parity programs; `bytes` programmed), its
    /// life over `elapsed` ns.
    fn device_summary(
        &self,
        ssd: &Ssd,
        cfg: &Config,
        scheme: &str,
        ops: [u64; 3],
        bytes: u64,
        elapsed: u64,
    ) -> DeviceSummary {
        let r = device_report(ssd, cfg, scheme);
        let page = self.core.page_bytes as u64;
        // Host programs past the pages the array sent are the device's own,
        // as are its replication's programs (a replicating scheme's second
        // copies and conversions).
        let f = &r.flash_ops;
        let units = (ops[1] + ops[2]) * (self.core.unit_bytes / page);
        let own = f.host_program.saturating_sub(units);
        let bytes = bytes + (f.gc_program + f.parity_program + f.replica_program + own) * page;
        let blocked_sum: u64 = r.channels.iter().map(|x| x.blocked_sum).sum();
        let completed: u64 = r.channels.iter().map(|x| x.ops).sum();
        DeviceSummary {
            reads: ops[0],
            data_programs: ops[1],
            parity_programs: ops[2],
            blocked_requests: r.host.held_by_queue_depth,
            blocked_sum,
            avg_blocked: if completed == 0 { 0.0 } else { blocked_sum as f64 / completed as f64 },
            gc: r.gc.count,
            erases: r.flash_ops.erase,
            pages_moved: r.channels.iter().map(|x| x.pages_moved).sum(),
            bytes_written: bytes,
            waf: r.waf,
            predicted_lifetime_s: r.wear.predicted_lifetime_s,
            life_days_eq12: Some(life_days(self.core.device_bytes, self.core.pe_limit, bytes, elapsed))
                .filter(|x| x.is_finite()),
            use_life_years_eq11: Some(use_life_years(self.core.device_bytes, self.core.pe_limit, bytes, elapsed))
                .filter(|x| x.is_finite()),
            mean_latency_ns: r.latency.all.mean_ns,
        }
    }

    /// The end of the time the devices' Eq. 12 lives are measured over: the
    /// run's end, but with a replacement (of a device, or of a member's
    /// channel or die) the last request's completion, so that a rebuild
    /// running on after the trace (or a replacement due long after it) does
    /// not stretch the write rates.
    fn life_horizon(&self) -> SimTime {
        let replaced = self.core.failure.as_ref().is_some_and(|f| f.replaced_at.is_some());
        if replaced || self.core.devices.iter().any(rebuilds_own) {
            self.core.counters.last_completion
        } else {
            self.core.now
        }
    }

    fn failure_report(&self, cfg: &Config, scheme: &str) -> Option<ArrayFailureReport> {
        let f = self.core.failure.as_deref()?;
        let raid = self.raid.failure().expect("the RAID layer knows the failure");
        let k = raid.counters;
        let failed_device = f.retired.as_ref().map(|r| {
            let dc = super::device_config(cfg, f.device);
            let replaced_at = f.replaced_at.expect("retired when replaced");
            self.device_summary(&r.ssd, &dc, scheme, r.ops, r.bytes, replaced_at.min(self.life_horizon()))
        });
        Some(ArrayFailureReport {
            device: f.device,
            failed_at_ns: f.failed_at,
            replaced_at_ns: f.replaced_at,
            rebuilt_at_ns: f.rebuilt_at,
            units_lost_at_failure: k.lost_at_failure,
            units_lost_after_failure: k.became_lost,
            units_lost_at_end: raid.lost_now,
            reads_reconstructed: k.reads_reconstructed,
            writes_absorbed: k.writes_absorbed,
            parity_skipped: k.parity_skipped,
            units_rebuilt: k.pages_rebuilt,
            rewritten_by_host: k.rewritten_by_host,
            units_skipped_empty: k.skipped_empty,
            before: PhaseReport::of(&f.phases[0]),
            during: PhaseReport::of(&f.phases[1]),
            after: PhaseReport::of(&f.phases[2]),
            failed_device,
        })
    }

    fn notes(&self, cfg: &Config) -> Vec<String> {
        let (unit, page) = (self.core.unit_bytes, self.core.page_bytes as u64);
        let mut notes = self.member_notes();
        if cfg.policy.parity_update != crate::policy::ParityUpdateKind::FewestPrereads {
            notes.push(format!(
                "policy.parity_update = {} acts inside each device (under raid.level = \"raid5\"); the array's \
                 own RAID-5 plans every stripe write by fewest pre-reads, md's rule",
                serde_json::to_string(&cfg.policy.parity_update).expect("a name")
            ));
        }
        let left_out: Vec<&str> = [
            ("ldpc", cfg.ldpc.enabled),
            ("process_variation", cfg.process_variation.enabled),
            ("warmup", cfg.warmup.device_writes > 0.0),
            ("conflicts", cfg.report.conflicts),
        ]
        .iter()
        .filter(|x| x.1)
        .map(|x| x.0)
        .collect();
        if !left_out.is_empty() {
            notes.push(format!(
                "an array report holds no per-device {} section: the devices ran with it, and it shows only \
                 in their latencies and counts",
                left_out.join(", ")
            ));
        }
        if unit > page {
            notes.push(format!(
                "array chunks of {} KiB ({} pages) under array.allocation = \"{}\": a chunk moves whole, so a \
                 write pre-reads and programs whole chunks (data and parity), as a chunk-granular array does; \
                 under \"static\" the array's RAID-5 works page by page as md's stripe cache does \
                 (reads move only the bytes asked for either way)",
                unit / 1024,
                unit / page,
                self.params.allocation.name()
            ));
        }
        notes
    }

    /// The devices' own notes, each once, with the devices it applies to.
    fn member_notes(&self) -> Vec<String> {
        let mut seen: Vec<(&String, Vec<usize>)> = Vec::new();
        for (i, d) in self.core.devices.iter().enumerate() {
            for n in &d.notes {
                match seen.iter_mut().find(|(m, _)| *m == n) {
                    Some((_, ds)) => ds.push(i),
                    None => seen.push((n, vec![i])),
                }
            }
        }
        let all = self.core.devices.len();
        seen.into_iter().map(|(n, ds)| format!("{}: {n}", devices(&ds, all))).collect()
    }
}

/// Who a member note applies to: "every device", "device 2", "devices 0, 3".
fn devices(ds: &[usize], all: usize) -> String {
    let list: Vec<String> = ds.iter().map(|d| d.to_string()).collect();
    match ds.len() {
        n if n == all => "every device".to_string(),
        1 => format!("device {}", list[0]),
        _ => format!("devices {}", list.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_member_note_names_its_device_or_devices() {
        assert_eq!(super::devices(&[2], 4), "device 2");
        assert_eq!(super::devices(&[0, 3], 4), "devices 0, 3");
        assert_eq!(super::devices(&[0, 1, 2, 3], 4), "every device");
    }
}
