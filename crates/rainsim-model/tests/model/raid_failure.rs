//! A failed channel at the RAID layer alone (`raid/failure.rs`), driven by
//! hand through the recording port of `raid_layer.rs`: what a write before
//! the replacement absorbs or skips, which stripes hold a lost chunk, and
//! the rebuild's one end.

use super::raid_layer::{drive, reads, setup, setup_with, take};
use rainsim_model::raid::failure::Phase;
use rainsim_model::raid::layer::{RaidAction, StripeWrite};
use rainsim_model::raid::rmw_rcw::data_mask;
use rainsim_model::raid::stripe::StripeLayout;
use rainsim_model::sched::ReadPlace;

/// Before the replacement nothing is programmed on the failed channel: a
/// lost chunk the write writes is absorbed in parity, lost parity is
/// skipped, and a never-written chunk whose home is the failed channel is
/// lost like one that was written.
#[test]
fn a_write_before_the_replacement_absorbs_lost_data_and_skips_lost_parity() {
    let s = 2;
    for case in ["lost data written", "lost parity", "never-written data on the failed channel"] {
        let (mut raid, mut p) = setup();
        let (d0, d1, pp) = (p.stripes.data_pos(s, 0), p.stripes.data_pos(s, 1), p.stripes.parity_pos(s));
        let (failed, written) = if case == "lost parity" { (pp, d1) } else { (d0, d0) };
        let ch = p.stripes.channel(s, failed);
        let chunk = s * 5 + failed;
        if case.starts_with("never") {
            p.absent.push(chunk);
            raid.fail(ch, None, &[], 1, ReadPlace::Tail);
        } else {
            raid.fail(ch, None, &[chunk], 1, ReadPlace::Tail);
        }
        raid.submit_job(1, s, 1 << written, 0, &mut p);
        let rest = drive(&mut raid, &mut p);
        // Verify mode follows absorbed data (its token), not skipped parity.
        let absorbed: Vec<u32> = rest
            .iter()
            .filter_map(|a| match *a {
                RaidAction::Absorbed { chunk, .. } => Some(chunk),
                _ => None,
            })
            .collect();
        assert_eq!(absorbed, if case == "lost parity" { vec![] } else { vec![chunk] }, "{case}");
        let want = if case == "lost parity" { s * 5 + d1 } else { s * 5 + pp };
        assert_eq!(p.landed, [(p.stripes.channel(s, want % 5), want)], "{case}: only the other member is programmed");
        let c = raid.failure().unwrap().counters;
        let absorbed_skipped = if case == "lost parity" { (0, 1) } else { (1, 0) };
        assert_eq!((c.writes_absorbed, c.parity_skipped), absorbed_skipped, "{case}");
        assert!(raid.is_lost(chunk), "{case}: the chunk lives only in its stripe");
    }
}

/// A host write around a lost chunk is counted as the stripe write it is:
/// full, fresh (nothing to read: here the page written in part never
/// existed), RMW (the lost chunk left out) or RCW (the lost chunk written);
/// a rebuild is no host write.
#[test]
fn a_write_around_a_lost_chunk_is_counted_by_its_kind() {
    let s = 2;
    let cases = [
        ("full", StripeWrite::Full),
        ("fresh", StripeWrite::Fresh),
        ("d1", StripeWrite::Rmw),
        ("d0", StripeWrite::Rcw),
    ];
    for (case, kind) in cases {
        let (mut raid, mut p) = setup();
        let (d0, d1, pp) = (p.stripes.data_pos(s, 0), p.stripes.data_pos(s, 1), p.stripes.parity_pos(s));
        let lost = s * 5 + d0;
        raid.fail(p.stripes.channel(s, d0), None, &[lost], 1, ReadPlace::Tail);
        let (written, partial) = match case {
            "full" => (data_mask(5, pp), 0),
            "fresh" => {
                p.absent.push(s * 5 + d1);
                (data_mask(5, pp), 1 << d1)
            }
            "d1" => (1 << d1, 0),
            _ => (1 << d0, 0),
        };
        raid.submit_job(1, s, written, partial, &mut p);
        assert_eq!(p.writes, [kind], "{case}");
        if case == "d0" {
            // RCW of the whole lost chunk reads the data not written, not the parity.
            let mut read: Vec<u32> = reads(&take(&mut p)).iter().map(|r| r.0 % 5).collect();
            read.sort();
            let mut rest: Vec<u32> = (0..5).filter(|&q| q != pp && q != d0).collect();
            rest.sort();
            assert_eq!(read, rest);
        }
        if case == "d1" {
            // Data before parity, as the normal path issues them.
            drive(&mut raid, &mut p);
            let at = |pos: u32| (p.stripes.channel(s, pos), s * 5 + pos);
            assert_eq!(p.landed, [at(d1), at(pp)]);
        }
    }
    let (mut raid, mut p) = setup();
    raid.fail(p.stripes.channel(s, 0), None, &[s * 5], 1, ReadPlace::Tail);
    raid.replaced(&mut p);
    drive(&mut raid, &mut p);
    assert_eq!(raid.failure().unwrap().counters.pages_rebuilt, 1);
    assert!(p.writes.is_empty(), "{:?}", p.writes);
}

/// Exactly the stripe of a lost chunk holds one (here the first chunk of
/// stripe 2 of 16, 4+1 wide).
#[test]
fn only_the_stripe_of_a_lost_chunk_holds_one() {
    let (mut raid, p) = setup();
    let lost = 2 * 5;
    raid.fail(p.stripes.channel(2, 0), None, &[lost], 1, ReadPlace::Tail);
    let holding: Vec<u32> = (0..16).filter(|&s| raid.stripe_has_lost(s)).collect();
    assert_eq!(holding, [2]);
}

/// The rebuild programs every lost chunk (data and parity) onto the
/// replacement and ends once, also when nothing was lost. 64 chunks (16
/// stripes of 3+1 over 4 channels): the scan for the next lost chunk ends
/// exactly at the end of its bit set. Two stripes rebuild at once.
#[test]
fn the_rebuild_brings_every_lost_chunk_back_and_ends_once() {
    for lose in [true, false] {
        let (mut raid, mut p) = setup_with(StripeLayout::new(4, 4, true, 16));
        let on_1 = |c: u32| p.stripes.channel(c / 4, c % 4) == 1;
        let lost: Vec<u32> = if lose { (0..64).filter(|&c| on_1(c)).collect() } else { Vec::new() };
        assert_eq!(lost.len(), if lose { 16 } else { 0 });
        raid.fail(1, None, &lost, 2, ReadPlace::Tail);
        raid.replaced(&mut p);
        let rest = drive(&mut raid, &mut p);
        let ends = rest.iter().filter(|a| matches!(a, RaidAction::RebuildDone)).count();
        assert_eq!(ends, 1, "lost {}: {rest:?}", lost.len());
        let f = raid.failure().unwrap();
        assert_eq!((f.phase, f.counters.pages_rebuilt, f.lost_now), (Phase::Rebuilt, lost.len() as u64, 0));
        let mut onto: Vec<u32> = p.landed.iter().filter(|l| l.0 == 1).map(|l| l.1).collect();
        onto.sort();
        assert_eq!(onto, lost, "each lost chunk programmed once, onto the replacement");
        assert_eq!(p.landed.len(), lost.len(), "and nothing else");
    }
}
