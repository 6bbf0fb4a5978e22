//! The JSON report of `rainsim run`: the keys tools rely on, their sanity and
//! the conservation laws between them. `check_report` is shared with the
//! trace and preset tests.

use crate::support::*;
use serde_json::Value;

const CLASSES: [&str; 3] = ["read", "write", "all"];
const CLASS_KEYS: [&str; 10] =
    ["count", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_999_ns", "max_ns", "sum_ns"];
/// Percentile keys in increasing order, with their quantile.
const PCTS: [(&str, f64); 7] = [
    ("p50_ns", 0.5),
    ("p90_ns", 0.9),
    ("p99_ns", 0.99),
    ("p99_9_ns", 0.999),
    ("p99_99_ns", 0.9999),
    ("p99_999_ns", 0.99999),
    ("max_ns", 1.0),
];
const CHANNEL_KEYS: [&str; 10] = [
    "ops",
    "avg_blocked",
    "blocked_sum",
    "busy_fraction",
    "gc_count",
    "pages_moved",
    "erases",
    "read_p99_ns",
    "read_p99_9_ns",
    "read_p99_99_ns",
];
/// Flash operations that channels count in `ops` (GC moves are separate).
const CHANNEL_ORIGINS: [&str; 6] =
    ["host_read", "host_program", "pre_read", "degraded_read", "parity_program", "replica_program"];
const FLASH_KEYS: [&str; 9] = [
    "host_read",
    "host_program",
    "pre_read",
    "degraded_read",
    "parity_program",
    "replica_program",
    "gc_read",
    "gc_program",
    "erase",
];
const RAID_KEYS: [&str; 8] = [
    "full_stripe_writes",
    "rmw",
    "rcw",
    "adjusted",
    "adjusted_to_rmw",
    "adjusted_to_rcw",
    "degraded_reads",
    "degraded_updates",
];
/// Per-channel read tail keys and their `balance.read_tail` spreads.
const TAILS: [(&str, &str); 3] = [("read_p99_ns", "p99"), ("read_p99_9_ns", "p99_9"), ("read_p99_99_ns", "p99_99")];

/// Population coefficient of variation, as the report defines it (0 when μ = 0).
fn cv(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return 0.0;
    }
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt() / mean
}

fn rel_close(what: &str, a: f64, b: f64) {
    assert_close(what, a, b, 1e-9 * b.abs().max(1.0));
}

/// Checks one latency class: keys, percentile order, mean and CDF.
fn check_class(r: &Value, class: &str) {
    let k = |key: &str| format!("latency.{class}.{key}");
    for key in CLASS_KEYS {
        at(r, &k(key));
    }
    let count = u(r, &k("count"));
    let sum = u(r, &k("sum_ns"));
    let mean = f(r, &k("mean_ns"));
    let vals: Vec<u64> = PCTS.iter().map(|(key, _)| u(r, &k(key))).collect();
    for i in 1..vals.len() {
        assert!(vals[i - 1] <= vals[i], "{class}: {} = {} > {} = {}", PCTS[i - 1].0, vals[i - 1], PCTS[i].0, vals[i]);
    }
    if count == 0 {
        assert_eq!((sum, mean, vals[6]), (0, 0.0, 0), "{class}: empty class with non-zero latencies");
        if class != "all" {
            // Omitted or empty (see `cdf_key_present_for_a_class_without_requests`).
            if let Some(c) = r["latency"][class].get("cdf") {
                assert!(c.as_array().is_some_and(|a| a.is_empty()), "{class}: CDF of an empty class: {c}");
            }
        }
        return;
    }
    rel_close(&format!("{class}: mean_ns vs sum_ns / count"), mean, sum as f64 / count as f64);
    assert!(mean <= vals[6] as f64, "{class}: mean {mean} > max {}", vals[6]);
    assert!(vals[6] > 0, "{class}: every request took 0 ns");
    assert!(sum >= vals[6], "{class}: sum_ns {sum} < max_ns {}", vals[6]);
    if class == "all" {
        return;
    }
    // CDF: non-empty, strictly increasing latency, non-decreasing fraction in
    // (0, 1], ending at (max, 1.0), and consistent with the percentiles.
    let cdf = at(r, &k("cdf")).as_array().unwrap_or_else(|| panic!("{class}: cdf is not an array"));
    assert!(!cdf.is_empty(), "{class}: empty CDF for {count} requests");
    let pts: Vec<(u64, f64)> = cdf
        .iter()
        .map(|p| {
            let a =
                p.as_array().filter(|a| a.len() == 2).unwrap_or_else(|| panic!("{class}: CDF point {p} is not a pair"));
            (a[0].as_u64().expect("CDF latency is an integer"), a[1].as_f64().expect("CDF fraction is a number"))
        })
        .collect();
    for w in pts.windows(2) {
        assert!(w[0].0 < w[1].0, "{class}: CDF latency not increasing: {:?} then {:?}", w[0], w[1]);
        assert!(w[0].1 <= w[1].1, "{class}: CDF fraction decreasing: {:?} then {:?}", w[0], w[1]);
    }
    assert!(pts[0].1 > 0.0, "{class}: CDF starts at fraction {}", pts[0].1);
    let last = *pts.last().expect("non-empty");
    assert_eq!(last.1, 1.0, "{class}: CDF ends at fraction {}", last.1);
    assert_eq!(last.0, vals[6], "{class}: CDF ends at {} ns, max_ns is {}", last.0, vals[6]);
    for ((key, q), v) in PCTS.iter().zip(&vals) {
        let point = pts.iter().find(|p| p.0 == *v).unwrap_or_else(|| panic!("{class}: {key} = {v} is not a CDF point"));
        assert!(point.1 >= q - 1e-9, "{class}: CDF at {key} = {v} ns is {} < {q}", point.1);
    }
}

/// Every check that holds for any successful run. `requests` is the number
/// of host requests the run must have completed.
pub fn check_report(r: &Value, requests: u64) {
    // Latency by class, and conservation between classes.
    for class in CLASSES {
        check_class(r, class);
    }
    let (rc, wc, ac) = (u(r, "latency.read.count"), u(r, "latency.write.count"), u(r, "latency.all.count"));
    assert_eq!(rc + wc, ac, "read.count + write.count != all.count");
    assert_eq!(ac, u(r, "trace.requests"), "all.count != trace.requests");
    assert_eq!(ac, requests, "completed requests");
    assert_eq!(
        u(r, "latency.read.sum_ns") + u(r, "latency.write.sum_ns"),
        u(r, "latency.all.sum_ns"),
        "read.sum_ns + write.sum_ns != all.sum_ns"
    );
    assert_eq!(
        u(r, "latency.all.max_ns"),
        u(r, "latency.read.max_ns").max(u(r, "latency.write.max_ns")),
        "all.max_ns != max(read.max_ns, write.max_ns)"
    );

    // Simulated time and IOPS.
    let span = u(r, "sim.span_ns");
    assert!(span > 0, "sim.span_ns = 0");
    assert!(span >= u(r, "trace.span_ns"), "simulation ended before the last arrival");
    rel_close("iops vs all.count / span", f(r, "iops"), ac as f64 * 1e9 / span as f64);

    // Channels.
    let channels = at(r, "channels").as_array().expect("channels is an array");
    assert_eq!(channels.len() as u64, u(r, "config.geometry.channels"), "channels.len() != config.geometry.channels");
    let mut origin_sums = [0u64; CHANNEL_ORIGINS.len()];
    let (mut ops, mut moved, mut erases) = (0, 0, 0);
    for (i, ch) in channels.iter().enumerate() {
        for key in CHANNEL_KEYS {
            at(ch, key);
        }
        // Not checked against 1 here: see `busy_fraction_is_at_most_one`.
        let busy = f(ch, "busy_fraction");
        if u(ch, "ops") > 0 {
            assert!(busy > 0.0, "channel {i}: {} ops but busy_fraction 0", u(ch, "ops"));
        }
        rel_close(
            &format!("channel {i}: avg_blocked vs blocked_sum / ops"),
            f(ch, "avg_blocked"),
            if u(ch, "ops") == 0 { 0.0 } else { u(ch, "blocked_sum") as f64 / u(ch, "ops") as f64 },
        );
        let tails: Vec<u64> = TAILS.iter().map(|(k, _)| u(ch, k)).collect();
        assert!(tails.windows(2).all(|w| w[0] <= w[1]), "channel {i}: read tails not increasing: {tails:?}");
        let mut by_origin = 0;
        for (j, o) in CHANNEL_ORIGINS.iter().enumerate() {
            let n = u(ch, &format!("ops_by_origin.{o}"));
            origin_sums[j] += n;
            by_origin += n;
        }
        assert_eq!(u(ch, "ops"), by_origin, "channel {i}: ops != sum of ops_by_origin");
        ops += u(ch, "ops");
        moved += u(ch, "pages_moved");
        erases += u(ch, "erases");
        u(ch, "gc_count");
        u(ch, "read_p99_9_ns");
    }

    // Flash operations against the channels.
    for key in FLASH_KEYS {
        u(r, &format!("flash_ops.{key}"));
    }
    let flash_sum: u64 = CHANNEL_ORIGINS.iter().map(|o| u(r, &format!("flash_ops.{o}"))).sum();
    assert_eq!(ops, flash_sum, "sum of channel ops != the sum of flash_ops by origin");
    for (j, o) in CHANNEL_ORIGINS.iter().enumerate() {
        assert_eq!(
            origin_sums[j],
            u(r, &format!("flash_ops.{o}")),
            "sum of channels' ops_by_origin.{o} != flash_ops.{o}"
        );
    }
    assert_eq!(u(r, "flash_ops.gc_read"), u(r, "flash_ops.gc_program"), "gc_read != gc_program");
    assert_eq!(u(r, "flash_ops.gc_read"), moved, "gc_read != sum of channels' pages_moved");
    assert_eq!(u(r, "flash_ops.erase"), erases, "flash_ops.erase != sum of channels' erases");
    if wc > 0 {
        assert!(u(r, "flash_ops.host_program") > 0, "{wc} writes but no host program");
    }

    // Balance: recomputed from the channels.
    let col = |key: &str| channels.iter().map(|c| f(c, key)).collect::<Vec<_>>();
    rel_close("balance.cv_blocked", f(r, "balance.cv_blocked"), cv(&col("avg_blocked")));
    rel_close("balance.cv_completed", f(r, "balance.cv_completed"), cv(&col("ops")));
    rel_close("balance.cv_gc", f(r, "balance.cv_gc"), cv(&col("gc_count")));
    check_read_tail(r, channels);
    check_chi2(r, channels);

    // RAID and write amplification.
    for key in RAID_KEYS {
        u(r, &format!("raid.{key}"));
    }
    let width = u(r, "config.raid.stripe_width");
    assert!((3..=channels.len() as u64).contains(&width), "config.raid.stripe_width = {width}");
    assert_eq!(u(r, "raid.prereads"), u(r, "flash_ops.pre_read"), "pre-reads issued != pre-reads completed");
    check_routines(r);
    let hp = u(r, "flash_ops.host_program");
    let waf = f(r, "waf");
    if hp > 0 {
        let all_programs =
            hp + u(r, "flash_ops.parity_program") + u(r, "flash_ops.replica_program") + u(r, "flash_ops.gc_program");
        rel_close("waf vs all programs / host programs", waf, all_programs as f64 / hp as f64);
        assert!(waf >= 1.0, "waf {waf} < 1");
    }

    // LDPC: a section exactly when the model is on, counting every flash read.
    let ldpc_on = at(r, "config.ldpc.enabled").as_bool().expect("config.ldpc.enabled is a bool");
    assert_eq!(!r["ldpc"].is_null(), ldpc_on, "ldpc section present iff config.ldpc.enabled");
    if ldpc_on {
        let by: Vec<u64> = at(r, "ldpc.reads_by_level")
            .as_array()
            .expect("ldpc.reads_by_level is an array")
            .iter()
            .map(|v| v.as_u64().expect("a count"))
            .collect();
        let levels = at(r, "config.ldpc.retries").as_array().map(Vec::len);
        assert_eq!(Some(by.len()), levels, "one ldpc.reads_by_level entry per level");
        let reads: u64 =
            ["host_read", "pre_read", "degraded_read"].iter().map(|o| u(r, &format!("flash_ops.{o}"))).sum();
        assert_eq!(by.iter().sum::<u64>(), reads, "ldpc.reads_by_level != host + pre + degraded flash reads");
    }

    // Identity of the run.
    assert!(at(r, "config").is_object(), "config is not an object");
    for key in ["path", "format"] {
        assert!(!s(r, &format!("trace.{key}")).is_empty(), "trace.{key} is empty");
    }
    let sha = s(r, "trace.sha256");
    assert!(sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit()), "trace.sha256 = {sha}");
    assert_eq!(u(r, "seed"), u(r, "config.seed"), "seed != config.seed");
    assert_eq!(s(r, "version"), env!("CARGO_PKG_VERSION"), "version");
    // Timing is filled in: the run took wall time, and its rate is requests per CPU second.
    assert!(f(r, "timing.wall_s") > 0.0, "timing.wall_s not filled in");
    let cpu = f(r, "timing.cpu_s");
    let rate = if cpu > 0.0 { requests as f64 / cpu } else { 0.0 };
    rel_close("timing.requests_per_cpu_s vs requests / cpu_s", f(r, "timing.requests_per_cpu_s"), rate);
}

/// `balance.read_tail`: min, mean and max of each per-channel read tail over
/// the channels that served host reads.
fn check_read_tail(r: &Value, channels: &[Value]) {
    let served: Vec<&Value> = channels.iter().filter(|c| u(c, "reads") > 0).collect();
    assert_eq!(u(r, "balance.read_tail.channels"), served.len() as u64, "balance.read_tail.channels");
    for (key, name) in TAILS {
        let xs: Vec<u64> = served.iter().map(|c| u(c, key)).collect();
        let k = |part: &str| format!("balance.read_tail.{name}.{part}");
        let (min, max) = (xs.iter().min().copied().unwrap_or(0), xs.iter().max().copied().unwrap_or(0));
        let mean = if xs.is_empty() { 0.0 } else { xs.iter().sum::<u64>() as f64 / xs.len() as f64 };
        assert_eq!((u(r, &k("min_ns")), u(r, &k("max_ns"))), (min, max), "{name} min/max over {xs:?}");
        rel_close(&k("mean_ns"), f(r, &k("mean_ns")), mean);
    }
}

/// `balance.blocked_chi2`: Pearson's χ² of the channels' `blocked_sum`
/// against their mean, with channels − 1 degrees of freedom.
fn check_chi2(r: &Value, channels: &[Value]) {
    let obs: Vec<f64> = channels.iter().map(|c| u(c, "blocked_sum") as f64).collect();
    let e = obs.iter().sum::<f64>() / obs.len() as f64;
    let chi2 = if e == 0.0 { 0.0 } else { obs.iter().map(|o| (o - e).powi(2) / e).sum() };
    rel_close("balance.blocked_chi2.statistic", f(r, "balance.blocked_chi2.statistic"), chi2);
    assert_eq!(u(r, "balance.blocked_chi2.dof"), channels.len() as u64 - 1, "balance.blocked_chi2.dof");
    let p = f(r, "balance.blocked_chi2.p_value");
    assert!((0.0..=1.0).contains(&p), "balance.blocked_chi2.p_value = {p}");
}

/// `raid.routines` (Fig. 6): fewest-pre-reads RMW, RCW and adjusted updates
/// as shares of all RMW and RCW updates.
fn check_routines(r: &Value) {
    let (rmw, rcw, adj) = (u(r, "raid.rmw"), u(r, "raid.rcw"), u(r, "raid.adjusted"));
    let (to_rmw, to_rcw) = (u(r, "raid.adjusted_to_rmw"), u(r, "raid.adjusted_to_rcw"));
    assert_eq!(to_rmw + to_rcw, adj, "adjusted_to_rmw + adjusted_to_rcw != adjusted");
    assert!(to_rmw <= rmw && to_rcw <= rcw, "more adjusted decisions than updates of that routine");
    let n = (rmw + rcw) as f64;
    let share = |x: u64| if n == 0.0 { 0.0 } else { x as f64 / n };
    rel_close("raid.routines.rmw", f(r, "raid.routines.rmw"), share(rmw - to_rmw));
    rel_close("raid.routines.rcw", f(r, "raid.routines.rcw"), share(rcw - to_rcw));
    rel_close("raid.routines.adjusted", f(r, "raid.routines.adjusted"), share(adj));
}

/// Item 1: the built-in workload on the default preset.
#[test]
fn synthetic_default_run_has_complete_consistent_report() {
    let dir = TempDir::new("default-run");
    let r = run_report(&dir, "default", &[]);
    let requests = u(&r, "config.workload.requests");
    assert!(requests >= 1000, "default workload has only {requests} requests");
    check_report(&r, requests);
    assert_eq!(s(&r, "trace.format"), "synthetic");
    assert_eq!(u(&r, "seed"), 1, "default preset seed");
    assert_eq!(s(&r, "scheme"), "baseline");
    // The default preset: 8 channels, RAID-5 3+1, both classes present.
    assert_eq!(u(&r, "config.geometry.channels"), 8);
    assert_eq!(u(&r, "config.raid.stripe_width"), 4);
    assert!(u(&r, "latency.read.count") > 0 && u(&r, "latency.write.count") > 0);
    // The synthetic mix is 30 % reads by default.
    let read_frac = u(&r, "latency.read.count") as f64 / requests as f64;
    assert_close("read fraction", read_frac, f(&r, "config.workload.read_ratio"), 0.02);
    // "Aged so that GC is active from the start".
    assert!(u(&r, "flash_ops.gc_read") > 0, "no GC on the aged default device");
    assert!(u(&r, "raid.full_stripe_writes") + u(&r, "raid.rmw") + u(&r, "raid.rcw") > 0, "no RAID writes");
    assert!(u(&r, "flash_ops.parity_program") > 0, "RAID-5 without parity programs");
    assert!(f(&r, "iops") > 0.0);
}

/// Without `--quiet`, `run` prints a summary, the verify verdict and where the report went.
#[test]
fn run_prints_summary_verify_verdict_and_report_path() {
    let dir = TempDir::new("summary");
    let out = dir.join("r.json");
    let o = rainsim(["run", "--verify", "--set", "workload.requests=2000", "--out", p(&out)]).ok();
    let r = read_json(&out);
    check_report(&r, 2000);
    let text = &o.stdout;
    assert!(text.starts_with(&format!("rainsim {}", env!("CARGO_PKG_VERSION"))), "summary header:\n{text}");
    assert!(text.contains("scheme baseline") && text.contains("seed 1"), "summary header:\n{text}");
    for row in ["read", "write", "all"] {
        let line =
            text.lines().find(|l| l.trim_start().starts_with(row)).unwrap_or_else(|| panic!("no `{row}` row:\n{text}"));
        let count: u64 = line.split_whitespace().nth(1).and_then(|c| c.parse().ok()).expect("count column");
        assert_eq!(count, u(&r, &format!("latency.{row}.count")), "summary `{row}` count vs JSON");
    }
    assert_eq!(
        text.lines().filter(|l| l.split_whitespace().next().is_some_and(|w| w.parse::<u32>().is_ok())).count(),
        8,
        "one summary row per channel:\n{text}"
    );
    assert!(text.contains("verify: passed"), "no verify verdict:\n{text}");
    assert!(text.contains(&format!("report written to {}", out.display())), "no report path:\n{text}");
}

/// The line after a request log counts its rows in words that agree.
#[test]
fn run_says_how_many_requests_its_request_log_holds() {
    let dir = TempDir::new("log-count");
    let log = dir.join("log.parquet");
    for (n, says) in [(1, "request log (1 request) written to"), (3, "request log (3 requests) written to")] {
        let o = rainsim(["run", "--set", &format!("workload.requests={n}"), "--request-log", p(&log)]).ok();
        assert!(o.stdout.contains(says), "`{says}` in\n{}", o.stdout);
    }
}

/// `raid.level = "none"`: no parity, no stripe decisions, plain writes only.
#[test]
fn raid_off_writes_no_parity() {
    let dir = TempDir::new("raid-off");
    let r = run_report(&dir, "none", &["--set", "workload.requests=2000", "--set", "raid.level=none"]);
    check_report(&r, 2000);
    assert_eq!(s(&r, "config.raid.level"), "none");
    assert_eq!(u(&r, "flash_ops.parity_program"), 0, "parity programs with RAID off");
    for key in ["full_stripe_writes", "rmw", "rcw", "adjusted"] {
        assert_eq!(u(&r, &format!("raid.{key}")), 0, "raid.{key} with RAID off");
    }
    assert!(u(&r, "raid.plain_writes") > 0, "no plain writes with RAID off");
}

/// The report documents `cdf` as omitted for `all` only; a class without
/// requests (here: a read-only workload has no writes) should still carry
/// `latency.write.cdf` (empty), since tools read that key unconditionally.
#[test]
fn cdf_key_present_for_a_class_without_requests() {
    let dir = TempDir::new("read-only");
    let r = run_report(&dir, "ro", &["--set", "workload.requests=500", "--set", "workload.read_ratio=1"]);
    check_report(&r, 500);
    assert_eq!(u(&r, "latency.write.count"), 0);
    assert!(r["latency"]["write"].get("cdf").is_some(), "latency.write.cdf missing: {}", r["latency"]["write"]);
}

/// `busy_fraction` is a fraction: die busy time, including GC before the
/// first arrival or after the last completion, never exceeds dies × the
/// active span it is divided by.
#[test]
fn busy_fraction_is_at_most_one() {
    let dir = TempDir::new("busy");
    let t = trace("umass_websearch1_head10.spc");
    let r = run_report(&dir, "busy", &["--trace", p(&t), "--config", "degraded-mode-8ch"]);
    for (i, ch) in at(&r, "channels").as_array().expect("channels").iter().enumerate() {
        let busy = f(ch, "busy_fraction");
        assert!(busy <= 1.0, "channel {i}: busy_fraction {busy} > 1");
    }
}

/// The summary marks a percentile with fewer than 10 samples beyond it (it
/// is about the maximum) and says when a run saturated the device, by the
/// results pages' rule; neither on a run of enough samples at a light load.
#[test]
fn the_summary_marks_thin_percentiles_and_saturation() {
    let light = rainsim(["run", "--set", "workload.requests=20000"]).ok().stdout;
    let all = light.lines().find(|l| l.trim_start().starts_with("all ")).expect("an all row");
    // 20,000 samples: p99 and p99.9 hold 200 and 20 beyond them, p99.99 2.
    assert_eq!(all.matches('*').count(), 1, "{all}");
    // The mark is p99.99's: only max and sum (a value and a unit each) follow it.
    assert_eq!(all.split('*').nth(1).map(|rest| rest.split_whitespace().count()), Some(4), "{all}");
    assert!(light.contains("* fewer than 10 samples lie beyond"), "{light}");
    assert!(!light.contains("saturated:"), "{light}");
    let heavy = rainsim(["run", "--set", "workload.requests=20000", "--set", "workload.mean_interarrival_ns=20000"])
        .ok()
        .stdout;
    assert!(heavy.contains("saturated: its busiest channel was busy"), "{heavy}");
    assert!(heavy.contains("workload.mean_interarrival_ns"), "{heavy}");
}

/// A format decided by the alignment rule is warned about on stderr, unless
/// `--quiet`; the report says it either way.
#[test]
fn run_warns_of_a_detected_format_unless_quiet() {
    let t = trace("msr.cut.per_10k.most_thpt_rand_iops.1006.trace");
    let warning = "detected as msr-window (addresses and sizes in bytes) only because";
    let loud = rainsim(["run", "--trace", p(&t)]).ok();
    assert!(loud.stderr.contains(&format!("warning: {}: {warning}", t.display())), "{}", loud.stderr);
    let dir = TempDir::new("quiet-detect");
    let out = dir.join("r.json");
    let quiet = rainsim(["run", "--trace", p(&t), "--quiet", "--out", p(&out)]).ok();
    assert!(!quiet.stderr.contains("warning"), "{}", quiet.stderr);
    assert!(s(&read_json(&out), "trace.detection").contains(warning));
}
