//! An array's chunk operations straight to the flash. A member with nothing
//! between its host interface and its flash that would act on them (no RAID
//! inside, no queue depth, no controller time, no failure, no verifier)
//! sends a read to its page's die queue and a whole-page write to its
//! page's channel, as admission and a plain stripe job would, with the same
//! probes: its report is the same, without a stripe job, a stripe lock or,
//! for a one-page operation, a host slot.

use super::Ssd;
use crate::engine::SimTime;
use crate::flash::op::{FlashOp, Owner};
use crate::metrics::observer::Observer;
use crate::raid::layer::StripeWrite;
use rainsim_trace::{Op, Request};

impl<O: Observer> Ssd<O> {
    /// Sends every request through admission and the RAID layer, never
    /// directly (the reference the direct path is tested against).
    #[doc(hidden)]
    pub fn use_full_path(&mut self) {
        self.external.get_or_insert_with(Default::default).direct = Some(false);
    }

    /// Requests handed in that went straight to the flash.
    #[doc(hidden)]
    pub fn direct_requests(&self) -> u64 {
        self.external.as_ref().map_or(0, |x| x.direct_count)
    }

    /// Whether a request may skip admission and the RAID layer: without
    /// parity a page has no stripe-mates to pre-read or route a read to,
    /// and nothing between the host interface and the flash waits, holds
    /// or fails. (The array's stripe lock keeps two writes of one chunk
    /// from overlapping, which the device's own lock would otherwise do.)
    fn takes_direct(&self) -> bool {
        !self.stripes.parity
            && self.stripes.width == 1
            && self.repl.is_none()
            && self.host.queue_depth() == 0
            && self.host.conflicts().is_none()
            // (Without parity no policy decides per request: no decision time.)
            && self.times.request_overhead_ns == 0
            && self.verifier.is_none()
            && self.fault.is_none()
            && self.fault_params.channel.is_none()
            && self.fault_params.die.is_none()
            && self.dead.is_none()
            && self.raid().failure().is_none()
            && self.gc_overlap.is_none()
            && !self.obs.wants_request_ops()
    }

    /// Whether requests handed in now go straight to the flash (decided
    /// when the first one arrives).
    #[inline]
    fn direct(&mut self) -> bool {
        let x = self.external.get_or_insert_with(Default::default);
        match x.direct {
            Some(d) => d,
            None => {
                let d = self.takes_direct();
                self.external.as_mut().expect("made above").direct = Some(d);
                d
            }
        }
    }

    /// Request `r` (arriving now, tagged `tag`) enters straight to the
    /// flash queues when the device takes requests directly and `r` is a
    /// read or writes whole pages; `false`: it did not enter.
    pub(super) fn enter_direct(&mut self, r: Request, tag: u32) -> bool {
        let pb = self.layout.page_bytes as u64;
        let write = r.op == Op::Write;
        if !self.direct() || (write && !(r.offset.is_multiple_of(pb) && (r.size as u64).is_multiple_of(pb))) {
            return false;
        }
        let (first, last) =
            (self.layout.page_of_byte(r.offset), self.layout.page_of_byte(r.offset + r.size as u64 - 1));
        if first == last {
            self.enter_page(first as u32, r.size, write, tag);
        } else {
            self.enter_pages(r, tag, first, last);
        }
        true
    }

    /// Hands in, arriving now at `at`, a read of `bytes` of logical page
    /// `page` or a write of all of it, tagged `tag`: what
    /// [`Ssd::arrive_now`] does with the request, without working out its
    /// pages from a byte range.
    pub fn page_now(&mut self, at: SimTime, page: u32, bytes: u32, write: bool, tag: u32) {
        self.q.advance_to(at);
        let pb = self.layout.page_bytes;
        if self.direct() && (!write || bytes == pb) {
            self.enter_page(page, bytes, write, tag);
        } else {
            let op = if write { Op::Write } else { Op::Read };
            let r = Request { time_ns: at, offset: page as u64 * pb as u64, size: bytes, device: 0, op };
            self.enter_external(r, tag);
        }
    }

    /// A one-page request: its operation carries the tag (no host slot).
    /// (Without RAID a stripe is one page: the page is its chunk.)
    fn enter_page(&mut self, chunk: u32, bytes: u32, write: bool, tag: u32) {
        self.totals.admitted += 1;
        let now = self.q.now();
        let x = self.external.as_mut().expect("handed in");
        x.direct_count += 1;
        if x.pages.len() <= tag as usize {
            x.pages.resize(tag as usize + 1, (0, 0));
        }
        x.pages[tag as usize] = (now, bytes);
        let owner = if write { Owner::MemberProgram(tag) } else { Owner::MemberRead(tag) };
        if !self.queue_page(chunk, write, owner) {
            self.obs.unmapped_read_request();
            self.page_done(tag, Op::Read);
        }
    }

    /// Queues the program of page `chunk` on its channel, or its read on
    /// its die, for `owner`; `false`: a read of a page never written
    /// (nothing to read).
    #[inline]
    fn queue_page(&mut self, chunk: u32, write: bool, owner: Owner) -> bool {
        let at = self.member(chunk);
        if write {
            self.obs.stripe_write(StripeWrite::Plain, false, 0);
            let ch = at.map_or_else(|| self.stripes.home_channel(chunk), |m| m.channel);
            self.enqueue_program(ch, chunk, owner);
        } else if let Some(m) = at {
            self.enqueue_read(chunk, m.ppn, owner);
        } else {
            self.obs.unmapped_read();
            return false;
        }
        true
    }

    /// A request of several pages: a host slot counts them.
    fn enter_pages(&mut self, r: Request, tag: u32, first: u64, last: u64) {
        let (id, entered) = self.host.arrive(&r);
        debug_assert!(entered, "no queue depth");
        self.tag_slot(id, tag);
        self.external.as_mut().expect("handed in").direct_count += 1;
        self.totals.admitted += 1;
        // Hold one pending unit while splitting so nothing completes early.
        self.host.req_mut(id).pending = 1;
        let write = r.op == Op::Write;
        let owner = if write { Owner::PageProgram(id) } else { Owner::HostRead(id) };
        for lpn in first..=last {
            let (_, chunk) = self.stripes.chunk_of_lpn(lpn);
            // Counted before it is queued: it cannot complete meanwhile.
            self.host.req_mut(id).pending += 1;
            if !self.queue_page(chunk, write, owner) {
                self.host.req_mut(id).pending -= 1;
            }
        }
        if !write && self.host.req(id).pending == 1 {
            self.obs.unmapped_read_request();
        }
        self.finish_unit(id);
    }

    /// A page program finished: the mapping takes it; then its request (of
    /// host slot `slot`, or the one-page request `tag`) hears of it.
    pub(crate) fn direct_program_done(&mut self, op: FlashOp) {
        let old = self.ftl.commit(op.chunk, op.ppn);
        self.wake_for_gc(old);
        match op.owner {
            Owner::PageProgram(slot) => self.finish_unit(slot),
            Owner::MemberProgram(tag) => self.page_done(tag, Op::Write),
            other => unreachable!("{other:?} is not a direct program"),
        }
    }

    /// One-page request `tag` is done now: recorded as a host request's
    /// completion is, and handed back.
    pub(crate) fn page_done(&mut self, tag: u32, op: Op) {
        let now = self.q.now();
        let x = self.external.as_mut().expect("handed in");
        let (arrival, bytes) = x.pages[tag as usize];
        x.done.push((tag, now));
        self.obs.request_done(tag, op, arrival, now, bytes);
        self.totals.completed += 1;
    }
}
