//! Dispatch starts an operation for an idle die that would take it next
//! without queueing it (`Ssd::enqueue_read_at`, `Ssd::enqueue_program`). The
//! shortcut must change nothing: every report equals the one of the same run
//! with every operation queued and popped (`Ssd::queue_every_operation`).

use crate::{gc_from_start, preset, scheme, tiny, xorshift_requests};
use rainsim_model::config::Config;
use rainsim_model::ftl::params::PageAllocation;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::run::report_of;
use rainsim_model::Ssd;
use rainsim_trace::Request;

/// A run's report (as JSON), how many operations it started and how many
/// reads and programs started without their queue; or the error that
/// stopped it.
type Run = Result<(String, u64, [u64; 2]), String>;

/// `requests` on `cfg` under verification, with the shortcut or with every
/// operation queued.
fn report(cfg: &Config, requests: &[Request], queued: bool) -> Run {
    let mut ssd = Ssd::for_requests(cfg, Collector::new(cfg.geometry.channels), true, requests).unwrap();
    if queued {
        ssd.queue_every_operation();
    }
    ssd.run(requests, &mut |_| {}).map_err(|e| e.to_string())?;
    let r = report_of(&mut ssd, cfg, "any", serde_json::Value::Null);
    let ops = r.channels.iter().map(|c| c.ops).sum();
    let t = ssd.totals();
    Ok((serde_json::to_string(&r).unwrap(), ops, [t.direct_reads, t.direct_programs]))
}

/// Whether two runs of one case agree on everything but the count of
/// direct starts, which the queued one must not have made.
fn agree(direct: &Run, queued: &Run) -> bool {
    match (direct, queued) {
        (Ok((a, n, _)), Ok((b, m, [0, 0]))) => a == b && n == m,
        (Err(a), Err(b)) => a == b,
        _ => false,
    }
}

/// The cases: small RAID-5 devices aged to GC from the first request (dies
/// collect, fill and refuse programs), with and without read priority,
/// under both page allocations and several schemes, from saturated to
/// lightly loaded; requests of one to three pages, one in two to four a read.
fn cases() -> Vec<(String, Config, Vec<Request>)> {
    let mut out = Vec::new();
    let mut k = 0u64;
    for scheme_name in ["baseline", "bpu", "degraded", "gc-tolerant-read", "cr5m", "fusionraid"] {
        for (read_priority, allocation) in [
            (true, PageAllocation::RoundRobin),
            (false, PageAllocation::RoundRobin),
            (true, PageAllocation::Dynamic),
            (false, PageAllocation::Dynamic),
        ] {
            k += 1;
            let mut c = tiny(4, 2, 2, 24, 16, Some(4));
            gc_from_start(&mut c);
            c.geometry.over_provisioning = 0.25;
            // Replicas take room of their own.
            c.precondition.valid = if matches!(scheme_name, "cr5m" | "fusionraid") { 0.4 } else { 0.7 };
            c.policy = scheme(scheme_name).policy;
            c.policy.read_priority = read_priority;
            c.ftl.allocation = allocation;
            c.seed = k;
            // Over 3/8 of the device's 3,072 physical pages.
            let pages = 3072 * 3 / 8;
            let gap = [40_000, 150_000, 600_000][k as usize % 3];
            let reqs = xorshift_requests(k * 7919 + 1, 1500, gap, pages, 2 + k % 3, |x| 4096 * (1 + (x % 3) as u32));
            out.push((format!("{scheme_name}, read priority {read_priority}, {allocation:?}"), c, reqs));
        }
    }
    out
}

#[test]
fn starting_at_once_changes_no_report() {
    let (mut ops, mut started, mut ran) = (0, [0, 0], 0);
    for (name, cfg, reqs) in cases() {
        let direct = report(&cfg, &reqs, false);
        let queued = report(&cfg, &reqs, true);
        assert!(agree(&direct, &queued), "{name}: the run moved with the direct starts");
        if let Ok((_, n, [r, p])) = direct {
            ops += n;
            started[0] += r;
            started[1] += p;
            ran += 1;
        }
    }
    assert!(ran >= 20 && ops > 100_000, "the cases ran too little to tell: {ran} runs, {ops} operations");
    // Both paths were taken often (these devices collect from the start, so
    // most operations wait): thousands started at once, most queued.
    let [reads, programs] = started;
    assert!(
        reads > ops / 50 && programs > ops / 50 && reads + programs < ops / 2,
        "{reads} reads and {programs} programs of {ops} operations started at once"
    );
}

/// The same on a preset as shipped (packed ageing, 8 channels, GC from the
/// first writes, fewer blocks), under the baseline and Rep-RAID's
/// replication.
#[test]
fn starting_at_once_changes_no_report_on_a_preset() {
    for name in ["baseline", "rep-raid"] {
        let mut cfg = preset("rep-raid-8ch");
        cfg.policy = scheme(name).policy;
        cfg.geometry.blocks_per_plane = 64;
        let span = rainsim_model::run::capacity_bytes(&cfg) / 4096;
        let reqs = xorshift_requests(99, 6000, 60_000, span, 3, |x| 4096 * (1 + (x % 4) as u32));
        let direct = report(&cfg, &reqs, false);
        let queued = report(&cfg, &reqs, true);
        assert!(direct.is_ok() && agree(&direct, &queued), "{name}: the report moved with the direct starts");
        let [reads, programs] = direct.unwrap().2;
        assert!(reads > 0 && programs > 0, "{name}: {reads} reads and {programs} programs started at once");
    }
}
