//! Host reads of a replicated chunk (`Ssd::replica_read`): the copy whose
//! die is predicted to free first serves it, the time saved against the
//! other copy goes to the policy, and any-chunk matching sees the slot as
//! read while the read is in flight.

use super::reorg_tests::{device, drain, request};
use super::Ssd;
use crate::device_state::DeviceView;
use crate::engine::SimTime;
use crate::flash::op::Origin;
use crate::metrics::collector::Collector;
use crate::policy::Replication;
use crate::raid::replica::Copy;
use rainsim_trace::Op;
use std::cell::RefCell;
use std::rc::Rc;

/// Replicates every update, copy B on a fixed channel per home channel, and
/// records what each replica read saved.
struct Fixed {
    other: [u32; 3],
    saved: Rc<RefCell<Vec<SimTime>>>,
}

impl Replication for Fixed {
    fn replicate(&mut self, _: &DeviceView, _: u32, _: u32) -> bool {
        true
    }
    fn place(&mut self, _: &DeviceView, home: u32) -> [u32; 2] {
        [home, self.other[home as usize]]
    }
    fn on_replica_read(&mut self, ns: SimTime) {
        self.saved.borrow_mut().push(ns);
    }
}

/// A written data chunk whose slot is on `channel`, and its logical page,
/// in none of the stripes of the chunks in `not` (one write job per stripe).
pub(super) fn chunk_on(ssd: &Ssd<Collector>, channel: u32, not: &[u32]) -> (u32, u64) {
    let l = &ssd.stripes;
    (0..l.stripes)
        .filter(|&s| (0..3).all(|j| ssd.ftl.lookup(s * 3 + j).is_some()))
        .flat_map(|s| (0..3).filter(move |&j| j != l.parity_pos(s)).map(move |j| (s, j)))
        .map(|(s, j)| (s * 3 + j, s as u64 * 2 + (j - (j > l.parity_pos(s)) as u32) as u64))
        .find(|&(c, _)| {
            !not.iter().any(|n| n / 3 == c / 3) && ssd.layout.channel_of(ssd.ftl.lookup(c).unwrap()) == channel
        })
        .unwrap()
}

/// Starts the run and updates logical page `lpn` at 1 µs (f* = 1 and the
/// fixed placement replicate it), running until the device is idle.
pub(super) fn update(ssd: &mut Ssd<Collector>, lpn: u64) {
    ssd.begin(&mut std::iter::empty(), 0).unwrap();
    ssd.submit(1_000, request(Op::Write, 1_000, lpn), 0);
    drain(ssd);
}

/// The device with copy B of a chunk homed on channel h placed on
/// `other[h]`, and the log of what each replica read saved.
fn fixed_device(other: [u32; 3]) -> (Ssd<Collector>, Rc<RefCell<Vec<SimTime>>>) {
    let mut ssd = device();
    let saved = Rc::new(RefCell::new(Vec::new()));
    ssd.policies.replication = Box::new(Fixed { other, saved: saved.clone() });
    (ssd, saved)
}

fn host_reads(ssd: &Ssd<Collector>, channel: usize) -> u64 {
    ssd.obs.channels[channel].ops[Origin::HostRead as usize]
}

/// x's copies on channels 0 (A) and 1 (B). y's update programs channel 1
/// at t0 (and 2); z's programs channel 0 at t1 = t0 + P/4 (and 2). A read
/// of x after both programs passed t_R: copy B's die frees P/4 earlier, so
/// B serves it and the saving is the programs' start gap, P/4. A copy
/// chosen by index, or a program taken for a read, picks A.
#[test]
fn a_replica_read_goes_to_the_copy_whose_program_ends_first() {
    let (mut ssd, saved) = fixed_device([1, 2, 2]);
    let (x, lx) = chunk_on(&ssd, 0, &[]);
    let (y, ly) = chunk_on(&ssd, 1, &[x]);
    let (_, lz) = chunk_on(&ssd, 0, &[x, y]);
    update(&mut ssd, lx);
    let t = ssd.replicas.as_ref().unwrap();
    let pair = t.get(x).unwrap().pair;
    let ch = |k| ssd.layout.channel_of(ssd.ftl.lookup(t.copy_id(pair, k)).unwrap());
    assert_eq!((ch(Copy::A), ch(Copy::B)), (0, 1));
    let p = ssd.t.program;
    let t0 = 100_000_000;
    let t1 = t0 + p / 4;
    ssd.submit(t0, request(Op::Write, t0, ly), 1);
    ssd.submit(t1, request(Op::Write, t1, lz), 2);
    let t2 = t1 + ssd.t.xfer + 2 * ssd.t.read;
    assert!(t2 < t0 + p, "both programs still run at the read");
    ssd.submit(t2, request(Op::Read, t2, lx), 3);
    let before = [host_reads(&ssd, 0), host_reads(&ssd, 1)];
    drain(&mut ssd);
    assert_eq!(ssd.obs.replication.replica_reads, 1);
    assert_eq!([host_reads(&ssd, 0) - before[0], host_reads(&ssd, 1) - before[1]], [0, 1], "copy B served it");
    assert_eq!(*saved.borrow(), vec![p / 4], "A's die would have freed P/4 later");
}

/// The same read with both dies idle: the copies tie and copy A serves it,
/// saving nothing; with copy A's die reading, B serves it and saves the
/// read's remaining time plus nothing queued.
#[test]
fn an_idle_tie_goes_to_copy_a_and_a_busy_die_to_copy_b() {
    let (mut ssd, saved) = fixed_device([1, 2, 0]);
    let (x, lx) = chunk_on(&ssd, 0, &[]);
    let (_, lu) = chunk_on(&ssd, 0, &[x]);
    update(&mut ssd, lx);
    let t = 100_000_000;
    ssd.submit(t, request(Op::Read, t, lx), 1);
    drain(&mut ssd);
    assert_eq!((host_reads(&ssd, 0), host_reads(&ssd, 1)), (1, 0), "a tie keeps copy A");
    // u's read starts on die 0 at t2; x's read arrives `d` later.
    let (t2, d) = (2 * t, ssd.t.read / 4);
    ssd.submit(t2, request(Op::Read, t2, lu), 2);
    ssd.submit(t2 + d, request(Op::Read, t2 + d, lx), 3);
    drain(&mut ssd);
    assert_eq!((host_reads(&ssd, 0), host_reads(&ssd, 1)), (2, 1), "u on channel 0, x from copy B");
    assert_eq!(*saved.borrow(), vec![0, ssd.t.read - d], "a tie saves nothing; then A's read had t_R − d left");
}

/// Reads queued for a die count a sensing time each: copy A's die reads
/// one page and has three more queued (about 3.5 t_R to wait), copy B's
/// programs with about 3 t_R left, so B serves the read. Counted as one
/// read, or none, the queue would make A look the sooner.
#[test]
fn reads_queued_for_a_copys_die_count_a_sensing_time_each() {
    let (mut ssd, saved) = fixed_device([1, 2, 0]);
    let (x, lx) = chunk_on(&ssd, 0, &[]);
    let (y, ly) = chunk_on(&ssd, 1, &[x]);
    let (mut taken, mut others) = (vec![x, y], Vec::new());
    for _ in 0..4 {
        let (c, lpn) = chunk_on(&ssd, 0, &taken);
        taken.push(c);
        others.push(lpn);
    }
    update(&mut ssd, lx);
    let (p, t_r, xfer) = (ssd.t.program, ssd.t.read, ssd.t.xfer);
    assert!(p > 4 * t_r + xfer, "a program outlasts the reads");
    // y's update programs channel 1 (and 2) from about t0 + xfer.
    let t0 = 100_000_000;
    ssd.submit(t0, request(Op::Write, t0, ly), 1);
    let t2 = t0 + xfer + p - 3 * t_r;
    for (i, &lpn) in others.iter().enumerate() {
        ssd.submit(t2 - t_r / 2, request(Op::Read, t2 - t_r / 2, lpn), 2 + i as u32);
    }
    ssd.submit(t2, request(Op::Read, t2, lx), 9);
    let before = host_reads(&ssd, 1);
    drain(&mut ssd);
    assert_eq!(host_reads(&ssd, 1) - before, 1, "copy B served x");
    assert_eq!(host_reads(&ssd, 0), 4, "the four reads of channel 0's other chunks");
    let s = saved.borrow();
    assert!(s.len() == 1 && s[0] > 0 && s[0] < t_r, "saved {s:?} (t_R {t_r})");
}

/// What a queued host read of a replicated chunk reads when it starts
/// (`Ssd::read_id`): the copy it was sent to, else the other copy; a plain
/// host read (queued before the chunk replicated) reads copy A, which holds
/// the newest version, not the stale slot; with no copy left, the slot.
#[test]
fn a_queued_read_of_a_replicated_chunk_reads_a_live_copy() {
    use crate::flash::op::{FlashOp, Owner};
    let mut ssd = device();
    let (x, lx) = chunk_on(&ssd, 0, &[]);
    update(&mut ssd, lx);
    let pair = ssd.replicas.as_ref().unwrap().get(x).expect("f* = 1 replicated x").pair;
    let t = ssd.replicas.as_ref().unwrap();
    let (a, b) = (t.copy_id(pair, Copy::A), t.copy_id(pair, Copy::B));
    let op = |owner| FlashOp { chunk: x, owner, enqueued: 0, ppn: 0, seq: 0 };
    let (host, to_a, to_b) = (op(Owner::HostRead(0)), op(Owner::ReplicaReadA(0)), op(Owner::ReplicaReadB(0)));
    assert_eq!([ssd.read_id(&host), ssd.read_id(&to_a), ssd.read_id(&to_b)], [a, a, b]);
    // Copy B gone (as a reorganisation gives it up): a read sent to it reads A.
    ssd.replicas.as_mut().unwrap().get_mut(x).unwrap().gone[1] = true;
    assert_eq!([ssd.read_id(&host), ssd.read_id(&to_a), ssd.read_id(&to_b)], [a, a, a]);
    // Copy A unmapped and B gone: the slot.
    ssd.ftl.drop_id(a);
    assert_eq!([ssd.read_id(&host), ssd.read_id(&to_a), ssd.read_id(&to_b)], [x, x, x]);
    // Not a host read: its own chunk.
    assert_eq!(ssd.read_id(&op(Owner::PreRead(0))), x);
}

/// Any-chunk matching must not reuse a slot a host read is on its way to:
/// the device counts reads in flight per slot, two reads of one slot
/// count two, and a completed read lowers the count until the slot leaves.
#[test]
fn reads_in_flight_are_counted_per_slot_until_they_complete() {
    let mut ssd = device();
    let (x, lx) = chunk_on(&ssd, 0, &[]);
    update(&mut ssd, lx);
    assert!(ssd.replicas.as_ref().unwrap().get(x).is_some(), "f* = 1 replicated x");
    let reading = |ssd: &Ssd<Collector>| ssd.repl.as_ref().unwrap().reading.clone().unwrap();
    assert!(reading(&ssd).is_empty());
    let t = 100_000_000;
    ssd.submit(t, request(Op::Read, t, lx), 1);
    ssd.submit(t, request(Op::Read, t, lx), 2);
    let mut seen = vec![0];
    while ssd.step(&mut std::iter::empty()).unwrap() {
        let n = reading(&ssd).get(&x).copied().unwrap_or(0);
        if seen.last() != Some(&n) {
            seen.push(n);
        }
    }
    assert_eq!(seen, [0, 1, 2, 1, 0], "counted up as admitted, down as completed");
    assert!(reading(&ssd).is_empty(), "no slot stays marked after its reads");
    assert_eq!(ssd.obs.replication.replica_reads, 2);
}

/// Verify mode's replica check: a replicated chunk's live copies each have a
/// page, hold one version, and sit on two channels; a copy given up
/// (`gone`) may have none.
#[test]
fn the_replica_check_finds_a_missing_copy_and_diverged_versions() {
    let mut ssd = device();
    let (x, lx) = chunk_on(&ssd, 0, &[]);
    update(&mut ssd, lx);
    ssd.check_replicas().expect("a fresh replica passes");
    let t = ssd.replicas.as_ref().unwrap();
    let pair = t.get(x).unwrap().pair;
    let (a, b) = (t.copy_id(pair, Copy::A), t.copy_id(pair, Copy::B));
    let (pa, pb) = (ssd.ftl.lookup(a).unwrap(), ssd.ftl.lookup(b).unwrap());
    // Copy B holding another version.
    let v = ssd.verifier.as_mut().unwrap();
    let tok = v.peek(pa);
    v.write(b, pb, tok ^ 1);
    let e = ssd.check_replicas().unwrap_err().what;
    assert!(e.contains(&format!("replicated chunk {x}: its copies hold versions")), "{e}");
    ssd.verifier.as_mut().unwrap().write(b, pb, tok);
    // Copy B without a page: an error while it counts as live, none once gone.
    ssd.ftl.drop_id(b);
    let e = ssd.check_replicas().unwrap_err().what;
    assert!(e.contains(&format!("replicated chunk {x}: copy 1 has no page")), "{e}");
    ssd.replicas.as_mut().unwrap().get_mut(x).unwrap().gone[1] = true;
    ssd.check_replicas().expect("a copy given up needs no page");
}
