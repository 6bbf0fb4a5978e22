//! Replica writes and conversions, as stripe jobs (they hold the stripe lock,
//! so they serialise with RMW/RCW on the same stripe):
//!
//! ```text
//!  replica write: [merge read of the newest version] → program copy A + copy B
//!                 (no parity pre-read, no XOR, no software time)
//!  conversion:    pre-read parity, old slots, copies A → XOR + software time
//!                 → program parity → copies A take their slots
//! ```
//!
//! A conversion of a stripe whose every data chunk is replicated reads the
//! copies only (the new parity is their XOR). Positions a GC reorganisation
//! already read (`partial` of a conversion job: the old slot and the copy
//! were in its victim) bring their tokens with them and are not read again.

use crate::flash::op::Owner;
use crate::raid::layer::{RaidAction, RaidLayer, RaidPort, ReplicationProbe};
use crate::raid::replica::{Copy, ReplicaTable};
use crate::raid::rmw_rcw::{data_mask, positions};
use crate::raid::stripe_lock::NO_JOB;
use crate::raid::update::JobKind;

impl RaidLayer {
    /// Position in its stripe of a chunk or of a copy's chunk.
    #[inline]
    pub(crate) fn position_of(&self, id: u32, t: Option<&ReplicaTable>) -> u32 {
        match t {
            Some(t) if t.is_copy(id) => self.stripes.position_of(t.owner_of(id).map_or(0, |(c, _)| c)),
            _ => self.stripes.position_of(id),
        }
    }

    /// A host write of `written` positions of `stripe` as replicas (two
    /// copies each, outside parity).
    pub fn submit_replica_job(&mut self, req: u32, stripe: u32, written: u64, partial: u64, port: &mut impl RaidPort) {
        self.enqueue_job(req, stripe, written, partial, JobKind::Replica, port);
    }

    /// Starts a replica job: enters new chunks in the table and issues the
    /// page merges. `false` when the table has no room left: the job is then
    /// an ordinary stripe write.
    pub(crate) fn start_replica_job(&mut self, id: u32, port: &mut impl RaidPort) -> bool {
        let j = self.jobs[id];
        let w = self.stripes.width;
        let Some(t) = port.replicas() else { return false };
        let fresh = ones(j.written).filter(|&p| t.get(j.stripe * w + p).is_none()).count();
        if fresh > t.capacity() - t.len() {
            self.jobs[id].kind = JobKind::Write;
            port.replication(ReplicationProbe::TableFull);
            return false;
        }
        let (mut slot_merge, mut copy_merge) = (0u64, 0u64);
        for pos in ones(j.written) {
            let c = j.stripe * w + pos;
            let t = port.replicas().expect("checked");
            let new = match t.get_mut(c) {
                Some(e) => {
                    // Fresh copies: copy A on the slot's channel again.
                    e.gone = [false; 2];
                    e.misplaced = false;
                    false
                }
                None => {
                    let e = t.insert(c, j.serial).expect("room was checked");
                    if self.verify {
                        let (a, b) = (t.copy_id(e.pair, Copy::A), t.copy_id(e.pair, Copy::B));
                        port.act(RaidAction::AliasCopies { chunk: c, a, b });
                    }
                    true
                }
            };
            port.replication(ReplicationProbe::Replicated { new });
            if j.partial & (1 << pos) != 0 {
                // The page merge reads the newest version: a copy, or the slot.
                if !new {
                    copy_merge |= 1 << pos;
                } else if port.member(c).is_some() {
                    slot_merge |= 1 << pos;
                }
            }
        }
        let job = &mut self.jobs[id];
        job.prereads = slot_merge;
        job.copy_merge = copy_merge;
        self.issue_prereads(id, port);
        true
    }

    /// Programs both copies of every chunk of replica job `id`.
    pub(crate) fn program_copies(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = self.jobs[id];
        let w = self.stripes.width;
        self.jobs[id].pending = 2 * positions(j.written);
        for pos in ones(j.written) {
            let c = j.stripe * w + pos;
            let home = self.chunk_channel(port, j.stripe, pos);
            let t = port.replicas().expect("a replica job runs with replication on");
            let pair = t.get(c).expect("entered when the job started").pair;
            let ids = [t.copy_id(pair, Copy::A), t.copy_id(pair, Copy::B)];
            let channels = port.copy_channels(c, home);
            // Copy A is the host's page; copy B is replication's own.
            let owners = [Owner::HostProgram(id), Owner::ReplicaProgram(id)];
            for ((chunk, channel), owner) in ids.into_iter().zip(channels).zip(owners) {
                port.act(RaidAction::Program { channel, chunk, owner });
            }
        }
    }

    /// Converts the replicated chunks at `positions` of `stripe` back into
    /// it. For `known` positions (read by a GC reorganisation) `acc` holds
    /// their old slot's and copy's tokens already; their slot page may be gone.
    pub fn convert(&mut self, stripe: u32, positions: u64, known: u64, acc: u32, port: &mut impl RaidPort) {
        let w = self.stripes.width;
        if let Some(t) = port.replicas() {
            for pos in ones(positions) {
                if let Some(e) = t.get_mut(stripe * w + pos) {
                    e.converting = true;
                }
            }
        }
        let mut job = self.new_job(NO_JOB, stripe, positions, known, JobKind::Convert);
        job.acc = acc;
        self.enqueue(job, port);
    }

    /// Starts conversion job `id`: keeps the positions still replicated and
    /// issues its pre-reads.
    pub(crate) fn start_convert_job(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = self.jobs[id];
        let w = self.stripes.width;
        let t = port.replicas().expect("a conversion runs with replication on");
        let keep = ones(j.written)
            .filter(|&p| t.get(j.stripe * w + p).is_some_and(|e| !e.gone[Copy::A as usize]))
            .fold(0u64, |m, p| m | 1 << p);
        if keep == 0 {
            return self.end_job(id, false, port);
        }
        let known = j.partial & keep;
        let pp = self.stripes.parity_pos(j.stripe);
        let whole = keep == data_mask(w, pp) && known == 0;
        let mut slots = 0u64;
        if !whole {
            if port.member(j.stripe * w + pp).is_some() {
                slots |= 1 << pp;
            }
            for pos in ones(keep & !known) {
                if port.member(j.stripe * w + pos).is_some() {
                    slots |= 1 << pos;
                }
            }
        }
        let job = &mut self.jobs[id];
        job.written = keep;
        job.partial = known;
        job.prereads = slots;
        job.copy_merge = keep & !known;
        self.issue_prereads(id, port);
    }

    /// Conversion `j` ended: its copies A take their slots.
    pub(crate) fn convert_done(
        &mut self,
        j: &crate::raid::update::StripeJob,
        did_work: bool,
        port: &mut impl RaidPort,
    ) {
        let w = self.stripes.width;
        let (mut probes, mut rewrites) = (0, 0);
        for pos in ones(j.written) {
            let c = j.stripe * w + pos;
            let Some(t) = port.replicas() else { return };
            if !did_work {
                t.stop_converting(c);
                continue;
            }
            let Some(e) = t.remove(c) else { continue };
            let (keep, drop) = (t.copy_id(e.pair, Copy::A), t.copy_id(e.pair, Copy::B));
            if e.misplaced {
                // The slot was programmed with the copies' data.
                rewrites += 1;
                port.act(RaidAction::DropCopies { a: keep, b: drop });
            } else {
                port.act(RaidAction::Promote { chunk: c, keep, drop });
            }
            probes += 1;
        }
        for _ in 0..probes {
            port.replication(ReplicationProbe::Converted);
        }
        // Its service: the pre-reads, the parity and the slots rewritten
        // with a copy's data, the XOR and software time (when it ran).
        let (reads, programs, controller_ns) = if did_work {
            (positions(j.prereads), 1 + rewrites, self.times.xor_ns + self.times.stripe_overhead_ns)
        } else {
            (0, 0, 0)
        };
        port.replication(ReplicationProbe::ConversionEnded { stripe: j.stripe, reads, programs, controller_ns });
    }

    /// Positions of conversion `j` whose chunk has no copy on its slot's
    /// channel: the slot is programmed with the copy's data.
    pub(crate) fn rewrites(&self, j: &crate::raid::update::StripeJob, port: &mut impl RaidPort) -> u64 {
        let w = self.stripes.width;
        let Some(t) = port.replicas() else { return 0 };
        ones(j.written).filter(|&p| t.get(j.stripe * w + p).is_some_and(|e| e.misplaced)).fold(0u64, |m, p| m | 1 << p)
    }

    /// Decides which written positions of job `id` merge from a copy: a
    /// partly written replicated chunk's newest version is in its copies,
    /// not in its slot (which RMW still reads for the parity).
    pub(crate) fn note_copy_merges(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = self.jobs[id];
        let Some(t) = port.replicas() else { return };
        if t.is_empty() || j.partial == 0 {
            return;
        }
        let w = self.stripes.width;
        let m = ones(j.partial).filter(|&p| t.get(j.stripe * w + p).is_some()).fold(0u64, |m, p| m | 1 << p);
        if m == 0 {
            return;
        }
        let job = &mut self.jobs[id];
        job.copy_merge = m;
        if job.routine == crate::raid::rmw_rcw::Routine::Rcw && job.moved_to == crate::raid::update::NO_CHANNEL {
            // RCW reads a partly written page only to merge it.
            job.prereads &= !m;
        }
    }

    /// Issues the copy reads of job `id` (page merges, or a conversion's copies).
    pub(crate) fn issue_copy_merges(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = self.jobs[id];
        let w = self.stripes.width;
        self.jobs[id].pending += positions(j.copy_merge);
        for pos in ones(j.copy_merge) {
            let t = port.replicas().expect("copy reads need replication");
            let e = *t.get(j.stripe * w + pos).expect("a copy read of a replicated chunk");
            let which = if e.gone[Copy::A as usize] { Copy::B } else { Copy::A };
            let chunk = t.copy_id(e.pair, which);
            let ppn = port.member(chunk).expect("a replicated chunk's copy is mapped").ppn;
            port.act(RaidAction::Read {
                chunk,
                ppn,
                owner: crate::flash::op::Owner::PreRead(id),
                place: crate::raid::layer::ReadPlace::Tail,
            });
        }
    }

    /// Takes token `t` read for job `id` from `chunk` when it is a
    /// replication read (a conversion's, or a merge from a copy); `false`
    /// leaves it to the stripe routine.
    pub(crate) fn replica_token(&mut self, id: u32, chunk: u32, t: u32, port: &mut impl RaidPort) -> bool {
        let Some(table) = port.replicas() else { return false };
        let j = &mut self.jobs[id];
        if j.kind == JobKind::Convert {
            j.acc ^= t;
            return true;
        }
        if !table.is_copy(chunk) {
            return false;
        }
        let pos = self.stripes.position_of(table.owner_of(chunk).map_or(0, |(c, _)| c));
        let hi = usize::from(pos != j.partial.trailing_zeros());
        j.merge_old[hi] = t;
        if positions(j.partial) == 1 {
            j.merge_old[1] = t;
        }
        true
    }

    /// A stripe write committed new data at `chunk`'s slot: its copies are
    /// stale now and its entry goes (the caller drops the copy pages).
    pub fn retire(t: &mut ReplicaTable, chunk: u32) -> Option<[u32; 2]> {
        let e = t.remove(chunk)?;
        Some([t.copy_id(e.pair, Copy::A), t.copy_id(e.pair, Copy::B)])
    }
}

/// The set bits of `m`, lowest first.
pub(crate) fn ones(mut m: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let p = m.trailing_zeros();
            m &= m - 1;
            p
        })
    })
}
