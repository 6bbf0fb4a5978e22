//! The human-readable summary of an array run.

use crate::summary::{ns, pct};
use rainsim_model::array::report::ArrayReport;
use rainsim_trace::stats::counted;
use std::fmt::Write;

/// The summary of one array run.
pub fn render(r: &ArrayReport) -> String {
    let mut o = String::new();
    let a = &r.array;
    let trace = r.trace.get("path").and_then(|v| v.as_str()).unwrap_or("?");
    let _ = writeln!(
        o,
        "rainsim {} — array of {} devices{}, allocation {}{}, scheme {}, seed {}, trace {trace}",
        r.version,
        a.devices,
        if a.parity { "" } else { " without parity" },
        a.allocation.name(),
        match a.delay_scope {
            rainsim_model::array::params::DelayScope::Outstanding => String::new(),
            s => format!(" (delay scope {})", s.name()),
        },
        r.scheme,
        r.seed
    );
    let tolerant = if r.single_failure_tolerant {
        "single-failure tolerant".to_string()
    } else if !a.parity {
        "no parity (array.parity = false): NOT single-failure tolerant".to_string()
    } else {
        let n = counted(r.co_resident_stripes, "stripe holds", "stripes hold");
        format!("NOT single-failure tolerant ({n} two chunks on one device)")
    };
    let _ = writeln!(
        o,
        "{}, capacity {:.1} GiB, {tolerant}",
        counted(r.stripes.into(), "stripe", "stripes"),
        r.capacity_bytes as f64 / (1u64 << 30) as f64
    );
    match (a.fail_device, r.device_failed_at_ns) {
        (Some(d), Some(t)) => {
            let f = r.failure.as_ref();
            let replaced = match (f.and_then(|f| f.replaced_at_ns), f.and_then(|f| f.rebuilt_at_ns)) {
                (None, _) if a.replace_after_ns.is_some() => "replacement not in by the end".to_string(),
                (None, _) => "no replacement".to_string(),
                (Some(at), None) => format!("replaced at {}, rebuild unfinished", ns(at as f64)),
                (Some(at), Some(done)) => {
                    format!(
                        "replaced at {}, rebuilt at {} ({} after)",
                        ns(at as f64),
                        ns(done as f64),
                        ns((done - at) as f64)
                    )
                }
            };
            let _ = writeln!(
                o,
                "device {d} failed at {} (fail-stop, {replaced}): {} (a page or chunk rebuilt each){}{}",
                ns(t as f64),
                counted(r.raid.degraded_reads, "degraded read", "degraded reads"),
                match r.raid.programs_dropped {
                    0 => String::new(),
                    n => format!(", {} for it dropped (their data kept in parity)", counted(n, "program", "programs")),
                },
                match f.filter(|f| f.replaced_at_ns.is_some()) {
                    Some(f) => format!(
                        "; {} rebuilt, {} rewritten by the host, {}{} still lost",
                        counted(f.units_rebuilt, "unit", "units"),
                        f.rewritten_by_host,
                        match f.units_skipped_empty {
                            0 => String::new(),
                            n => format!("{n} of empty rows left unwritten, "),
                        },
                        f.units_lost_at_end
                    ),
                    None => String::new(),
                }
            );
        }
        (Some(d), None) => {
            let _ = writeln!(
                o,
                "device {d} was set to fail at {}, after the run's last request: it did not fail",
                ns(a.fail_at_ns.unwrap_or(0) as f64)
            );
        }
        _ => {}
    }
    // A member's failing unit: its die when only a die fails, else its channel.
    let unit = |die: Option<u64>, channel: u64| die.map_or(format!("channel {channel}"), |d| format!("die {d}"));
    let set = &r.config["fault"];
    if let (None, Some(d)) = (&r.member_fault, set["device"].as_u64()) {
        let unit = unit(set["die"].as_u64(), set["channel"].as_u64().unwrap_or(0));
        let _ = writeln!(
            o,
            "member {d} was set to lose {unit} at {}, after the run's last request: it did not",
            ns(set["at_ns"].as_u64().unwrap_or(0) as f64)
        );
    }
    if let Some(m) = &r.member_fault {
        let f = &m.fault;
        let unit = unit(f.die.map(u64::from), f.channel.into());
        let rebuilt = match f.rebuilt_at_ns {
            Some(t) => format!("rebuilt inside it at {}", ns(t as f64)),
            None => "not rebuilt by the end".to_string(),
        };
        let _ = writeln!(
            o,
            "member {} lost {unit} at {} ({rebuilt}): {} lost, {} reconstructed, {} still lost",
            m.device,
            ns(f.failed_at_ns as f64),
            counted(f.chunks_lost_at_failure, "chunk", "chunks"),
            counted(f.reads_reconstructed, "read", "reads"),
            f.chunks_lost_at_end
        );
    }
    let replay = match a.replay {
        rainsim_model::config::Replay::Open => "open loop".to_string(),
        rainsim_model::config::Replay::Closed => format!("closed loop, queue depth {}", a.queue_depth),
    };
    let _ = writeln!(
        o,
        "{} ({replay}): execution time {}, {:.1} IOPS",
        counted(r.requests, "request", "requests"),
        ns(r.execution_time_ns as f64),
        r.iops
    );
    crate::summary::latency_table(&mut o, &r.latency);
    // Open loop only: a closed loop's execution time is the trace's by design.
    if a.replay == rainsim_model::config::Replay::Open {
        if let Some(s) = crate::summary::saturation_line(None, r.execution_time_ns, &r.trace) {
            let _ = writeln!(o, "{s}");
        }
    }
    for n in &r.notes {
        let _ = writeln!(o, "note: {n}");
    }
    let x = &r.raid;
    let _ = writeln!(
        o,
        "\narray RAID-5: {} full-stripe, {} RMW, {} RCW, {}, {}, {}{}",
        x.full_stripe_writes,
        x.rmw,
        x.rcw,
        counted(x.prereads, "pre-read", "pre-reads"),
        counted(x.degraded_reads, "degraded read", "degraded reads"),
        counted(x.moves, "chunk moved", "chunks moved"),
        if x.trims_kept > 0 {
            let n = counted(x.trims_kept, "old-slot page", "old-slot pages");
            format!(" ({n} kept valid for the devices' own parity, not trimmed)")
        } else {
            String::new()
        }
    );
    let _ =
        writeln!(o, "\ndevice     reads  data  parity  avg blocked     GC  erases   written   lifetime (erase rate)");
    let failed = r.failure.as_ref().and_then(|f| f.failed_device.as_ref().map(|d| (f.device, d)));
    let rows = r.devices.iter().enumerate().map(|(i, d)| (i.to_string(), d));
    for (i, d) in rows.chain(failed.map(|(i, d)| (format!("{i}*"), d))) {
        let life = d.predicted_lifetime_s.map(|s| format!("{:.1} years", s / 31_557_600.0)).unwrap_or("-".into());
        let _ = writeln!(
            o,
            "  {i:>3} {:>9} {:>5} {:>7} {:>12.2} {:>6} {:>7} {:>8.1} MiB  {life}",
            d.reads,
            d.data_programs,
            d.parity_programs,
            d.avg_blocked,
            d.gc,
            d.erases,
            d.bytes_written as f64 / (1u64 << 20) as f64
        );
    }
    if let Some((i, _)) = failed {
        let _ = writeln!(o, "  ({i}*: the failed device until its replacement, row {i}, took its place; rebuild programs count as parity)");
    }
    let b = &r.balance;
    let _ = writeln!(
        o,
        "cv across devices: units written {:.3}, bytes written {:.3}, erases {:.3}, GC {:.3}, avg blocked {:.3}",
        b.cv_programs, b.cv_bytes_written, b.cv_erases, b.cv_gc, b.cv_blocked
    );
    o
}

/// Array runs side by side (`rainsim compare` of array variants): one row
/// per metric, one column per run.
pub fn side_by_side(runs: &[(String, ArrayReport)]) -> String {
    let sum = |r: &ArrayReport, f: fn(&rainsim_model::array::report::DeviceSummary) -> u64| {
        r.devices.iter().map(f).sum::<u64>().to_string()
    };
    type Get = Box<dyn Fn(&ArrayReport) -> String>;
    let rows: Vec<(&str, Get)> = vec![
        ("allocation", Box::new(|r| r.array.allocation.name().to_string())),
        ("execution time", Box::new(|r| ns(r.execution_time_ns as f64))),
        ("IOPS", Box::new(|r| format!("{:.1}", r.iops))),
        ("read mean", Box::new(|r| ns(r.latency.read.mean_ns))),
        ("read p99", Box::new(|r| pct(r.latency.read.p99_ns, 0.99, r.latency.read.count))),
        ("read p99.9", Box::new(|r| pct(r.latency.read.p99_9_ns, 0.999, r.latency.read.count))),
        ("read p99.99", Box::new(|r| pct(r.latency.read.p99_99_ns, 0.9999, r.latency.read.count))),
        ("read max", Box::new(|r| ns(r.latency.read.max_ns as f64))),
        ("write mean", Box::new(|r| ns(r.latency.write.mean_ns))),
        ("write p99", Box::new(|r| pct(r.latency.write.p99_ns, 0.99, r.latency.write.count))),
        ("write p99.9", Box::new(|r| pct(r.latency.write.p99_9_ns, 0.999, r.latency.write.count))),
        ("write p99.99", Box::new(|r| pct(r.latency.write.p99_99_ns, 0.9999, r.latency.write.count))),
        ("write max", Box::new(|r| ns(r.latency.write.max_ns as f64))),
        ("all mean", Box::new(|r| ns(r.latency.all.mean_ns))),
        ("full-stripe writes", Box::new(|r| r.raid.full_stripe_writes.to_string())),
        ("RMW", Box::new(|r| r.raid.rmw.to_string())),
        ("RCW", Box::new(|r| r.raid.rcw.to_string())),
        ("pre-reads", Box::new(|r| r.raid.prereads.to_string())),
        ("degraded reads", Box::new(|r| r.raid.degraded_reads.to_string())),
        ("chunks moved", Box::new(|r| r.raid.moves.to_string())),
        ("GC count (all devices)", Box::new(move |r| sum(r, |d| d.gc))),
        ("erases (all devices)", Box::new(move |r| sum(r, |d| d.erases))),
        ("held at queue depth (all devices)", Box::new(move |r| sum(r, |d| d.blocked_requests))),
        (
            "written (all devices)",
            Box::new(|r| {
                let b: u64 = r.devices.iter().map(|d| d.bytes_written).sum();
                format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64)
            }),
        ),
        ("cv units written", Box::new(|r| format!("{:.3}", r.balance.cv_programs))),
        ("max/min units written", Box::new(|r| format!("{:.3}", r.balance.max_min_programs))),
        ("cv bytes written", Box::new(|r| format!("{:.3}", r.balance.cv_bytes_written))),
        ("cv erases", Box::new(|r| format!("{:.3}", r.balance.cv_erases))),
        ("cv avg blocked", Box::new(|r| format!("{:.3}", r.balance.cv_blocked))),
        (
            "min lifetime (years)",
            Box::new(|r| r.min_predicted_lifetime_s.map_or("-".into(), |s| format!("{:.2}", s / 31_557_600.0))),
        ),
        ("co-resident stripes", Box::new(|r| r.co_resident_stripes.to_string())),
    ];
    let mut out = crate::summary::table(runs, 24, &rows);
    if out.contains('*') {
        out.push_str(crate::summary::THIN_NOTE);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::OnceLock;

    /// The report of a small array run, for the fields a test does not set.
    fn base() -> ArrayReport {
        static BASE: OnceLock<ArrayReport> = OnceLock::new();
        BASE.get_or_init(|| {
            let spec = crate::RunSpec {
                config: Some("dls-4ssd".into()),
                sets: vec!["workload.requests=100".into()],
                ..Default::default()
            };
            match crate::run_any_watched(&spec, false, None, &mut |_| {}, None).expect("a small array run") {
                crate::RunReport::Array(r) => *r,
                crate::RunReport::Device(_) => panic!("dls-4ssd is an array"),
            }
        })
        .clone()
    }

    /// Counts of one take the singular, of two the plural.
    #[test]
    fn the_summary_counts_in_words_that_agree() {
        use rainsim_model::array::report::ArrayFailureReport;
        use rainsim_model::metrics::fault_report::{FaultReport, PhaseLatency, PhaseReport};
        let quiet = || {
            let l = PhaseLatency { count: 0, mean_us: 0.0, p99_us: None, p99_9_us: None, p99_99_us: None };
            PhaseReport { read: l.clone(), write: l }
        };
        let text = |n: u64| {
            let mut r = base();
            (r.single_failure_tolerant, r.array.parity, r.co_resident_stripes) = (false, true, n);
            (r.stripes, r.requests) = (n as u32, n);
            let x = &mut r.raid;
            (x.prereads, x.degraded_reads, x.moves, x.trims_kept, x.programs_dropped) = (n, n, n, n, n);
            (r.array.fail_device, r.device_failed_at_ns) = (Some(1), Some(5_000_000));
            r.failure = Some(ArrayFailureReport {
                device: 1,
                failed_at_ns: 5_000_000,
                replaced_at_ns: Some(6_000_000),
                rebuilt_at_ns: None,
                units_lost_at_failure: 0,
                units_lost_after_failure: 0,
                units_lost_at_end: 0,
                reads_reconstructed: 0,
                writes_absorbed: 0,
                parity_skipped: 0,
                units_rebuilt: n,
                rewritten_by_host: 0,
                units_skipped_empty: 0,
                before: quiet(),
                during: quiet(),
                after: quiet(),
                failed_device: None,
            });
            let fault = FaultReport {
                rebuilt_at_ns: None,
                chunks_lost_at_failure: n,
                reads_reconstructed: n,
                ..crate::summary::tests::fault()
            };
            r.member_fault = Some(rainsim_model::array::report::MemberFault { device: 3, fault });
            render(&r)
        };
        let (one, two) = (text(1), text(2));
        for (singular, plural) in [
            ("(1 stripe holds two chunks on one device)", "(2 stripes hold two chunks on one device)"),
            ("\n1 stripe, capacity", "\n2 stripes, capacity"),
            ("): 1 degraded read (a page or chunk rebuilt each)", "): 2 degraded reads (a page or chunk"),
            (", 1 program for it dropped (their", ", 2 programs for it dropped (their"),
            ("; 1 unit rebuilt, 0 rewritten", "; 2 units rebuilt, 0 rewritten"),
            (
                "(not rebuilt by the end): 1 chunk lost, 1 read reconstructed,",
                "): 2 chunks lost, 2 reads reconstructed,",
            ),
            ("\n1 request (", "\n2 requests ("),
            (" RCW, 1 pre-read, 1 degraded read, 1 chunk moved", " RCW, 2 pre-reads, 2 degraded reads, 2 chunks moved"),
            (" (1 old-slot page kept valid", " (2 old-slot pages kept valid"),
        ] {
            assert!(one.contains(singular), "`{singular}` in\n{one}");
            assert!(two.contains(plural), "`{plural}` in\n{two}");
        }
    }

    /// A failure set for after the last request did not happen, and says so.
    #[test]
    fn a_failure_after_the_last_request_is_said_not_to_happen() {
        let mut r = base();
        r.array.fail_device = Some(2);
        r.array.fail_at_ns = Some(300_000_000);
        r.device_failed_at_ns = None;
        let text = render(&r);
        assert!(
            text.contains("\ndevice 2 was set to fail at 300.000 ms, after the run's last request: it did not fail\n"),
            "{text}"
        );
    }

    /// Without a replacement's report, the line tells a replacement that was
    /// due but not in from none configured.
    #[test]
    fn a_failed_device_says_whether_a_replacement_was_due() {
        let mut r = base();
        r.array.fail_device = Some(1);
        r.device_failed_at_ns = Some(5_000_000);
        r.failure = None;
        r.array.replace_after_ns = None;
        let none = render(&r);
        assert!(none.contains("\ndevice 1 failed at 5.000 ms (fail-stop, no replacement): "), "{none}");
        r.array.replace_after_ns = Some(1_000_000_000);
        let due = render(&r);
        assert!(due.contains("\ndevice 1 failed at 5.000 ms (fail-stop, replacement not in by the end): "), "{due}");
    }
}
