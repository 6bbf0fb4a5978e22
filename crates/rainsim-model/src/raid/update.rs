//! The stripe write path. A host write touching stripe s becomes one job:
//!
//! ```text
//!  wait for the stripe lock → plan (full stripe | RMW | RCW) → pre-reads
//!      → XOR on the controller → program data chunks + parity → release lock
//! ```
//!
//! Pre-read sets, with W = positions written, E = positions ever written,
//! P = positions written only in part (page-level read-modify-write), p = parity:
//! - full stripe (W = all data positions, P = ∅): none;
//! - RMW: (W ∩ E) ∪ ({p} ∩ E) — old data being replaced and old parity;
//! - RCW: ((data ∖ W) ∩ E) ∪ (P ∩ E) — the rest of the stripe, plus old pages
//!   that are only partly overwritten (they must be merged).
//!
//! A chunk never written reads as zeros and needs no pre-read. Without RAID a
//! job is a single page: a partial page with old data is pre-read, then written.

use crate::flash::op::{FlashOp, Origin};
use crate::metrics::observer::{Observer, StripeWrite};
use crate::policy::{fewest_prereads::fewest, Routine, UpdatePlan};
use crate::ssd::{Ev, Fault, Ssd};
use crate::verify::token;

/// Marker for "no job".
pub const NO_JOB: u32 = u32::MAX;

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
}

/// Bit mask of the data positions of a stripe of `width` with parity at `parity_pos`.
pub fn data_mask(width: u32, parity_pos: u32) -> u64 {
    let all = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    all & !(1u64 << parity_pos)
}

/// The pre-read sets of both routines for a stripe write (module docs give the
/// rule). A full-stripe write has both sets empty.
pub fn plan_stripe_write(
    width: u32,
    parity_pos: u32,
    stripe: u32,
    written: u64,
    partial: u64,
    exists: u64,
) -> UpdatePlan {
    let data = data_mask(width, parity_pos);
    if written == data && partial == 0 {
        return UpdatePlan { stripe, rmw: 0, rcw: 0, written };
    }
    let p = 1u64 << parity_pos;
    UpdatePlan { stripe, rmw: (written | p) & exists, rcw: ((data & !written) | partial) & exists, written }
}

impl<O: Observer> Ssd<O> {
    /// Creates a job and starts it, or queues it behind the stripe's current job.
    pub(crate) fn submit_job(&mut self, req: u32, stripe: u32, written: u64, partial: u64) {
        self.serial += 1;
        let job = StripeJob {
            req,
            stripe,
            written,
            partial,
            routine: Routine::Rcw,
            pending: 0,
            next_waiting: NO_JOB,
            serial: self.serial,
            acc: 0,
        };
        let id = self.jobs.insert(job);
        match self.locks.get_mut(&stripe) {
            Some((head, tail)) => {
                if *head == NO_JOB {
                    *head = id;
                } else {
                    self.jobs[*tail].next_waiting = id;
                }
                *tail = id;
            }
            None => {
                self.locks.insert(stripe, (NO_JOB, NO_JOB));
                self.start_job(id);
            }
        }
    }

    fn position_exists(&self, stripe: u32, pos: u32) -> bool {
        self.ftl.lookup(stripe * self.stripes.width + pos).is_some()
    }

    /// Plans the job's pre-reads and issues them.
    fn start_job(&mut self, id: u32) {
        let j = self.jobs[id];
        let w = self.stripes.width;
        let mut exists = 0u64;
        for pos in 0..w {
            if self.position_exists(j.stripe, pos) {
                exists |= 1 << pos;
            }
        }
        let reads = if self.stripes.parity {
            let plan = plan_stripe_write(w, self.stripes.parity_pos(j.stripe), j.stripe, j.written, j.partial, exists);
            if plan.rmw == 0 && plan.rcw == 0 {
                // Nothing to read: a full-stripe write, or a stripe with no data yet.
                let full = j.written == data_mask(w, self.stripes.parity_pos(j.stripe)) && j.partial == 0;
                self.obs.stripe_write(if full { StripeWrite::Full } else { StripeWrite::Fresh }, false, 0);
                0
            } else {
                let view = crate::ssd::device_view!(self);
                let routine = self.policies.parity.choose(&view, &plan);
                let adjusted = routine != fewest(&plan);
                self.jobs[id].routine = routine;
                let (kind, set) = match routine {
                    Routine::Rmw => (StripeWrite::Rmw, plan.rmw),
                    Routine::Rcw => (StripeWrite::Rcw, plan.rcw),
                };
                self.obs.stripe_write(kind, adjusted, set.count_ones());
                set
            }
        } else {
            let set = j.partial & exists;
            self.obs.stripe_write(StripeWrite::Plain, false, set.count_ones());
            set
        };
        self.jobs[id].pending = reads.count_ones() + 1;
        let mut bits = reads;
        while bits != 0 {
            let pos = bits.trailing_zeros();
            bits &= bits - 1;
            let chunk = j.stripe * w + pos;
            let ppn = self.ftl.lookup(chunk).expect("pre-read set only holds written chunks");
            self.enqueue_read(chunk, ppn, id, Origin::PreRead);
        }
        self.phase_step(id);
    }

    /// A pre-read of job `op.owner` finished.
    pub(crate) fn preread_done(&mut self, op: FlashOp) {
        let id = op.owner;
        if let Some(v) = &self.verifier {
            let j = &self.jobs[id];
            let pos = op.chunk % self.stripes.width;
            let contributes = match j.routine {
                Routine::Rmw => self.fault != Some(Fault::RmwIgnoresOldData) || self.stripes.is_parity(op.chunk),
                Routine::Rcw => j.written & (1 << pos) == 0,
            };
            if contributes {
                let t = v.peek(op.ppn);
                self.jobs[id].acc ^= t;
            }
        }
        self.phase_step(id);
    }

    /// One outstanding operation of the current phase is done.
    fn phase_step(&mut self, id: u32) {
        let j = &mut self.jobs[id];
        j.pending -= 1;
        if j.pending > 0 {
            return;
        }
        if self.stripes.parity {
            let at = self.controller_delay(self.cfg.timing.xor_ns + self.cfg.timing.stripe_overhead_ns);
            self.q.at(at, Ev::XorDone(id));
        } else {
            self.xor_done(id);
        }
    }

    /// XOR done (or not needed): program the new data and parity.
    pub(crate) fn xor_done(&mut self, id: u32) {
        let j = self.jobs[id];
        let w = self.stripes.width;
        let mut n = j.written.count_ones();
        if self.stripes.parity {
            n += 1;
        }
        self.jobs[id].pending = n;
        let mut bits = j.written;
        while bits != 0 {
            let pos = bits.trailing_zeros();
            bits &= bits - 1;
            let chunk = j.stripe * w + pos;
            let home = self.stripes.channel(j.stripe, pos);
            let view = crate::ssd::device_view!(self);
            let ch = self.policies.place.channel_for(&view, chunk, home);
            self.enqueue_program(ch, chunk, id, Origin::HostProgram);
        }
        if self.stripes.parity {
            let pos = self.stripes.parity_pos(j.stripe);
            let chunk = j.stripe * w + pos;
            let home = self.stripes.channel(j.stripe, pos);
            self.enqueue_program(home, chunk, id, Origin::ParityProgram);
        }
    }

    /// A program of job `op.owner` finished: commit it.
    pub(crate) fn program_done(&mut self, op: FlashOp) {
        let id = op.owner;
        let old = self.ftl.commit(op.chunk, op.ppn);
        if let Some(v) = &mut self.verifier {
            let j = &self.jobs[id];
            let pos = op.chunk % self.stripes.width;
            let t = if op.origin == Origin::ParityProgram {
                let mut x = j.acc;
                let mut bits = j.written;
                while bits != 0 {
                    let p = bits.trailing_zeros();
                    bits &= bits - 1;
                    x ^= token(j.serial, p);
                }
                x
            } else {
                token(j.serial, pos)
            };
            v.write(op.chunk, op.ppn, t);
        }
        // The invalidated page may give an idle die something to collect (only
        // now, with the new page's data recorded, may GC move it).
        if let Some(old) = old {
            let die = self.layout.die_of(old);
            if self.dies[die as usize].idle() {
                self.try_start(die);
            }
        }
        let j = &mut self.jobs[id];
        j.pending -= 1;
        if j.pending == 0 {
            self.finish_job(id);
        }
    }

    fn finish_job(&mut self, id: u32) {
        let j = self.jobs[id];
        self.jobs.remove(id);
        let (head, tail) = self.locks[&j.stripe];
        if head == NO_JOB {
            self.locks.remove(&j.stripe);
        } else {
            let next = self.jobs[head].next_waiting;
            let new_tail = if next == NO_JOB { NO_JOB } else { tail };
            self.locks.insert(j.stripe, (next, new_tail));
            self.start_job(head);
        }
        self.finish_unit(j.req);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[u32]) -> u64 {
        v.iter().map(|&b| 1u64 << b).sum()
    }

    /// A 5+1 stripe with parity at position 5, every chunk already written.
    #[test]
    fn rmw_and_rcw_sets_for_a_5_plus_1_stripe() {
        let all = bits(&[0, 1, 2, 3, 4, 5]);
        // One chunk (d0): RMW reads d0 + P (2), RCW reads d1..d4 (4).
        let p = plan_stripe_write(6, 5, 0, bits(&[0]), 0, all);
        assert_eq!((p.rmw, p.rcw), (bits(&[0, 5]), bits(&[1, 2, 3, 4])));
        assert_eq!(fewest(&p), Routine::Rmw);
        // Three chunks: RMW 4, RCW 2.
        let p = plan_stripe_write(6, 5, 0, bits(&[0, 1, 2]), 0, all);
        assert_eq!((p.rmw, p.rcw), (bits(&[0, 1, 2, 5]), bits(&[3, 4])));
        assert_eq!(fewest(&p), Routine::Rcw);
        // Two chunks: 3 vs 3, a tie goes to RCW (Linux md).
        let p = plan_stripe_write(6, 5, 0, bits(&[1, 2]), 0, all);
        assert_eq!((p.rmw.count_ones(), p.rcw.count_ones()), (3, 3));
        assert_eq!(fewest(&p), Routine::Rcw);
        // Half of d0: RCW must also read old d0 to merge the page.
        let p = plan_stripe_write(6, 5, 0, bits(&[0]), bits(&[0]), all);
        assert_eq!((p.rmw, p.rcw), (bits(&[0, 5]), bits(&[0, 1, 2, 3, 4])));
        // Full stripe: nothing to read.
        let p = plan_stripe_write(6, 5, 0, bits(&[0, 1, 2, 3, 4]), 0, all);
        assert_eq!((p.rmw, p.rcw), (0, 0));
        // Never-written chunks are zeros: no pre-read. Only d3 and P exist.
        let p = plan_stripe_write(6, 5, 0, bits(&[0]), 0, bits(&[3, 5]));
        assert_eq!((p.rmw, p.rcw), (bits(&[5]), bits(&[3])));
        // Parity in the middle (position 2): data positions skip it.
        let p = plan_stripe_write(6, 2, 0, bits(&[0, 1]), 0, all);
        assert_eq!((p.rmw, p.rcw), (bits(&[0, 1, 2]), bits(&[3, 4, 5])));
    }
}
