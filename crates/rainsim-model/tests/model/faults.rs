//! The verifier as a product: injected model faults must stop a `--verify`
//! run with the message that says what broke, when and where. Each scenario
//! first runs clean without the fault.

use crate::{full_stripe, tiny};
use rainsim_model::metrics::collector::Collector;
use rainsim_model::policy::{ChunkUpdate, DeviceView, UpdatePlacement};
use rainsim_model::ssd::Fault;
use rainsim_model::verify::{merged, token};
use rainsim_model::{Config, SimError, Ssd};
use rainsim_trace::{Op, Request};

const PB: u64 = 4096;
const T_PROG: u64 = 500_000;
const XFER: u64 = 10_240 + 300;

fn req(t: u64, chunk: u64, pages: u32, op: Op) -> Request {
    Request { time_ns: t, offset: chunk * PB, size: pages * PB as u32, device: 0, op }
}

fn timed(mut c: Config) -> Config {
    c.timing.read_ns = 20_000;
    c.timing.program_ns = T_PROG;
    c.timing.command_ns = 300;
    c
}

/// The verifier's message for a read of `chunk` at `at` returning token
/// `got` where `want` is the latest written.
fn stale(at: u64, chunk: u32, got: u32, want: u32) -> String {
    format!(
        "verification failed at t = {at} ns: read of chunk {chunk} returned version token {got:#x}, latest written is {want:#x}"
    )
}

/// A `channels`-channel device (one die each, 64 blocks of 16 pages) half
/// full, with 20 % spare and the timing above.
fn half_full(channels: u32, raid: Option<u32>) -> Config {
    let mut c = timed(tiny(channels, 1, 1, 64, 16, raid));
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    c
}

/// Runs `reqs` with and without `fault`: clean without, the verification
/// error with (returned with the device).
fn caught(cfg: &Config, fault: Fault, reqs: &[Request]) -> (String, Ssd<Collector>) {
    caught_with(cfg, fault, reqs, |_| {})
}

/// As `caught`, with `setup` applied to both devices (policies set by hand).
fn caught_with(
    cfg: &Config,
    fault: Fault,
    reqs: &[Request],
    setup: impl Fn(&mut Ssd<Collector>),
) -> (String, Ssd<Collector>) {
    let mut clean = Ssd::new(cfg, Collector::new(cfg.geometry.channels), true).unwrap();
    setup(&mut clean);
    clean.run(reqs, &mut |_| {}).unwrap_or_else(|e| panic!("fails without the fault: {e}"));
    let mut ssd = Ssd::new(cfg, Collector::new(cfg.geometry.channels), true).unwrap();
    setup(&mut ssd);
    ssd.inject_fault(fault);
    match ssd.run(reqs, &mut |_| {}) {
        Err(e @ SimError::Verify(_)) => (e.to_string(), ssd),
        other => panic!("{fault:?} went unnoticed: {other:?}"),
    }
}

/// A write whose program never reaches the mapping: the read 10 ms later
/// goes to the old page and gets the preconditioned version.
#[test]
fn a_stale_read_is_caught() {
    let c = half_full(1, None);
    let probe = Ssd::new(&c, Collector::new(1), true).unwrap();
    let chunk = (0..probe.ftl.map.chunks() as u32).find(|&x| probe.ftl.lookup(x).is_some()).unwrap();
    let old = probe.ftl.lookup(chunk).unwrap();
    let at = 10_000_000;
    let (msg, ssd) =
        caught(&c, Fault::StaleRead, &[req(0, chunk as u64, 1, Op::Write), req(at, chunk as u64, 1, Op::Read)]);
    assert_eq!(ssd.ftl.lookup(chunk), Some(old), "the mapping kept the old page");
    let v = ssd.verifier().unwrap();
    let (got, want) = (v.peek(old), v.latest(chunk));
    assert_ne!(got, want);
    assert_eq!(msg, stale(at, chunk, got, want));
}

/// A full-stripe write whose parity leaves out one data chunk: the end-of-run
/// check finds the stripe's tokens XOR to that chunk's token.
#[test]
fn parity_missing_a_chunk_is_caught() {
    let mut c = timed(tiny(4, 1, 1, 64, 16, Some(4)));
    c.timing.xor_ns = 19_000;
    let (msg, ssd) = caught(&c, Fault::ParityMissesChunk, &[req(0, 0, 3, Op::Write)]);
    let v = ssd.verifier().unwrap();
    let layout = ssd.stripe_layout();
    let tokens: Vec<(u32, u32)> = (0..4).map(|x| (x, v.peek(ssd.ftl.lookup(x).unwrap()))).collect();
    let residue = tokens.iter().fold(0, |a, t| a ^ t.1);
    // The lowest data position is the one left out.
    let first_data = tokens.iter().find(|t| !layout.is_parity(t.0)).unwrap();
    assert_eq!(residue, first_data.1);
    // XOR, then the four programs in parallel; the check runs at the end.
    let end = 19_000 + XFER + T_PROG;
    assert_eq!(
        msg,
        format!(
            "verification failed at t = {end} ns: stripe 0 is not recoverable: parity != XOR of its data chunks (residue {residue:#x})"
        )
    );
}

/// One plane of 8 blocks × 4 pages, GC below 2 free blocks: chunks 0..23
/// fill blocks 0..5, rewriting chunk 0 opens block 6 and leaves one free, so
/// GC moves chunks 1, 2, 3 of block 0 into block 6. The fault loses the
/// first: the read of chunk 1 finds a page never written (token 0).
#[test]
fn a_page_lost_by_gc_is_caught() {
    let mut c = timed(tiny(1, 1, 1, 8, 4, None));
    c.geometry.over_provisioning = 0.25;
    c.ftl.gc_threshold = 0.2;
    c.ftl.wear_level_spread = 0;
    let mut reqs: Vec<Request> = (0..24).map(|i| req(i * 2_000_000, i, 1, Op::Write)).collect();
    reqs.push(req(48_000_000, 0, 1, Op::Write));
    let at = 100_000_000;
    reqs.push(req(at, 1, 1, Op::Read));
    let (msg, ssd) = caught(&c, Fault::GcLosesPage, &reqs);
    let p = ssd.ftl.lookup(1).unwrap();
    assert_eq!(ssd.layout().block_of(p), 6, "chunk 1 moved into block 6");
    let want = ssd.verifier().unwrap().latest(1);
    assert_eq!(
        msg,
        format!("verification failed at t = {at} ns: read of chunk 1 returned version token 0x0, latest written is {want:#x}")
    );
}

/// An unaligned write covering a whole 3+1 stripe (its first page from
/// sector 1 on) must read and merge the old first page. The fault plans it
/// as a full-stripe write with no pre-read: the merged page then holds the
/// new sectors over zeros. A read 10 ms later returns that token, and with no
/// read the end-of-run check finds the page. The tokens are worked out here:
/// preconditioning gave position j of stripe s `token(u64::MAX − s, j)`, the
/// write is version 1. The same with RAID off (one partial page).
#[test]
fn a_skipped_merge_read_is_caught() {
    for raid in [Some(4), None] {
        let c = half_full(4, raid);
        let probe = Ssd::new(&c, Collector::new(4), true).unwrap();
        let (s, pages) = match raid {
            Some(_) => (full_stripe(&probe), 3u64),
            None => ((0..probe.ftl.map.chunks() as u32).find(|&x| probe.ftl.lookup(x).is_some()).unwrap(), 1),
        };
        let layout = probe.stripe_layout().clone();
        let lpn = s as u64 * pages;
        let (pos, chunk) =
            if raid.is_some() { (layout.chunk_of_lpn(lpn).1 % 4, layout.chunk_of_lpn(lpn).1) } else { (0, s) };
        let old = probe.verifier().unwrap().latest(chunk);
        assert_eq!(old, token(u64::MAX - s as u64, pos), "preconditioned version");
        let write =
            Request { time_ns: 0, offset: lpn * PB + 512, size: (pages * PB - 512) as u32, device: 0, op: Op::Write };
        let at = 10_000_000;
        let read = req(at, lpn, 1, Op::Read);
        let (msg, ssd) = caught(&c, Fault::SkipsMergeRead, &[write, read]);
        let (want, got) = (merged(old, 1, pos), merged(0, 1, pos));
        assert_eq!(ssd.verifier().unwrap().latest(chunk), want);
        assert_eq!(msg, stale(at, chunk, got, want));
        let (msg, ssd) = caught(&c, Fault::SkipsMergeRead, &[write]);
        let p = ssd.ftl.lookup(chunk).unwrap();
        assert!(
            msg.ends_with(&format!(
                "chunk {chunk} at page {p} holds version token {got:#x}, latest written is {want:#x}"
            )),
            "{msg}"
        );
    }
}

/// Moves every single-chunk update to the first channel outside its stripe.
struct MoveOut;
impl UpdatePlacement for MoveOut {
    fn place(&mut self, _: &DeviceView, u: &ChunkUpdate) -> Option<u32> {
        u.outside.first().copied()
    }
}

/// A degraded update (3+1 over 6 channels) whose chunk is programmed on its
/// new channel while the mapping, the stripe's record of its chunks, keeps
/// the old page: the read after it returns the old version.
#[test]
fn a_moved_chunk_missing_from_its_record_is_caught() {
    let c = half_full(6, Some(4));
    let probe = Ssd::new(&c, Collector::new(6), true).unwrap();
    let s = full_stripe(&probe);
    let chunk = probe.stripe_layout().chunk_of_lpn(s as u64 * 3).1;
    let old_page = probe.ftl.lookup(chunk).unwrap();
    let at = 10_000_000;
    let reqs = [req(0, s as u64 * 3, 1, Op::Write), req(at, s as u64 * 3, 1, Op::Read)];
    let (msg, ssd) = caught_with(&c, Fault::MoveNotRecorded, &reqs, |d| d.set_update_placement(Box::new(MoveOut)));
    assert_eq!(ssd.ftl.lookup(chunk), Some(old_page));
    let v = ssd.verifier().unwrap();
    let (got, want) = (v.peek(old_page), v.latest(chunk));
    assert_eq!(got, probe.verifier().unwrap().latest(chunk), "the old version");
    assert_eq!(msg, stale(at, chunk, got, want));
}

/// A degraded update landing on a channel its stripe already uses: both
/// chunks would be lost with that channel, and the end-of-run stripe check
/// says which stripe and channel.
#[test]
fn a_chunk_moved_into_its_own_stripe_is_caught() {
    let c = half_full(6, Some(4));
    let probe = Ssd::new(&c, Collector::new(6), true).unwrap();
    let s = full_stripe(&probe);
    let reqs = [req(0, s as u64 * 3, 1, Op::Write)];
    let (msg, ssd) = caught_with(&c, Fault::MovesIntoStripe, &reqs, |d| d.set_update_placement(Box::new(MoveOut)));
    let chans: Vec<u32> = (0..4).map(|j| ssd.layout().channel_of(ssd.ftl.lookup(s * 4 + j).unwrap())).collect();
    let twice = *chans.iter().find(|&&ch| chans.iter().filter(|&&x| x == ch).count() == 2).expect("a shared channel");
    assert!(msg.ends_with(&format!("stripe {s} has two chunks on channel {twice}: losing it loses both")), "{msg}");
}

/// A full-stripe write whose parity leaves out its lowest data chunk, then
/// the failure of another data chunk's channel: the rebuild XORs the
/// partners into the left-out chunk's version XOR the lost one's, and verify
/// mode stops the run there, at the rebuild's XOR, not at the end.
#[test]
fn a_rebuild_through_a_wrong_parity_is_caught() {
    let mut c = timed(tiny(5, 1, 1, 64, 16, Some(5)));
    c.timing.xor_ns = 19_000;
    let probe = Ssd::new(&c, Collector::new(5), true).unwrap();
    let layout = probe.stripe_layout().clone();
    let data: Vec<u32> = (0..5).filter(|&x| !layout.is_parity(x)).collect();
    let (left_out, lost) = (data[0], data[1]);
    let channel = layout.channel(0, lost % 5);
    let failed_at = 5_000_000;
    (c.fault.channel, c.fault.at_ns, c.fault.replace_after_ns) = (Some(channel), failed_at, 0);
    let (msg, ssd) = caught(&c, Fault::ParityMissesChunk, &[req(0, 0, 4, Op::Write)]);
    let v = ssd.verifier().unwrap();
    let (want, other) = (v.latest(lost), v.latest(left_out));
    assert_ne!(other, 0);
    // The partners read in parallel, then the XOR: the check comes before
    // the replacement's program.
    let at = failed_at + 20_000 + XFER + 19_000;
    assert_eq!(
        msg,
        format!(
            "verification failed at t = {at} ns: the rebuild of chunk {lost} gave token {:#x}, latest written is {want:#x}",
            want ^ other
        )
    );
}
