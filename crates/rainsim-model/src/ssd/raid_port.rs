//! Where the device meets its RAID layer: the device is the layer's port
//! (the mapping and the policies it asks, the actions it hands down, the
//! probes it fires), and the one place the layer is called from.

use super::{device_view, Ev, SimError, Ssd};
use crate::flash::op::FlashOp;
use crate::metrics::observer::Observer;
use crate::raid::layer::{RaidAction, RaidLayer, RaidPort, StripeWrite, Token};
use crate::raid::rmw_rcw::{ChunkUpdate, Member, Routine, UpdatePlan};
use crate::verify::VerifyError;

impl<O: Observer> RaidPort for Ssd<O> {
    #[inline]
    fn member(&self, chunk: u32) -> Option<Member> {
        Ssd::member(self, chunk)
    }
    fn bound_to_failed_die(&self, channel: u32, chunk: u32) -> bool {
        self.bound_to_dead_die(channel, chunk)
    }
    fn routine(&mut self, plan: &UpdatePlan) -> Routine {
        let view = device_view!(self);
        self.policies.parity.choose(&view, plan)
    }
    #[inline]
    fn wants_updates(&self) -> bool {
        self.policies.place.wants_updates()
    }
    fn place(&mut self, u: &ChunkUpdate) -> Option<u32> {
        let view = device_view!(self);
        self.policies.place.place(&view, u)
    }
    #[inline(always)]
    fn act(&mut self, a: RaidAction) {
        match a {
            RaidAction::Read { chunk, ppn, owner, place } => self.enqueue_read_at(chunk, ppn, owner, place),
            RaidAction::Program { channel, chunk, owner } => self.enqueue_program(channel, chunk, owner),
            RaidAction::Controller { ns, then } => {
                let at = self.controller_delay(ns);
                self.q.at(at, Ev::Raid(then));
            }
            RaidAction::UnitDone(req) => self.finish_unit(req),
            rare => self.act_rare(rare),
        }
    }
    #[inline]
    fn stripe_write(&mut self, kind: StripeWrite, adjusted: bool, prereads: u32) {
        self.obs.stripe_write(kind, adjusted, prereads);
    }
    #[inline]
    fn degraded_read(&mut self, gc_tolerant: bool, reads: u32) {
        self.obs.degraded_read(gc_tolerant, reads);
    }
    #[inline]
    fn degraded_update(&mut self, prereads: u32) {
        self.obs.degraded_update(prereads);
    }
    #[inline]
    fn xor(&mut self) {
        self.obs.xor();
    }
    fn copy_channels(&mut self, _chunk: u32, home: u32) -> [u32; 2] {
        let view = device_view!(self);
        self.policies.replication.place(&view, home)
    }
    #[inline]
    fn replicas(&mut self) -> Option<&mut crate::raid::replica::ReplicaTable> {
        self.replicas.as_mut()
    }
    fn replication(&mut self, e: crate::raid::layer::ReplicationProbe) {
        if let crate::raid::layer::ReplicationProbe::ConversionEnded { stripe, reads, programs, controller_ns } = e {
            let t = &self.t;
            let service = reads as u64 * (t.read + t.xfer) + programs as u64 * (t.xfer + t.program) + controller_ns;
            self.conversion_ended(stripe, service);
        } else {
            self.obs.replication(e);
        }
    }
}

impl<O: Observer> Ssd<O> {
    /// The actions of verify mode, failures and refusals, out of the way of
    /// the four every request takes.
    #[cold]
    #[inline(never)]
    fn act_rare(&mut self, a: RaidAction) {
        match a {
            RaidAction::CheckRebuilt { chunk, token } => self.check_rebuilt(chunk, token),
            RaidAction::Unsupported(what) => self.fail(SimError::Unsupported(what)),
            RaidAction::Absorbed { chunk, token } => {
                if let Some(v) = &mut self.verifier {
                    v.write_lost(chunk, token);
                }
            }
            RaidAction::Unwritten { chunk } => self.drop_stale(chunk),
            RaidAction::RebuildDone => self.rebuild_done(),
            RaidAction::AliasCopies { chunk, a, b } => {
                if let Some(v) = &mut self.verifier {
                    v.alias(a, chunk);
                    v.alias(b, chunk);
                }
            }
            RaidAction::Promote { chunk, keep, drop } => self.promote(chunk, keep, drop),
            RaidAction::DropCopies { a, b } => {
                self.ftl.drop_id(a);
                self.ftl.drop_id(b);
            }
            hot => unreachable!("{hot:?} is applied inline"),
        }
    }

    /// Calls the RAID layer with the device as its port. Applying an action
    /// never calls back into the layer (completions arrive as events), so the
    /// layer is lent out for the call.
    #[inline]
    pub(crate) fn with_raid<R>(&mut self, f: impl FnOnce(&mut RaidLayer, &mut Self) -> R) -> R {
        let mut raid = self.raid.take().expect("the RAID layer is not re-entered");
        let r = f(&mut raid, self);
        self.raid = Some(raid);
        r
    }

    /// The RAID layer, between calls.
    #[inline]
    pub(crate) fn raid(&self) -> &RaidLayer {
        self.raid.as_deref().expect("the RAID layer is not re-entered")
    }

    fn check_rebuilt(&mut self, chunk: u32, token: u32) {
        let Some(v) = &self.verifier else { return };
        let want = v.latest(chunk);
        if token != want {
            let now = self.q.now();
            self.fail(VerifyError {
                time_ns: now,
                what: format!("the rebuild of chunk {chunk} gave token {token:#x}, latest written is {want:#x}"),
            });
        }
    }

    /// The token at `ppn`, in verify mode.
    #[inline]
    pub(crate) fn token_at(&self, ppn: u32) -> Option<u32> {
        self.verifier.as_ref().map(|v| v.peek(ppn))
    }

    /// A program of stripe job `job` finished: record it (mapping, verifier),
    /// then tell the RAID layer.
    pub(crate) fn program_done(&mut self, job: u32, op: FlashOp) {
        let c = self.raid().commit_of(job, &op, self.replicas.as_ref());
        // A stripe write of a replicated chunk: it merges over the copies'
        // version, and the copies go once the slot holds the new data. (The
        // table is keyed by chunk, so a copy's program never matches.)
        let replicated = self.replicating()
            && matches!(op.owner, crate::flash::op::Owner::HostProgram(_) | crate::flash::op::Owner::ReplicaProgram(_))
            && self.replicas.as_ref().is_some_and(|t| t.get(op.chunk).is_some());
        // A conversion's data program (a chunk with no copy on its slot's
        // channel) writes the copies' version; the copies go when it ends.
        let rewrite = replicated && self.raid().is_conversion(job);
        let replicated = replicated && !rewrite;
        let base = if replicated || rewrite { self.newest_token(op.chunk) } else { None };
        let old = if c.stale { None } else { self.ftl.commit(op.chunk, op.ppn) };
        if replicated {
            self.retire_copies(op.chunk);
        }
        if self.raid().failure().is_some() {
            let die = self.layout.die_of(op.ppn);
            let ch = self.layout.channel_of_die(die);
            self.with_raid(|r, _| r.committed(job, op.chunk, ch, die));
        }
        if let Some(g) = self.gc_overlap.as_mut().filter(|_| op.chunk < self.stripes.chunks() as u32) {
            g.commit(&self.ftl, &self.layout, &self.stripes, op.chunk, old, op.ppn);
        }
        if let (Some(v), Some(t)) = (&mut self.verifier, c.token) {
            match t {
                Token::Parity(_) if rewrite => v.write(op.chunk, op.ppn, base.expect("a replicated chunk")),
                Token::Parity(x) => v.write(op.chunk, op.ppn, x),
                Token::Data { token, serial, pos, partial } => match base {
                    Some(b) => v.write_data_over(op.chunk, op.ppn, token, serial, pos, partial, b),
                    None => v.write_data(op.chunk, op.ppn, token, serial, pos, partial),
                },
            }
        }
        self.wake_for_gc(old);
        self.with_raid(|r, s| r.program_done(job, s));
    }

    /// The page a commit invalidated may give its idle die something to
    /// collect (only now, with the new page's data recorded, may GC move it).
    #[inline(always)]
    pub(crate) fn wake_for_gc(&mut self, invalidated: Option<u32>) {
        if let Some(old) = invalidated {
            let die = self.layout.die_of(old);
            // Mostly nothing to do: skip the call then.
            if self.flash.idle(die) && self.has_work(die) {
                self.try_start(die);
            }
        }
    }
}
