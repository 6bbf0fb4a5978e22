//! CR5M's copies bound to dies of their chunk's channel (`Ssd::copy_die`),
//! checked for every written data chunk of a small device: copy A on its
//! slot's die and copy B on the next die round the channel; with a strict
//! mirror die, copy B on the channel's last die and copy A off it.

use super::Ssd;
use crate::config::{Config, RaidLevel};
use crate::metrics::collector::Collector;
use crate::policy::ReplicationKind;
use crate::raid::replica::Copy;

/// 3 channels of `dies` single-plane dies, 2+1 stripes, half the space written.
fn device(dies: u32, strict: bool) -> Ssd<Collector> {
    let mut c = Config::default();
    let g = &mut c.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (3, dies, 1, 1);
    (g.blocks_per_plane, g.pages_per_block, g.page_bytes, g.over_provisioning) = (32, 16, 4096, 0.2);
    (c.precondition.valid, c.precondition.invalid) = (0.5, 0.0);
    (c.raid.level, c.raid.stripe_width) = (RaidLevel::Raid5, 3);
    c.policy.replication = ReplicationKind::Cr5m;
    c.policy.replicas.strict_mirror_die = strict;
    Ssd::new(&c, Collector::new(3), true).unwrap()
}

#[test]
fn copies_are_bound_to_the_slots_die_and_its_mirror() {
    // One die a channel is refused up front (`cr5m_needs_two_dies_a_channel`).
    for (dies, strict) in [(2, false), (2, true), (3, false), (3, true)] {
        let mut ssd = device(dies, strict);
        let l = ssd.layout.clone();
        let local = |ppn: u32| l.die_of(ppn) - l.first_die(l.channel_of(ppn));
        let mut homes = vec![0u32; dies as usize];
        for c in 0..ssd.stripes.chunks() as u32 {
            let Some(slot) = ssd.ftl.lookup(c).filter(|_| !ssd.stripes.is_parity(c)) else { continue };
            let home = local(slot);
            homes[home as usize] += 1;
            let t = ssd.replicas.as_mut().unwrap();
            let pair = t.insert(c, 0).unwrap().pair;
            let (a, b) = (t.copy_id(pair, Copy::A), t.copy_id(pair, Copy::B));
            let (da, db) = (ssd.copy_die(a), ssd.copy_die(b));
            assert_eq!(ssd.copy_die(c), None, "a slot is not a copy");
            ssd.replicas.as_mut().unwrap().remove(c);
            let case = format!("{dies} dies, strict {strict}, chunk {c} on die {home}");
            let (da, db) = (da.expect(&case), db.expect(&case));
            assert!(da < dies && db < dies && da != db, "{case}: two dies of the channel, {da} and {db}");
            if strict {
                assert_eq!(db, dies - 1, "{case}: the mirror on the last die");
                assert_eq!(da, if home == dies - 1 { dies - 2 } else { home }, "{case}");
            } else {
                assert_eq!((da, db), (home, (home + 1) % dies), "{case}");
            }
        }
        assert!(homes.iter().all(|&n| n > 0), "{dies} dies: slots on every die ({homes:?})");
    }
}

/// Verify mode's replica check under CR5M: a chunk's copies on two dies of
/// its channel pass; copy B moved to another channel (same version) fails.
#[test]
fn cr5m_copies_must_share_a_channel_on_two_dies() {
    use super::replica_read_tests::{chunk_on, update};
    let mut ssd = device(2, false);
    let (x, lx) = chunk_on(&ssd, 0, &[]);
    update(&mut ssd, lx);
    ssd.check_replicas().expect("copies on two dies of channel 0");
    let t = ssd.replicas.as_ref().unwrap();
    let pair = t.get(x).expect("CR5M replicated the update").pair;
    let (a, b) = (t.copy_id(pair, Copy::A), t.copy_id(pair, Copy::B));
    let (pa, pb) = (ssd.ftl.lookup(a).unwrap(), ssd.ftl.lookup(b).unwrap());
    assert_eq!((ssd.layout.channel_of(pa), ssd.layout.channel_of(pb)), (0, 0));
    // A never-written page of channel 1 takes copy B, with its version.
    let ppb = ssd.layout.pages_per_block;
    let block = (0..ssd.ftl.blocks.len() as u32)
        .find(|&k| ssd.ftl.blocks[k as usize].written == 0 && ssd.layout.channel_of(k * ppb) == 1)
        .expect("a free block on channel 1");
    let tok = ssd.verifier.as_ref().unwrap().peek(pb);
    ssd.ftl.drop_id(b);
    ssd.ftl.map.place(b, block * ppb);
    ssd.verifier.as_mut().unwrap().write(b, block * ppb, tok);
    let e = ssd.check_replicas().unwrap_err().what;
    assert!(
        e.contains(&format!("replicated chunk {x}: copies on die")) && e.contains("not on two dies of one channel"),
        "{e}"
    );
}
