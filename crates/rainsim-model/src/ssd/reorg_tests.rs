//! Fig. 7(b) with two different chunks, end to end on a small device under
//! verify mode: the GC's part (the victim held chunk x's stale slot D0 and
//! copy R1 of chunk y) is stood in for by hand, the rest runs as the
//! device runs it.

use super::reorg::Match;
use super::Ssd;
use crate::config::{Config, RaidLevel};
use crate::metrics::collector::Collector;
use crate::policy::rep_raid::{RepRaid, RepRaidParams};
use crate::policy::ReplicationKind;
use crate::raid::replica::Copy;
use rainsim_trace::{Op, Request};

/// 3 single-die channels, 2+1 stripes (position j on channel j), half the
/// space written, Rep-RAID at f* = 1 (every update replicates).
pub(super) fn device() -> Ssd<Collector> {
    let mut c = Config::default();
    let g = &mut c.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (3, 1, 1, 1);
    (g.blocks_per_plane, g.pages_per_block, g.page_bytes, g.over_provisioning) = (64, 16, 4096, 0.2);
    (c.precondition.valid, c.precondition.invalid) = (0.5, 0.0);
    (c.raid.level, c.raid.stripe_width) = (RaidLevel::Raid5, 3);
    c.policy.replication = ReplicationKind::RepRaid;
    Ssd::new(&c, Collector::new(3), true).unwrap()
}

pub(super) fn request(op: Op, time_ns: u64, lpn: u64) -> Request {
    Request { time_ns, offset: lpn * 4096, size: 4096, device: 0, op }
}

pub(super) fn drain(ssd: &mut Ssd<Collector>) {
    while ssd.step(&mut std::iter::empty()).unwrap() {}
}

/// Chunk x on channel 0 of one written stripe, chunk y on channel 2 of
/// another (its copy B goes to channel 0 on an idle device), and their
/// logical pages.
fn pick(ssd: &Ssd<Collector>) -> [(u32, u64); 2] {
    let l = ssd.stripes.clone();
    let written = |s: u32| (0..3).all(|j| ssd.ftl.lookup(s * 3 + j).is_some());
    let sx = (0..l.stripes).find(|&s| written(s) && l.parity_pos(s) != 0).unwrap();
    let sy = (sx + 1..l.stripes).find(|&s| written(s) && l.parity_pos(s) != 2).unwrap();
    [(sx * 3, lpn_of(&l, sx, 0)), (sy * 3 + 2, lpn_of(&l, sy, 2))]
}

/// The logical page of position `j` (not parity) of 2+1 stripe `s`.
fn lpn_of(l: &crate::raid::stripe::StripeLayout, s: u32, j: u32) -> u64 {
    s as u64 * 2 + (j - (j > l.parity_pos(s)) as u32) as u64
}

/// Runs Fig. 7(b) with x ≠ y and the parity recompute skewed by `skew`;
/// returns the device and (x, y, x's newest token, y's newest token).
fn fig7b(skew: u32) -> (Ssd<Collector>, [u32; 4], [u64; 2]) {
    let ssd = device();
    let pair = pick(&ssd);
    fig7b_of(ssd, skew, pair)
}

/// [`fig7b`] for a chosen pair: x on channel 0 (not parity) of a written
/// stripe, y on channel 2 (not parity) of another, with logical pages.
fn fig7b_of(mut ssd: Ssd<Collector>, skew: u32, pair: [(u32, u64); 2]) -> (Ssd<Collector>, [u32; 4], [u64; 2]) {
    let [(x, lx), (y, ly)] = pair;
    ssd.begin(&mut std::iter::empty(), 0).unwrap();
    ssd.submit(1_000, request(Op::Write, 1_000, lx), 0);
    ssd.submit(5_000_000, request(Op::Write, 5_000_000, ly), 1);
    drain(&mut ssd);
    let t = ssd.replicas.as_ref().unwrap();
    let (px, py) = (t.get(x).unwrap().pair, t.get(y).unwrap().pair);
    let v = ssd.verifier.as_ref().unwrap();
    let (tx, ty) = (v.latest(t.copy_id(px, Copy::A)), v.latest(t.copy_id(py, Copy::A)));
    let z = ssd.ftl.lookup(x).unwrap();
    let z_token = v.peek(z);
    let r1 = ssd.ftl.lookup(t.copy_id(py, Copy::B)).unwrap();
    let ch = |p: u32| ssd.layout.channel_of(p);
    assert_eq!((ch(z), ch(r1)), (0, 0), "D0 and R1 on one channel, as in one victim");
    // The GC's part: D0 dropped, not moved (R1 would move; where is moot).
    ssd.ftl.drop_id(x);
    let m = Match { stripe: x / 3, chunk: x, case_b: true, z_ppn: z, z_token, other: y, flip: true };
    ssd.apply_matches(&[m]);
    // Case (b) gives up no copy by itself (case (a) gives up copy B).
    assert_eq!(ssd.replicas.as_ref().unwrap().get(x).map(|e| e.gone), Some([false, false]));
    ssd.start_reorganisation(&m, skew);
    drain(&mut ssd);
    // R1 is slot x's member, unmoved; y's other copy is gone.
    assert_eq!(ssd.ftl.lookup(x), Some(r1));
    assert!(ssd.ftl.lookup(ssd.replicas.as_ref().unwrap().copy_id(py, Copy::A)).is_none());
    assert!(ssd.ftl.lookup(ssd.replicas.as_ref().unwrap().copy_id(py, Copy::B)).is_none());
    (ssd, [x, y, tx, ty], [lx, ly])
}

/// Chunks x and y swap slots: y's copy R1 is the member of x's old slot
/// (its token there), x keeps its copies and y's stale old slot as its
/// own, the parity recomputed as P ⊕ D0 ⊕ R1 passes verify's check, reads
/// of both return their newest versions, and the map holds two entries.
#[test]
fn fig7b_with_two_chunks_swaps_their_slots_and_keeps_the_stripe_recoverable() {
    let (mut ssd, [x, y, tx, ty], [lx, ly]) = fig7b(0);
    let repl = ssd.repl.as_ref().unwrap();
    assert_eq!((repl.map.slot(y), repl.map.slot(x), repl.map.max_entries), (x, y, 2));
    let rep = ssd.replication_report("rep-raid").unwrap();
    assert_eq!(rep.stripe_map_max_bytes, Some(32), "two entries of 16 bytes");
    let v = ssd.verifier.as_ref().unwrap();
    assert_eq!(v.peek(ssd.ftl.lookup(x).unwrap()), ty, "slot x holds y's newest version");
    let t = ssd.replicas.as_ref().unwrap();
    assert!(t.get(x).is_none(), "converted");
    let e = *t.get(y).expect("x is replicated, with y's old slot as its own");
    assert_eq!(v.latest(t.copy_id(e.pair, Copy::A)), tx);
    // x's copies are on channels 0 and 1, its new slot on channel 2: none
    // is home, so A and B keep their roles.
    assert!(e.misplaced);
    let ch = |k| ssd.ftl.lookup(t.copy_id(e.pair, k)).map(|p| ssd.layout.channel_of(p));
    assert_eq!((ch(Copy::A), ch(Copy::B)), (Some(0), Some(1)));
    let r = ssd.obs.replication;
    assert_eq!((r.reorg_case_a, r.reorg_case_b, r.reorg_case_b_swapped, r.converted_chunks), (0, 1, 1, 1));
    // Its time is its service: the GC's read of D0, then the parity's read,
    // the XOR with the stripe's software time, and the parity's program.
    let (f, c) = (ssd.t, crate::flash::timing::Timing::default());
    assert_eq!(r.reorg_ns, 2 * (f.read + f.xfer) + c.xor_ns + c.stripe_overhead_ns + f.xfer + f.program);
    ssd.submit(20_000_000, request(Op::Read, 20_000_000, ly), 2);
    ssd.submit(20_000_000, request(Op::Read, 20_000_000, lx), 3);
    drain(&mut ssd);
    assert_eq!(ssd.obs.replication.replica_reads, 1, "x from a copy, y from slot x");
    ssd.finish().expect("verify: reads, chunks, stripes, replicas");
}

/// The same with a wrong recompute (the new parity off by a constant):
/// verify's parity check fails.
#[test]
fn fig7b_with_a_wrong_parity_recompute_fails_verify() {
    let (mut ssd, ..) = fig7b(0x5a5a_5a5a);
    let e = ssd.finish().expect_err("a wrong parity must not pass").to_string();
    assert!(e.contains("not recoverable"), "{e}");
}

/// After the swap: x converts into y's old slot (no copy of x is on its
/// channel: the slot is programmed with x's data), and an update of y is
/// a stripe write on the stripe that now protects it (slot x's); every
/// stripe stays recoverable and reads return the newest versions.
#[test]
fn after_the_swap_a_conversion_and_an_update_keep_every_stripe_recoverable() {
    let (mut ssd, [x, y, tx, ty], [lx, ly]) = fig7b(0);
    use crate::flash::op::Origin;
    // Host and replica programs (a conversion's rewrite is replication's own).
    let programs = |s: &Ssd<Collector>| [Origin::HostProgram, Origin::ReplicaProgram].map(|o| s.obs.ops(o));
    let before = programs(&ssd);
    ssd.convert_stripe(y / 3, 1);
    drain(&mut ssd);
    let after = programs(&ssd);
    assert_eq!([after[0] - before[0], after[1] - before[1]], [0, 1], "x's data programmed into its slot");
    assert!(ssd.replicas.as_ref().unwrap().is_empty());
    let v = ssd.verifier.as_ref().unwrap();
    let slot = ssd.ftl.lookup(y).unwrap();
    assert_eq!((v.peek(slot), ssd.layout.channel_of(slot)), (tx, 2));
    // No more replication: the update of y is RMW or RCW on x's stripe.
    let chunks = ssd.stripes.chunks();
    ssd.policies.replication =
        Box::new(RepRaid::new(&RepRaidParams { initial_threshold: 4.0, ..Default::default() }, chunks, 1));
    let stripe_writes = |s: &Ssd<Collector>| s.obs.raid.rmw + s.obs.raid.rcw;
    let before = stripe_writes(&ssd);
    ssd.submit(30_000_000, request(Op::Write, 30_000_000, ly), 4);
    ssd.submit(40_000_000, request(Op::Read, 40_000_000, ly), 5);
    ssd.submit(40_000_000, request(Op::Read, 40_000_000, lx), 6);
    drain(&mut ssd);
    assert_eq!(stripe_writes(&ssd) - before, 1);
    assert_eq!(ssd.layout.channel_of(ssd.ftl.lookup(x).unwrap()), 0, "y rewritten in slot x, on channel 0");
    // Verify checks slots, not which logical chunk a write went to: slot x
    // must hold y's update and slot y still x's data.
    let v = ssd.verifier.as_ref().unwrap();
    assert_eq!(v.peek(ssd.ftl.lookup(y).unwrap()), tx, "slot y still holds x's data");
    assert_ne!(v.peek(ssd.ftl.lookup(x).unwrap()), ty, "slot x holds y's update, not its old copy");
    ssd.finish().expect("verify");
}

/// Host writes of swapped chunks go to the slots the chunks live in, for
/// pairs whose ids alias under arithmetic slips in the "no chunk swapped"
/// shortcut of a write (`Ssd::write_remapped`, chunk `s·3 + pos`): x = 3·s_x
/// and y = 3·s_y + 2 with s_x = 2·s_y (then x = s_y·3·2), and with
/// s_y = 3·s_x − 5 (then x = s_y + 3 + 2), each the first such pair of
/// preconditioned stripes where x and y hold data. After the swap and x's
/// conversion, an update of x programs slot y's channel (2) and stripe
/// s_y's parity; one of y, channel 0 and stripe s_x's parity.
#[test]
fn updates_of_swapped_chunks_program_the_slots_they_live_in() {
    use crate::flash::op::Origin;
    // Data and parity programs per channel.
    let programs = |s: &Ssd<Collector>| -> Vec<[u64; 2]> {
        s.obs
            .channels
            .iter()
            .map(|c| [c.ops[Origin::HostProgram as usize], c.ops[Origin::ParityProgram as usize]])
            .collect()
    };
    let probe = device();
    let l = probe.stripes.clone();
    let usable = |sx: u32, sy: u32| {
        let written = |s: u32| s < l.stripes && (0..3).all(|j| probe.ftl.lookup(s * 3 + j).is_some());
        written(sx) && written(sy) && l.parity_pos(sx) != 0 && l.parity_pos(sy) != 2
    };
    let first = |f: &dyn Fn(u32) -> (u32, u32)| (1..l.stripes).map(f).find(|&(sx, sy)| usable(sx, sy)).unwrap();
    let pairs = [first(&|sy| (2 * sy, sy)), first(&|sx| (sx + 2, 3 * (sx + 2) - 5))];
    for (sx, sy) in pairs {
        let (x, y) = (sx * 3, sy * 3 + 2);
        let (lx, ly) = (lpn_of(&l, sx, 0), lpn_of(&l, sy, 2));
        let (mut ssd, ..) = fig7b_of(device(), 0, [(x, lx), (y, ly)]);
        ssd.convert_stripe(sy, 1);
        drain(&mut ssd);
        let chunks = ssd.stripes.chunks();
        ssd.policies.replication =
            Box::new(RepRaid::new(&RepRaidParams { initial_threshold: 4.0, ..Default::default() }, chunks, 1));
        // (page, bytes, data channel, stripe, pre-reads): a whole-page
        // update of one chunk of a 2+1 stripe is an RCW reading the other
        // data chunk only; a 512-byte one also reads the page to merge it.
        let updates = [(lx, 4096, 2, sy, 1), (ly, 4096, 0, sx, 1), (ly, 512, 0, sx, 2)];
        for (k, (lp, bytes, data_channel, stripe, prereads)) in updates.into_iter().enumerate() {
            let (before, reads) = (programs(&ssd), ssd.obs.ops(Origin::PreRead));
            let at = 30_000_000 + k as u64 * 10_000_000;
            ssd.submit(at, Request { size: bytes, ..request(Op::Write, at, lp) }, 4 + k as u32);
            drain(&mut ssd);
            let after = programs(&ssd);
            let mut want = vec![[0u64; 2]; 3];
            want[data_channel][0] += 1;
            want[l.parity_pos(stripe) as usize][1] += 1;
            let got: Vec<[u64; 2]> = after.iter().zip(&before).map(|(a, b)| [a[0] - b[0], a[1] - b[1]]).collect();
            let at = format!("x = {x}, y = {y}: update of {bytes} bytes of page {lp}");
            assert_eq!(got, want, "{at}");
            assert_eq!(ssd.obs.ops(Origin::PreRead) - reads, prereads, "{at}");
        }
        ssd.finish().expect("verify");
    }
}

/// Rep-RAID with every GC's roles recorded and, if given, copy B placed on
/// a fixed channel per home channel (the rest delegated).
struct Roles(Box<dyn crate::policy::Replication>, std::rc::Rc<std::cell::RefCell<Vec<GcRoles>>>, Option<[u32; 3]>);

/// Wraps `ssd`'s replication policy in [`Roles`]; returns the GC log.
fn with_roles(ssd: &mut Ssd<Collector>, place: Option<[u32; 3]>) -> std::rc::Rc<std::cell::RefCell<Vec<GcRoles>>> {
    let log = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let inner = std::mem::replace(&mut ssd.policies.replication, Box::new(crate::policy::replication::NoReplication));
    ssd.policies.replication = Box::new(Roles(inner, log.clone(), place));
    log
}

use crate::device_state::DeviceView;
use crate::policy::replication::GcRoles;

impl crate::policy::Replication for Roles {
    fn on_request(&mut self) {
        self.0.on_request()
    }
    fn replicate(&mut self, view: &DeviceView, chunk: u32, bytes: u32) -> bool {
        self.0.replicate(view, chunk, bytes)
    }
    fn place(&mut self, view: &DeviceView, home: u32) -> [u32; 2] {
        match self.2 {
            Some(other) => [home, other[home as usize]],
            None => self.0.place(view, home),
        }
    }
    fn reorganizes(&self) -> bool {
        self.0.reorganizes()
    }
    fn any_chunk(&self) -> bool {
        self.0.any_chunk()
    }
    fn on_gc(&mut self, g: &GcRoles) {
        self.1.borrow_mut().push(*g);
        self.0.on_gc(g)
    }
    fn on_reorg(&mut self, ns: crate::engine::SimTime) {
        self.0.on_reorg(ns)
    }
    fn on_replica_read(&mut self, ns: crate::engine::SimTime) {
        self.0.on_replica_read(ns)
    }
    fn threshold(&self) -> Option<f64> {
        self.0.threshold()
    }
    fn threshold_history(&self) -> Vec<(u64, f64)> {
        self.0.threshold_history()
    }
}

/// What each GC tells the policy (Eq. 2's GC term): the pages it moved,
/// and of them those that exist because of replication (old slots of
/// replicated chunks and copies), summing over the run to the GC moves the
/// report counts by role.
#[test]
fn each_gc_tells_the_policy_its_replication_moves() {
    let mut ssd = device();
    let log = with_roles(&mut ssd, None);
    let lpns = ssd.stripes.logical_pages();
    ssd.begin(&mut std::iter::empty(), 0).unwrap();
    let mut x = 12_345u64;
    for i in 0..6_000u64 {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let t = 1_000 + i * 200_000;
        ssd.submit(t, request(Op::Write, t, (x >> 33) % lpns), i as u32);
    }
    drain(&mut ssd);
    let g = log.borrow();
    let r = ssd.obs.replication;
    assert!(g.len() > 20, "{} GCs", g.len());
    let repl: u64 = g.iter().map(|g| g.moved_replication as u64).sum();
    assert!(r.gc_moves_semi_invalid > 0 && r.gc_moves_replica > 0, "{r:?}");
    assert_eq!(repl, r.gc_moves_semi_invalid + r.gc_moves_replica);
    let moved: u64 = g.iter().map(|g| g.moved as u64).sum();
    assert_eq!(moved, r.gc_moves_valid + r.gc_moves_semi_valid + repl);
    // The counters' memory: the paper's 2 bits a chunk, the model's 2 bytes.
    let rep = ssd.replication_report("rep-raid").unwrap();
    let chunks = ssd.stripes.stripes as u64 * 3;
    assert_eq!((rep.counter_bytes_paper, rep.counter_bytes_model), (chunks.div_ceil(4), 2 * chunks));
}

/// After a swap, the copy on the new slot's channel becomes copy A: x's
/// copies placed on channels 0 and 2, its new slot (y's old one) on 2, so
/// copy B, on 2, becomes A and the entry is not misplaced.
#[test]
fn after_a_swap_the_copy_on_the_new_slots_channel_becomes_copy_a() {
    let mut ssd = device();
    with_roles(&mut ssd, Some([2, 2, 0]));
    let pair = pick(&ssd);
    let (ssd, [_, y, ..], _) = fig7b_of(ssd, 0, pair);
    let t = ssd.replicas.as_ref().unwrap();
    let e = *t.get(y).expect("x is replicated, with y's old slot as its own");
    let ch = |k| ssd.ftl.lookup(t.copy_id(e.pair, k)).map(|p| ssd.layout.channel_of(p));
    assert_eq!((ch(Copy::A), ch(Copy::B)), (Some(2), Some(0)));
    assert!(!e.misplaced);
}
