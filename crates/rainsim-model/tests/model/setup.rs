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
