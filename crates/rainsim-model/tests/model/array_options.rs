//! The DLS paper's open options (next-wave-spec.md §3.f items 1 and 4, and
//! Eq. 11): an array without parity (RAID-0 under static placement, free
//! placement over every device), the scope of a channel's delay sum, and
//! the years of use by Eq. 11 beside Eq. 12's days left.

use crate::array::{array_cfg, lat, req, run, PROG_NS};
use rainsim_model::array::params::{Allocation, DelayScope};
use rainsim_model::array::Array;
use rainsim_model::Config;
use rainsim_trace::{Op, Request};

fn without_parity(devices: u32, allocation: Allocation) -> Config {
    let mut cfg = array_cfg(devices, allocation);
    cfg.array.as_mut().unwrap().parity = false;
    cfg
}

/// Four devices without parity: chunk k of the array is on device k mod 4
/// (a stripe of four data chunks); a page write is one program on its
/// device and nothing else, so its latency is one unloaded program; the
/// host sees four chunks a stripe where RAID-5 gives three.
#[test]
fn without_parity_a_write_is_one_program_on_its_device() {
    let cfg = without_parity(4, Allocation::Static);
    let reqs: Vec<Request> = (0..8).map(|k| req(k * 2_000_000, k, 1, Op::Write)).collect();
    let a = run(&cfg, true, &reqs);
    let c = a.counters();
    assert_eq!(c.device_ops, vec![[0, 2, 0]; 4], "two pages on each device, no parity");
    assert_eq!((c.prereads, c.xors), (0, 0));
    assert_eq!(c.stripe_writes, [0, 0, 0, 8], "every stripe write counts as fresh: no parity to update");
    let l = &c.latency[1];
    assert_eq!((l.count(), l.sum, l.max), (8, 8 * PROG_NS as u128, PROG_NS), "each write one program long");
    for k in 0..8 {
        assert_eq!(a.location(k).unwrap(), (k % 4, k / 4), "chunk {k}: device k mod 4, slot k div 4");
    }
    let raid5 = Array::new(&array_cfg(4, Allocation::Static), false).unwrap();
    assert_eq!(a.stripe_layout().stripes, raid5.stripe_layout().stripes);
    assert_eq!(a.capacity_bytes() * 3, raid5.capacity_bytes() * 4);
}

/// A whole stripe row is four programs in parallel, one a device; a
/// half-page write of a written chunk reads it first to merge (the only
/// pre-read without parity).
#[test]
fn without_parity_a_row_programs_every_device_at_once_and_a_part_page_merges() {
    let cfg = without_parity(4, Allocation::Static);
    let a = run(&cfg, true, &[req(0, 0, 4, Op::Write)]);
    assert_eq!(a.counters().device_ops, vec![[0, 1, 0]; 4]);
    assert_eq!(lat(&a, Op::Write), PROG_NS);
    let half = Request { time_ns: 5_000_000, offset: 0, size: 2048, device: 0, op: Op::Write };
    let a = run(&cfg, true, &[req(0, 0, 1, Op::Write), half]);
    let c = a.counters();
    assert_eq!(c.prereads, 1, "the merge read");
    assert_eq!(c.device_ops[0], [1, 2, 0]);
    assert_eq!(c.device_ops[1..], [[0; 3]; 3]);
}

/// Under RAID-5, round robin never puts a data chunk of stripe 0 on its
/// parity device (device 4); without parity every device takes them, and
/// every program is a data program.
#[test]
fn without_parity_free_placement_uses_every_device() {
    let reqs: Vec<Request> = (0..40).map(|i| req(i * 2_000_000, i % 4, 1, Op::Write)).collect();
    let raid5 = run(&array_cfg(5, Allocation::Rr), false, &reqs);
    let c = raid5.counters();
    assert_eq!(c.device_ops[4][1], 0, "no data on stripe 0's parity device");
    assert_eq!(c.device_ops[4][2], 40, "its parity, once a write");
    let free = run(&without_parity(5, Allocation::Rr), false, &reqs);
    let c = free.counters();
    assert!(c.device_ops.iter().all(|o| o[1] > 0 && o[2] == 0), "{:?}", c.device_ops);
    assert_eq!(c.device_ops.iter().map(|o| o[1]).sum::<u64>(), 40, "one program a write");
    assert_eq!(c.xors, 0);
}

/// `--verify` checks a parity-free static array (its data tokens, no
/// parity to match); the report says one failure would lose data, and a
/// failure is refused before the run.
#[test]
fn without_parity_verify_runs_the_report_says_not_tolerant_and_a_failure_is_refused() {
    let cfg = without_parity(4, Allocation::Static);
    let reqs: Vec<Request> = (0..64).map(|i| req(i * 300_000, (i * 7) % 24, 1 + (i % 3) as u32, Op::Write)).collect();
    let a = run(&cfg, true, &reqs);
    let report = a.report(&cfg, "baseline", serde_json::Value::Null);
    assert!(!report.single_failure_tolerant);
    assert_eq!(report.co_resident_stripes, 0);
    let mut bad = cfg.clone();
    bad.array.as_mut().unwrap().fail_device = Some(1);
    let e = Array::new(&bad, false).err().expect("refused").to_string();
    assert!(e.contains("array.parity = false keeps no parity"), "{e}");
}

/// Five DLS devices under a write-heavy open loop fast enough to queue.
fn dls_busy(scope: DelayScope, window: Option<u64>) -> (Config, Vec<Request>) {
    let mut cfg = array_cfg(5, Allocation::Dls);
    let p = cfg.array.as_mut().unwrap();
    (p.delay_scope, p.delay_window_ns) = (scope, window);
    let reqs = (0..600u64).map(|i| req(i * 40_000, (i * 13) % 300, 1 + (i % 2) as u32, Op::Write)).collect();
    (cfg, reqs)
}

fn channel_sums(a: &Array) -> Vec<f64> {
    a.loads().iter().flat_map(|l| l.delays.delay_ns.clone()).collect()
}

/// The scope reaches the devices' delay state: with every batch done at
/// the end, the outstanding sums are zero, the cumulative ones are not; a
/// window longer than the run holds every batch, so it decides as the
/// cumulative scope does, report for report.
#[test]
fn the_delay_scope_sums_the_batches_it_names() {
    let (cfg, reqs) = dls_busy(DelayScope::Outstanding, None);
    let outstanding = run(&cfg, false, &reqs);
    assert!(channel_sums(&outstanding).iter().all(|&s| s == 0.0));
    let (cfg_c, reqs) = dls_busy(DelayScope::Cumulative, None);
    let cumulative = run(&cfg_c, false, &reqs);
    let total: f64 = channel_sums(&cumulative).iter().sum();
    assert!(total > 1e6, "batches waited ({total} ns) and stayed in the sums");
    let (cfg_w, reqs) = dls_busy(DelayScope::Window, Some(1 << 62));
    let window = run(&cfg_w, false, &reqs);
    assert_eq!(channel_sums(&window), channel_sums(&cumulative));
    let strip = |a: &Array, cfg: &Config| {
        let mut v = serde_json::to_value(a.report(cfg, "dls", serde_json::Value::Null)).unwrap();
        for echo in ["config", "array"] {
            v.as_object_mut().unwrap().remove(echo);
        }
        v
    };
    assert_eq!(strip(&window, &cfg_w), strip(&cumulative, &cfg_c));
    assert_ne!(
        strip(&outstanding, &cfg)["devices"],
        strip(&cumulative, &cfg_c)["devices"],
        "the scope changes where writes go on this load"
    );
}

/// Eq. 11 and Eq. 12 of each device come from one write rate over one
/// span: 365 × years of use − days left is that span, the same for every
/// device, and it covers the run's execution time.
#[test]
fn eq11_and_eq12_of_every_device_span_the_same_time() {
    let (cfg, reqs) = dls_busy(DelayScope::Outstanding, None);
    let a = run(&cfg, false, &reqs);
    let r = a.report(&cfg, "dls", serde_json::Value::Null);
    let spans: Vec<f64> = r
        .devices
        .iter()
        .map(|d| 365.0 * d.use_life_years_eq11.unwrap() - d.life_days_eq12.unwrap())
        .map(|days| days * 86_400e9)
        .collect();
    let first = spans[0];
    for s in &spans {
        assert!((s - first).abs() <= 1e-6 * first, "{spans:?}");
    }
    assert!(first >= r.execution_time_ns as f64 * (1.0 - 1e-9), "{first} ns against {}", r.execution_time_ns);
    assert!(first < 1e9, "the run is well under a second: {first} ns");
}

/// The capacity the command line generates workloads over (computed from
/// the configuration, before any device is built) is the built array's,
/// with parity and without, under static and free placement, with chunks
/// of one page and of four.
#[test]
fn the_configured_capacity_is_the_built_arrays() {
    for (alloc, parity, chunk_kib) in [
        (Allocation::Static, true, 0),
        (Allocation::Static, false, 0),
        (Allocation::Rr, true, 16),
        (Allocation::Dls, false, 16),
    ] {
        let mut cfg = array_cfg(5, alloc);
        let p = cfg.array.as_mut().unwrap();
        (p.parity, p.chunk_kib) = (parity, chunk_kib);
        let built = Array::new(&cfg, false).unwrap();
        let l = built.stripe_layout();
        let per_stripe = if parity { 4 } else { 5 };
        assert_eq!(l.logical_pages(), l.stripes as u64 * per_stripe, "{alloc:?}, parity {parity}");
        assert_eq!(rainsim_model::run::capacity_bytes(&cfg), built.capacity_bytes(), "{alloc:?}, parity {parity}");
    }
}

/// Free placement keeps `spare` of every device's slots free: the array's
/// stripes are ⌊slots × (1 − spare)⌋, the slots those of the static layout,
/// which uses every one.
#[test]
fn free_placement_keeps_the_spare_share_of_the_slots() {
    let stat = array_cfg(4, Allocation::Static);
    let (slots, all) = rainsim_model::array::shape(&stat, stat.array.as_ref().unwrap());
    assert_eq!(all as u64, slots, "the static layout uses every slot");
    for spare in [0.1, 0.25] {
        let mut cfg = array_cfg(4, Allocation::Rr);
        cfg.array.as_mut().unwrap().spare = spare;
        let (s, usable) = rainsim_model::array::shape(&cfg, cfg.array.as_ref().unwrap());
        assert_eq!(s, slots);
        assert_eq!(usable as u64, (slots as f64 * (1.0 - spare)) as u64, "spare {spare}");
        assert!((usable as u64) < slots);
    }
}
