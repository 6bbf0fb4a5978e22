//! Rotating GC (`ftl.rotating_gc`, ttFlash): no two members of a stripe under
//! GC at once except counted forced overlaps, GC-tolerant reads always
//! finding their partners free, deferred GCs starting exactly when the
//! blocking GC ends, and verification on every scheme with it on.

use crate::{preset, scheme, tiny, trace_files};
use rainsim_model::config::Config;
use rainsim_model::ftl::GcWork;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::metrics::observer::Observer;
use rainsim_model::policy::gc_tolerant_read::GcTolerantRead;
use rainsim_model::policy::{DeviceView, GcScope, ReadRouting, ReadTarget, Route};
use rainsim_model::run::capacity_bytes;
use rainsim_model::Ssd;
use rainsim_trace::Request;
use std::cell::Cell;
use std::rc::Rc;

/// GC-tolerant routing that also counts reads whose die was in GC while a
/// partner's die was too (no rebuild could avoid the GC).
struct Watch {
    inner: GcTolerantRead,
    blocked: Rc<Cell<u64>>,
}

impl ReadRouting for Watch {
    fn route(&mut self, view: &DeviceView, read: &ReadTarget) -> Route {
        let in_gc = |die: u32| view.dies[die as usize].gc_until.is_some();
        if in_gc(read.target.die) && read.partners.iter().any(|m| in_gc(m.die)) {
            self.blocked.set(self.blocked.get() + 1);
        }
        self.inner.route(view, read)
    }
}

/// An aged preset where GC runs from the first request (as in `traces.rs`).
fn aged(name: &str, scheme_name: &str, rotating: bool) -> Config {
    let mut cfg = preset(name);
    cfg.policy = scheme(scheme_name).policy;
    crate::gc_from_start(&mut cfg);
    cfg.ftl.rotating_gc = rotating;
    cfg
}

fn workloads(cfg: &Config) -> Vec<(String, Vec<Request>)> {
    let mut v: Vec<(String, Vec<Request>)> = trace_files()
        .into_iter()
        .map(|path| {
            let t = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(cfg), cfg.geometry.page_bytes)
                .unwrap_or_else(|e| panic!("{e}"));
            (path.display().to_string(), t.requests)
        })
        .collect();
    let mut w = cfg.workload.clone();
    w.requests = 20_000;
    let syn = rainsim_trace::generate(&w, capacity_bytes(cfg), cfg.seed).unwrap_or_else(|e| panic!("{e}"));
    v.push(("synthetic".into(), syn.requests));
    v
}

/// Per run: (GCs, overlapping GC starts seen by the verifier, forced overlaps,
/// deferred GCs, reads blocked with a partner in GC, GC-tolerant reads).
fn run(cfg: &Config, requests: &[Request], at: &str) -> [u64; 6] {
    let mut ssd = Ssd::new(cfg, Collector::new(cfg.geometry.channels), true).unwrap();
    let blocked = Rc::new(Cell::new(0));
    ssd.set_read_routing(Box::new(Watch { inner: GcTolerantRead::new(GcScope::Die), blocked: blocked.clone() }));
    let totals = ssd.run(requests, &mut |_| {}).unwrap_or_else(|e| panic!("{at}: {e}"));
    assert_eq!(totals.completed, requests.len() as u64, "{at}");
    let o = &ssd.obs;
    [
        o.channels.iter().map(|c| c.gc_count).sum(),
        ssd.gc_overlaps_seen().expect("verify mode"),
        o.gc_forced_overlaps,
        o.gc_deferred,
        blocked.get(),
        o.raid.gc_tolerant_reads,
    ]
}

/// With rotation on, over every shared sample and the synthetic workload, the
/// verifier (which reads stripe membership from the mapping, not from the
/// rotation's columns) sees no GC start beside a stripe partner's GC but the
/// forced ones, and no GC-tolerant read finds a partner in GC. The same
/// checks see both happen with rotation off, so they can fail.
#[test]
fn no_two_stripe_members_collect_at_once_and_gc_tolerant_reads_find_partners_free() {
    for name in ["degraded-mode-8ch", "adaptive-parity-6ch"] {
        let mut sum_on = [0u64; 6];
        let mut sum_off = [0u64; 6];
        let mut most_deferred = 0;
        for (at, reqs) in workloads(&aged(name, "gc-tolerant-read", true)) {
            let at = format!("{name}, {at}");
            let on = run(&aged(name, "gc-tolerant-read", true), &reqs, &at);
            assert!(on[0] > 0, "{at}: no GC");
            assert!(on[1] <= on[2], "{at}: {} overlaps seen, {} forced", on[1], on[2]);
            if on[2] == 0 {
                assert_eq!(on[4], 0, "{at}: a GC-tolerant read found a partner in GC");
            }
            most_deferred = most_deferred.max(on[3]);
            let off = run(&aged(name, "gc-tolerant-read", false), &reqs, &at);
            for i in 0..6 {
                sum_on[i] += on[i];
                sum_off[i] += off[i];
            }
        }
        assert_eq!(sum_on[2], 0, "{name}: forced overlaps {sum_on:?}");
        assert!(sum_on[3] > 0, "{name}: rotation never deferred a GC: {sum_on:?}");
        // A deferral is counted once per due GC, so a die that collects again
        // is counted again: some run has more deferrals than dies.
        let g = aged(name, "gc-tolerant-read", true).geometry;
        let dies = (g.channels * g.chips_per_channel * g.dies_per_chip) as u64;
        assert!(most_deferred > dies, "{name}: at most {most_deferred} deferrals in a run on {dies} dies");
        assert!(sum_on[5] > 0, "{name}: no GC-tolerant read: {sum_on:?}");
        assert!(sum_off[1] > 0 && sum_off[4] > 0, "{name}: without rotation the checks saw nothing: {sum_off:?}");
        assert_eq!(sum_off[3], 0, "{name}: deferrals without rotation");
    }
}

/// `--verify` passes with rotation on for every scheme (degraded updates
/// included, whose chunks leave their stripe's channels) on every sample.
#[test]
fn verify_passes_with_rotating_gc_for_every_scheme() {
    for s in ["baseline", "gc-tolerant-read", "degraded", "bpu", "adaptive"] {
        let cfg = aged("degraded-mode-8ch", s, true);
        for (at, reqs) in workloads(&cfg) {
            let at = format!("{s}, {at}");
            let mut ssd = Ssd::new(&cfg, Collector::new(cfg.geometry.channels), true).unwrap();
            let totals = ssd.run(&reqs, &mut |_| {}).unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(totals.completed, reqs.len() as u64, "{at}");
            let seen = ssd.gc_overlaps_seen().unwrap();
            assert!(seen <= ssd.obs.gc_forced_overlaps, "{at}: {seen} overlaps");
        }
    }
}

/// GC intervals per channel, from the die busy probes (no host I/O here, so
/// every busy span is a GC).
#[derive(Default)]
struct Spans {
    busy: Vec<(u32, u64, u64)>,
    durations: Vec<(u32, u64)>,
    deferred: u64,
}
impl Observer for Spans {
    fn die_busy(&mut self, channel: u32, start: u64, end: u64) {
        self.busy.push((channel, start, end));
    }
    fn gc_done(&mut self, channel: u32, _w: &GcWork, duration: u64, _e: f64) {
        self.durations.push((channel, duration));
    }
    fn gc_deferred(&mut self, _channel: u32) {
        self.deferred += 1;
    }
}

/// 3 channels (the fewest a RAID-5 stripe takes), one die each, every plane
/// just below its GC threshold and above its reserve at time 0: with
/// rotation, channel 0 collects first and channels 1 and 2 follow exactly
/// when the GC before them ends; without, all three start at 0.
#[test]
fn a_deferred_gc_starts_exactly_when_the_blocking_gc_ends() {
    let mut cfg = tiny(3, 1, 1, 16, 8, Some(3));
    cfg.geometry.over_provisioning = 0.3;
    cfg.ftl.gc_threshold = 0.25; // GC below 4 free blocks
    cfg.ftl.wear_level_spread = 0;
    cfg.precondition.valid = 0.5;
    cfg.precondition.invalid = 0.3; // 13 of 16 blocks used: 3 free
    for rotating in [true, false] {
        cfg.ftl.rotating_gc = rotating;
        let mut ssd = Ssd::new(&cfg, Spans::default(), false).unwrap();
        ssd.run(&[], &mut |_| {}).unwrap();
        let o = &ssd.obs;
        let first = |ch: u32| *o.busy.iter().filter(|b| b.0 == ch).map(|(_, s, _)| s).min().unwrap();
        let dur = |ch: u32| o.durations.iter().find(|d| d.0 == ch).unwrap().1;
        assert!(dur(0) > 0 && dur(1) > 0);
        if rotating {
            assert_eq!([first(0), first(1), first(2)], [0, dur(0), dur(0) + dur(1)], "{:?}", o.busy);
            // Channels 1 and 2 at time 0, then every GC due while another runs.
            assert!(o.deferred >= 2, "{}", o.deferred);
            // All three channels share stripes: no two GCs ever overlap.
            for a in &o.busy {
                for b in &o.busy {
                    assert!(a == b || a.2 <= b.1 || b.2 <= a.1, "GCs {a:?} and {b:?} overlap");
                }
            }
        } else {
            assert_eq!([first(0), first(1), first(2)], [0, 0, 0]);
            assert_eq!(o.deferred, 0);
        }
    }
}

/// A die that fails and is never replaced while the channel's programs are
/// bound to dies (rotating GC binds a stripe to a die column; static
/// channel-first allocation binds chunk c to die ⌊c / channels⌋ mod 2): a
/// member bound to the failed die has no other die on that channel, so it
/// is written into parity alone (absorbed) and programs queued for the die
/// drain onto it, while the other members of that channel go to its other
/// die; every request completes under verify (the bound writes used to wait
/// for the dead die forever). Unbound, nothing is absorbed.
#[test]
fn a_failed_die_never_replaced_absorbs_only_the_writes_bound_to_it() {
    use rainsim_model::ftl::params::PageAllocation;
    // Channel 2's second die, or its first.
    let ch = 2u32;
    let cases = [
        (5, 0, "rotating"),
        (5, 2_000_000, "rotating"),
        (4, 2_000_000, "rotating"),
        (5, 0, "chip"),
        (5, 2_000_000, "chip"),
        (4, 0, "chip"),
        (5, 2_000_000, "free"),
    ];
    for (dead, at, binding) in cases {
        let (column, living) = (dead % 2, dead ^ 1);
        // 2+1 stripes on 4 channels (L = 4): stripe s binds to column
        // ⌊s / (L·3)⌋ mod 2 = ⌊s / 12⌋ mod 2, chunk c to die ⌊c / 4⌋ mod 2.
        let mut c = tiny(4, 2, 1, 64, 16, Some(3));
        c.policy = scheme("gc-tolerant-read").policy;
        crate::gc_from_start(&mut c);
        c.ftl.rotating_gc = binding == "rotating";
        if binding == "chip" {
            c.ftl.allocation = PageAllocation::StaticChannelFirst;
        }
        c.geometry.over_provisioning = 0.2;
        // Half full: the failed channel's other die takes all its writes.
        (c.precondition.valid, c.precondition.invalid) = (0.3, 0.1);
        (c.fault.die, c.fault.at_ns, c.fault.rebuild) = (Some(dead), at, false);
        let pages = capacity_bytes(&c) / 4096 - 2;
        let reqs = crate::xorshift_requests(0x9E37_79B9_7F4A_7C15, 3_000, 10_000, pages, 4, |_| 4096);
        let at_s = format!("die {dead} fails at {at} ns, {binding} binding");
        let mut ssd = Ssd::for_requests(&c, Collector::new(4), true, &reqs).unwrap();
        ssd.run(&reqs, &mut |_| {}).unwrap_or_else(|e| panic!("{at_s}: {e}"));
        let f = ssd.fault_report().unwrap();
        assert!(f.reads_reconstructed > 0, "{at_s}: {f:?}");
        let l = ssd.stripe_layout().clone();
        let bound = |s: u32, chunk: u32| match binding {
            "rotating" => s / 12 % 2 == column,
            "chip" => (chunk / 4) % 2 == column,
            _ => false,
        };
        // Each stripe written after the failure programs its member on
        // channel 2 when that is written data or the parity.
        let mut after = std::collections::BTreeMap::new();
        for r in reqs.iter().filter(|r| r.op == rainsim_trace::Op::Write && r.time_ns > at) {
            let (s, chunk) = l.chunk_of_lpn(r.offset / 4096);
            after.entry(s).or_insert_with(std::collections::BTreeSet::new).insert(chunk);
        }
        let (w, mut absorbed, mut elsewhere) = (l.width, [0u64; 2], 0);
        for (&s, written) in &after {
            let Some(m) = (s * w..(s + 1) * w).find(|&c| l.home_channel(c) == ch) else { continue };
            if !written.contains(&m) && !l.is_parity(m) {
                continue;
            }
            let die = ssd.ftl.lookup(m).map(|p| ssd.layout().die_of(p));
            if bound(s, m) {
                absorbed[l.is_parity(m) as usize] += 1;
                // No page on a living die (an old one on the failed die stays).
                let on_living = die.is_some_and(|d| d != dead);
                assert!(!on_living, "{at_s}: chunk {m} bound to the failed die on die {die:?}");
            } else {
                elsewhere += 1;
                assert_eq!(die, Some(living), "{at_s}: chunk {m} of stripe {s}");
            }
        }
        assert!(elsewhere > 0, "{at_s}");
        if binding == "free" {
            assert_eq!((f.writes_absorbed, f.parity_skipped), (0, 0), "{at_s}: {f:?}");
        } else {
            let [data, parity] = absorbed;
            assert!(data > 0 && f.writes_absorbed >= data, "{at_s}: {data} bound chunks written, {f:?}");
            assert!(parity > 0 && f.parity_skipped >= parity, "{at_s}: {parity} bound parity chunks, {f:?}");
        }
    }
}

/// Dies of an aged device under rotating GC fail at many moments of a
/// write-heavy load, replaced or not: the programs queued for a failed die
/// (bound to it, no other die may take them) drain onto it, collecting on
/// it for room when they need to, and every request finishes.
#[test]
fn bound_die_failures_at_any_moment_drain_and_finish_every_request() {
    for seed in 0..48u64 {
        let mut c = tiny(4, 2, 1, 24, 16, Some(4));
        crate::gc_from_start(&mut c);
        c.policy = scheme("gc-tolerant-read").policy;
        c.ftl.rotating_gc = true;
        c.geometry.over_provisioning = 0.2;
        (c.precondition.valid, c.precondition.invalid) = (0.6, 0.1);
        let at = 500_000 + seed * 211_000;
        (c.fault.die, c.fault.at_ns, c.fault.rebuild) = (Some((seed % 8) as u32), at, seed.is_multiple_of(3));
        let (x0, pages) = (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1, capacity_bytes(&c) / 4096 - 2);
        let reqs = crate::xorshift_requests(x0, 1_500, 8_000, pages, 5, |_| 4096);
        let mut ssd = Ssd::for_requests(&c, Collector::new(4), true, &reqs).unwrap();
        ssd.run(&reqs, &mut |_| {}).unwrap_or_else(|e| panic!("seed {seed}, failure at {at} ns: {e}"));
        let f = ssd.fault_report().unwrap();
        if c.fault.rebuild {
            assert!(f.replaced_at_ns.is_some() && f.chunks_lost_at_end == 0, "seed {seed}: {f:?}");
        }
    }
}
