//! Transforms through `load` and as public functions.

use crate::common::*;
use proptest::prelude::*;
use rainsim_trace::transform::{compact, repeat, scale_time, wrap};
use rainsim_trace::{AddressMap, Op, Request, TraceOptions};

fn rq(offset: u64, size: u32) -> Request {
    Request { time_ns: 0, offset, size, device: 0, op: Op::Write }
}

#[test]
fn wrap_hand_computed() {
    // Capacity 8 pages of 4 KiB = 32 KiB.
    let mut v =
        vec![rq(0, 4096), rq(9 * 4096 + 100, 512), rq(7 * 4096 + 512, 4096), rq(15 * 4096, 8192), rq(40 * 4096, 4096)];
    wrap(&mut v, 32 * 1024, 4096).unwrap();
    let offs: Vec<u64> = v.iter().map(|r| r.offset).collect();
    // page 9 → 1; page 7 spanning 2 pages → moved back to 6; page 15 (2 pages) → 7 → 6; page 40 → 0.
    assert_eq!(offs, [0, 4096 + 100, 6 * 4096 + 512, 6 * 4096, 0]);
    assert!(v.iter().all(|r| r.offset + u64::from(r.size) <= 32 * 1024));
    let mut big = vec![rq(0, 33 * 1024)];
    let msg = wrap(&mut big, 32 * 1024, 4096).unwrap_err().to_string();
    assert!(msg.contains("more than the capacity"), "{msg}");
}

#[test]
fn compact_hand_computed() {
    // Touched pages: 1000, 1001 (one request across both), 5, 70000.
    let mut v =
        vec![rq(1000 * 4096 + 2048, 4096), rq(5 * 4096, 100), rq(70_000 * 4096 + 4000, 96), rq(1001 * 4096, 4096)];
    compact(&mut v, 4 * 4096, 4096).unwrap();
    let offs: Vec<u64> = v.iter().map(|r| r.offset).collect();
    assert_eq!(offs, [4096 + 2048, 0, 3 * 4096 + 4000, 2 * 4096]);
    let msg = compact(&mut v, 3 * 4096, 4096).unwrap_err().to_string();
    assert!(msg.contains("touches 4 distinct pages"), "{msg}");
}

#[test]
fn compact_fits_a_huge_address_space_into_a_small_device() {
    // SYSTOR offsets reach 4 TB; the slice touches far fewer pages.
    let o = TraceOptions { address_map: AddressMap::Compact, ..Default::default() };
    let p = sample("systor17_lun0_slice999.csv");
    let cap = 64 << 20;
    let t = rainsim_trace::load(&p, &o, cap, PAGE).unwrap();
    assert!(t.requests.iter().all(|r| r.offset + u64::from(r.size) <= cap));
    let orig = load_sample("systor17_lun0_slice999.csv");
    for (a, b) in orig.requests.iter().zip(&t.requests) {
        assert_eq!((a.time_ns, a.size, a.op, a.offset % 4096), (b.time_ns, b.size, b.op, b.offset % 4096));
    }
    let w = rainsim_trace::load(&p, &TraceOptions::default(), cap, PAGE).unwrap();
    assert!(w.requests.iter().all(|r| r.offset + u64::from(r.size) <= cap));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Compact keeps in-page offsets, page order, and byte-contiguity.
    #[test]
    fn compact_preserves_order_and_contiguity(
        reqs in prop::collection::vec((0u64..5_000, 0u64..4096, 1u32..20_000), 1..60),
        chain in prop::collection::vec(any::<bool>(), 60),
    ) {
        let page = 4096u64;
        let mut v: Vec<Request> = Vec::new();
        for (i, &(p, inpage, size)) in reqs.iter().enumerate() {
            // Sometimes start exactly where the previous request ended.
            let offset = match v.last() {
                Some(prev) if chain[i] => prev.offset + u64::from(prev.size),
                _ => p * page * 97 + inpage,
            };
            v.push(rq(offset, size));
        }
        let orig = v.clone();
        compact(&mut v, u64::MAX / 2, page as u32).unwrap();
        for (a, b) in orig.iter().zip(&v) {
            prop_assert_eq!(a.offset % page, b.offset % page);
        }
        for i in 0..v.len() {
            for j in 0..v.len() {
                if orig[i].offset + u64::from(orig[i].size) == orig[j].offset {
                    prop_assert_eq!(v[i].offset + u64::from(v[i].size), v[j].offset);
                }
                if orig[i].offset / page < orig[j].offset / page {
                    prop_assert!(v[i].offset / page < v[j].offset / page);
                }
            }
        }
        // Dense: the highest page used is below the number of touched pages.
        let touched: std::collections::BTreeSet<u64> = orig
            .iter()
            .flat_map(|r| r.offset / page..=(r.offset + u64::from(r.size) - 1) / page)
            .collect();
        let top = v.iter().map(|r| (r.offset + u64::from(r.size) - 1) / page).max().unwrap();
        prop_assert_eq!(top + 1, touched.len() as u64);
    }
}

#[test]
fn repeat_time_scale_and_truncation_through_load() {
    let name = "umass_websearch1_head10.spc";
    let base = load_sample(name);
    let n = base.requests.len();
    let span = base.info.span_ns;
    let gap = (span + (n as u64 - 1) / 2) / (n as u64 - 1);
    let t = load_with(name, &TraceOptions { repeat: 3, ..Default::default() });
    assert_eq!(t.requests.len(), 3 * n);
    assert_eq!((t.info.repeat, t.info.requests), (3, 3 * n as u64));
    for (i, r) in t.requests.iter().enumerate() {
        let o = base.requests[i % n];
        assert_eq!(r.time_ns, o.time_ns + (i / n) as u64 * (span + gap));
        assert_eq!((r.offset, r.size, r.op), (o.offset, o.size, o.op));
    }
    assert_eq!(t.info.span_ns, 2 * (span + gap) + span);

    let half = load_with(name, &TraceOptions { time_scale: 0.5, ..Default::default() });
    for (a, b) in base.requests.iter().zip(&half.requests) {
        assert_eq!(b.time_ns, (a.time_ns as f64 * 0.5).round() as u64);
    }
    let mut v = base.requests.clone();
    scale_time(&mut v, 2.0).unwrap();
    assert_eq!(v[9].time_ns, 2 * base.requests[9].time_ns);

    let t = load_with(name, &TraceOptions { repeat: 2, max_requests: Some(13), ..Default::default() });
    assert_eq!(t.requests.len(), 13);
    assert_eq!(t.requests[10].offset, base.requests[0].offset);
    assert_eq!(t.info.records_read, 10);

    let mut v = vec![rq(0, 1)];
    repeat(&mut v, 2).unwrap();
    assert_eq!(v[1].time_ns, 1);
}

#[test]
fn systor_is_sorted_stably_with_inversions_counted() {
    let t = load_sample("systor17_lun0_slice999.csv");
    assert_eq!(t.info.unsorted_inversions, 243);
    assert!(t.requests.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
    let t = load_sample("msr_hm_0_slice1000.csv");
    assert_eq!(t.info.unsorted_inversions, 0);
}

#[test]
fn options_deserialize_with_defaults_and_names() {
    let o: TraceOptions = toml::from_str("").unwrap();
    assert_eq!(o, TraceOptions::default());
    let o: TraceOptions = toml::from_str(
        "format = \"msr-window\"\ntime_unit = \"ms\"\ndevice = 2\naddress_map = \"compact\"\n\
         time_scale = 0.5\nrepeat = 3\nmax_requests = 10",
    )
    .unwrap();
    assert_eq!(o.format, Some(rainsim_trace::Format::MsrWindow));
    assert_eq!(o.time_unit, Some(rainsim_trace::TimeUnit::Ms));
    assert_eq!((o.device, o.address_map, o.repeat, o.max_requests), (Some(2), AddressMap::Compact, 3, Some(10)));
    let e = toml::from_str::<TraceOptions>("formt = \"msr\"").unwrap_err().to_string();
    assert!(e.contains("formt"), "{e}");
    let e = toml::from_str::<TraceOptions>("format = \"csv\"").unwrap_err().to_string();
    assert!(e.contains("msr-window"), "{e}");
}
