//! The host interface: requests arrive from the trace, take one of the
//! device's request slots (`host.queue_depth`; 0 = unlimited) or wait, and a
//! [`HostScheduler`] decides which waiting request takes a slot that frees.
//!
//! ```text
//!  trace ─▶ arrive ─▶ slot free? ──yes──▶ device (controller overhead, split into stripe work)
//!                        └─no─▶ HostScheduler::hold … slot freed ─▶ HostScheduler::next
//! ```
//!
//! Latency counts from the trace time, so time spent waiting for a slot is
//! part of it. Requests here are the host's; the RAID layer below never sees
//! a held one.

pub mod batches;
pub mod chips;
pub mod fifo;
pub mod noop;
pub mod params;
pub mod piq;
pub mod vios;

use crate::device_state::DeviceView;
use crate::engine::SimTime;
use crate::slab::Slab;
use chips::{ChipMap, ChipSet, ChipState, ConflictCounts};
use rainsim_trace::{Op, Request};
use serde::{Deserialize, Serialize};

/// A host request in flight or waiting for a slot.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostReq {
    /// Trace time: latency counts from here.
    pub arrival: SimTime,
    /// Byte offset.
    pub offset: u64,
    /// Bytes.
    pub size: u32,
    /// A write (else a read).
    pub write: bool,
    /// Outstanding page reads and stripe jobs.
    pub pending: u32,
}

/// A request waiting at the host interface, as a scheduler sees it.
#[derive(Debug, Clone, Copy)]
pub struct HeldRequest {
    /// Its id at the host interface.
    pub id: u32,
    /// The request.
    pub req: HostReq,
    /// Its chips A_r (Eq. 1), when the host tracks chips (else empty).
    pub chips: ChipSet,
    /// The channels of those chips.
    pub channels: ChipSet,
}

/// Host request scheduler axis (DESIGN.md §7): which waiting request enters
/// the device when a request slot frees.
pub trait HostScheduler {
    /// `r` waits for a slot.
    fn hold(&mut self, r: HeldRequest);
    /// The request that takes the slot just freed (`None` when none waits).
    fn next(&mut self, view: &DeviceView) -> Option<HeldRequest>;
    /// Requests waiting.
    fn waiting(&self) -> usize;
    /// Whether it orders by the requests' chips (the host then fills in
    /// [`HeldRequest::chips`] and keeps the chip-state vector).
    fn wants_chips(&self) -> bool {
        false
    }
}

/// Host scheduler implementations (`policy.host_scheduler`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum HostSchedulerKind {
    /// Arrival order.
    #[default]
    Fifo,
    /// NOOP: arrival order (the same as `fifo`, under the paper's name).
    Noop,
    /// PIQ: chip-conflict-free batches, reads first (`piq.rs`).
    Piq,
    /// VIOS: hierarchical chip/channel batches, reads first (`vios.rs`).
    Vios,
}

impl HostSchedulerKind {
    /// The scheduler object.
    pub fn build(self) -> Box<dyn HostScheduler> {
        match self {
            HostSchedulerKind::Fifo => Box::new(fifo::Fifo::default()),
            HostSchedulerKind::Noop => Box::new(noop::Noop::default()),
            HostSchedulerKind::Piq => Box::new(piq::Piq::default()),
            HostSchedulerKind::Vios => Box::new(vios::Vios::default()),
        }
    }
}

/// Request slots and the requests waiting for them.
pub struct HostInterface {
    reqs: Slab<HostReq>,
    queue_depth: u32,
    outstanding: u32,
    sched: Box<dyn HostScheduler>,
    /// Chip sets, NR and conflicts; `None` unless a scheduler, the
    /// allocator or the report needs them.
    chips: Option<Box<ChipState>>,
}

impl HostInterface {
    /// `queue_depth` slots (0: unlimited), waiting requests ordered by `sched`.
    pub fn new(queue_depth: u32, sched: Box<dyn HostScheduler>) -> Self {
        HostInterface { reqs: Slab::default(), queue_depth, outstanding: 0, sched, chips: None }
    }

    /// Tracks chips on `map` (A_r, NR, conflicts) when `wanted` or when the
    /// scheduler orders by chips.
    pub fn with_chips(mut self, map: ChipMap, wanted: bool) -> Self {
        if wanted || self.sched.wants_chips() {
            self.chips = Some(Box::new(ChipState::new(map)));
        }
        self
    }

    /// NR (Eq. 2) by global die index: requests waiting for each chip (empty
    /// when chips are not tracked).
    #[inline]
    pub fn nr(&self) -> &[u32] {
        self.chips.as_ref().map_or(&[], |c| c.nr())
    }

    /// Table 1's conflict counts, when chips are tracked.
    pub fn conflicts(&self) -> Option<ConflictCounts> {
        self.chips.as_ref().map(|c| c.conflicts)
    }

    /// Registers an arriving request: its id, and whether it took a slot
    /// (otherwise it waits with the scheduler).
    #[inline]
    pub fn arrive(&mut self, r: &Request) -> (u32, bool) {
        let req = HostReq { arrival: r.time_ns, offset: r.offset, size: r.size, write: r.op == Op::Write, pending: 0 };
        let id = self.reqs.insert(req);
        let held = self.queue_depth > 0 && self.outstanding >= self.queue_depth;
        if let Some(c) = &mut self.chips {
            c.arrive(req.offset, req.size, req.write, held);
        }
        if held {
            let (chips, channels) = match &self.chips {
                Some(c) => c.map.sets(req.offset, req.size),
                None => (ChipSet::EMPTY, ChipSet::EMPTY),
            };
            self.sched.hold(HeldRequest { id, req, chips, channels });
            (id, false)
        } else {
            self.outstanding += 1;
            (id, true)
        }
    }

    /// Request `id`.
    #[inline]
    pub fn req(&self, id: u32) -> &HostReq {
        &self.reqs[id]
    }

    /// Request `id`, to count its outstanding work.
    #[inline]
    pub fn req_mut(&mut self, id: u32) -> &mut HostReq {
        &mut self.reqs[id]
    }

    /// Request `id` is done: it leaves and frees its slot.
    #[inline]
    pub fn complete(&mut self, id: u32) -> HostReq {
        let r = self.reqs[id];
        self.reqs.remove(id);
        self.outstanding -= 1;
        if let Some(c) = &mut self.chips {
            c.complete(r.offset, r.size);
        }
        r
    }

    /// The waiting request that takes the slot just freed, if any.
    #[inline]
    pub fn next_waiting(&mut self, view: &DeviceView) -> Option<u32> {
        if self.sched.waiting() == 0 {
            return None;
        }
        let h = self.sched.next(view)?;
        self.outstanding += 1;
        if let Some(c) = &mut self.chips {
            c.issue(h.req.offset, h.req.size);
        }
        Some(h.id)
    }

    /// Request slots (0: unlimited).
    pub fn queue_depth(&self) -> u32 {
        self.queue_depth
    }

    /// Requests holding a slot.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// Requests waiting for a slot.
    pub fn waiting(&self) -> usize {
        self.sched.waiting()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Bench;

    /// Two slots: two arrivals take them, a third waits; when one completes
    /// the waiting one takes its slot, and the interface empties in order.
    #[test]
    fn slots_hold_the_queue_depth_and_a_freed_slot_goes_to_the_waiting() {
        let bench = Bench::new(2, 1);
        let view = bench.view();
        let mut h = HostInterface::new(2, HostSchedulerKind::Fifo.build());
        assert_eq!(h.queue_depth(), 2);
        let r = |t| Request { time_ns: t, offset: t * 4096, size: 4096, device: 0, op: Op::Read };
        let (a, b, c) = (h.arrive(&r(0)), h.arrive(&r(1)), h.arrive(&r(2)));
        assert_eq!((a.1, b.1, c.1), (true, true, false));
        assert_eq!((h.outstanding(), h.waiting()), (2, 1));
        assert_eq!(h.req(c.0).arrival, 2);
        assert_eq!(h.complete(a.0).arrival, 0);
        assert_eq!((h.outstanding(), h.waiting()), (1, 1));
        assert_eq!(h.next_waiting(&view), Some(c.0));
        assert_eq!((h.outstanding(), h.waiting()), (2, 0));
        assert_eq!(h.next_waiting(&view), None);
        h.complete(b.0);
        h.complete(c.0);
        assert_eq!((h.outstanding(), h.waiting()), (0, 0));
    }

    /// PIQ behind one slot on 2 channels of 2 chips (chip μ = lpn mod 4 on
    /// die 2·(μ mod 2) + ⌊μ/2⌋): reads pass the write that waited first; NR
    /// counts each waiting request on its chip's die until it is issued; a
    /// write to the busy chip is Table 1's one conflict.
    #[test]
    fn piq_issues_reads_first_and_tracks_nr_and_conflicts() {
        let bench = Bench::new(2, 2);
        let view = bench.view();
        let pb = bench.layout.page_bytes as u64;
        let mut h =
            HostInterface::new(1, HostSchedulerKind::Piq.build()).with_chips(ChipMap::new(&bench.layout), false);
        let r = |t, lpn: u64, op| Request { time_ns: t, offset: lpn * pb, size: 4096, device: 0, op };
        let a = h.arrive(&r(0, 0, Op::Write)).0; // die 0, takes the slot
        let b = h.arrive(&r(1, 0, Op::Write)).0; // die 0: waits, conflicts with a
        let c = h.arrive(&r(2, 1, Op::Read)).0; // die 2
        let d = h.arrive(&r(3, 2, Op::Read)).0; // die 1
        assert_eq!(h.nr(), [1, 1, 1, 0]);
        assert_eq!(h.waiting(), 3);
        let k = h.conflicts().expect("PIQ tracks chips");
        assert_eq!((k.reads, k.writes, k.read_conflicts, k.write_conflicts), (2, 2, 0, 1));
        let mut order = Vec::new();
        let mut done = a;
        for _ in 0..3 {
            h.complete(done);
            done = h.next_waiting(&view).expect("a request waits");
            order.push(done);
        }
        assert_eq!(order, [c, d, b]);
        assert_eq!(h.nr(), [0; 4]);
        h.complete(done);
        assert_eq!((h.next_waiting(&view), h.outstanding(), h.waiting()), (None, 0, 0));
    }

    /// FIFO keeps no chip state unless the report or the allocator asks.
    #[test]
    fn fifo_tracks_chips_only_when_asked() {
        let bench = Bench::new(2, 2);
        let map = || ChipMap::new(&bench.layout);
        let h = HostInterface::new(1, HostSchedulerKind::Fifo.build()).with_chips(map(), false);
        assert!(h.nr().is_empty() && h.conflicts().is_none());
        let h = HostInterface::new(1, HostSchedulerKind::Fifo.build()).with_chips(map(), true);
        assert_eq!((h.nr().len(), h.conflicts()), (4, Some(ConflictCounts::default())));
    }
}
