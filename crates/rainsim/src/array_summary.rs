//! The human-readable summary of an array run.

use crate::summary::ns;
use rainsim_model::array::report::ArrayReport;
use std::fmt::Write;

/// The summary of one array run.
pub fn render(r: &ArrayReport) -> String {
    let mut o = String::new();
    let a = &r.array;
    let trace = r.trace.get("path").and_then(|v| v.as_str()).unwrap_or("?");
    let _ = writeln!(
        o,
        "rainsim {} — array of {} devices, allocation {}, scheme {}, seed {}, trace {trace}",
        r.version,
        a.devices,
        a.allocation.name(),
        r.scheme,
        r.seed
    );
    let tolerant = if r.single_failure_tolerant {
        "single-failure tolerant".to_string()
    } else {
        format!("NOT single-failure tolerant ({} stripes hold two chunks on one device)", r.co_resident_stripes)
    };
    let _ = writeln!(
        o,
        "{} stripes, capacity {:.1} GiB, {tolerant}",
        r.stripes,
        r.capacity_bytes as f64 / (1u64 << 30) as f64
    );
    let replay = match a.replay {
        rainsim_model::config::Replay::Open => "open loop".to_string(),
        rainsim_model::config::Replay::Closed => format!("closed loop, queue depth {}", a.queue_depth),
    };
    let _ = writeln!(
        o,
        "{} requests ({replay}): execution time {}, {:.1} IOPS",
        r.requests,
        ns(r.execution_time_ns as f64),
        r.iops
    );
    let _ = writeln!(o, "\nlatency   {:>9} {:>11} {:>11} {:>11} {:>11}", "count", "mean", "p50", "p99", "p99.9");
    for (name, c) in [("read", &r.latency.read), ("write", &r.latency.write), ("all", &r.latency.all)] {
        let _ = writeln!(
            o,
            "  {name:<6}{:>9} {:>11} {:>11} {:>11} {:>11}",
            c.count,
            ns(c.mean_ns),
            ns(c.p50_ns as f64),
            ns(c.p99_ns as f64),
            ns(c.p99_9_ns as f64)
        );
    }
    let x = &r.raid;
    let _ = writeln!(
        o,
        "\narray RAID-5: {} full-stripe, {} RMW, {} RCW, {} pre-reads, {} degraded reads, {} chunks moved{}",
        x.full_stripe_writes,
        x.rmw,
        x.rcw,
        x.prereads,
        x.degraded_reads,
        x.moves,
        if x.trims_kept > 0 {
            format!(" ({} old-slot pages kept valid for the devices' own parity, not trimmed)", x.trims_kept)
        } else {
            String::new()
        }
    );
    let _ = writeln!(o, "\ndevice     reads  data  parity  blocked     GC  erases   written   lifetime (erase rate)");
    for (i, d) in r.devices.iter().enumerate() {
        let life = d.predicted_lifetime_s.map(|s| format!("{:.1} years", s / 31_557_600.0)).unwrap_or("-".into());
        let _ = writeln!(
            o,
            "  {i:>3} {:>9} {:>5} {:>7} {:>8} {:>6} {:>7} {:>8.1} MiB  {life}",
            d.reads,
            d.data_programs,
            d.parity_programs,
            d.blocked_requests,
            d.gc,
            d.erases,
            d.bytes_written as f64 / (1u64 << 20) as f64
        );
    }
    let b = &r.balance;
    let _ = writeln!(
        o,
        "cv across devices: chunks written {:.3}, bytes written {:.3}, erases {:.3}, GC {:.3}, blocked {:.3}",
        b.cv_programs, b.cv_bytes_written, b.cv_erases, b.cv_gc, b.cv_blocked
    );
    o
}
