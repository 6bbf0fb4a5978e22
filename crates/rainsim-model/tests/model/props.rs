//! Property tests: FTL and RAID invariants under random request streams, on
//! every combination of the discrete parameters, with proof that the runs
//! exercised GC, both parity-update routines and the degraded paths.

use crate::tiny;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestCaseResult, TestRng, TestRunner};
use rainsim_model::metrics::collector::Collector;
use rainsim_model::policy::{ReadRoutingKind as R, UpdatePlacementKind as U};
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};
use std::cell::Cell;

fn requests(max_lpn: u64) -> impl Strategy<Value = Vec<Request>> {
    prop::collection::vec((0u64..2_000_000, 0..max_lpn * 4096, 1u32..20_000, prop::bool::weighted(0.7)), 1..300)
        .prop_map(move |mut v| {
            v.sort_by_key(|x| x.0);
            v.into_iter()
                .map(|(t, off, size, write)| {
                    let cap = max_lpn * 4096;
                    let size = size.min((cap - off) as u32).max(1);
                    Request { time_ns: t, offset: off, size, device: 0, op: if write { Op::Write } else { Op::Read } }
                })
                .collect()
        })
}

/// Stripe width (0 = no RAID), precondition.valid, read priority, scheme.
const WIDTHS: [u32; 3] = [0, 3, 4];
const VALID: [f64; 3] = [0.0, 0.5, 0.7];
/// Baseline, GC-tolerant reads, degraded reads and updates (k < m = 4 only for k = 3).
const SCHEMES: [(R, U); 3] =
    [(R::Normal, U::StripeChannel), (R::GcTolerant, U::StripeChannel), (R::Degraded, U::Degraded)];
/// 3 × 3 × 2 × 3 = 54 combinations, each run on this many random streams.
const CASES_PER_COMBINATION: u32 = 16;

/// What the runs did, summed over every case.
#[derive(Default)]
struct Seen {
    cases: Cell<u64>,
    gc: Cell<u64>,
    rmw: Cell<u64>,
    rcw: Cell<u64>,
    gc_tolerant_reads: Cell<u64>,
    degraded_reads: Cell<u64>,
    degraded_updates: Cell<u64>,
}

fn add(c: &Cell<u64>, n: u64) {
    c.set(c.get() + n);
}

fn check(k: u32, valid: f64, read_priority: bool, scheme: usize, reqs: Vec<Request>, seen: &Seen) -> TestCaseResult {
    let mut cfg = tiny(4, 2, 2, 16, 8, if k == 0 { None } else { Some(k) });
    cfg.precondition.valid = valid;
    cfg.precondition.invalid = if valid > 0.0 { 0.1 } else { 0.0 };
    cfg.policy.read_priority = read_priority;
    (cfg.policy.read_routing, cfg.policy.update_placement) = SCHEMES[scheme];
    cfg.ftl.gc_threshold = 0.2;
    cfg.geometry.over_provisioning = 0.3;
    let mut ssd = Ssd::new(&cfg, Collector::new(4), true).unwrap();
    let cap_pages = ssd.capacity_bytes() / 4096;
    let reqs: Vec<Request> = reqs.into_iter().filter(|r| r.offset + r.size as u64 <= cap_pages * 4096).collect();
    prop_assume!(!reqs.is_empty());
    let totals = ssd.run(&reqs, &mut |_| {}).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(totals.completed, reqs.len() as u64);
    // Mapping is a bijection between mapped chunks and valid pages.
    let mut mapped = 0u64;
    for c in 0..ssd.ftl.map.chunks() as u32 {
        if let Some(p) = ssd.ftl.lookup(c) {
            mapped += 1;
            prop_assert_eq!(ssd.ftl.map.owner(p), Some(c));
        }
    }
    let valid_pages: u64 = ssd.ftl.blocks.iter().map(|b| b.valid as u64).sum();
    prop_assert_eq!(mapped, valid_pages);
    for plane in 0..ssd.layout().planes() {
        let (f, v, i, t) = ssd.ftl.plane_accounting(plane);
        prop_assert_eq!(f + v + i, t, "plane {}", plane);
        // The victim index agrees with a plain greedy scan.
        let first = ssd.layout().first_block(plane);
        let indexed = ssd.ftl.victim(plane).map(|b| ssd.ftl.blocks[(first + b) as usize].valid);
        prop_assert_eq!(indexed, ssd.ftl.scan_min_valid(plane), "plane {}", plane);
    }
    let o = &ssd.obs;
    add(&seen.cases, 1);
    add(&seen.gc, o.channels.iter().map(|c| c.gc_count).sum());
    add(&seen.rmw, o.raid.rmw);
    add(&seen.rcw, o.raid.rcw);
    add(&seen.gc_tolerant_reads, o.raid.gc_tolerant_reads);
    add(&seen.degraded_reads, o.raid.degraded_reads);
    add(&seen.degraded_updates, o.raid.degraded_updates);
    Ok(())
}

#[test]
fn invariants_hold_under_random_streams() {
    let seen = Seen::default();
    let mut combinations = 0;
    for k in WIDTHS {
        for valid in VALID {
            for read_priority in [false, true] {
                for scheme in 0..SCHEMES.len() {
                    combinations += 1;
                    // Seeded per combination, so that what the runs exercise is stable.
                    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[combinations as u8; 32]);
                    let mut runner = TestRunner::new_with_rng(
                        RunnerConfig {
                            cases: CASES_PER_COMBINATION,
                            failure_persistence: None,
                            ..RunnerConfig::default()
                        },
                        rng,
                    );
                    runner
                        .run(&requests(400), |reqs| check(k, valid, read_priority, scheme, reqs, &seen))
                        .unwrap_or_else(|e| {
                            panic!("k {k}, valid {valid}, read priority {read_priority}, scheme {scheme}: {e}")
                        });
                }
            }
        }
    }
    assert_eq!(combinations, 54);
    let s = |c: &Cell<u64>| c.get();
    assert!(s(&seen.cases) >= 54 * CASES_PER_COMBINATION as u64 * 9 / 10, "{} cases ran", s(&seen.cases));
    for (what, n) in [
        ("GC", s(&seen.gc)),
        ("RMW", s(&seen.rmw)),
        ("RCW", s(&seen.rcw)),
        ("GC-tolerant reads", s(&seen.gc_tolerant_reads)),
        ("degraded reads", s(&seen.degraded_reads)),
        ("degraded updates", s(&seen.degraded_updates)),
    ] {
        assert!(n > 0, "no {what} in any case: the streams never exercised it");
    }
    eprintln!(
        "props: {} cases, {} GCs, {} RMW, {} RCW, {} GC-tolerant reads, {} degraded reads, {} degraded updates",
        s(&seen.cases),
        s(&seen.gc),
        s(&seen.rmw),
        s(&seen.rcw),
        s(&seen.gc_tolerant_reads),
        s(&seen.degraded_reads),
        s(&seen.degraded_updates)
    );
}
