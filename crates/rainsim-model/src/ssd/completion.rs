//! Completions coming back up: a flash operation's end goes to the layer
//! that asked for it (by its typed owner), and a host request's last unit
//! frees its slot for the next waiting request.

use super::{device_view, Ev, Ssd};
use crate::flash::op::{FlashOp, Owner};
use crate::metrics::observer::Observer;
use rainsim_trace::Op;

impl<O: Observer> Ssd<O> {
    /// Where every flash completion goes back up: the one routing point
    /// from the dies to the layer that asked for the operation.
    pub(crate) fn op_completed(&mut self, op: FlashOp) {
        if self.obs.wants_request_ops() {
            self.note_request_op(&op);
        }
        match op.owner {
            Owner::HostRead(req) | Owner::ReplicaReadA(req) | Owner::ReplicaReadB(req) => {
                if self.repl.is_some() {
                    self.note_read(op.chunk, false);
                }
                self.finish_unit(req)
            }
            Owner::PreRead(job) => {
                let t = self.token_at(op.ppn);
                self.with_raid(|r, s| r.preread_done(job, op, t, s))
            }
            Owner::DegradedRead(id) => {
                let t = self.token_at(op.ppn);
                self.with_raid(|r, s| r.partner_read_done(id, t, s));
            }
            Owner::HostProgram(job) | Owner::ReplicaProgram(job) | Owner::ParityProgram(job) => {
                self.program_done(job, op)
            }
            Owner::PageProgram(_) | Owner::MemberProgram(_) => self.direct_program_done(op),
            Owner::MemberRead(tag) => self.page_done(tag, Op::Read),
        }
    }

    /// Tells the observer which request `op` served, on which channel, and
    /// whether it was part of a reconstruction (the per-request log). Out of
    /// line: only observers that keep the log get here.
    #[inline(never)]
    fn note_request_op(&mut self, op: &FlashOp) {
        let Some((slot, rebuilt)) = self.raid().request_of(op.owner) else { return };
        self.obs.request_op(slot, self.layout.channel_of(op.ppn), rebuilt);
    }

    /// A host request finished.
    pub(crate) fn complete_request(&mut self, id: u32) {
        let r = self.host.complete(id);
        debug_assert_eq!(r.pending, 0);
        let now = self.q.now();
        let op = if r.write { Op::Write } else { Op::Read };
        self.obs.request_done(id, op, r.arrival, now, r.size);
        self.totals.completed += 1;
        if self.repl.is_some() {
            self.maybe_idle();
        }
        self.external_done(id, now);
        if self.host.waiting() == 0 {
            return;
        }
        // The host scheduler keeps NR itself; the view it gets leaves it out.
        let view = device_view!(self, &[]);
        if let Some(h) = self.host.next_waiting(&view) {
            // The slot passes to it now; it enters through the queue, not a
            // call, since one that completes at once would otherwise recurse
            // through every waiting request.
            self.q.at(now, Ev::Start(h));
        }
    }
}
