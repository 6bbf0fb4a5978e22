//! Pre-read counts against the flash pre-reads, replication combined with
//! the degraded-mode axes under verify mode, and what a GC-tolerant read
//! of several pages of one stripe reads.

use crate::{run_verified, scheme, three_plus_one, tiny};
use rainsim_model::flash::op::Origin;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// `n` requests `gap_ns` apart, 70 % writes, of 1 to `max_sectors` 512-byte
/// sectors at sector offsets within `cap` bytes: whole and partial pages.
fn sector_requests(rng: &mut Pcg64Mcg, n: u64, gap_ns: u64, cap: u64, max_sectors: u64) -> Vec<Request> {
    (0..n)
        .map(|i| {
            let size = 512 * rng.random_range(1..=max_sectors) as u32;
            let offset = (rng.random_range(0..cap / 512) * 512).min(cap - size as u64);
            let op = if rng.random_bool(0.7) { Op::Write } else { Op::Read };
            Request { time_ns: i * gap_ns, offset, size, device: 0, op }
        })
        .collect()
}

/// Replication combined with the degraded-mode axes (degraded reads and the
/// degraded update placement, GC-tolerant reads), whole and partial pages,
/// under verify mode with GC: every read returns the newest version and
/// every stripe stays recoverable (combinations no paper tried are a
/// feature, DESIGN §7). Each run replicates, collects and takes the reads
/// its routing names.
#[test]
fn replication_with_degraded_axes_and_partial_pages_verifies() {
    use rainsim_model::policy::{ReadRoutingKind as R, UpdatePlacementKind as U};
    let mut rng = Pcg64Mcg::seed_from_u64(1);
    for kind in ["cr5m", "fusionraid", "rep-raid"] {
        for (read, place) in [(R::Degraded, U::Degraded), (R::GcTolerant, U::StripeChannel), (R::Normal, U::Degraded)] {
            let mut c = tiny(4, 2, 1, 32, 16, Some(4));
            c.precondition.valid = 0.5;
            c.precondition.invalid = 0.1;
            c.geometry.over_provisioning = 0.3;
            c.ftl.gc_threshold = 0.2;
            c.policy = scheme(kind).policy;
            (c.policy.read_routing, c.policy.update_placement) = (read, place);
            c.policy.replicas.high_water = 64;
            let probe = Ssd::new(&c, Collector::new(4), false).unwrap();
            let cap = probe.capacity_bytes();
            let reqs = sector_requests(&mut rng, 3_000, 150_000, cap, 24);
            let mut ssd = Ssd::new(&c, Collector::new(4), true).unwrap();
            let t = ssd.run(&reqs, &mut |_| {}).unwrap_or_else(|e| panic!("{kind}, {read:?}, {place:?}: {e}"));
            assert_eq!(t.completed, reqs.len() as u64);
            let (o, at) = (&ssd.obs, format!("{kind}, {read:?}, {place:?}"));
            assert!(o.replication.replica_writes > 0 && o.channels.iter().any(|c| c.gc_count > 0), "{at}");
            match read {
                R::Degraded => assert!(o.raid.degraded_reads > 0, "{at}: no degraded read"),
                R::GcTolerant => assert!(o.raid.gc_tolerant_reads > 0, "{at}: no GC-tolerant read"),
                _ => {}
            }
        }
    }
}

/// `raid.prereads` is "Pre-reads issued" (report.rs); without replication
/// or a failure every pre-read a stripe job issues is planned by a stripe
/// write or a degraded update, so the counter equals the flash pre-reads,
/// for every parity-update and placement policy, with partial pages.
#[test]
fn planned_prereads_equal_flash_prereads_without_replication() {
    let mut rng = Pcg64Mcg::seed_from_u64(2);
    for kind in ["baseline", "adaptive", "bpu", "degraded", "gc-tolerant-read"] {
        for k in [3, 4] {
            let mut c = tiny(4, 2, 1, 32, 16, Some(k));
            c.precondition.valid = 0.5;
            c.precondition.invalid = 0.1;
            c.geometry.over_provisioning = 0.3;
            c.ftl.gc_threshold = 0.2;
            c.policy = scheme(kind).policy;
            c.ftl.rotating_gc = false;
            let probe = Ssd::new(&c, Collector::new(4), false).unwrap();
            let cap = probe.capacity_bytes();
            let reqs = sector_requests(&mut rng, 2_000, 100_000, cap, 40);
            let ssd = run_verified(&c, &reqs);
            let r = &ssd.obs.raid;
            assert!(r.rcw > 0 && (k == 3 || r.rmw > 0), "{kind} k={k}: {r:?}");
            assert_eq!(r.prereads, ssd.obs.ops(Origin::PreRead), "{kind} k={k}: {r:?}");
        }
    }
}

/// Under FusionRAID a half-page update of a written chunk is a replica
/// write whose page merge reads the old page first: one flash pre-read,
/// which `raid.prereads` leaves to `flash_ops.pre_read` (it counts what
/// stripe writes and degraded updates plan; the README says so).
#[test]
fn a_replica_write_s_merge_read_is_a_flash_preread_only() {
    let c = three_plus_one("fusionraid", 1);
    let probe = Ssd::new(&c, Collector::new(4), false).unwrap();
    let page = crate::full_stripe(&probe) as u64 * 3;
    let reqs = [Request { time_ns: 1_000, offset: page * 4096, size: 2048, device: 0, op: Op::Write }];
    let ssd = run_verified(&c, &reqs);
    assert_eq!(ssd.obs.replication.replica_writes, 1, "the update was replicated");
    assert_eq!(ssd.obs.ops(Origin::PreRead), 1, "the old page is read to merge the half page");
    assert_eq!(ssd.obs.raid.prereads, 0, "no stripe write planned it");
}

/// Rebuilds one chunk (as a GC-tolerant read would, its die collecting),
/// reads the others where they live.
struct RebuildOne(u32);
impl rainsim_model::policy::ReadRouting for RebuildOne {
    fn route(
        &mut self,
        _: &rainsim_model::policy::DeviceView,
        r: &rainsim_model::policy::ReadTarget,
    ) -> rainsim_model::policy::Route {
        if r.target.chunk == self.0 {
            rainsim_model::policy::Route::GcTolerant
        } else {
            rainsim_model::policy::Route::Normal
        }
    }
}

/// A read of a whole stripe's data (3+1, all written) with one page
/// rebuilt: the model rebuilds it from all k − 1 partners (DESIGN §4),
/// reading again the two data pages the same request reads, 2 + 3 = 5
/// flash reads. ttFlash's code drops the sub-read and reads only the parity
/// more (4); the README's scheme table states the difference.
#[test]
fn a_whole_stripe_read_with_one_page_rebuilt_reads_every_partner() {
    let c = three_plus_one("baseline", 1);
    let mut ssd = Ssd::new(&c, Collector::new(4), true).unwrap();
    let s = crate::full_stripe(&ssd) as u64;
    let (_, first) = ssd.stripe_layout().chunk_of_lpn(s * 3);
    ssd.set_read_routing(Box::new(RebuildOne(first)));
    let reqs = [Request { time_ns: 0, offset: s * 3 * 4096, size: 3 * 4096, device: 0, op: Op::Read }];
    ssd.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.raid.gc_tolerant_reads, 1);
    let reads = ssd.obs.ops(Origin::HostRead) + ssd.obs.ops(Origin::DegradedRead);
    assert_eq!(ssd.obs.ops(Origin::DegradedRead), 3, "the rebuilt page's three partners");
    assert_eq!(reads, 5, "two data pages read, and the rebuilt one's three partners");
}
