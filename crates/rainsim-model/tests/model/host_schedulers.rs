//! Host request schedulers of vios-variation-aware-scheduler: Fig. 3's batch
//! example, the issue orders of PIQ and VIOS (reads first), Table 1's
//! conflict-ratio arithmetic, and NR (Eq. 2) through a run.

use rainsim_model::host::chips::{ChipMap, ChipSet, ConflictCounts};
use rainsim_model::host::piq::Piq;
use rainsim_model::host::vios::Vios;
use rainsim_model::host::{HeldRequest, HostReq, HostScheduler};

/// Fig. 3's device: 4 channels × 2 chips, chip μ on channel μ mod 4.
fn map() -> ChipMap {
    ChipMap { page_bytes: 4096, channels: 4, per_channel: 2 }
}

/// Request `id` over pages `first..first + pages` (Eq. 1: chip = page mod 8).
fn held(id: u32, first: u64, pages: u32, write: bool) -> HeldRequest {
    let req = HostReq { arrival: id as u64, offset: first * 4096, size: pages * 4096, write, pending: 0 };
    let (chips, channels) = map().sets(req.offset, req.size);
    HeldRequest { id, req, chips, channels }
}

fn set(v: &[u32]) -> ChipSet {
    ChipSet::of(v)
}

/// Five requests that leave Fig. 3's first chip batch at chips {0,1,2,4,5}
/// with a second channel batch on channels {0,1}, then the request on chips
/// {6,7}: it joins chip batch 1 (A_chip {0,1,2,4,5,6,7}) and, since channel
/// batch 1 holds channel 2, channel batch 2 (A_channel {0,1,2,3}).
#[test]
fn fig_3_a_request_on_chips_6_and_7_joins_chip_batch_1_channel_batch_2() {
    let mut v = Vios::default();
    let (r1, r2, r3, r4, r5) =
        (held(1, 1, 2, true), held(2, 4, 2, true), held(3, 0, 1, true), held(4, 9, 1, true), held(5, 2, 2, true));
    assert_eq!((r1.chips, r1.channels), (set(&[1, 2]), set(&[1, 2])));
    assert_eq!((r2.chips, r2.channels), (set(&[4, 5]), set(&[0, 1])));
    assert_eq!((r4.chips, r5.chips), (set(&[1]), set(&[2, 3])));
    for r in [r1, r2, r3, r4, r5] {
        v.hold(r);
    }
    let (_, w) = v.shape();
    assert_eq!(w.len(), 2);
    assert_eq!(w[0].0, set(&[0, 1, 2, 4, 5]));
    assert_eq!(w[0].1, vec![(set(&[0, 1, 2]), vec![1, 3]), (set(&[0, 1]), vec![2])]);
    let r6 = held(6, 6, 2, true);
    assert_eq!((r6.chips, r6.channels), (set(&[6, 7]), set(&[2, 3])));
    v.hold(r6);
    let (_, w) = v.shape();
    assert_eq!(w[0].0, set(&[0, 1, 2, 4, 5, 6, 7]));
    assert_eq!(w[0].1[1], (set(&[0, 1, 2, 3]), vec![2, 6]));
    assert_eq!(w[1].0, set(&[1, 2, 3]), "chip batch 2 is untouched");
    assert_eq!(v.waiting(), 6);
}

fn drain(s: &mut dyn HostScheduler) -> Vec<u32> {
    let bench = rainsim_model::testkit::Bench::new(1, 1);
    let view = bench.view();
    std::iter::from_fn(|| s.next(&view).map(|h| h.id)).collect()
}

/// Issue order: VIOS serves chip batch 1's channel batches in turn, PIQ
/// chip batch 1 in arrival order; both serve a read before any write.
#[test]
fn vios_and_piq_issue_batch_by_batch_reads_first() {
    let reqs = [
        held(1, 1, 2, true),
        held(2, 4, 2, true),
        held(3, 0, 1, true),
        held(4, 9, 1, true),
        held(5, 2, 2, true),
        held(6, 6, 2, true),
        held(7, 3, 1, false),
    ];
    let mut v = Vios::default();
    let mut p = Piq::default();
    for r in reqs {
        v.hold(r);
        p.hold(r);
    }
    assert_eq!(drain(&mut v), vec![7, 1, 3, 2, 6, 4, 5]);
    assert_eq!(drain(&mut p), vec![7, 1, 2, 3, 6, 4, 5]);
    // Emptied batches are gone: a conflicting request now opens batch 1.
    v.hold(held(8, 1, 1, true));
    v.hold(held(9, 1, 1, true));
    assert_eq!(v.shape().1.len(), 2);
    assert_eq!(drain(&mut v), vec![8, 9]);
}

/// Table 1: ratio = (read + write conflicts) / 500,000 requests, checked
/// against the paper's percentages row by row.
#[test]
fn table_1_conflict_ratios() {
    let rows: [(&str, u64, u64, u64, u64, f64); 12] = [
        ("prn", 61422, 438578, 37678, 261787, 59.89),
        ("fin", 129342, 370658, 12135, 129379, 28.30),
        ("hm", 139527, 360473, 54387, 168864, 44.65),
        ("mds", 26301, 473699, 10947, 12570, 4.70),
        ("proj", 151549, 348451, 38615, 32852, 14.29),
        ("rsrch", 43803, 456197, 19413, 217828, 47.45),
        ("src", 81377, 418623, 28146, 360549, 77.74),
        ("stg", 43818, 456182, 21657, 210355, 46.40),
        ("ts", 76687, 423313, 27566, 7161, 6.95),
        ("usr", 206983, 293017, 91391, 9068, 20.09),
        ("wdev", 102663, 397337, 48986, 170202, 43.84),
        ("web", 239458, 260542, 89753, 19184, 21.79),
    ];
    for (name, reads, writes, rc, wc, pct) in rows {
        assert_eq!(reads + writes, 500_000, "{name}");
        let c = ConflictCounts { reads, writes, read_conflicts: rc, write_conflicts: wc };
        assert!((c.ratio() * 100.0 - pct).abs() < 0.005, "{name}: {} vs {pct}", c.ratio() * 100.0);
    }
    assert_eq!(ConflictCounts::default().ratio(), 0.0);
}

/// NR (Eq. 2) counts the requests waiting for each chip, indexed by the
/// device's die (chip μ is die (μ mod C)·chips_per_channel + ⌊μ/C⌋); a
/// request conflicts on arrival when one of its chips has a request
/// waiting or issued and unfinished.
#[test]
fn nr_counts_waiting_requests_and_arrivals_count_conflicts() {
    use rainsim_model::host::chips::ChipState;
    let m = map();
    assert_eq!((m.die_of_chip(0), m.die_of_chip(1), m.die_of_chip(4), m.die_of_chip(7)), (0, 2, 1, 7));
    let mut s = ChipState::new(m);
    s.arrive(0, 4096, true, false); // chip 0, issued at once
    s.arrive(8 * 4096, 4096, true, true); // chip 0 again, waits: a write conflict
    s.arrive(4096, 4096, false, true); // chip 1 (die 2), waits: no conflict
    s.arrive(9 * 4096, 8192, false, true); // chips 1 and 2: a read conflict on chip 1
    assert_eq!(s.nr(), &[1, 0, 2, 0, 1, 0, 0, 0]);
    assert_eq!(s.issued(), &[1, 0, 0, 0, 0, 0, 0, 0]);
    let c = s.conflicts;
    assert_eq!((c.reads, c.writes, c.read_conflicts, c.write_conflicts), (2, 2, 1, 1));
    assert_eq!(c.ratio(), 0.5);
    s.issue(8 * 4096, 4096);
    s.complete(0, 4096);
    assert_eq!((s.nr()[0], s.issued()[0]), (0, 1));
}
