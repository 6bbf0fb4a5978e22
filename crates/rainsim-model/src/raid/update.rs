//! The stripe write path. A host write touching stripe s becomes one job:
//!
//! ```text
//!  wait for the stripe lock → plan (full stripe | RMW | RCW) → pre-reads
//!      → XOR on the controller → program data chunks + parity → release lock
//! ```
//!
//! The pre-read sets of each routine are planned in `rmw_rcw.rs`.
//!
//! A chunk never written reads as zeros and needs no pre-read. Without RAID a
//! job is a single page: a partial page with old data is pre-read, then written.
//! Chunks are programmed where they live now (a degraded update may have moved
//! them); a chunk never written goes to its layout home.

use crate::fault::Fault;
use crate::flash::op::{FlashOp, Owner};
use crate::raid::failure::NO_POS;
use crate::raid::layer::{Commit, RaidAction, RaidEvent, RaidLayer, RaidPort, ReadPlace, StripeWrite, Token};
use crate::raid::rmw_rcw::{data_mask, plan_stripe_write, positions, ChunkUpdate, Member, Routine};
use crate::raid::stripe_lock::{StripeLock, NO_JOB};
use crate::token::{merged, token};

/// One write job on one stripe.
#[derive(Debug, Clone, Copy)]
pub struct StripeJob {
    /// Host request it belongs to.
    pub req: u32,
    /// Stripe number.
    pub stripe: u32,
    /// Positions written (bit j = position j).
    pub written: u64,
    /// Positions written only in part.
    pub partial: u64,
    /// RMW or RCW (full-stripe writes use RCW with nothing to read).
    pub routine: Routine,
    /// Operations still outstanding in the current phase.
    pub pending: u32,
    /// Next job waiting for the same stripe.
    pub next_waiting: u32,
    /// Version serial of the data this job writes (verify tokens).
    pub serial: u64,
    /// XOR of pre-read tokens that contribute to the new parity.
    pub acc: u32,
    /// Channel of a degraded update's new chunk (`NO_CHANNEL`: a normal update).
    pub moved_to: u32,
    /// Positions to pre-read once the controller has decided the routine.
    pub prereads: u64,
    /// Tokens read of the lowest and highest partly written positions (the
    /// old pages a page-level read-modify-write merges; verify mode).
    pub merge_old: [u32; 2],
    /// The stripe's lost position under a channel failure (`NO_POS`: none).
    pub lost: u32,
    /// XOR of every token read: the lost chunk's old version when all its
    /// partners were read (verify mode).
    pub lost_acc: u32,
    /// A host write, or the rebuild of the lost chunk.
    pub kind: JobKind,
    /// Written positions whose page merge reads a replica copy (the chunk's
    /// newest version) instead of its stripe slot.
    pub copy_merge: u64,
}

/// What a stripe job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// A host write.
    Write,
    /// Rebuilds the stripe's lost chunk onto the replacement channel.
    Rebuild,
    /// A host write of replicated chunks: two copies each, no parity
    /// (`replica_job.rs`).
    Replica,
    /// Converts replicated chunks back into their stripe: a copy takes the
    /// slot and the parity is recomputed (`replica_job.rs`).
    Convert,
}

impl StripeJob {
    /// The token the job writes at data position `pos`: a whole page is a new
    /// version; a page written in part merges it over the old page it read.
    pub fn data_token(&self, pos: u32) -> u32 {
        if self.partial & (1 << pos) == 0 {
            return token(self.serial, pos);
        }
        let old = if pos == self.lost {
            self.lost_acc
        } else if pos == self.partial.trailing_zeros() {
            self.merge_old[0]
        } else {
            self.merge_old[1]
        };
        merged(old, self.serial, pos)
    }
}

/// Marker for "no channel".
pub const NO_CHANNEL: u32 = u32::MAX;

impl RaidLayer {
    /// A host write touches `written` positions of `stripe` (`partial` of them
    /// in part): creates its job and starts it, or queues it behind the
    /// stripe's current holder.
    pub fn submit_job(&mut self, req: u32, stripe: u32, written: u64, partial: u64, port: &mut impl RaidPort) {
        self.enqueue_job(req, stripe, written, partial, JobKind::Write, port);
    }

    /// Creates a job and starts it, or queues it behind the stripe's holder.
    pub(crate) fn enqueue_job(
        &mut self,
        req: u32,
        stripe: u32,
        written: u64,
        partial: u64,
        kind: JobKind,
        port: &mut impl RaidPort,
    ) {
        let job = self.new_job(req, stripe, written, partial, kind);
        self.enqueue(job, port);
    }

    /// A job of the next version serial, not yet planned.
    pub(crate) fn new_job(&mut self, req: u32, stripe: u32, written: u64, partial: u64, kind: JobKind) -> StripeJob {
        self.serial += 1;
        StripeJob {
            req,
            stripe,
            written,
            partial,
            routine: Routine::Rcw,
            pending: 0,
            next_waiting: NO_JOB,
            serial: self.serial,
            acc: 0,
            moved_to: NO_CHANNEL,
            prereads: 0,
            merge_old: [0; 2],
            lost: NO_POS,
            lost_acc: 0,
            kind,
            copy_merge: 0,
        }
    }

    /// Starts `job`, or queues it behind its stripe's holder.
    pub(crate) fn enqueue(&mut self, job: StripeJob, port: &mut impl RaidPort) {
        let stripe = job.stripe;
        let id = self.jobs.insert(job);
        if let Some(t) = port.replicas() {
            t.locked.insert(stripe);
        }
        let lock = self.locks.entry(stripe).or_insert_with(StripeLock::free);
        if lock.writing || lock.readers > 0 {
            if lock.head == NO_JOB {
                lock.head = id;
            } else {
                self.jobs[lock.tail].next_waiting = id;
            }
            lock.tail = id;
        } else {
            lock.writing = true;
            self.start_job(id, port);
        }
    }

    /// A degraded read of stripe `s` finished: the last one lets a waiting write in.
    pub(crate) fn release_read_share(&mut self, s: u32, port: &mut impl RaidPort) {
        let lock = self.locks.get_mut(&s).expect("a degraded read holds its stripe");
        lock.readers -= 1;
        if lock.readers == 0 {
            self.next_writer(s, false, port);
        }
    }

    /// Starts the stripe's first waiting job, or unlocks it when none waits.
    /// After a writer, reconstruct reads that waited for it go first.
    pub(crate) fn next_writer(&mut self, s: u32, after_writer: bool, port: &mut impl RaidPort) {
        let lock = self.locks.get_mut(&s).expect("locked stripe");
        if lock.rhead != NO_JOB && (after_writer || lock.head == NO_JOB) {
            let mut r = std::mem::replace(&mut lock.rhead, NO_JOB);
            lock.rtail = NO_JOB;
            while r != NO_JOB {
                let next = self.degraded_reads[r].next;
                self.begin_reconstruct(r, port);
                r = next;
            }
            return;
        }
        if lock.head == NO_JOB {
            if lock.readers == 0 {
                self.locks.remove(&s);
                if let Some(t) = port.replicas() {
                    t.locked.remove(&s);
                }
            }
            return;
        }
        let head = lock.head;
        let next = self.jobs[head].next_waiting;
        lock.head = next;
        if next == NO_JOB {
            lock.tail = NO_JOB;
        }
        lock.writing = true;
        self.start_job(head, port);
    }

    /// Plans the job's pre-reads and issues them.
    pub(crate) fn start_job(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = self.jobs[id];
        match j.kind {
            JobKind::Replica if self.start_replica_job(id, port) => return,
            JobKind::Convert => return self.start_convert_job(id, port),
            _ => {}
        }
        let j = self.jobs[id];
        let w = self.stripes.width;
        let mut at = std::mem::take(&mut self.scratch_at);
        at.clear();
        at.extend((0..w).map(|pos| port.member(j.stripe * w + pos)));
        if self.failure.is_some() {
            if let Some(f) = self.lost_position(j.stripe, &at, port) {
                self.start_around_lost(id, f, at, false, port);
                return;
            }
            if j.kind == JobKind::Rebuild {
                // Its chunk was written back meanwhile: nothing to rebuild.
                self.scratch_at = at;
                self.end_job(id, false, port);
                return;
            }
        }
        let mut decided = false;
        // The fault plans as if every page were whole (no merge read).
        let partial = if self.fault == Some(Fault::SkipsMergeRead) { 0 } else { j.partial };
        let reads = if self.stripes.parity {
            let pp = self.stripes.parity_pos(j.stripe);
            let plan = plan_stripe_write(pp, j.stripe, j.written, partial, &at);
            if plan.rmw == 0 && plan.rcw == 0 {
                // Nothing to read: a full-stripe write, or a stripe with no data yet.
                let full = j.written == data_mask(w, pp) && j.partial == 0;
                port.stripe_write(if full { StripeWrite::Full } else { StripeWrite::Fresh }, false, 0);
                0
            } else if let Some((ch, set)) = self.degraded_update(&j, &at, port) {
                self.jobs[id].moved_to = ch;
                port.degraded_update(positions(set));
                set
            } else {
                let routine = port.routine(&plan);
                decided = true;
                let adjusted = routine != plan.fewest();
                self.jobs[id].routine = routine;
                let (kind, set) = match routine {
                    Routine::Rmw => (StripeWrite::Rmw, plan.rmw),
                    Routine::Rcw => (StripeWrite::Rcw, plan.rcw),
                };
                port.stripe_write(kind, adjusted, positions(set));
                set
            }
        } else {
            let set = if at[0].is_some() { partial } else { 0 };
            port.stripe_write(StripeWrite::Plain, false, positions(set));
            set
        };
        self.scratch_at = at;
        self.jobs[id].prereads = reads;
        if j.partial != 0 {
            self.note_copy_merges(id, port);
        }
        if decided && self.times.decision_ns > 0 {
            // The routine's decision runs on the controller before its pre-reads.
            port.act(RaidAction::Controller { ns: self.times.decision_ns, then: RaidEvent::Planned(id) });
        } else {
            self.issue_prereads(id, port);
        }
    }

    /// The controller decided job `id`'s routine: its pre-reads go out,
    /// unless a failure meanwhile left its stripe a lost position (a member
    /// gone, or gone with the replacement): then it is planned around it.
    pub(crate) fn planned(&mut self, id: u32, port: &mut impl RaidPort) {
        if self.failure.is_some() {
            let (s, w) = (self.jobs[id].stripe, self.stripes.width);
            let mut at = std::mem::take(&mut self.scratch_at);
            at.clear();
            at.extend((0..w).map(|pos| port.member(s * w + pos)));
            if let Some(f) = self.lost_position(s, &at, port) {
                self.start_around_lost(id, f, at, true, port);
                return;
            }
            self.scratch_at = at;
        }
        self.issue_prereads(id, port);
    }

    /// Issues the job's pre-reads (its routine decided).
    pub(crate) fn issue_prereads(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = self.jobs[id];
        self.jobs[id].pending = positions(j.prereads) + 1;
        // A degraded update's rebuild reads go to the queue heads, as degraded
        // reads do; a rebuild's where the failure says.
        let place = match (j.moved_to != NO_CHANNEL, j.kind, &self.failure) {
            (true, _, _) => ReadPlace::Head,
            (false, JobKind::Rebuild, Some(f)) => f.place,
            _ => ReadPlace::Tail,
        };
        let mut bits = j.prereads;
        while bits != 0 {
            let pos = bits.trailing_zeros();
            bits &= bits - 1;
            let chunk = j.stripe * self.stripes.width + pos;
            let ppn = port.member(chunk).expect("pre-read set only holds written chunks").ppn;
            port.act(RaidAction::Read { chunk, ppn, owner: Owner::PreRead(id), place });
        }
        if j.copy_merge != 0 {
            self.issue_copy_merges(id, port);
        }
        self.phase_step(id, port);
    }

    /// Offers a single-chunk update of a written chunk to the placement
    /// policy; on a degraded update returns its channel and pre-read set
    /// (every other written position).
    fn degraded_update(
        &mut self,
        j: &StripeJob,
        at: &[Option<Member>],
        port: &mut impl RaidPort,
    ) -> Option<(u32, u64)> {
        if positions(j.written) != 1 || !port.wants_updates() {
            return None;
        }
        let pos = j.written.trailing_zeros() as usize;
        if port.replicas().is_some_and(|t| t.get(j.stripe * self.stripes.width + pos as u32).is_some()) {
            // A replicated chunk's old version is its copies', not the
            // stripe's: it is updated where it lives.
            return None;
        }
        let target = at[pos]?;
        let mut partners = std::mem::take(&mut self.scratch);
        let mut outside = std::mem::take(&mut self.scratch_channels);
        partners.clear();
        outside.clear();
        // The stripe's channels: where its chunks live, and the homes of the
        // positions never written (they will be written there).
        let mut stripe_channels = [target.channel; 64];
        let mut set = 0u64;
        for (q, m) in at.iter().enumerate() {
            stripe_channels[q] = match m {
                Some(m) if q != pos => {
                    partners.push(*m);
                    set |= 1 << q;
                    m.channel
                }
                Some(m) => m.channel,
                None => self.stripes.channel(j.stripe, q as u32),
            };
        }
        let stripe_channels = &stripe_channels[..at.len()];
        // A failed channel takes nothing until its replacement is in.
        let dead = self
            .failure
            .as_ref()
            .filter(|f| f.phase == crate::raid::failure::Phase::Failed && f.die.is_none())
            .map(|f| f.channel);
        outside.extend((0..self.stripes.channels).filter(|c| !stripe_channels.contains(c) && Some(*c) != dead));
        let mut choice = None;
        if !outside.is_empty() {
            let u = ChunkUpdate { target, partners: &partners, outside: &outside };
            choice = port.place(&u);
        }
        if self.fault == Some(Fault::MovesIntoStripe) && choice.is_some() {
            // The fault lands the chunk on a partner's channel, unchecked.
            let partner = stripe_channels.iter().enumerate().find(|&(q, _)| q != pos).map(|(_, &c)| c);
            self.scratch = partners;
            self.scratch_channels = outside;
            return partner.map(|ch| (ch, set));
        }
        let legal = choice.is_none_or(|ch| outside.contains(&ch));
        self.scratch = partners;
        self.scratch_channels = outside;
        if !legal {
            let what = format!("update placement chose channel {choice:?}, which holds part of stripe {}", j.stripe);
            port.act(RaidAction::Unsupported(what));
            return None;
        }
        Some((choice?, set))
    }

    /// A pre-read of job `id` finished; `token` is what it read (verify mode).
    pub fn preread_done(&mut self, id: u32, op: FlashOp, token: Option<u32>, port: &mut impl RaidPort) {
        if let Some(t) = token {
            if self.replica_token(id, op.chunk, t, port) {
                return self.phase_step(id, port);
            }
            let j = &self.jobs[id];
            let pos = self.stripes.position_of(op.chunk);
            let contributes = if j.kind == JobKind::Rebuild {
                true
            } else if j.lost != NO_POS && j.routine == Routine::Rcw {
                // Around a lost chunk RCW's sum is the data not written.
                j.written & (1 << pos) == 0 && !self.stripes.is_parity(op.chunk)
            } else if j.moved_to != NO_CHANNEL {
                // Old chunk rebuilt, then merged: what remains is RCW's sum.
                j.written & (1 << pos) == 0 && !self.stripes.is_parity(op.chunk)
            } else {
                match j.routine {
                    Routine::Rmw => self.fault != Some(Fault::RmwIgnoresOldData) || self.stripes.is_parity(op.chunk),
                    Routine::Rcw => j.written & (1 << pos) == 0,
                }
            };
            let j = &mut self.jobs[id];
            j.lost_acc ^= t;
            if contributes {
                j.acc ^= t;
            }
            if j.moved_to != NO_CHANNEL {
                // The old chunk is the XOR of every other member read (a
                // moved job writes one chunk: its merge is merge_old[0]).
                j.merge_old[0] ^= t;
            } else if j.partial & !j.copy_merge & (1 << pos) != 0 {
                let hi = usize::from(pos != j.partial.trailing_zeros());
                j.merge_old[hi] = t;
                if positions(j.partial) == 1 {
                    j.merge_old[1] = t;
                }
            }
        }
        self.phase_step(id, port);
    }

    /// One outstanding operation of the current phase is done (inline: most
    /// leave others outstanding).
    #[inline(always)]
    pub(crate) fn phase_step(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = &mut self.jobs[id];
        j.pending -= 1;
        if j.pending == 0 {
            self.phase_done(id, port);
        }
    }

    /// The current phase's last operation is done.
    #[inline(never)]
    fn phase_done(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = &self.jobs[id];
        if j.kind == JobKind::Replica {
            // No parity: no XOR, no stripe software time (rep-raid §3.2).
            return self.program_copies(id, port);
        }
        if self.stripes.parity {
            port.xor();
            let ns = self.times.xor_ns + self.times.stripe_overhead_ns;
            port.act(RaidAction::Controller { ns, then: RaidEvent::XorDone(id) });
        } else {
            self.xor_done(id, port);
        }
    }

    /// XOR done (or not needed): program the new data and parity.
    pub(crate) fn xor_done(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = self.jobs[id];
        if j.lost != NO_POS {
            self.program_around_lost(id, port);
            return;
        }
        let w = self.stripes.width;
        if j.kind == JobKind::Convert {
            // Only the parity changes: the copies already hold the data,
            // except for a chunk with no copy on its slot's channel.
            let rewrites = self.rewrites(&j, port);
            self.jobs[id].pending = 1 + positions(rewrites);
            for pos in crate::raid::replica_job::ones(rewrites) {
                let channel = self.chunk_channel(port, j.stripe, pos);
                port.act(RaidAction::Program { channel, chunk: j.stripe * w + pos, owner: Owner::ReplicaProgram(id) });
            }
            let pos = self.stripes.parity_pos(j.stripe);
            let channel = self.chunk_channel(port, j.stripe, pos);
            port.act(RaidAction::Program { channel, chunk: j.stripe * w + pos, owner: Owner::ParityProgram(id) });
            return;
        }
        let mut n = positions(j.written);
        if self.stripes.parity {
            n += 1;
        }
        self.jobs[id].pending = n;
        let mut bits = j.written;
        while bits != 0 {
            let pos = bits.trailing_zeros();
            bits &= bits - 1;
            let chunk = j.stripe * w + pos;
            let channel = if j.moved_to != NO_CHANNEL { j.moved_to } else { self.chunk_channel(port, j.stripe, pos) };
            port.act(RaidAction::Program { channel, chunk, owner: Owner::HostProgram(id) });
        }
        if self.stripes.parity {
            let pos = self.stripes.parity_pos(j.stripe);
            let chunk = j.stripe * w + pos;
            let channel = self.chunk_channel(port, j.stripe, pos);
            port.act(RaidAction::Program { channel, chunk, owner: Owner::ParityProgram(id) });
        }
    }

    /// What a finished program of job `id` commits (asked before the device
    /// records it, so that the next job plans on the new mapping).
    #[inline(always)]
    pub fn commit_of(&self, id: u32, op: &FlashOp, replicas: Option<&crate::raid::replica::ReplicaTable>) -> Commit {
        if self.fault.is_none() && !self.verify {
            return Commit { stale: false, token: None };
        }
        self.commit_checked(id, op, replicas)
    }

    /// [`Self::commit_of`] under verify mode or an injected fault.
    #[inline(never)]
    fn commit_checked(&self, id: u32, op: &FlashOp, replicas: Option<&crate::raid::replica::ReplicaTable>) -> Commit {
        let j = &self.jobs[id];
        if j.kind == JobKind::Rebuild || j.kind == JobKind::Convert {
            // The rebuilt chunk (the XOR of its partners, as it was), or the
            // parity of the converted stripe (old parity ⊕ old slots ⊕ copies);
            // a conversion's data program takes its copies' version (the
            // device knows it).
            return Commit { stale: false, token: self.verify.then_some(Token::Parity(j.acc)) };
        }
        let parity = matches!(op.owner, Owner::ParityProgram(_));
        let stale = !parity
            && match self.fault {
                Some(Fault::StaleRead) => true,
                Some(Fault::MoveNotRecorded) => j.moved_to != NO_CHANNEL,
                _ => false,
            };
        let token = self.verify.then(|| {
            let pos = self.position_of(op.chunk, replicas);
            if parity {
                let mut x = j.acc;
                let mut bits = j.written;
                if self.fault == Some(Fault::ParityMissesChunk) {
                    bits &= bits.wrapping_sub(1);
                }
                while bits != 0 {
                    let p = bits.trailing_zeros();
                    bits &= bits.wrapping_sub(1);
                    x ^= j.data_token(p);
                }
                Token::Parity(x)
            } else {
                let partial = j.partial & (1 << pos) != 0;
                Token::Data { token: j.data_token(pos), serial: j.serial, pos, partial }
            }
        });
        Commit { stale, token }
    }

    /// A program of job `id` was committed; the last one ends the job.
    pub fn program_done(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = &mut self.jobs[id];
        j.pending -= 1;
        if j.pending == 0 {
            self.end_job(id, true, port);
        }
    }

    /// Job `id` is over: the stripe passes on, the request unit (or the
    /// rebuild step) is done.
    pub(crate) fn end_job(&mut self, id: u32, did_work: bool, port: &mut impl RaidPort) {
        let j = self.jobs.remove(id);
        if j.kind == JobKind::Convert {
            // The copies take their slots before the next job plans on them.
            self.convert_done(&j, did_work, port);
        }
        self.locks.get_mut(&j.stripe).expect("a running job holds its stripe").writing = false;
        self.next_writer(j.stripe, true, port);
        match j.kind {
            JobKind::Write | JobKind::Replica => port.act(RaidAction::UnitDone(j.req)),
            JobKind::Rebuild => self.rebuild_job_done(did_work, port),
            JobKind::Convert => {}
        }
    }
}
