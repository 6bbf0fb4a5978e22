//! Property tests: FTL and RAID invariants under random request streams.

use crate::tiny;
use proptest::prelude::*;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};

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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn invariants_hold_under_random_streams(
        reqs in requests(400),
        k in prop::sample::select(vec![0u32, 3, 4]),
        valid in prop::sample::select(vec![0.0, 0.5, 0.7]),
        read_priority in any::<bool>(),
        scheme in 0usize..3,
    ) {
        let mut cfg = tiny(4, 2, 2, 16, 8, if k == 0 { None } else { Some(k) });
        cfg.precondition.valid = valid;
        cfg.precondition.invalid = if valid > 0.0 { 0.1 } else { 0.0 };
        cfg.policy.read_priority = read_priority;
        // Baseline, GC-tolerant reads, degraded reads and updates (k < m = 4 only for k = 3).
        use rainsim_model::policy::{ReadRoutingKind as R, UpdatePlacementKind as U};
        (cfg.policy.read_routing, cfg.policy.update_placement) =
            [(R::Normal, U::StripeChannel), (R::GcTolerant, U::StripeChannel), (R::Degraded, U::Degraded)][scheme];
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
    }
}
