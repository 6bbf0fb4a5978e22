//! Degraded read: a host read served by reading the stripe's other written
//! chunks (parity included) and XOR-ing them, instead of the chunk itself.
//!
//! ```text
//!  take a read share of the stripe lock → read the k−1 partners (other channels)
//!      → XOR on the controller → the host read is done → release the share
//! ```
//!
//! The share keeps write jobs off the stripe while its partners are read, so
//! they all belong to one parity generation. A rebuild is only started on a
//! stripe with no write job running or waiting (writers are never starved).

use crate::flash::op::{FlashOp, Owner};
use crate::metrics::observer::Observer;
use crate::raid::rmw_rcw::Member;
use crate::raid::update::StripeLock;
use crate::ssd::{Ev, Ssd};
use crate::verify::VerifyError;

/// One degraded read in flight.
#[derive(Debug, Clone, Copy)]
pub struct DegradedRead {
    /// Host request it serves.
    pub req: u32,
    /// Chunk being rebuilt.
    pub chunk: u32,
    /// Partner reads outstanding.
    pub pending: u32,
    /// XOR of the partner tokens read so far (verify mode).
    pub acc: u32,
}

impl<O: Observer> Ssd<O> {
    /// Whether a degraded read of stripe `s` may start now.
    pub(crate) fn degraded_readable(&self, s: u32) -> bool {
        self.locks.get(&s).is_none_or(|l| l.readable())
    }

    /// The written chunks of stripe `s` other than `chunk`, into `out`.
    pub(crate) fn stripe_partners(&self, s: u32, chunk: u32, out: &mut Vec<Member>) {
        let w = self.stripes.width;
        for c in s * w..(s + 1) * w {
            if c != chunk {
                if let Some(m) = self.member(c) {
                    out.push(m);
                }
            }
        }
    }

    /// Starts rebuilding `chunk` for host request `req` from `partners`.
    pub(crate) fn start_degraded_read(&mut self, req: u32, chunk: u32, partners: &[Member], gc_tolerant: bool) {
        let s = chunk / self.stripes.width;
        self.locks.entry(s).or_insert_with(StripeLock::free).readers += 1;
        let id = self.degraded_reads.insert(DegradedRead { req, chunk, pending: partners.len() as u32, acc: 0 });
        self.obs.degraded_read(gc_tolerant, partners.len() as u32);
        // Degraded-mode scheduling inserts its reads at the heads of the
        // partners' queues (§3.2, "serviced immediately"); a GC-tolerant read
        // queues like any read.
        for m in partners {
            self.enqueue_read_at(m.chunk, m.ppn, Owner::DegradedRead(id), !gc_tolerant);
        }
    }

    /// A partner read of degraded read `id` finished.
    pub(crate) fn partner_read_done(&mut self, id: u32, op: FlashOp) {
        if let Some(v) = &self.verifier {
            self.degraded_reads[id].acc ^= v.peek(op.ppn);
        }
        let r = &mut self.degraded_reads[id];
        r.pending -= 1;
        if r.pending == 0 {
            let at = self.controller_delay(self.times.xor_ns);
            self.q.at(at, Ev::DegradedReadDone(id));
        }
    }

    /// XOR done: the rebuilt chunk goes to the host.
    pub(crate) fn degraded_read_done(&mut self, id: u32) {
        let r = self.degraded_reads.remove(id);
        self.obs.xor();
        if let Some(v) = &self.verifier {
            let want = v.latest(r.chunk);
            if r.acc != want {
                let now = self.q.now();
                self.fail(VerifyError {
                    time_ns: now,
                    what: format!(
                        "degraded read of chunk {} rebuilt token {:#x}, latest written is {want:#x}",
                        r.chunk, r.acc
                    ),
                });
                return;
            }
        }
        let s = r.chunk / self.stripes.width;
        self.release_read_share(s);
        self.finish_unit(r.req);
    }
}
