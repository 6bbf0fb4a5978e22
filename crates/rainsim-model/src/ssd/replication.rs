//! The device side of replication (rep-raid and its baselines): which
//! updates replicate, reads of replicated chunks, copies retired by a stripe
//! write, GC-time stripe reorganisation (Fig. 7, Alg. 1) and conversions
//! (idle, high-water mark, whole stripe replicated). The RAID layer runs the
//! replica and conversion jobs (`raid/replica_job.rs`); the policy decides
//! (`policy/replication.rs`).

use super::reorg::{Match, ReorgHook};
use super::{device_view, Ev, Ssd};
use crate::engine::SimTime;
use crate::flash::op::{FlashOp, OpKind, Owner};
use crate::metrics::observer::Observer;
use crate::policy::replication::GcRoles;
use crate::raid::layer::{RaidLayer, ReplicationProbe};
use crate::raid::replica::{Copy, ReplicaTable};
use crate::raid::rmw_rcw::data_mask;
use crate::raid::stripe_map::StripeMap;
use crate::sched::ChannelScheduler;
use rustc_hash::{FxHashMap, FxHashSet};

/// What the device keeps for replication.
#[derive(Default)]
pub(crate) struct ReplState {
    /// Stripes whose reorganisation (a conversion job) is in flight.
    reorganising: FxHashSet<u32>,
    /// Matches of the GC being started, applied once the die holds it.
    pending: Vec<Match>,
    /// The host went idle when this many requests had been admitted.
    pub(crate) idle_at: Option<u64>,
    /// Requests of the run (idle periods count only before the last one).
    total: u64,
    /// Entries above which the oldest replicas convert back.
    pub(crate) high_water: u32,
    /// What the GC being started moved, by role.
    roles: GcRoles,
    /// CR5M: copies bound to two dies of one channel (`Some(strict)`: the
    /// mirror on the channel's last die, the dedicated mirroring chip).
    pub(crate) pin: Option<bool>,
    /// Any-chunk reorganisation: which logical chunk owns each slot.
    pub(crate) map: StripeMap,
    /// Any-chunk reorganisation: host reads in flight, by slot.
    pub(crate) reading: Option<FxHashMap<u32, u32>>,
}

impl ReplState {
    /// State for a device converting above `high_water` entries.
    pub(crate) fn new(high_water: u32, pin: Option<bool>, any_chunk: bool) -> Self {
        ReplState { high_water, pin, reading: any_chunk.then(FxHashMap::default), ..Default::default() }
    }
}

impl<O: Observer> Ssd<O> {
    /// The channel-local die a program of copy id `id` is bound to (CR5M:
    /// copy A on its slot's die, copy B on another die of the channel).
    pub(crate) fn copy_die(&self, id: u32) -> Option<u32> {
        let strict = self.repl.as_ref()?.pin?;
        let t = self.table();
        let dies = self.layout.dies_per_channel;
        if !t.is_copy(id) || dies < 2 {
            return None;
        }
        let (c, which) = t.owner_of(id)?;
        let home = self.ftl.lookup(c).map_or(0, |p| {
            let d = self.layout.die_of(p);
            d - self.layout.first_die(self.layout.channel_of_die(d))
        });
        let mirror = if strict { dies - 1 } else { (home + 1) % dies };
        Some(match which {
            Copy::A if strict && home == dies - 1 => dies - 2,
            Copy::A => home,
            Copy::B => mirror,
        })
    }

    /// Whether replication runs on this device.
    #[inline]
    pub(crate) fn replicating(&self) -> bool {
        self.repl.is_some()
    }

    fn table(&self) -> &ReplicaTable {
        self.replicas.as_ref().expect("replication is on")
    }

    /// The positions of a write of `written` to `stripe` (a request of
    /// `bytes`) that the policy replicates: updates of written chunks, never
    /// in a full-stripe write.
    pub(crate) fn replica_positions(&mut self, stripe: u32, written: u64, bytes: u32) -> u64 {
        let w = self.stripes.width;
        if written == data_mask(w, self.stripes.parity_pos(stripe)) {
            return 0;
        }
        let mut rep = 0u64;
        for pos in crate::raid::replica_job::ones(written) {
            let c = stripe * w + pos;
            if self.ftl.lookup(c).is_none() && self.table().get(c).is_none() {
                continue;
            }
            let logical = self.repl.as_ref().map_or(c, |r| r.map.logical(c));
            let view = device_view!(self);
            if self.policies.replication.replicate(&view, logical, bytes) {
                rep |= 1 << pos;
            }
        }
        rep
    }

    /// After a replica write of `rep` positions of `stripe` was submitted:
    /// CR5M's whole-stripe conversion, and the high-water mark.
    pub(crate) fn after_replica_submit(&mut self, stripe: u32, rep: u64) {
        let w = self.stripes.width;
        if self.policies.replication.converts_full_stripes() {
            let data = data_mask(w, self.stripes.parity_pos(stripe));
            let t = self.table();
            let all = crate::raid::replica_job::ones(data)
                .all(|p| rep & (1 << p) != 0 || t.get(stripe * w + p).is_some_and(|e| !e.converting));
            if all {
                self.convert_stripe(stripe, 2);
            }
        }
        let high = self.policies_high_water();
        if self.table().len() > high {
            if let Some(c) = self.table().oldest() {
                self.convert_stripe(self.stripes.stripe_of(c), 1);
            }
        }
    }

    fn policies_high_water(&self) -> usize {
        self.repl.as_ref().map_or(usize::MAX, |r| r.high_water as usize)
    }

    /// Converts every replicated chunk of `stripe` not yet converting.
    pub(super) fn convert_stripe(&mut self, stripe: u32, reason: u8) {
        let w = self.stripes.width;
        let t = self.table();
        let m = (0..w).filter(|&p| t.get(stripe * w + p).is_some_and(|e| !e.converting)).fold(0u64, |m, p| m | 1 << p);
        if m == 0 {
            return;
        }
        self.obs.replication(ReplicationProbe::ConvertStarted { reason });
        self.with_raid(|r, s| r.convert(stripe, m, 0, 0, s));
    }

    /// Serves a host read of a replicated chunk from the copy whose die is
    /// predicted to free first; `false` when no copy is written yet.
    pub(crate) fn replica_read(&mut self, id: u32, chunk: u32) -> bool {
        let Some(e) = self.table().get(chunk).copied() else { return false };
        let t = self.table();
        let ids = [t.copy_id(e.pair, Copy::A), t.copy_id(e.pair, Copy::B)];
        let mut best: Option<(SimTime, u8, u32)> = None;
        let mut other = None;
        for k in 0..2u8 {
            if e.gone[k as usize] {
                continue;
            }
            let Some(ppn) = self.ftl.lookup(ids[k as usize]) else { continue };
            let wait = self.predicted_wait(self.layout.die_of(ppn));
            match best {
                Some((w, ..)) if w <= wait => other = Some(wait),
                _ => {
                    other = best.map(|b| b.0);
                    best = Some((wait, k, ppn));
                }
            }
        }
        let Some((wait, k, ppn)) = best else { return false };
        if let Some(o) = other {
            self.policies.replication.on_replica_read(o - wait);
        }
        self.obs.replication(ReplicationProbe::ReplicaRead);
        self.host.req_mut(id).pending += 1;
        self.note_read(chunk, true);
        self.enqueue_read(chunk, ppn, if k == 0 { Owner::ReplicaReadA(id) } else { Owner::ReplicaReadB(id) });
        true
    }

    /// A host read of `slot` was queued (`start`) or completed. Any-chunk
    /// matching leaves a slot with a read in flight alone: the read names
    /// its slot, whose logical owner a match would change under it.
    #[inline]
    pub(crate) fn note_read(&mut self, slot: u32, start: bool) {
        let Some(m) = self.repl.as_mut().and_then(|r| r.reading.as_mut()) else { return };
        if start {
            *m.entry(slot).or_insert(0) += 1;
        } else if let Some(n) = m.get_mut(&slot) {
            *n -= 1;
            if *n == 0 {
                m.remove(&slot);
            }
        }
    }

    /// Wait before a new read could start on `die`: what its operation or GC
    /// still needs, then the reads queued for it (unloaded read time each).
    fn predicted_wait(&self, die: u32) -> SimTime {
        let now = self.q.now();
        let d = &self.flash.dies()[die as usize];
        let busy = if d.gc_until.is_some() {
            d.gc_remaining(now)
        } else if let Some(op) = d.op {
            let full = if op.origin().kind() == OpKind::Read { self.t.read } else { self.t.program };
            full.saturating_sub(now - d.busy_since)
        } else {
            0
        };
        let ch = self.layout.channel_of_die(die);
        let local = die - self.layout.first_die(ch);
        busy + self.channels[ch as usize].sched.reads_queued_for(local) as SimTime * self.t.read
    }

    /// The mapping id a host read of `op.chunk` reads now: a copy while the
    /// chunk is replicated and a copy is written (the one asked for, else the
    /// other), otherwise the chunk's slot.
    #[inline(never)]
    pub(crate) fn read_id(&self, op: &FlashOp) -> u32 {
        let want = match op.owner {
            Owner::ReplicaReadA(_) => 0,
            Owner::ReplicaReadB(_) => 1,
            Owner::HostRead(_) => 0,
            _ => return op.chunk,
        };
        let t = self.table();
        let Some(e) = t.get(op.chunk) else { return op.chunk };
        for k in [want, 1 - want] {
            let id = t.copy_id(e.pair, if k == 0 { Copy::A } else { Copy::B });
            if !e.gone[k] && self.ftl.lookup(id).is_some() {
                return id;
            }
        }
        op.chunk
    }

    /// Verify mode: the version a stripe write of replicated `chunk` merges
    /// over (its copies', not its slot's).
    pub(crate) fn newest_token(&self, chunk: u32) -> Option<u32> {
        let v = self.verifier.as_ref()?;
        let t = self.table();
        let e = t.get(chunk)?;
        let k = if e.gone[0] { Copy::B } else { Copy::A };
        Some(v.latest(t.copy_id(e.pair, k)))
    }

    /// A stripe write committed new data at `chunk`'s slot: its copies go.
    pub(crate) fn retire_copies(&mut self, chunk: u32) {
        let t = self.replicas.as_mut().expect("replication is on");
        if let Some(ids) = RaidLayer::retire(t, chunk) {
            for id in ids {
                self.ftl.drop_id(id);
            }
        }
    }

    /// Copy `keep` of `chunk` takes its slot; `drop` goes.
    pub(crate) fn promote(&mut self, chunk: u32, keep: u32, drop: u32) {
        self.ftl.promote(chunk, keep);
        self.ftl.drop_id(drop);
        if let Some(v) = &mut self.verifier {
            v.alias(chunk, keep);
        }
    }

    /// A conversion of `stripe` that took `service_ns` of flash and
    /// controller time ended: a reorganisation's time (its service, not
    /// the waits behind its GC and stripe lock, which the GC time and the
    /// latencies already hold), and the next idle conversion while the
    /// host stays idle.
    pub(crate) fn conversion_ended(&mut self, stripe: u32, service_ns: u64) {
        let now = self.q.now();
        let Some(r) = &mut self.repl else { return };
        if r.reorganising.remove(&stripe) {
            self.obs.replication(ReplicationProbe::ReorgTime(service_ns));
            self.policies.replication.on_reorg(service_ns);
        }
        if r.idle_at == Some(self.totals.admitted) && self.host.outstanding() == 0 {
            // Called from inside the RAID layer: the next conversion starts
            // from the event queue.
            self.q.at(now, Ev::Idle(self.totals.admitted as u32));
        }
    }

    /// A request completed: arm the idle timer when the host has nothing
    /// outstanding and more requests are to come.
    pub(crate) fn maybe_idle(&mut self) {
        let Some(ns) = self.policies.replication.idle_ns() else { return };
        let Some(r) = &self.repl else { return };
        if self.host.outstanding() == 0 && self.host.waiting() == 0 && self.totals.admitted < r.total {
            let at = self.q.now() + ns;
            self.q.at(at, Ev::Idle(self.totals.admitted as u32));
        }
    }

    /// The idle timer armed at `stamp` admissions (low 32 bits) fired.
    pub(crate) fn idle(&mut self, stamp: u32) {
        if stamp != self.totals.admitted as u32 || self.host.outstanding() != 0 {
            return;
        }
        if let Some(r) = &mut self.repl {
            r.idle_at = Some(self.totals.admitted);
        }
        if let Some(c) = self.table().oldest() {
            self.convert_stripe(self.stripes.stripe_of(c), 0);
        }
    }

    /// Records the run's request count (idle periods end at the last one).
    pub(crate) fn set_total_requests(&mut self, n: usize) {
        if let Some(r) = &mut self.repl {
            r.total = n as u64;
        }
    }

    /// One GC on `die` with the replication hook; also returns the extra die
    /// time of its reorganisations (case (b) reads the old slot for the XOR).
    pub(crate) fn collect_replicating(
        &mut self,
        die: u32,
    ) -> Result<Option<(crate::ftl::GcWork, SimTime)>, crate::ftl::OutOfSpace> {
        let repl = self.repl.as_ref().expect("replication is on");
        let mut hook = ReorgHook {
            table: self.replicas.as_ref().expect("replication is on"),
            layout: &self.layout,
            width: self.stripes.width,
            // A GC started from inside the RAID layer (a program it queued
            // found its die due for GC) cannot hand it conversions, and a
            // matched stripe must be taken before anything else runs: such
            // a GC moves every page, as a plain one does.
            reorganize: self.policies.replication.reorganizes() && self.raid.is_some(),
            any_chunk: repl.reading.as_ref(),
            matches: Vec::new(),
            moves: [0; 4],
        };
        let work = self.ftl.collect_die_with(die, Some(&mut hook))?;
        let (mut matches, m) = (hook.matches, hook.moves);
        let Some(work) = work else { return Ok(None) };
        // The verifier's pages move after this returns: what the old slots
        // held is read now.
        if let Some(v) = &self.verifier {
            for x in matches.iter_mut().filter(|x| x.case_b) {
                x.z_token = v.peek(x.z_ppn);
            }
        }
        let probe = ReplicationProbe::GcMoves { valid: m[0], semi_valid: m[1], semi_invalid: m[2], replica: m[3] };
        self.obs.replication(probe);
        let extra = self.apply_matches(&matches);
        let r = self.repl.as_mut().expect("on");
        r.pending = matches;
        r.roles = GcRoles { dur_ns: 0, moved: work.moved, moved_replication: m[2] + m[3] };
        Ok(Some((work, extra)))
    }

    /// The bookkeeping of a GC's matches once its victim's pages moved:
    /// slots swapped, copies relabelled, dropped copies marked; returns the
    /// GC die's extra time (case (b) reads the old slot for the XOR).
    pub(super) fn apply_matches(&mut self, matches: &[Match]) -> SimTime {
        let mut extra = 0;
        for x in matches {
            let swapped = x.other != x.chunk;
            if swapped {
                self.swap_slots(x.chunk, x.other);
            }
            if x.flip {
                self.flip_copies(x.chunk);
            }
            let t = self.replicas.as_mut().expect("on");
            if let Some(e) = t.get_mut(x.chunk) {
                e.misplaced = false;
                if !x.case_b {
                    // Copy B was dropped from the victim.
                    e.gone[Copy::B as usize] = true;
                }
            }
            if x.case_b {
                extra += self.t.read + self.t.xfer;
            }
            self.obs.replication(ReplicationProbe::Reorganized { case_b: x.case_b, swapped });
        }
        if extra > 0 {
            self.obs.replication(ReplicationProbe::ReorgTime(extra));
        }
        extra
    }

    /// Replicated slots `a` and `b` swap their logical owners (and entries):
    /// both hold stale pages, so nothing moves. Slot `b` gets `a`'s copies;
    /// the one on `b`'s channel, if any, becomes copy A.
    fn swap_slots(&mut self, a: u32, b: u32) {
        self.replicas.as_mut().expect("on").swap_slots(a, b);
        self.repl.as_mut().expect("on").map.swap(a, b);
        let t = self.table();
        let e = *t.get(b).expect("swapped");
        let ch = |id: u32| self.ftl.lookup(id).map(|p| self.layout.channel_of(p));
        let home = ch(b).unwrap_or_else(|| self.stripes.home_channel(b));
        let on = |k: Copy| ch(t.copy_id(e.pair, k)) == Some(home);
        let (a_home, b_home) = (on(Copy::A), on(Copy::B));
        if !a_home && b_home {
            self.flip_copies(b);
        }
        self.replicas.as_mut().expect("on").get_mut(b).expect("swapped").misplaced = !a_home && !b_home;
    }

    /// `chunk`'s copies A and B exchange roles (pages, versions, flags).
    fn flip_copies(&mut self, chunk: u32) {
        let t = self.replicas.as_mut().expect("on");
        let e = t.get_mut(chunk).expect("replicated");
        e.gone.swap(0, 1);
        let pair = e.pair;
        let (a, b) = (t.copy_id(pair, Copy::A), t.copy_id(pair, Copy::B));
        self.ftl.swap_ids(a, b);
        if let Some(v) = &mut self.verifier {
            v.swap(a, b);
        }
    }

    /// The GC is running on its die: start the conversions it matched, and
    /// tell the policy what it cost.
    pub(crate) fn after_replicating_gc(&mut self, dur: SimTime) {
        let r = self.repl.as_mut().expect("on");
        let mut roles = r.roles;
        let pending = std::mem::take(&mut r.pending);
        roles.dur_ns = dur;
        self.policies.replication.on_gc(&roles);
        for x in pending {
            self.start_reorganisation(&x, 0);
        }
    }

    /// Starts the conversion that hands match `x`'s slot its copy and
    /// recomputes the parity. In case (b) the GC read the old slot and the
    /// copy: their tokens (verify mode) come along, XOR-ed with `skew`
    /// (0; tests break the recompute with it).
    pub(super) fn start_reorganisation(&mut self, x: &Match, skew: u32) {
        self.repl.as_mut().expect("on").reorganising.insert(x.stripe);
        let pos = 1u64 << self.stripes.position_of(x.chunk);
        let (known, acc) = if x.case_b {
            let acc = self.verifier.as_ref().map_or(0, |v| {
                let t = self.table();
                let a = t.copy_id(t.get(x.chunk).expect("matched").pair, Copy::A);
                x.z_token ^ v.latest(a)
            });
            (pos, acc ^ skew)
        } else {
            (0, 0)
        };
        self.with_raid(|r, s| r.convert(x.stripe, pos, known, acc, s));
    }

    /// The report's `replication` section (`None` without replication).
    pub fn replication_report(&self, scheme: &str) -> Option<crate::metrics::replication_report::ReplicationReport>
    where
        O: ReplicationCounts,
    {
        self.repl.as_ref()?;
        let t = self.table();
        let p = &self.policies.replication;
        let chunks = self.stripes.chunks();
        let rep_raid = p.threshold().is_some();
        let r = self.repl.as_ref()?;
        let any = r.reading.is_some().then_some(&r.map);
        Some(crate::metrics::replication_report::ReplicationReport {
            scheme: scheme.into(),
            counts: self.obs.replication_counters(),
            entries_end: t.len() as u64,
            max_entries: t.max_entries as u64,
            max_table_bytes: 8 * t.max_entries as u64,
            capacity: t.capacity() as u64,
            threshold_end: p.threshold(),
            threshold_history: p.threshold_history(),
            counter_bytes_paper: if rep_raid { chunks.div_ceil(4) } else { 0 },
            counter_bytes_model: if rep_raid { 2 * chunks } else { 0 },
            stripe_map_max_entries: any.map(|m| m.max_entries as u64),
            stripe_map_max_bytes: any.map(|m| 16 * m.max_entries as u64),
            stripe_map_entries_end: any.map(|m| m.len() as u64),
        })
    }

    /// Verify mode: every replicated chunk's copies hold the same version, on
    /// two channels (two dies of one channel under CR5M), and reads of it
    /// return its newest version (the copies').
    pub(crate) fn check_replicas(&self) -> Result<(), crate::verify::VerifyError> {
        let (Some(v), Some(_)) = (&self.verifier, &self.repl) else { return Ok(()) };
        let t = self.table();
        let same_channel = self.policies.replication.same_channel();
        let now = self.q.now();
        let fail = |what: String| Err(crate::verify::VerifyError { time_ns: now, what });
        for c in t.chunks_sorted() {
            let e = t.get(c).expect("listed");
            let ids = [t.copy_id(e.pair, Copy::A), t.copy_id(e.pair, Copy::B)];
            let pages: Vec<Option<u32>> = ids.iter().map(|&i| self.ftl.lookup(i)).collect();
            for (k, page) in pages.iter().enumerate() {
                if !e.gone[k] && page.is_none() {
                    return fail(format!("replicated chunk {c}: copy {k} has no page"));
                }
            }
            if let (Some(a), Some(b)) = (pages[0], pages[1]) {
                if v.peek(a) != v.peek(b) {
                    return fail(format!(
                        "replicated chunk {c}: its copies hold versions {:#x} and {:#x}",
                        v.peek(a),
                        v.peek(b)
                    ));
                }
                let (da, db) = (self.layout.die_of(a), self.layout.die_of(b));
                let (ca, cb) = (self.layout.channel_of_die(da), self.layout.channel_of_die(db));
                let apart = if same_channel { ca == cb && da != db } else { ca != cb };
                if !apart {
                    let want = if same_channel { "two dies of one channel" } else { "two channels" };
                    return fail(format!(
                        "replicated chunk {c}: copies on die {da} (channel {ca}) and die {db} (channel {cb}), not on {want}"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Observers that count replication (the collector); others report zeros.
pub trait ReplicationCounts {
    /// The counters so far.
    fn replication_counters(&self) -> crate::metrics::replication_report::ReplicationCounters {
        Default::default()
    }
}

impl ReplicationCounts for crate::metrics::collector::Collector {
    fn replication_counters(&self) -> crate::metrics::replication_report::ReplicationCounters {
        self.replication
    }
}
