//! The RAID layer alone: a port that records what the layer asks and the
//! actions it hands down, driven by hand through a 4+1 stripe. The expected
//! actions are worked out from RAID-5 itself (which chunks an RMW reads and
//! writes, the parity it computes), not from the device.

use rainsim_model::flash::op::{FlashOp, Owner};
use rainsim_model::raid::layer::{
    RaidAction, RaidEvent, RaidLayer, RaidPort, RaidTimes, ReplicationProbe, StripeWrite, Token,
};
use rainsim_model::raid::replica::ReplicaTable;
use rainsim_model::raid::rmw_rcw::{ChunkUpdate, Member, Routine, UpdatePlan};
use rainsim_model::raid::stripe::StripeLayout;
use rainsim_model::sched::ReadPlace;
use rainsim_model::token::token;

const XOR: u64 = 1_000;
const STRIPE_SW: u64 = 300;

/// Every chunk of every stripe written, chunk c at page 100 + c on the
/// channel the layout gives it; the parity policy takes the fewest pre-reads.
pub(super) struct Recorder {
    pub(super) stripes: StripeLayout,
    actions: Vec<RaidAction>,
    pub(super) writes: Vec<StripeWrite>,
    xors: u32,
    /// A replica table, for replica jobs, and the probes they raise.
    table: Option<ReplicaTable>,
    probes: Vec<ReplicationProbe>,
    /// Chunks never written (no page).
    pub(super) absent: Vec<u32>,
    /// Where the placement policy moves a single-chunk update (degraded
    /// update), if anywhere.
    place_to: Option<u32>,
    /// The channels each placement was offered.
    offered: Vec<Vec<u32>>,
    /// (channel, chunk) of every program `drive` completed, in order.
    pub(super) landed: Vec<(u32, u32)>,
}

impl RaidPort for Recorder {
    fn member(&self, chunk: u32) -> Option<Member> {
        if self.absent.contains(&chunk) {
            return None;
        }
        let w = self.stripes.width;
        let channel = self.stripes.channel(chunk / w, chunk % w);
        Some(Member { chunk, ppn: 100 + chunk, die: channel, channel })
    }
    fn routine(&mut self, plan: &UpdatePlan) -> Routine {
        plan.fewest()
    }
    fn wants_updates(&self) -> bool {
        self.place_to.is_some()
    }
    fn place(&mut self, u: &ChunkUpdate) -> Option<u32> {
        self.offered.push(u.outside.to_vec());
        self.place_to
    }
    fn act(&mut self, a: RaidAction) {
        self.actions.push(a);
    }
    fn stripe_write(&mut self, kind: StripeWrite, _: bool, _: u32) {
        self.writes.push(kind);
    }
    fn degraded_read(&mut self, _: bool, _: u32) {}
    fn degraded_update(&mut self, _: u32) {}
    fn xor(&mut self) {
        self.xors += 1;
    }
    fn replication(&mut self, e: ReplicationProbe) {
        self.probes.push(e);
    }
    fn replicas(&mut self) -> Option<&mut ReplicaTable> {
        self.table.as_mut()
    }
}

pub(super) fn setup() -> (RaidLayer, Recorder) {
    setup_on(5)
}

/// 4+1 stripes over `channels` channels.
fn setup_on(channels: u32) -> (RaidLayer, Recorder) {
    setup_with(StripeLayout::new(channels, 5, true, 16))
}

/// A layer and its recording port over `stripes`.
pub(super) fn setup_with(stripes: StripeLayout) -> (RaidLayer, Recorder) {
    let times = RaidTimes { xor_ns: XOR, stripe_overhead_ns: STRIPE_SW, decision_ns: 0 };
    let mut raid = RaidLayer::new(stripes.clone(), times);
    raid.set_verify(true);
    (
        raid,
        Recorder {
            stripes,
            actions: Vec::new(),
            writes: Vec::new(),
            xors: 0,
            table: None,
            probes: Vec::new(),
            absent: Vec::new(),
            place_to: None,
            offered: Vec::new(),
            landed: Vec::new(),
        },
    )
}

fn op(chunk: u32, owner: Owner) -> FlashOp {
    FlashOp { chunk, owner, enqueued: 0, ppn: 100 + chunk, seq: 0 }
}

pub(super) fn take(p: &mut Recorder) -> Vec<RaidAction> {
    std::mem::take(&mut p.actions)
}

/// The reads among `acts`: (chunk, owner, where it joins its queue).
pub(super) fn reads(acts: &[RaidAction]) -> Vec<(u32, Owner, ReadPlace)> {
    acts.iter()
        .filter_map(|a| match *a {
            RaidAction::Read { chunk, owner, place, .. } => Some((chunk, owner, place)),
            _ => None,
        })
        .collect()
}

/// The channels stripe `s` (5 wide) does not touch, of `channels`.
fn outside_channels(p: &Recorder, s: u32, channels: u32) -> Vec<u32> {
    (0..channels).filter(|&c| (0..5).all(|q| p.stripes.channel(s, q) != c)).collect()
}

#[test]
fn a_one_chunk_update_is_read_modify_write_with_its_parity() {
    let (mut raid, mut p) = setup();
    let s = 3;
    let pp = p.stripes.parity_pos(s);
    let pos = p.stripes.data_pos(s, 1);
    let (data, parity) = (s * 5 + pos, s * 5 + pp);
    raid.submit_job(7, s, 1 << pos, 0, &mut p);
    // RMW reads the old chunk and the old parity (2 reads; RCW would read the
    // 3 other data chunks), in position order, at the tail of their queues.
    let mut want = [(data, pos), (parity, pp)];
    want.sort_by_key(|&(_, q)| q);
    let job = match take(&mut p).as_slice() {
        [RaidAction::Read { chunk: a, owner: Owner::PreRead(j), place: ReadPlace::Tail, .. }, RaidAction::Read { chunk: b, owner: Owner::PreRead(k), place: ReadPlace::Tail, .. }]
            if [*a, *b] == [want[0].0, want[1].0] && j == k =>
        {
            *j
        }
        other => panic!("expected two pre-reads of chunks {want:?}, got {other:?}"),
    };
    assert_eq!(p.writes, [StripeWrite::Rmw]);
    // The old tokens: the data chunk's version 1 and a parity over the stripe.
    let (old_data, old_parity) = (0x1111_1111, 0x2222_2223);
    raid.preread_done(job, op(data, Owner::PreRead(job)), Some(old_data), &mut p);
    assert!(take(&mut p).is_empty(), "no XOR before every pre-read is back");
    raid.preread_done(job, op(parity, Owner::PreRead(job)), Some(old_parity), &mut p);
    assert_eq!(take(&mut p), [RaidAction::Controller { ns: XOR + STRIPE_SW, then: RaidEvent::XorDone(job) }]);
    assert_eq!(p.xors, 1);
    raid.on_event(RaidEvent::XorDone(job), &mut p);
    let (dch, pch) = (p.stripes.channel(s, pos), p.stripes.channel(s, pp));
    assert_eq!(
        take(&mut p),
        [
            RaidAction::Program { channel: dch, chunk: data, owner: Owner::HostProgram(job) },
            RaidAction::Program { channel: pch, chunk: parity, owner: Owner::ParityProgram(job) },
        ]
    );
    // New parity = old parity ⊕ old data ⊕ new data (the job's serial is 1).
    let new_data = token(1, pos);
    let c = raid.commit_of(job, &op(parity, Owner::ParityProgram(job)), None);
    assert_eq!(c.token, Some(Token::Parity(old_parity ^ old_data ^ new_data)));
    let c = raid.commit_of(job, &op(data, Owner::HostProgram(job)), None);
    assert_eq!(c.token, Some(Token::Data { token: new_data, serial: 1, pos, partial: false }));
    raid.program_done(job, &mut p);
    assert!(take(&mut p).is_empty(), "the request waits for its parity");
    raid.program_done(job, &mut p);
    assert_eq!(take(&mut p), [RaidAction::UnitDone(7)]);
}

#[test]
fn a_full_stripe_write_reads_nothing_and_rcw_reads_the_rest() {
    let (mut raid, mut p) = setup();
    let s = 0;
    let pp = p.stripes.parity_pos(s);
    let data: u64 = (0..5).filter(|&q| q != pp).map(|q| 1u64 << q).sum();
    raid.submit_job(1, s, data, 0, &mut p);
    let acts = take(&mut p);
    assert!(matches!(acts.as_slice(), [RaidAction::Controller { then: RaidEvent::XorDone(_), .. }]), "{acts:?}");
    assert_eq!(p.writes, [StripeWrite::Full]);
    // Three of four data chunks: RCW reads the fourth (1 read) rather than
    // RMW's three old chunks and the parity.
    let three_in_1: u64 = (0..3).map(|d| 1u64 << p.stripes.data_pos(1, d)).sum();
    raid.submit_job(2, 1, three_in_1, 0, &mut p);
    let acts = take(&mut p);
    let rest = 5 + p.stripes.data_pos(1, 3);
    assert!(matches!(acts.as_slice(), [RaidAction::Read { chunk, .. }] if *chunk == rest), "{acts:?}");
    assert_eq!(p.writes[1], StripeWrite::Rcw);
}

/// A stripe that holds data only where it is rewritten is an RCW with
/// nothing to read (the rest was never written), not a write to an empty
/// stripe: stripe 4 holds d0 and its parity, and d0 is rewritten whole.
#[test]
fn rewriting_the_only_data_of_a_stripe_is_an_rcw_reading_nothing() {
    let (mut raid, mut p) = setup();
    let s = 4;
    p.absent = (1..4).map(|d| s * 5 + p.stripes.data_pos(s, d)).collect();
    raid.submit_job(1, s, 1 << p.stripes.data_pos(s, 0), 0, &mut p);
    assert_eq!(p.writes, [StripeWrite::Rcw]);
    let acts = take(&mut p);
    assert!(matches!(acts.as_slice(), [RaidAction::Controller { then: RaidEvent::XorDone(_), .. }]), "{acts:?}");
}

/// A degraded update (the chunk's new version moved to the channel outside
/// its stripe) rebuilds the old chunk from every other member, and those
/// reads go to the queue heads, as a degraded read's do.
#[test]
fn a_degraded_update_reads_every_other_member_at_the_queue_heads() {
    let (mut raid, mut p) = setup_on(6);
    let s = 1;
    p.place_to = Some(outside_channels(&p, s, 6)[0]);
    let pos = p.stripes.data_pos(s, 0);
    raid.submit_job(1, s, 1 << pos, 0, &mut p);
    let acts = take(&mut p);
    let mut read: Vec<(u32, ReadPlace)> =
        reads(&acts).into_iter().filter(|r| matches!(r.1, Owner::PreRead(_))).map(|(c, _, h)| (c, h)).collect();
    read.sort();
    let want: Vec<(u32, ReadPlace)> = (0..5).filter(|&q| q != pos).map(|q| (s * 5 + q, ReadPlace::Head)).collect();
    assert_eq!(read, want, "{acts:?}");
    assert!(p.writes.is_empty(), "a degraded update is not an RMW or RCW");
}

/// A replicated chunk is updated where it lives (its old version is its
/// copies'), never moved by a degraded update: the same write that a
/// placement policy moves when the chunk is not replicated stays an RMW.
#[test]
fn a_replicated_chunk_is_never_moved_by_a_degraded_update() {
    for replicated in [false, true] {
        let (mut raid, mut p) = setup_on(6);
        let s = 1;
        let pos = p.stripes.data_pos(s, 1);
        assert_ne!(pos, 0, "an id that no slip of the arithmetic maps to another replicated one");
        let outside = outside_channels(&p, s, 6)[0];
        p.place_to = Some(outside);
        let mut t = ReplicaTable::new(1_000, 8);
        if replicated {
            t.insert(s * 5 + pos, 0).unwrap();
        }
        p.table = Some(t);
        raid.submit_job(1, s, 1 << pos, 0, &mut p);
        let want: &[StripeWrite] = if replicated { &[StripeWrite::Rmw] } else { &[] };
        assert_eq!(p.writes, want, "replicated: {replicated}");
        assert_eq!(p.offered.len(), usize::from(!replicated));
    }
}

/// A degraded update is offered the channels outside its stripe, less a
/// failed channel (it takes nothing until its replacement is in); a failed
/// die leaves its channel on offer. 7 channels, 4+1 stripes: 2 outside.
#[test]
fn a_failed_channel_is_not_offered_to_a_degraded_update_and_a_failed_die_is() {
    for die_only in [false, true] {
        let (mut raid, mut p) = setup_on(7);
        let s = 1;
        let outside = outside_channels(&p, s, 7);
        assert_eq!(outside.len(), 2);
        let dead = outside[0];
        raid.fail(dead, die_only.then_some(dead), &[], 1, ReadPlace::Tail);
        p.place_to = Some(outside[1]);
        raid.submit_job(1, s, 1 << p.stripes.data_pos(s, 0), 0, &mut p);
        let want = if die_only { outside.clone() } else { vec![outside[1]] };
        assert_eq!(p.offered, [want], "die only: {die_only}");
    }
}

/// Under a channel failure the rebuild's reads join their queues where the
/// failure says (`fault.rebuild_priority`: the tails, the heads or the
/// background) and a host write's pre-reads at the tails, whatever it says.
#[test]
fn only_rebuild_reads_take_the_failures_place() {
    let places = |acts: &[RaidAction]| -> Vec<ReadPlace> { reads(acts).into_iter().map(|r| r.2).collect() };
    for place in [ReadPlace::Tail, ReadPlace::Head, ReadPlace::Background] {
        let s = 2;
        let (mut raid, mut p) = setup();
        let lost = s * 5 + p.stripes.data_pos(s, 0);
        let ch = p.stripes.channel(s, p.stripes.data_pos(s, 0));
        raid.fail(ch, None, &[lost], 1, place);
        // A host write of d1 around the lost d0, before the replacement.
        raid.submit_job(7, s, 1 << p.stripes.data_pos(s, 1), 0, &mut p);
        let acts = take(&mut p);
        let host = places(&acts);
        assert!(!host.is_empty() && host.iter().all(|&h| h == ReadPlace::Tail), "{place:?}: {acts:?}");
        // The rebuild of d0 on a fresh layer: its 4 partners.
        let (mut raid, mut p) = setup();
        raid.fail(ch, None, &[lost], 1, place);
        raid.replaced(&mut p);
        assert_eq!(places(&take(&mut p)), [place; 4], "{place:?}");
    }
}

#[test]
fn a_degraded_read_holds_writers_off_and_rebuilds_the_xor_of_its_partners() {
    let (mut raid, mut p) = setup();
    let s = 2;
    let lost = s * 5 + p.stripes.data_pos(s, 0);
    let partners: Vec<Member> = (s * 5..s * 5 + 5).filter(|&c| c != lost).map(|c| p.member(c).unwrap()).collect();
    raid.start_degraded_read(9, lost, &partners, false, &mut p);
    let reads = take(&mut p);
    assert_eq!(reads.len(), 4);
    let id = match reads[0] {
        RaidAction::Read { owner: Owner::DegradedRead(id), place: ReadPlace::Head, .. } => id,
        ref a => panic!("degraded-mode reads go to the queue heads: {a:?}"),
    };
    assert!(raid.readable(s), "a reader does not block readers");
    // A write to the stripe waits for the read's share.
    raid.submit_job(10, s, 1 << p.stripes.data_pos(s, 1), 0, &mut p);
    assert!(take(&mut p).is_empty(), "the writer waits behind the degraded read");
    assert!(!raid.readable(s), "no new reader may pass a waiting writer");
    let tokens = [0x1000_0001u32, 0x0200_0001, 0x0030_0001, 0x0004_0001];
    for (i, t) in tokens.iter().enumerate() {
        raid.partner_read_done(id, Some(*t), &mut p);
        let acts = take(&mut p);
        if i < 3 {
            assert!(acts.is_empty());
        } else {
            assert_eq!(acts, [RaidAction::Controller { ns: XOR, then: RaidEvent::DegradedReadDone(id) }]);
        }
    }
    raid.on_event(RaidEvent::DegradedReadDone(id), &mut p);
    let acts = take(&mut p);
    let rebuilt = tokens.iter().fold(0, |x, t| x ^ t);
    assert_eq!(acts[0], RaidAction::CheckRebuilt { chunk: lost, token: rebuilt });
    // The share released, the waiting writer starts (its pre-reads) before
    // the read's request is done.
    assert!(acts[1..acts.len() - 1].iter().all(|a| matches!(a, RaidAction::Read { owner: Owner::PreRead(_), .. })));
    assert!(acts.len() > 2, "{acts:?}");
    assert_eq!(acts.last(), Some(&RaidAction::UnitDone(9)));
}

#[test]
fn writes_to_one_stripe_run_one_at_a_time_in_arrival_order() {
    let (mut raid, mut p) = setup();
    let s = 5;
    let one = 1 << p.stripes.data_pos(s, 0);
    raid.submit_job(1, s, one, 0, &mut p);
    let first = take(&mut p);
    let job1 = match first[0] {
        RaidAction::Read { owner: Owner::PreRead(j), .. } => j,
        ref a => panic!("{a:?}"),
    };
    raid.submit_job(2, s, one, 0, &mut p);
    raid.submit_job(3, s, one, 0, &mut p);
    assert!(take(&mut p).is_empty(), "later writers wait for the stripe");
    for c in first.iter() {
        if let RaidAction::Read { chunk, owner, .. } = *c {
            raid.preread_done(job1, op(chunk, owner), Some(1), &mut p);
        }
    }
    take(&mut p);
    raid.on_event(RaidEvent::XorDone(job1), &mut p);
    take(&mut p);
    raid.program_done(job1, &mut p);
    raid.program_done(job1, &mut p);
    let acts = take(&mut p);
    // Request 2's job starts (its pre-reads), then request 1 is done; 3 waits.
    let (last, reads) = acts.split_last().unwrap();
    assert_eq!(*last, RaidAction::UnitDone(1));
    assert_eq!(reads.len(), 2);
    let job2 = match reads[0] {
        RaidAction::Read { owner: Owner::PreRead(j), .. } => j,
        ref a => panic!("{a:?}"),
    };
    assert_ne!(job2, job1);
    assert!(reads.iter().all(|a| matches!(a, RaidAction::Read { owner: Owner::PreRead(j), .. } if *j == job2)));
    // The serial of the second job is 2: its data token says so.
    let pos = p.stripes.data_pos(s, 0);
    let c = raid.commit_of(job2, &op(s * 5 + pos, Owner::HostProgram(job2)), None);
    assert_eq!(c.token, Some(Token::Data { token: token(2, pos), serial: 2, pos, partial: false }));
}

/// A replica job needs a table entry for each chunk not replicated yet: a
/// write of chunks d0 and d1 of stripe 3, d0 replicated already, fits a
/// table of 2 entries holding 1 (1 new entry for 1 free: both chunks get two
/// copies); with d0 not replicated (2 new entries for 1 free) the table is
/// full and the job becomes a stripe write (RCW: 2 reads against RMW's 3).
#[test]
fn a_replica_job_takes_one_table_entry_per_chunk_not_yet_replicated() {
    for d0_replicated in [true, false] {
        let (mut raid, mut p) = setup();
        let s = 3;
        let (p0, p1) = (p.stripes.data_pos(s, 0), p.stripes.data_pos(s, 1));
        let mut t = ReplicaTable::new(1_000, 2);
        t.insert(if d0_replicated { s * 5 + p0 } else { 11 * 5 }, 0).unwrap();
        p.table = Some(t);
        raid.submit_replica_job(7, s, 1 << p0 | 1 << p1, 0, &mut p);
        let acts = take(&mut p);
        let count = |f: fn(&Owner) -> bool| {
            acts.iter().filter(|a| matches!(a, RaidAction::Program { owner, .. } if f(owner))).count()
        };
        let copies = count(|o| matches!(o, Owner::HostProgram(_) | Owner::ReplicaProgram(_)));
        // Copy A of each chunk is its host program, copy B replication's own.
        assert_eq!(count(|o| matches!(o, Owner::HostProgram(_))), copies / 2, "{acts:?}");
        let full = p.probes.iter().filter(|e| **e == ReplicationProbe::TableFull).count();
        let len = p.table.as_ref().unwrap().len();
        if d0_replicated {
            assert_eq!((copies, full, len), (4, 0, 2), "{acts:?}");
            assert!(p.writes.is_empty());
            // Both copies on the chunk's home channel (the port's default).
            let mut channels: Vec<u32> = acts
                .iter()
                .filter_map(|a| match a {
                    RaidAction::Program {
                        owner: Owner::HostProgram(_) | Owner::ReplicaProgram(_), channel, ..
                    } => Some(*channel),
                    _ => None,
                })
                .collect();
            channels.sort_unstable();
            let (h0, h1) = (p.stripes.channel(s, p0), p.stripes.channel(s, p1));
            let mut want = vec![h0, h0, h1, h1];
            want.sort_unstable();
            assert_eq!(channels, want);
        } else {
            assert_eq!((copies, full, len), (0, 1, 1), "{acts:?}");
            assert_eq!(p.writes, [StripeWrite::Rcw]);
        }
    }
}

/// A conversion marks the entries of the chunks it converts, and only
/// those, as converting (so nothing converts them twice): chunks d0 and d1
/// of stripe 3 convert; d0 of stripe 1, also replicated, does not.
#[test]
fn a_conversion_marks_exactly_its_chunks_converting() {
    let (mut raid, mut p) = setup();
    let s = 3;
    let (p0, p1) = (p.stripes.data_pos(s, 0), p.stripes.data_pos(s, 1));
    let other = 5 + p.stripes.data_pos(1, 0);
    let mut t = ReplicaTable::new(1_000, 8);
    for c in [s * 5 + p0, s * 5 + p1, other] {
        t.insert(c, 0).unwrap();
    }
    p.table = Some(t);
    raid.convert(s, 1 << p0 | 1 << p1, 0, 0, &mut p);
    let t = p.table.as_ref().unwrap();
    let converting: Vec<bool> = [s * 5 + p0, s * 5 + p1, other].iter().map(|&c| t.get(c).unwrap().converting).collect();
    assert_eq!(converting, [true, true, false]);
}

/// Runs the layer's actions to the end: every pre-read returns a token,
/// every controller delay ends, every program lands (on die = its channel)
/// and completes. Returns the other actions (degraded reads, requests done,
/// the rebuild's end), in order.
pub(super) fn drive(raid: &mut RaidLayer, p: &mut Recorder) -> Vec<RaidAction> {
    let mut rest = Vec::new();
    while !p.actions.is_empty() {
        for a in take(p) {
            match a {
                RaidAction::Read { chunk, owner: o @ Owner::PreRead(j), .. } => {
                    raid.preread_done(j, op(chunk, o), Some(chunk), p)
                }
                RaidAction::Controller { then, .. } => raid.on_event(then, p),
                RaidAction::Program {
                    channel,
                    chunk,
                    owner: Owner::HostProgram(j) | Owner::ReplicaProgram(j) | Owner::ParityProgram(j),
                } => {
                    p.landed.push((channel, chunk));
                    raid.committed(j, chunk, channel, channel);
                    raid.program_done(j, p)
                }
                other => rest.push(other),
            }
        }
    }
    rest
}

/// The reconstruct reads among `acts`: their read id and count.
fn reconstruct_reads(acts: &[RaidAction]) -> (Option<u32>, usize) {
    let ids: Vec<u32> = reads(acts)
        .into_iter()
        .filter_map(|r| match r.1 {
            Owner::DegradedRead(id) => Some(id),
            _ => None,
        })
        .collect();
    (ids.first().copied(), ids.len())
}

/// Ends reconstruct read `id` (its 4 partners read, its XOR done): the
/// actions that follow at once.
fn finish_reconstruct(raid: &mut RaidLayer, p: &mut Recorder, id: u32) -> Vec<RaidAction> {
    for _ in 0..4 {
        raid.partner_read_done(id, Some(1), p);
    }
    assert_eq!(take(p), [RaidAction::Controller { ns: XOR, then: RaidEvent::DegradedReadDone(id) }]);
    raid.on_event(RaidEvent::DegradedReadDone(id), p);
    take(p)
}

/// Writers and reads of a lost chunk take turns at a stripe, so neither
/// starves: reads that waited for a writer go before the next writer, and
/// reads arriving behind a waiting writer wait for it.
#[test]
fn reconstruct_reads_and_writers_of_a_stripe_take_turns() {
    let s = 2;
    let done = |acts: &[RaidAction], req: u32| acts.contains(&RaidAction::UnitDone(req));
    let prereads =
        |acts: &[RaidAction]| acts.iter().any(|a| matches!(a, RaidAction::Read { owner: Owner::PreRead(_), .. }));
    // W1 writing; a read R and a writer W2 wait. W1 done: R starts, W2 waits.
    let (mut raid, mut p) = setup();
    let lost = s * 5 + p.stripes.data_pos(s, 0);
    let one = 1 << p.stripes.data_pos(s, 1);
    raid.submit_job(1, s, one, 0, &mut p);
    let w1 = take(&mut p);
    raid.reconstruct_read(2, lost, &mut p);
    raid.submit_job(3, s, one, 0, &mut p);
    assert!(take(&mut p).is_empty(), "both wait for the writer");
    p.actions = w1;
    let acts = drive(&mut raid, &mut p);
    let (r, n) = reconstruct_reads(&acts);
    assert!(done(&acts, 1) && n == 4 && !done(&acts, 3), "the read goes before W2: {acts:?}");
    let acts = finish_reconstruct(&mut raid, &mut p, r.unwrap());
    assert!(done(&acts, 2) && prereads(&acts), "then W2: {acts:?}");
    p.actions = acts;
    assert!(done(&drive(&mut raid, &mut p), 3));

    // R1 reading; a writer W and a read R2 wait. R1 done: W starts, then R2.
    let (mut raid, mut p) = setup();
    raid.reconstruct_read(1, lost, &mut p);
    let (r1, n) = reconstruct_reads(&take(&mut p));
    assert_eq!(n, 4);
    raid.submit_job(2, s, one, 0, &mut p);
    raid.reconstruct_read(3, lost, &mut p);
    assert!(take(&mut p).is_empty(), "the writer waits for R1, R2 for the writer");
    let acts = finish_reconstruct(&mut raid, &mut p, r1.unwrap());
    assert!(done(&acts, 1) && prereads(&acts) && reconstruct_reads(&acts).1 == 0, "W before R2: {acts:?}");
    p.actions = acts;
    let acts = drive(&mut raid, &mut p);
    let (r2, n) = reconstruct_reads(&acts);
    assert!(done(&acts, 2) && n == 4, "R2 once W is done: {acts:?}");
    assert!(done(&finish_reconstruct(&mut raid, &mut p, r2.unwrap()), 3));
}

/// A conversion's service counts its programs: the parity, plus the slot of
/// a chunk whose copies are both off its channel (a misplaced entry), which
/// is programmed with a copy's data. Reads: the parity, the slot and copy A.
#[test]
fn a_conversion_counts_the_slots_it_rewrites_as_programs() {
    for misplaced in [false, true] {
        let (mut raid, mut p) = setup();
        let s = 3;
        let p0 = p.stripes.data_pos(s, 0);
        let mut t = ReplicaTable::new(1_000, 8);
        t.insert(s * 5 + p0, 0).unwrap();
        t.get_mut(s * 5 + p0).unwrap().misplaced = misplaced;
        p.table = Some(t);
        raid.convert(s, 1 << p0, 0, 0, &mut p);
        drive(&mut raid, &mut p);
        let ended: Vec<_> = p.probes.iter().filter(|e| matches!(e, ReplicationProbe::ConversionEnded { .. })).collect();
        let programs = 1 + misplaced as u32;
        assert_eq!(
            ended,
            [&ReplicationProbe::ConversionEnded { stripe: s, reads: 2, programs, controller_ns: XOR + STRIPE_SW }],
            "misplaced: {misplaced}"
        );
    }
}

/// An RCW that writes part of a replicated chunk merges that page from the
/// chunk's copy, whose version is current, and does not read its stale slot:
/// writing d0 (in part), d1 and d2 of stripe 3 reads d3's slot and copy A of
/// d0 (RCW's 2 reads against RMW's 4). Without the replica, the same write
/// reads d3 and d0's slot.
#[test]
fn an_rcw_over_part_of_a_replicated_chunk_merges_it_from_a_copy_not_its_slot() {
    for replicated in [true, false] {
        let (mut raid, mut p) = setup();
        let s = 3;
        let [p0, p1, p2, p3] = [0, 1, 2, 3].map(|d| p.stripes.data_pos(s, d));
        let mut t = ReplicaTable::new(1_000, 8);
        if replicated {
            t.insert(s * 5 + p0, 0).unwrap();
        }
        let copy_a = t.get(s * 5 + p0).map(|e| t.copy_id(e.pair, rainsim_model::raid::replica::Copy::A));
        p.table = Some(t);
        raid.submit_job(7, s, 1 << p0 | 1 << p1 | 1 << p2, 1 << p0, &mut p);
        assert_eq!(p.writes, [StripeWrite::Rcw]);
        let mut got: Vec<u32> =
            reads(&take(&mut p)).into_iter().filter(|r| matches!(r.1, Owner::PreRead(_))).map(|r| r.0).collect();
        got.sort();
        let mut want = vec![s * 5 + p3, copy_a.unwrap_or(s * 5 + p0)];
        want.sort();
        assert_eq!(got, want, "replicated: {replicated}");
    }
}
