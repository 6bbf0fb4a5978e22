//! The device as a member of an array: requests are handed in at a time (not
//! read from a trace), completions are handed back with the caller's tag, and
//! a chunk that moved elsewhere is trimmed. Requests arriving now may go
//! straight to the flash (`direct.rs`).

use super::{Ev, Ssd};
use crate::engine::SimTime;
use crate::metrics::observer::Observer;
use crate::slab::Slab;
use rainsim_trace::Request;

/// Requests handed in and not yet arrived, the tags of the ones in the
/// device, and the completions not yet collected.
#[derive(Default)]
pub(crate) struct External {
    waiting: Slab<(Request, u32)>,
    /// Caller's tag by host slot.
    tags: Vec<u32>,
    /// (tag, completion time) in completion order.
    pub(super) done: Vec<(u32, SimTime)>,
    /// Requests arriving now bypass admission and the RAID layer (decided
    /// when the first one arrives, or set off by `use_full_path`).
    pub(super) direct: Option<bool>,
    /// (arrival, bytes) of the one-page requests in flight with no host
    /// slot, by tag.
    pub(super) pages: Vec<(SimTime, u32)>,
    /// Requests that went straight to the flash.
    pub(super) direct_count: u64,
}

impl<O: Observer> Ssd<O> {
    /// Hands in request `r` to arrive at `at` (no earlier than the device's
    /// current time); its completion comes back from [`Ssd::take_done`] with `tag`.
    pub fn submit(&mut self, at: SimTime, mut r: Request, tag: u32) {
        debug_assert!(at >= self.q.now(), "a request cannot arrive in the device's past");
        r.time_ns = at;
        let x = self.external.get_or_insert_with(Default::default);
        let id = x.waiting.insert((r, tag));
        self.q.at(at, Ev::External(id));
    }

    /// Hands in request `r` arriving now, at `at`: the device's time moves
    /// to `at` (no pending event of the device may be earlier) and the
    /// request enters at once, without an event of its own. Its completion
    /// comes back from [`Ssd::take_done`] with `tag`.
    pub fn arrive_now(&mut self, at: SimTime, mut r: Request, tag: u32) {
        self.q.advance_to(at);
        r.time_ns = at;
        if !self.enter_direct(r, tag) {
            self.enter_external(r, tag);
        }
    }

    /// Moves the completions since the last call into `out`, as (tag, time).
    #[inline]
    pub fn take_done(&mut self, out: &mut Vec<(u32, SimTime)>) {
        if let Some(x) = &mut self.external {
            if x.done.is_empty() {
                return;
            }
            if out.is_empty() {
                // The caller drains `out` each time: trade buffers, copy nothing.
                std::mem::swap(out, &mut x.done);
            } else {
                out.append(&mut x.done);
            }
        }
    }

    /// The chunk holding logical page `lpn` is no longer needed: its page is
    /// invalidated without a write. Under the device's own RAID-5 the page
    /// is kept (returns `false`): the stripe's parity still covers it, and
    /// dropping it would lose its stripe-mates' recovery (and a pre-read of
    /// it already queued); it goes when its slot is written again.
    pub fn trim(&mut self, lpn: u64) -> bool {
        if self.stripes.parity {
            return false;
        }
        let (_, chunk) = self.stripes.chunk_of_lpn(lpn);
        let chunk = self.slot_of(chunk);
        let old = self.ftl.trim(chunk);
        self.wake_for_gc(old);
        true
    }

    /// A handed-in request arrives now (as a trace arrival does, with the
    /// tag recorded before it may complete).
    pub(crate) fn external_arrives(&mut self, id: u32) {
        let x = self.external.as_mut().expect("handed in through submit");
        let (r, tag) = x.waiting.remove(id);
        self.enter_external(r, tag);
    }

    pub(super) fn enter_external(&mut self, r: Request, tag: u32) {
        let (slot, entered) = self.host.arrive(&r);
        self.tag_slot(slot, tag);
        self.totals.admitted += 1;
        if entered {
            self.enter(slot);
        } else {
            self.obs.host_held();
        }
    }

    /// Records the caller's tag of the request in host slot `slot`.
    #[inline]
    pub(super) fn tag_slot(&mut self, slot: u32, tag: u32) {
        let x = self.external.as_mut().expect("handed in");
        if x.tags.len() <= slot as usize {
            x.tags.resize(slot as usize + 1, u32::MAX);
        }
        x.tags[slot as usize] = tag;
    }

    /// A host request of slot `slot` completed at `now`: its tag goes back.
    #[inline]
    pub(crate) fn external_done(&mut self, slot: u32, now: SimTime) {
        if let Some(x) = &mut self.external {
            x.done.push((x.tags[slot as usize], now));
        }
    }
}
