//! Human-readable summaries of reports.

use rainsim_model::metrics::latency_stats::tail_samples;
use rainsim_model::metrics::report::ClassLatency;
use rainsim_model::Report;
use rainsim_trace::stats::counted;
use std::fmt::Write;

/// Formats nanoseconds with a fitting unit.
pub fn ns(v: f64) -> String {
    // A unit starts where the smaller one would round up to 1000 (999,999 ns
    // is 1.000 ms, not 1000.0 µs).
    rainsim_trace::stats::fmt_unit(v, 1000.0, &[("ns", 0), ("µs", 1), ("ms", 3), ("s", 3)])
}

/// A predicted lifetime in seconds, in a fitting unit ("-": none predicted).
pub fn lifetime(s: Option<f64>) -> String {
    match s {
        None => "-".to_string(),
        // As in `ns`: a unit starts where the smaller one would round up to
        // it (86,399 s is 1.0 days, not 24.0 h); days reach a year unrounded.
        Some(s) if s >= 365.25 * 86_400.0 => format!("{:.1} years", s / (365.25 * 86_400.0)),
        Some(s) if s >= 23.95 * 3_600.0 => format!("{:.1} days", s / 86_400.0),
        Some(s) if s >= 3_599.95 => format!("{:.1} h", s / 3_600.0),
        Some(s) => format!("{s:.1} s"),
    }
}

/// The footnote of a percentile marked by [`pct`].
pub const THIN_NOTE: &str = "* fewer than 10 samples lie beyond this percentile: it is about the largest, not a tail";

/// Percentile `q` of `count` samples, marked `*` when fewer than 10 lie
/// beyond it (it is then about the largest few samples, not a tail).
pub fn pct(v: u64, q: f64, count: u64) -> String {
    match count {
        0 => "-".to_string(),
        n if n < tail_samples(q) => format!("{}*", ns(v as f64)),
        _ => ns(v as f64),
    }
}

/// Whether some percentile of `c` shown in a summary gets a `*`.
fn thin(c: &ClassLatency) -> bool {
    c.count > 0 && c.count < tail_samples(0.9999)
}

fn class_row(out: &mut String, name: &str, c: &ClassLatency) {
    let _ = writeln!(
        out,
        "  {name:<6}{:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        c.count,
        ns(c.mean_ns),
        ns(c.p50_ns as f64),
        pct(c.p99_ns, 0.99, c.count),
        pct(c.p99_9_ns, 0.999, c.count),
        pct(c.p99_99_ns, 0.9999, c.count),
        ns(c.max_ns as f64),
        ns(c.sum_ns as f64),
    );
}

/// The latency table of a device's or an array's summary, with the mark's
/// footnote when a percentile has one.
pub fn latency_table(o: &mut String, l: &rainsim_model::metrics::class_latency::Latency) {
    let _ = writeln!(
        o,
        "\nlatency   {:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "count", "mean", "p50", "p99", "p99.9", "p99.99", "max", "sum"
    );
    class_row(o, "read", &l.read);
    class_row(o, "write", &l.write);
    class_row(o, "all", &l.all);
    if [&l.read, &l.write, &l.all].into_iter().any(thin) {
        let _ = writeln!(o, "  {THIN_NOTE}");
    }
}

/// The line that says when a run saturated the device, by the results
/// pages' rule (`scripts/verdict.py`): its busiest channel busy 95 % of the
/// run or more, or the run going on 10 % of the trace's span past its last
/// arrival (the queues did not drain at the offered rate).
fn saturation(r: &Report) -> Option<String> {
    let busy = r.channels.iter().map(|c| c.busy_fraction).fold(0.0, f64::max);
    saturation_line(Some(busy), r.sim.span_ns, &r.trace)
}

/// The saturation line (as `saturation` gives it) from the busiest channel's busy fraction (an array's
/// report keeps none: `None`), the run's span and the trace's section.
pub fn saturation_line(busy: Option<f64>, sim: u64, trace: &serde_json::Value) -> Option<String> {
    let busy = busy.unwrap_or(0.0);
    let trace_span = trace.get("span_ns").and_then(|v| v.as_u64()).unwrap_or(0);
    let why = if busy >= 0.95 {
        format!("its busiest channel was busy {:.1} % of the run", 100.0 * busy)
    } else if trace_span > 0 && sim as f64 > 1.1 * trace_span as f64 {
        format!(
            "the run went on {:.0} % of the trace's span past its last arrival",
            100.0 * (sim - trace_span) as f64 / trace_span as f64
        )
    } else {
        return None;
    };
    let slower = if trace.get("format").and_then(|v| v.as_str()) == Some("synthetic") {
        "a larger workload.mean_interarrival_ns"
    } else {
        "trace.time_scale above 1"
    };
    Some(format!(
        "saturated: {why}; the queues did not drain at the offered rate, so latency depends on how long the run is \
         ({slower} slows the arrivals)"
    ))
}

/// The summary of one run.
pub fn render(r: &Report) -> String {
    let mut o = String::new();
    let trace = r.trace.get("path").and_then(|v| v.as_str()).unwrap_or("?");
    let fmt = r.trace.get("format").and_then(|v| v.as_str()).unwrap_or("?");
    let _ = writeln!(o, "rainsim {} — scheme {}, seed {}, trace {trace} ({fmt})", r.version, r.scheme, r.seed);
    let _ = writeln!(
        o,
        "simulated span {}, {:.1} IOPS, capacity {:.1} GiB",
        ns(r.sim.span_ns as f64),
        r.iops,
        r.sim.capacity_bytes as f64 / (1u64 << 30) as f64
    );
    latency_table(&mut o, &r.latency);
    if let Some(s) = saturation(r) {
        let _ = writeln!(o, "{s}");
    }
    let _ = writeln!(o, "\nchannel        ops  avg_blocked  busy    GC  moved  erases  read p99.9");
    for (i, c) in r.channels.iter().enumerate() {
        let _ = writeln!(
            o,
            "  {i:>3} {:>10} {:>12.2} {:>5.1}% {:>5} {:>6} {:>7} {:>11}",
            c.ops,
            c.avg_blocked,
            c.busy_fraction * 100.0,
            c.gc_count,
            c.pages_moved,
            c.erases,
            ns(c.read_p99_9_ns as f64)
        );
    }
    let b = &r.balance;
    let _ = writeln!(
        o,
        "  cv: blocked {:.3}, completed {:.3}, GC {:.3}, busy {:.3}",
        b.cv_blocked, b.cv_completed, b.cv_gc, b.cv_busy
    );
    if let Some(g) = &r.rotating_gc {
        let _ = writeln!(
            o,
            "  rotating GC: {} deferred for a stripe partner's GC, {}",
            counted(g.deferred, "GC", "GCs"),
            counted(g.forced_overlaps, "forced overlap", "forced overlaps")
        );
    }
    let t = &b.read_tail.p99_9;
    let _ = writeln!(
        o,
        "  read p99.9 over {}: min {}, mean {}, max {}",
        counted(b.read_tail.channels.into(), "channel", "channels"),
        ns(t.min_ns as f64),
        ns(t.mean_ns),
        ns(t.max_ns as f64)
    );
    let x = &b.blocked_chi2;
    let _ =
        writeln!(o, "  blocked vs uniform over channels: chi2 {:.1}, dof {}, p {:.3e}", x.statistic, x.dof, x.p_value);
    let f = &r.flash_ops;
    let replica = match f.replica_program {
        0 => String::new(),
        n => format!(", replica program {n}"),
    };
    let _ = writeln!(
        o,
        "\nflash ops: host read {}, host program {}, pre-read {}, degraded read {}, parity program {}{replica}, GC moves {} \
         (a read and a program each), erase {}",
        f.host_read, f.host_program, f.pre_read, f.degraded_read, f.parity_program, f.gc_read, f.erase
    );
    let d = &r.raid;
    let _ = writeln!(
        o,
        "raid: full-stripe {}, RMW {}, RCW {}, adjusted {} (to RMW {}, to RCW {}), plain {}, pre-reads {}, \
         degraded reads {}, GC-tolerant reads {}, degraded updates {}, XORs {}",
        d.full_stripe_writes,
        d.rmw,
        d.rcw,
        d.adjusted,
        d.adjusted_to_rmw,
        d.adjusted_to_rcw,
        d.plain_writes,
        d.prereads,
        d.degraded_reads,
        d.gc_tolerant_reads,
        d.degraded_updates,
        d.xors
    );
    if let Some(f) = &r.fault {
        fault_lines(&mut o, f);
    }
    let _ = writeln!(
        o,
        "WAF {:.3}; erases per block min/mean/max {}/{:.2}/{}; predicted lifetime {}",
        r.waf,
        r.wear.erase_min,
        r.wear.erase_mean,
        r.wear.erase_max,
        lifetime(r.wear.predicted_lifetime_s)
    );
    let _ = writeln!(
        o,
        "GC: {}, {:.1} pages moved per GC, mean GC time {}",
        counted(r.gc.count, "collection", "collections"),
        r.gc.moves_per_gc,
        ns(r.gc.mean_ns)
    );
    let p = &r.precondition;
    let _ = writeln!(
        o,
        "aged state ({} layout): {} valid / {}, victims start at {:.1} valid pages, {} per plane at least \
         (GC below {}), {} for the trace",
        p.layout,
        p.valid_pages,
        counted(p.invalid_pages, "invalid page", "invalid pages"),
        p.victim_valid_mean,
        counted(p.free_blocks_min.into(), "free block", "free blocks"),
        p.gc_trigger_blocks,
        counted(p.stripes_mapped_for_trace, "stripe mapped", "stripes mapped")
    );
    if let Some(w) = &r.warmup {
        let _ = writeln!(
            o,
            "warm-up ({}, {} device {}): {}, {}, {:.1} pages moved per GC in its last tenth, WAF {:.3}",
            w.workload,
            w.device_writes,
            if w.device_writes == 1.0 { "write" } else { "writes" },
            counted(w.host_pages, "host page", "host pages"),
            counted(w.gc_count, "GC", "GCs"),
            w.moves_per_gc_last_tenth,
            w.waf
        );
    }
    if let Some(l) = &r.ldpc {
        let by: Vec<String> = l.reads_by_level.iter().map(u64::to_string).collect();
        let _ = writeln!(
            o,
            "LDPC: flash reads by level [{}], mean level {:.2}, mean retry time {}",
            by.join(", "),
            l.mean_level,
            ns(l.mean_retry_ns)
        );
    }
    if let Some(v) = &r.process_variation {
        let by: Vec<String> = v
            .classes
            .iter()
            .map(|k| format!("{:.2} V {}: {}", k.dvp, ns(k.tprog_ns as f64), k.programs + k.gc_programs))
            .collect();
        let _ = writeln!(
            o,
            "process variation ({} P/E): block tPROG mean {} (p5 {}, p95 {}); programs by step [{}], mean {}",
            v.initial_pe_cycles,
            ns(v.block_tprog_mean_ns),
            ns(v.block_tprog_p5_ns as f64),
            ns(v.block_tprog_p95_ns as f64),
            by.join(", "),
            ns(v.program_tprog_mean_ns)
        );
    }
    if let Some(c) = &r.conflicts {
        let _ = writeln!(
            o,
            "conflicts (Table 1): {} of {}, {} of {}, ratio {:.2} %",
            c.read_conflicts,
            counted(c.reads, "read", "reads"),
            c.write_conflicts,
            counted(c.writes, "write", "writes"),
            100.0 * c.ratio
        );
    }
    if r.host.held_by_queue_depth > 0 {
        let n = counted(r.host.held_by_queue_depth, "request", "requests");
        let _ = writeln!(o, "note: {n} waited for the host queue-depth cap");
    }
    for n in &r.notes {
        let _ = writeln!(o, "note: {n}");
    }
    let t = &r.timing;
    let _ = writeln!(
        o,
        "run: {:.2} s wall, {:.2} s CPU, {:.0} requests per CPU-second (setup {:.2} s)",
        t.wall_s, t.cpu_s, t.requests_per_cpu_s, t.setup_s
    );
    o
}

/// A channel (or die) failure: when, its rebuild, what was lost and served
/// around it, and host latency before, during and after it.
fn fault_lines(o: &mut String, f: &rainsim_model::metrics::fault_report::FaultReport) {
    let unit = f.die.map_or(format!("channel {}", f.channel), |d| format!("die {d} (channel {})", f.channel));
    let rebuild = match (f.replaced_at_ns, f.rebuilt_at_ns) {
        (None, _) => "no replacement".to_string(),
        (Some(at), None) => format!("replaced at {}, rebuild unfinished at the end", ns(at as f64)),
        (Some(at), Some(done)) => format!(
            "replaced at {}, rebuilt at {}, {} later",
            ns(at as f64),
            ns(done as f64),
            ns(done.saturating_sub(at) as f64)
        ),
    };
    let _ = writeln!(
        o,
        "fault: {unit} failed at {} ({rebuild}): chunks lost {} at the failure, {} after, {} at the end; \
         {} rebuilt (their programs count in WAF), {} rewritten by the host; {} reconstructed, {} kept in parity \
         only, {} skipped",
        ns(f.failed_at_ns as f64),
        f.chunks_lost_at_failure,
        f.chunks_lost_after_failure,
        f.chunks_lost_at_end,
        counted(f.pages_rebuilt, "page", "pages"),
        f.rewritten_by_host,
        counted(f.reads_reconstructed, "host read", "host reads"),
        counted(f.writes_absorbed, "write", "writes"),
        counted(f.parity_skipped, "parity update", "parity updates")
    );
    // A percentile is shown where the phase holds 10 samples beyond it.
    let cell = |l: &rainsim_model::metrics::fault_report::PhaseLatency| {
        let p = l.p99_9_us.map_or("-".to_string(), |v| ns(v * 1e3));
        format!("{:>9} {:>11} {:>11}", l.count, ns(l.mean_us * 1e3), p)
    };
    let _ = writeln!(
        o,
        "  {:<7}{:>9} {:>11} {:>11}{:>10} {:>11} {:>11}  (p99.9 where 10 lie beyond it)",
        "phase", "reads", "mean", "p99.9", "writes", "mean", "p99.9"
    );
    for (name, ph) in [("before", &f.before), ("during", &f.during), ("after", &f.after)] {
        let _ = writeln!(o, "  {name:<7}{} {}", cell(&ph.read), cell(&ph.write));
    }
    if let Some(x) = &f.second {
        let what = match x.outcome.as_str() {
            "data_loss" => format!(
                "before the rebuild ended: {} in {} lost, the run stopped",
                counted(x.chunks_lost, "chunk", "chunks"),
                counted(x.stripes_lost, "stripe", "stripes")
            ),
            "no_shared_stripe" => "before the rebuild ended, sharing no stripe with it: nothing lost, but two failed \
                                   channels at once are not modelled, the run stopped"
                .to_string(),
            _ => "after the rebuild ended: nothing lost".to_string(),
        };
        let _ = writeln!(o, "  second failure: channel {} at {} {what}", x.channel, ns(x.at_ns as f64));
    }
}

/// Several runs side by side, one column each.
pub fn side_by_side(runs: &[(String, Report)]) -> String {
    type Get = fn(&Report) -> String;
    let rows: &[(&str, Get)] = &[
        ("read mean", |r| ns(r.latency.read.mean_ns)),
        ("read p99", |r| pct(r.latency.read.p99_ns, 0.99, r.latency.read.count)),
        ("read p99.9", |r| pct(r.latency.read.p99_9_ns, 0.999, r.latency.read.count)),
        ("read p99.99", |r| pct(r.latency.read.p99_99_ns, 0.9999, r.latency.read.count)),
        ("write mean", |r| ns(r.latency.write.mean_ns)),
        ("write p99.9", |r| pct(r.latency.write.p99_9_ns, 0.999, r.latency.write.count)),
        ("all mean", |r| ns(r.latency.all.mean_ns)),
        ("overall I/O time", |r| ns(r.latency.all.sum_ns as f64)),
        ("IOPS", |r| format!("{:.1}", r.iops)),
        ("cv blocked", |r| format!("{:.3}", r.balance.cv_blocked)),
        ("cv completed", |r| format!("{:.3}", r.balance.cv_completed)),
        ("chan read p99.9 min", |r| ns(r.balance.read_tail.p99_9.min_ns as f64)),
        ("chan read p99.9 max", |r| ns(r.balance.read_tail.p99_9.max_ns as f64)),
        ("chi2 blocked", |r| format!("{:.1}", r.balance.blocked_chi2.statistic)),
        ("GC count", |r| r.channels.iter().map(|c| c.gc_count).sum::<u64>().to_string()),
        ("full-stripe writes", |r| r.raid.full_stripe_writes.to_string()),
        ("RMW", |r| r.raid.rmw.to_string()),
        ("RCW", |r| r.raid.rcw.to_string()),
        ("adjusted", |r| r.raid.adjusted.to_string()),
        ("adjusted share", |r| format!("{:.3}", r.raid.routines.adjusted)),
        ("pre-reads", |r| r.raid.prereads.to_string()),
        ("degraded reads", |r| r.raid.degraded_reads.to_string()),
        ("GC-tolerant reads", |r| r.raid.gc_tolerant_reads.to_string()),
        ("degraded updates", |r| r.raid.degraded_updates.to_string()),
        ("WAF", |r| format!("{:.3}", r.waf)),
        ("GC moves per GC", |r| format!("{:.1}", r.gc.moves_per_gc)),
        ("GC time (mean)", |r| ns(r.gc.mean_ns)),
        ("lifetime (predicted)", |r| lifetime(r.wear.predicted_lifetime_s)),
    ];
    let mut out = table(runs, 22, rows);
    if out.contains('*') {
        out.push_str(THIN_NOTE);
        out.push('\n');
    }
    // A failure's rows when a run has one ("-": that run has none).
    if runs.iter().any(|(_, r)| r.fault.is_some()) {
        type Fault = fn(&rainsim_model::metrics::fault_report::FaultReport) -> String;
        let fault_rows: &[(&str, Fault)] = &[
            ("fault: failed at", |f| ns(f.failed_at_ns as f64)),
            ("fault: rebuild time", |f| match (f.replaced_at_ns, f.rebuilt_at_ns) {
                (Some(a), Some(b)) => ns(b.saturating_sub(a) as f64),
                (Some(_), None) => "unfinished".into(),
                (None, _) => "no replacement".into(),
            }),
            ("fault: reads reconstr.", |f| f.reads_reconstructed.to_string()),
            ("fault: lost at end", |f| f.chunks_lost_at_end.to_string()),
            ("fault: read mean dur.", |f| ns(f.during.read.mean_us * 1e3)),
            ("fault: write mean dur.", |f| ns(f.during.write.mean_us * 1e3)),
        ];
        type Cell = Box<dyn Fn(&Report) -> String>;
        let rows: Vec<(&str, Cell)> = fault_rows
            .iter()
            .map(|&(name, get)| {
                let cell: Cell = Box::new(move |r| r.fault.as_ref().map_or("-".into(), get));
                (name, cell)
            })
            .collect();
        let body = table(runs, 22, &rows);
        out.push_str(body.split_once('\n').map_or("", |(_, rest)| rest));
    }
    out
}

/// Runs side by side: a column per run (headed by its label), a row per
/// metric (its name `name_width` wide) with each run's value.
pub fn table<T, F: Fn(&T) -> String>(runs: &[(String, T)], name_width: usize, rows: &[(&str, F)]) -> String {
    let mut o = String::new();
    let w = runs.iter().map(|(l, _)| l.len()).max().unwrap_or(8).clamp(12, 32);
    let _ = write!(o, "{:<name_width$}", "metric");
    for (l, _) in runs {
        let _ = write!(o, " {l:>w$}");
    }
    o.push('\n');
    for (name, get) in rows {
        let _ = write!(o, "{name:<name_width$}");
        for (_, r) in runs {
            let _ = write!(o, " {:>w$}", get(r));
        }
        o.push('\n');
    }
    o
}

#[cfg(test)]
#[path = "summary_tests.rs"]
pub(crate) mod tests;
