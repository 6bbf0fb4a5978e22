//! Host side: arrivals, the optional queue-depth cap, the controller's
//! per-request overhead, and splitting a request into page-sized work.

use super::{Ev, HostReq, Ssd};
use crate::flash::op::{FlashOp, Origin};
use crate::metrics::observer::Observer;
use crate::policy::{ReadTarget, Route};
use rainsim_trace::{Op, Request};

impl<O: Observer> Ssd<O> {
    /// A trace request arrives (latency counts from now).
    pub(crate) fn arrive(&mut self, r: &Request) {
        let req = HostReq { arrival: r.time_ns, offset: r.offset, size: r.size, write: r.op == Op::Write, pending: 0 };
        let id = self.reqs.insert(req);
        self.totals.admitted += 1;
        let qd = self.cfg.host.queue_depth;
        if qd > 0 && self.outstanding >= qd {
            self.obs.host_held();
            self.held.push_back(id);
        } else {
            self.start_request(id);
        }
    }

    /// The request takes a queue-depth slot and enters the device.
    pub(crate) fn start_request(&mut self, id: u32) {
        self.outstanding += 1;
        self.enter(id);
    }

    /// The request, holding a slot, enters the device.
    pub(crate) fn enter(&mut self, id: u32) {
        let overhead = self.cfg.timing.request_overhead_ns + self.decision_ns;
        if overhead > 0 {
            let at = self.controller_delay(overhead);
            self.q.at(at, Ev::Admit(id));
        } else {
            self.admit(id);
        }
    }

    /// Splits the request into page reads or stripe jobs.
    pub(crate) fn admit(&mut self, id: u32) {
        let r = self.reqs[id];
        let pb = self.layout.page_bytes as u64;
        let first = r.offset / pb;
        let end = r.offset + r.size as u64;
        let last = (end - 1) / pb;
        // Hold one pending unit while splitting so nothing completes early.
        self.reqs[id].pending = 1;
        if r.write {
            // Pages of one stripe are consecutive: one job per stripe touched.
            let dps = self.stripes.data_per_stripe() as u64;
            let mut lpn = first;
            while lpn <= last {
                let stripe = (lpn / dps) as u32;
                let stripe_end = ((stripe as u64 + 1) * dps - 1).min(last);
                let (mut written, mut partial) = (0u64, 0u64);
                for l in lpn..=stripe_end {
                    let pos = self.stripes.data_pos(stripe, (l % dps) as u32);
                    written |= 1 << pos;
                    if l * pb < r.offset || (l + 1) * pb > end {
                        partial |= 1 << pos;
                    }
                }
                lpn = stripe_end + 1;
                self.reqs[id].pending += 1;
                self.submit_job(id, stripe, written, partial);
            }
        } else {
            for lpn in first..=last {
                let (_, chunk) = self.stripes.chunk_of_lpn(lpn);
                self.host_read(id, chunk);
            }
        }
        self.finish_unit(id);
    }

    fn host_read(&mut self, id: u32, chunk: u32) {
        let Some(target) = self.member(chunk) else {
            self.obs.unmapped_read();
            return;
        };
        let mut partners = std::mem::take(&mut self.scratch);
        partners.clear();
        let stripe = chunk / self.stripes.width;
        if self.stripes.parity && self.policies.read.wants_partners() && self.degraded_readable(stripe) {
            self.stripe_partners(stripe, chunk, &mut partners);
        }
        let view = crate::ssd::device_view!(self);
        let route = self.policies.read.route(&view, &ReadTarget { target, partners: &partners });
        self.reqs[id].pending += 1;
        if route == Route::Normal || partners.is_empty() {
            self.enqueue_read(chunk, target.ppn, id, Origin::HostRead);
        } else {
            self.start_degraded_read(id, chunk, &partners, route == Route::GcTolerant);
        }
        self.scratch = partners;
    }

    /// Queues a read of `chunk` (now at `ppn`) on its die.
    pub(crate) fn enqueue_read(&mut self, chunk: u32, ppn: u32, owner: u32, origin: Origin) {
        self.enqueue_read_at(chunk, ppn, owner, origin, false);
    }

    /// Queues a read at the tail of its die's read queue, or at its head
    /// (degraded-mode reads, which the paper inserts at the heads of queues).
    pub(crate) fn enqueue_read_at(&mut self, chunk: u32, ppn: u32, owner: u32, origin: Origin, head: bool) {
        let die = self.layout.die_of(ppn);
        let ch = self.layout.channel_of_die(die);
        self.seq = self.seq.wrapping_add(1);
        let op = FlashOp { chunk, owner, origin, enqueued: self.q.now(), ppn, seq: self.seq };
        let local = die - self.layout.first_die(ch);
        let c = &mut self.channels[ch as usize];
        c.arrivals.record(op.enqueued);
        if head {
            c.sched.push_read_front(local, op);
        } else {
            c.sched.push_read(local, op);
        }
        self.try_start(die);
    }

    /// Queues a program of `chunk` on channel `ch`.
    pub(crate) fn enqueue_program(&mut self, ch: u32, chunk: u32, owner: u32, origin: Origin) {
        self.seq = self.seq.wrapping_add(1);
        let op = FlashOp { chunk, owner, origin, enqueued: self.q.now(), ppn: u32::MAX, seq: self.seq };
        let c = &mut self.channels[ch as usize];
        c.arrivals.record(op.enqueued);
        c.sched.push_write(op);
        // Any idle die of the channel may take it; stop at the first that does.
        let first = self.layout.first_die(ch);
        for die in first..first + self.layout.dies_per_channel {
            if self.dies[die as usize].idle()
                && self.try_start(die)
                && self.channels[ch as usize].sched.writes_queued() == 0
            {
                break;
            }
        }
    }

    /// One unit of a request's work finished.
    pub(crate) fn finish_unit(&mut self, id: u32) {
        let p = &mut self.reqs[id].pending;
        if *p == 0 {
            let now = self.q.now();
            self.fail(crate::verify::VerifyError { time_ns: now, what: format!("request slot {id} completed twice") });
            return;
        }
        *p -= 1;
        if *p == 0 {
            self.complete_request(id);
        }
    }
}
