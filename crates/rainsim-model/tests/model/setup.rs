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
    let mut c = tiny(4, 1, 1, 64, 16, None);
    c.policy = scheme("degraded").policy;
    let s = DeviceSetup::resolve(&c).unwrap();
    assert_eq!(s.notes.len(), 1);
    assert!(s.notes[0].starts_with("raid.level = none"), "{:?}", s.notes);
}
