//! The configuration stage: one capacity computation, validation once, notes.

use crate::{scheme, tiny};
use rainsim_model::run::capacity_bytes;
use rainsim_model::setup::DeviceSetup;

/// The capacity the trace is mapped with before a device exists equals the
/// device's own, for plain and RAID-5 layouts of several widths and spares;
/// one case by hand: 4 channels × 64 blocks × 16 pages = 4,096 pages, 20 %
/// spare → 3,276 usable, 819 stripes of 4, 3 data pages each of 4 KiB.
#[test]
fn capacity_is_computed_once() {
    let mut c = tiny(4, 1, 1, 64, 16, Some(4));
    c.geometry.over_provisioning = 0.2;
    assert_eq!(DeviceSetup::resolve(&c).unwrap().capacity_bytes(), 819 * 3 * 4096);
    for raid in [None, Some(3), Some(4), Some(6)] {
        for op in [0.12, 0.2, 0.37] {
            let mut c = tiny(6, 2, 2, 32, 8, raid);
            c.geometry.over_provisioning = op;
            let s = DeviceSetup::resolve(&c).unwrap();
            assert_eq!(s.capacity_bytes(), capacity_bytes(&c), "raid {raid:?}, op {op}");
        }
    }
}

/// Resolving validates (a bad key is an error naming it) and collects the
/// notes a run prints (RAID off with a stripe policy).
#[test]
fn resolving_validates_and_collects_notes() {
    let mut c = tiny(4, 1, 1, 64, 16, Some(4));
    c.raid.stripe_width = 5;
    let e = DeviceSetup::resolve(&c).err().expect("a stripe wider than the channels");
    assert!(e.to_string().contains("raid.stripe_width = 5"), "{e}");
    // Too few channels for any stripe: the channels are named, not an empty range.
    let c = tiny(2, 1, 1, 64, 16, Some(3));
    let e = DeviceSetup::resolve(&c).err().expect("RAID-5 on two channels");
    assert!(
        e.to_string().contains("needs at least 3 channels") && e.to_string().contains("geometry.channels = 2"),
        "{e}"
    );
    let mut c = tiny(4, 1, 1, 64, 16, None);
    c.policy = scheme("degraded").policy;
    let s = DeviceSetup::resolve(&c).unwrap();
    assert_eq!(s.notes.len(), 1);
    assert!(s.notes[0].starts_with("raid.level = none"), "{:?}", s.notes);
}

/// Preconditioning without a free margin must leave every plane at least 2
/// free blocks, valid and invalid pages alike taking room: on planes of 8
/// blocks, 0.65 valid + 0.1 invalid leave 8 × 0.25 = 2 (accepted, however
/// 1 − 0.65 − 0.1 rounds); 0.7 + 0.1 leave 1.6, 0.85 valid alone 1.2, 0.85
/// invalid alone 1.2 (each refused, naming what is left). No preconditioning
/// at all asks nothing of the plane.
#[test]
fn preconditioning_must_leave_two_free_blocks_a_plane() {
    let with = |valid: f64, invalid: f64| {
        let mut c = tiny(4, 1, 1, 8, 16, Some(4));
        c.geometry.over_provisioning = 0.15;
        (c.precondition.valid, c.precondition.invalid) = (valid, invalid);
        c
    };
    with(0.65, 0.1).validate().unwrap_or_else(|e| panic!("exactly 2 free blocks: {e}"));
    with(0.0, 0.0).validate().unwrap_or_else(|e| panic!("nothing preconditioned: {e}"));
    for (valid, invalid, left) in [(0.7, 0.1, "1.6"), (0.85, 0.0, "1.2"), (0.0, 0.85, "1.2")] {
        let e = with(valid, invalid).validate().expect_err("too few free blocks").to_string();
        assert!(
            e.contains(&format!("preconditioning leaves {left} free blocks per plane")),
            "{valid} + {invalid}: {e}"
        );
    }
}

/// The free-block check's allowance for rounding is 10⁻⁹ of a block: on
/// planes of 2 blocks, a valid fraction v whose free share 1 − v is exactly
/// (2 − 10⁻⁹) / 2 (a double below 1, so v = 1 − share and 1 − v are exact,
/// and so is doubling) is accepted; a valid fraction leaving the next
/// smaller free share, a hair less room, is refused.
#[test]
fn the_free_block_checks_allowance_ends_a_billionth_of_a_block_short_of_two() {
    let edge = 2.0 - 1e-9;
    let at = |valid: f64| {
        let mut c = tiny(4, 1, 1, 2, 16, Some(4));
        c.geometry.over_provisioning = 0.5;
        (c.precondition.valid, c.precondition.invalid) = (valid, 0.0);
        c
    };
    let v = 1.0 - edge / 2.0;
    assert_eq!((1.0 - v - 0.0) * 2.0, edge, "the free blocks land on the allowance's end");
    at(v).validate().unwrap_or_else(|e| panic!("{e}"));
    // The next free share below, and the valid fraction that leaves it.
    let less = f64::from_bits((edge / 2.0).to_bits() - 1);
    let hair = 1.0 - less;
    assert!((1.0 - hair) * 2.0 < edge);
    let e = at(hair).validate().expect_err("a hair under the allowance").to_string();
    assert!(e.contains("free blocks per plane; at least 2 are needed"), "{e}");
}

/// A stripe's positions are bits of one 64-bit word: 64 chunks are the
/// widest stripe, whatever the channels.
#[test]
fn a_stripe_is_at_most_sixty_four_chunks() {
    let c = tiny(64, 1, 1, 16, 8, Some(64));
    let s = DeviceSetup::resolve(&c).unwrap_or_else(|e| panic!("64 chunks: {e}"));
    assert_eq!(s.stripes.width, 64);
    let e = DeviceSetup::resolve(&tiny(65, 1, 1, 16, 8, Some(65))).err().expect("65 chunks");
    assert_eq!(e.to_string(), "invalid configuration: raid.stripe_width must be at most 64");
    // 65 channels with a narrower stripe are fine.
    DeviceSetup::resolve(&tiny(65, 1, 1, 16, 8, Some(64))).unwrap_or_else(|e| panic!("65 channels: {e}"));
}

/// Each note's condition, on its own and with the one thing that lifts it
/// changed: a RAID-5 stripe over every channel leaves degraded updates
/// nowhere to go; without RAID each stripe policy, and replication, has
/// nothing to act on; adaptive parity updates assume read priority.
#[test]
fn each_note_names_the_setup_it_warns_of() {
    use rainsim_model::policy::spec::{ParityUpdateKind, ReadRoutingKind, UpdatePlacementKind};
    use rainsim_model::policy::ReplicationKind;
    let notes = |raid: Option<u32>, f: &dyn Fn(&mut rainsim_model::config::Config)| {
        let mut c = tiny(4, 1, 1, 16, 8, raid);
        f(&mut c);
        DeviceSetup::resolve(&c).unwrap_or_else(|e| panic!("{e}")).notes
    };
    let starts = |n: &[String], prefix: &str| n.len() == 1 && n[0].starts_with(prefix);
    assert!(notes(Some(4), &|_| ()).is_empty());
    assert!(notes(None, &|_| ()).is_empty());
    // Degraded updates: a stripe over all 4 channels, not one over 3.
    let degraded = |c: &mut rainsim_model::config::Config| c.policy.update_placement = UpdatePlacementKind::Degraded;
    assert!(starts(&notes(Some(4), &degraded), "degraded updates need a channel outside the stripe"));
    assert!(notes(Some(3), &degraded).is_empty());
    // Without RAID: each stripe policy alone.
    let plain_policy = "raid.level = none: the read-routing, update-placement and parity-update policies";
    assert!(starts(&notes(None, &degraded), plain_policy));
    assert!(starts(&notes(None, &|c| c.policy.read_routing = ReadRoutingKind::GcTolerant), plain_policy));
    assert!(starts(&notes(None, &|c| c.policy.parity_update = ParityUpdateKind::Bpu), plain_policy));
    assert!(notes(Some(4), &|c| c.policy.read_routing = ReadRoutingKind::GcTolerant).is_empty());
    // Replication without RAID.
    let rep = |c: &mut rainsim_model::config::Config| c.policy.replication = ReplicationKind::Cr5m;
    let n = notes(None, &|c| {
        rep(c);
        c.geometry.dies_per_chip = 2;
    });
    assert!(starts(&n, "raid.level = none: policy.replication = \"cr5m\""), "{n:?}");
    // Adaptive parity updates without read priority (read priority on is
    // the default).
    let adaptive = |c: &mut rainsim_model::config::Config| c.policy.parity_update = ParityUpdateKind::Adaptive;
    assert!(notes(Some(4), &adaptive).is_empty());
    let n = notes(Some(4), &|c| {
        adaptive(c);
        c.policy.read_priority = false;
    });
    assert!(starts(&n, "the adaptive parity update assumes pre-reads are served before queued writes"), "{n:?}");
    assert!(notes(Some(4), &|c| c.policy.read_priority = false).is_empty());
}
