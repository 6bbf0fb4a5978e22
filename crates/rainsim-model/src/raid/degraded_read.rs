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

use crate::flash::op::Owner;
use crate::raid::layer::{RaidAction, RaidEvent, RaidLayer, RaidPort, ReadPlace};
use crate::raid::rmw_rcw::Member;
use crate::raid::stripe_lock::StripeLock;

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
    /// Next reconstruct read waiting for the same stripe.
    pub next: u32,
}

impl RaidLayer {
    /// The written chunks of stripe `s` other than `chunk`, into `out`.
    pub fn stripe_partners(&self, s: u32, chunk: u32, member: impl Fn(u32) -> Option<Member>, out: &mut Vec<Member>) {
        let w = self.stripes.width;
        for c in s * w..(s + 1) * w {
            if c != chunk {
                if let Some(m) = member(c) {
                    out.push(m);
                }
            }
        }
    }

    /// Starts rebuilding `chunk` for host request `req` from `partners`.
    pub fn start_degraded_read(
        &mut self,
        req: u32,
        chunk: u32,
        partners: &[Member],
        gc_tolerant: bool,
        port: &mut impl RaidPort,
    ) {
        let s = self.stripes.stripe_of(chunk);
        self.locks.entry(s).or_insert_with(StripeLock::free).readers += 1;
        if let Some(t) = port.replicas() {
            t.locked.insert(s);
        }
        let id = self.degraded_reads.insert(DegradedRead {
            req,
            chunk,
            pending: partners.len() as u32,
            acc: 0,
            next: crate::raid::stripe_lock::NO_JOB,
        });
        port.degraded_read(gc_tolerant, partners.len() as u32);
        // Degraded-mode scheduling inserts its reads at the heads of the
        // partners' queues (§3.2, "serviced immediately"); a GC-tolerant read
        // queues like any read.
        for m in partners {
            let owner = Owner::DegradedRead(id);
            let place = if gc_tolerant { ReadPlace::Tail } else { ReadPlace::Head };
            port.act(RaidAction::Read { chunk: m.chunk, ppn: m.ppn, owner, place });
        }
    }

    /// A partner read of degraded read `id` finished; `token` is what it read
    /// (verify mode).
    pub fn partner_read_done(&mut self, id: u32, token: Option<u32>, port: &mut impl RaidPort) {
        let r = &mut self.degraded_reads[id];
        if let Some(t) = token {
            r.acc ^= t;
        }
        r.pending -= 1;
        if r.pending == 0 {
            port.act(RaidAction::Controller { ns: self.times.xor_ns, then: RaidEvent::DegradedReadDone(id) });
        }
    }

    /// XOR done: the rebuilt chunk goes to the host.
    pub(crate) fn degraded_read_done(&mut self, id: u32, port: &mut impl RaidPort) {
        let r = self.degraded_reads.remove(id);
        port.xor();
        if self.verify {
            port.act(RaidAction::CheckRebuilt { chunk: r.chunk, token: r.acc });
        }
        let s = self.stripes.stripe_of(r.chunk);
        self.release_read_share(s, port);
        port.act(RaidAction::UnitDone(r.req));
    }
}
