//! Admission: a request that holds a slot at the host interface passes the
//! controller's per-request overhead (and the policies' decision time), then
//! is split into page reads and one stripe job per stripe it writes.

use super::{device_view, Ev, Ssd};
use crate::flash::op::Owner;
use crate::metrics::observer::Observer;
use crate::policy::{ReadTarget, Route};
use rainsim_trace::Request;

impl<O: Observer> Ssd<O> {
    /// A trace request arrives (latency counts from now).
    pub(crate) fn arrive(&mut self, r: &Request) {
        let (id, entered) = self.host.arrive(r);
        self.totals.admitted += 1;
        if let Some(rs) = &mut self.repl {
            rs.idle_at = None;
        }
        if entered {
            self.enter(id);
        } else {
            self.obs.host_held();
        }
    }

    /// The request, holding a slot, enters the device.
    pub(crate) fn enter(&mut self, id: u32) {
        let overhead = self.times.request_overhead_ns + self.decision_ns;
        if overhead > 0 {
            let at = self.controller_delay(overhead);
            self.q.at(at, Ev::Admit(id));
        } else {
            self.admit(id);
        }
    }

    /// Splits the request into page reads or stripe jobs.
    pub(crate) fn admit(&mut self, id: u32) {
        let r = *self.host.req(id);
        let pb = self.layout.page_bytes as u64;
        let first = self.layout.page_of_byte(r.offset);
        let end = r.offset + r.size as u64;
        let last = self.layout.page_of_byte(end - 1);
        // Hold one pending unit while splitting so nothing completes early.
        self.host.req_mut(id).pending = 1;
        if self.repl.is_some() {
            self.policies.replication.on_request();
        }
        if r.write {
            // Pages of one stripe are consecutive: one job per stripe touched.
            let dps = self.stripes.data_per_stripe() as u64;
            let mut lpn = first;
            while lpn <= last {
                let (stripe, d0) = self.stripes.split_lpn(lpn);
                let stripe_end = ((stripe as u64 + 1) * dps - 1).min(last);
                let (mut written, mut partial) = (0u64, 0u64);
                for l in lpn..=stripe_end {
                    let pos = self.stripes.data_pos(stripe, d0 + (l - lpn) as u32);
                    written |= 1 << pos;
                    if l * pb < r.offset || (l + 1) * pb > end {
                        partial |= 1 << pos;
                    }
                }
                lpn = stripe_end + 1;
                if self.repl.as_ref().is_some_and(|x| !x.map.is_identity()) {
                    self.write_remapped(id, stripe, written, partial, r.size);
                } else {
                    self.write_stripe(id, stripe, written, partial, r.size);
                }
            }
        } else {
            for lpn in first..=last {
                let (_, chunk) = self.stripes.chunk_of_lpn(lpn);
                let slot = self.slot_of(chunk);
                self.host_read(id, slot);
            }
            // Only the split's own unit pending: no page needed the flash.
            if self.host.req(id).pending == 1 {
                self.obs.unmapped_read_request();
            }
        }
        self.finish_unit(id);
    }

    /// The stripe slot holding logical chunk `chunk` (`raid/stripe_map.rs`).
    #[inline]
    pub(crate) fn slot_of(&self, chunk: u32) -> u32 {
        self.repl.as_ref().map_or(chunk, |r| r.map.slot(chunk))
    }

    /// One stripe job (or a replica job, or both) for `written` positions
    /// of physical stripe `stripe`, `partial` of them in part.
    fn write_stripe(&mut self, id: u32, stripe: u32, written: u64, partial: u64, bytes: u32) {
        let rep = if self.repl.is_some() { self.replica_positions(stripe, written, bytes) } else { 0 };
        if written & !rep != 0 {
            self.host.req_mut(id).pending += 1;
            let (w, p) = (written & !rep, partial & !rep);
            self.with_raid(|raid, s| raid.submit_job(id, stripe, w, p, s));
        }
        if rep != 0 {
            self.host.req_mut(id).pending += 1;
            self.with_raid(|raid, s| raid.submit_replica_job(id, stripe, rep, partial & rep, s));
            self.after_replica_submit(stripe, rep);
        }
    }

    /// A write of `written` positions of logical stripe `stripe` while some
    /// chunks live in other stripes' slots: one job per physical stripe,
    /// the logical stripe's own slots first.
    fn write_remapped(&mut self, id: u32, stripe: u32, written: u64, partial: u64, bytes: u32) {
        let w = self.stripes.width;
        // Most writes touch no swapped chunk: one job, as without the map.
        if crate::raid::replica_job::ones(written).all(|pos| self.slot_of(stripe * w + pos) == stripe * w + pos) {
            return self.write_stripe(id, stripe, written, partial, bytes);
        }
        let mut jobs: Vec<(u32, u64, u64)> = vec![(stripe, 0, 0)];
        for pos in crate::raid::replica_job::ones(written) {
            let slot = self.slot_of(stripe * w + pos);
            let (s, bit) = (slot / w, 1u64 << (slot % w));
            let k = match jobs.iter().position(|j| j.0 == s) {
                Some(k) => k,
                None => {
                    jobs.push((s, 0, 0));
                    jobs.len() - 1
                }
            };
            jobs[k].1 |= bit;
            if partial & (1 << pos) != 0 {
                jobs[k].2 |= bit;
            }
        }
        for (s, wr, p) in jobs {
            if wr != 0 {
                self.write_stripe(id, s, wr, p, bytes);
            }
        }
    }

    fn host_read(&mut self, id: u32, chunk: u32) {
        if self.raid().is_lost(chunk) {
            // Its channel failed: the stripe gives it back.
            self.host.req_mut(id).pending += 1;
            self.with_raid(|r, s| r.reconstruct_read(id, chunk, s));
            return;
        }
        if self.repl.is_some() && self.replica_read(id, chunk) {
            return;
        }
        let Some(target) = self.member(chunk) else {
            self.obs.unmapped_read();
            return;
        };
        let mut partners = std::mem::take(&mut self.scratch);
        partners.clear();
        let stripe = self.stripes.stripe_of(chunk);
        if self.stripes.parity
            && self.policies.read.wants_partners()
            && self.raid().readable(stripe)
            && !self.raid().stripe_has_lost(stripe)
        {
            self.raid().stripe_partners(stripe, chunk, |c| self.member(c), &mut partners);
        }
        let view = device_view!(self);
        let route = self.policies.read.route(&view, &ReadTarget { target, partners: &partners });
        self.host.req_mut(id).pending += 1;
        if route == Route::Normal || partners.is_empty() {
            self.note_read(chunk, true);
            self.enqueue_read(chunk, target.ppn, Owner::HostRead(id));
        } else {
            self.with_raid(|r, s| r.start_degraded_read(id, chunk, &partners, route == Route::GcTolerant, s));
        }
        self.scratch = partners;
    }

    /// One unit of a request's work finished (inline: most leave others
    /// outstanding).
    #[inline(always)]
    pub(crate) fn finish_unit(&mut self, id: u32) {
        let p = &mut self.host.req_mut(id).pending;
        if *p > 1 {
            *p -= 1;
        } else {
            self.last_unit(id);
        }
    }

    /// [`Self::finish_unit`] of a request's last unit (or one too many).
    #[inline(never)]
    fn last_unit(&mut self, id: u32) {
        let p = &mut self.host.req_mut(id).pending;
        if *p == 0 {
            let now = self.q.now();
            self.fail(crate::verify::VerifyError { time_ns: now, what: format!("request slot {id} completed twice") });
            return;
        }
        *p = 0;
        self.complete_request(id);
    }
}
