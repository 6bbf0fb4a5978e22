//! The flash interface: dies and channel buses executing operations with
//! their timing. It knows nothing of queues, mapping or GC policy: the layer
//! above picks an idle die and what it runs (`submit`, `start_gc`); the
//! interface says when each step ends, and hands the finished operation,
//! with its typed owner, back up (`complete`).
//!
//! ```text
//!  read:    sense (tR, + LDPC retries) ─▶ wait for the bus ─▶ transfer out ─▶ done
//!  program: wait for the bus ─▶ transfer in ─▶ tPROG ─▶ done
//!  GC:      the die is held until the GC's end (its moves and erases)
//! ```
//!
//! **Invariants:** a die runs one operation or one GC at a time; a channel's
//! bus carries one transfer at a time (transfers are reserved in order).

use crate::engine::SimTime;
use crate::flash::address::Divisor;
use crate::flash::op::{FlashOp, OpKind};
use crate::flash::timing::FlashTiming;

/// One die.
#[derive(Debug, Clone, Copy, Default)]
pub struct DieState {
    /// The operation in progress, if any.
    pub op: Option<FlashOp>,
    /// End of the GC in progress, if any (predicted = actual here).
    pub gc_until: Option<SimTime>,
    /// When the current operation or GC started.
    pub busy_since: SimTime,
    /// Pages moved by all GCs of this die so far.
    pub gc_moves: u64,
    /// Blocks erased by all GCs of this die so far.
    pub gc_erases: u64,
}

impl DieState {
    /// Whether the die can start something.
    #[inline]
    pub fn idle(&self) -> bool {
        self.op.is_none() && self.gc_until.is_none()
    }

    /// GC time still to run at `now` (0 when the die is not collecting).
    #[inline]
    pub fn gc_remaining(&self, now: SimTime) -> SimTime {
        self.gc_until.map_or(0, |end| end.saturating_sub(now))
    }
}

/// Dies and buses of the device.
#[derive(Debug, Clone)]
pub struct FlashInterface {
    /// Die states by global die index.
    pub(crate) dies: Vec<DieState>,
    /// Per channel, when its bus finishes its last reserved transfer.
    bus_free_at: Vec<SimTime>,
    /// Dies per channel: a die's channel is its index over this.
    dies_per_channel: Divisor,
    t: FlashTiming,
}

impl FlashInterface {
    /// `channels` idle channels of `dies_per_channel` idle dies.
    pub fn new(channels: u32, dies_per_channel: u32, t: FlashTiming) -> Self {
        FlashInterface {
            dies: vec![DieState::default(); (channels * dies_per_channel) as usize],
            bus_free_at: vec![0; channels as usize],
            dies_per_channel: Divisor::new(dies_per_channel),
            t,
        }
    }

    /// Die states by global die index.
    #[inline]
    pub fn dies(&self) -> &[DieState] {
        &self.dies
    }

    /// Whether `die` can start something.
    #[inline]
    pub fn idle(&self, die: u32) -> bool {
        self.dies[die as usize].idle()
    }

    /// Whether any die of channel `ch` can start something.
    #[inline]
    pub fn channel_has_idle_die(&self, ch: u32) -> bool {
        let n = self.dies_per_channel.get() as usize;
        self.dies[ch as usize * n..(ch as usize + 1) * n].iter().any(DieState::idle)
    }

    /// When channel `ch`'s bus is free of reserved transfers.
    #[inline]
    pub fn bus_free_at(&self, ch: u32) -> SimTime {
        self.bus_free_at[ch as usize]
    }

    /// Reserves channel `ch`'s bus for `ns` from its first free moment at or
    /// after `now`; returns when that transfer ends.
    #[inline]
    fn transfer(&mut self, ch: u32, now: SimTime, ns: SimTime) -> SimTime {
        let bus = &mut self.bus_free_at[ch as usize];
        let start = (*bus).max(now);
        *bus = start + ns;
        start + ns
    }

    /// Starts `op` (its page set) on idle `die` at `now`; `step_ns` is its
    /// array time. A read senses for `step_ns` and the returned time is when
    /// sensing ends ([`Self::sensed`] comes next); a program crosses the bus
    /// and programs for `step_ns` (its block's tPROG), and the returned time is
    /// when it is done ([`Self::complete`]).
    #[inline]
    pub fn submit(&mut self, die: u32, op: FlashOp, now: SimTime, step_ns: SimTime) -> SimTime {
        debug_assert!(self.idle(die), "die {die} is busy");
        let end = match op.origin().kind() {
            OpKind::Read => now + step_ns,
            OpKind::Program => self.transfer(self.dies_per_channel.quotient(die), now, self.t.xfer) + step_ns,
        };
        let d = &mut self.dies[die as usize];
        d.op = Some(op);
        d.busy_since = now;
        end
    }

    /// A read on `die` finished sensing at `now`: the page waits for the bus,
    /// then crosses it. Returns when the read is done.
    #[inline]
    pub fn sensed(&mut self, die: u32, now: SimTime) -> SimTime {
        self.transfer(self.dies_per_channel.quotient(die), now, self.t.xfer)
    }

    /// The die's operation ended: returns it and when the die became busy.
    #[inline]
    pub fn complete(&mut self, die: u32) -> Option<(FlashOp, SimTime)> {
        let d = &mut self.dies[die as usize];
        d.op.take().map(|op| (op, d.busy_since))
    }

    /// Holds idle `die` for a GC from `now` to `until` that moves `moved`
    /// pages and erases `erased` blocks.
    pub fn start_gc(&mut self, die: u32, now: SimTime, until: SimTime, moved: u32, erased: u32) {
        debug_assert!(self.idle(die), "die {die} is busy");
        let d = &mut self.dies[die as usize];
        d.gc_until = Some(until);
        d.busy_since = now;
        d.gc_moves += moved as u64;
        d.gc_erases += erased as u64;
    }

    /// The die's GC ended: the die is free; returns when it became busy.
    pub fn end_gc(&mut self, die: u32) -> SimTime {
        let d = &mut self.dies[die as usize];
        d.gc_until = None;
        d.busy_since
    }

    /// Channel `ch`'s bus carries `ns` of GC traffic from `now` (page moves
    /// without copyback cross it twice), delaying its other transfers.
    pub fn hold_bus(&mut self, ch: u32, now: SimTime, ns: SimTime) {
        let bus = &mut self.bus_free_at[ch as usize];
        *bus = (*bus).max(now) + ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::op::{tests_owner, Origin};

    fn timing() -> FlashTiming {
        FlashTiming { read: 50_000, program: 500_000, erase: 3_000_000, xfer: 10_000, command: 100 }
    }

    fn op(origin: Origin) -> FlashOp {
        FlashOp { chunk: 0, owner: tests_owner(origin), enqueued: 0, ppn: 0, seq: 0 }
    }

    #[test]
    fn reads_share_the_bus_and_programs_wait_for_it() {
        let mut f = FlashInterface::new(2, 2, timing());
        // Two reads on dies 0 and 1 of channel 0 sense in parallel, then
        // cross the bus one after the other.
        assert_eq!(f.submit(0, op(Origin::HostRead), 0, 50_000), 50_000);
        assert_eq!(f.submit(1, op(Origin::HostRead), 0, 50_000), 50_000);
        assert_eq!(f.sensed(0, 50_000), 60_000);
        assert_eq!(f.sensed(1, 50_000), 70_000);
        // A program on channel 1 is not delayed by channel 0's bus.
        assert_eq!(f.submit(2, op(Origin::HostProgram), 50_000, 500_000), 50_000 + 10_000 + 500_000);
        assert!(!f.idle(0) && !f.idle(2) && f.idle(3));
        let (done, since) = f.complete(0).unwrap();
        assert_eq!((done.origin(), since), (Origin::HostRead, 0));
        assert!(f.idle(0) && f.complete(0).is_none());
        // A program on channel 0 waits for the bus reserved until 70 µs.
        // Its block programs faster (process variation): 300 µs.
        assert_eq!(f.submit(0, op(Origin::ParityProgram), 55_000, 300_000), 70_000 + 10_000 + 300_000);
    }

    /// Dispatch skips a channel with no idle die: each channel's answer
    /// follows its own dies' operations and GCs only.
    #[test]
    fn a_channel_has_an_idle_die_until_all_of_its_dies_work() {
        let mut f = FlashInterface::new(2, 2, timing());
        let idle = |f: &FlashInterface| [f.channel_has_idle_die(0), f.channel_has_idle_die(1)];
        assert_eq!(idle(&f), [true, true]);
        f.submit(0, op(Origin::HostRead), 0, 50_000);
        f.start_gc(2, 0, 9_000, 1, 1);
        assert_eq!(idle(&f), [true, true]);
        f.submit(1, op(Origin::HostProgram), 0, 500_000);
        assert_eq!(idle(&f), [false, true]);
        f.submit(3, op(Origin::HostRead), 0, 50_000);
        assert_eq!(idle(&f), [false, false]);
        f.end_gc(2);
        assert_eq!(idle(&f), [false, true]);
        f.complete(1);
        assert_eq!(idle(&f), [true, true]);
    }

    #[test]
    fn gc_holds_the_die_and_its_bus_traffic_delays_transfers() {
        let mut f = FlashInterface::new(1, 2, timing());
        f.start_gc(0, 1_000, 9_000_000, 3, 1);
        assert!(!f.idle(0));
        assert_eq!(f.dies()[0].gc_remaining(4_000_000), 5_000_000);
        f.hold_bus(0, 1_000, 60_000);
        assert_eq!(f.bus_free_at(0), 61_000);
        assert_eq!(f.submit(1, op(Origin::HostProgram), 2_000, 500_000), 61_000 + 10_000 + 500_000);
        assert_eq!(f.end_gc(0), 1_000);
        assert!(f.idle(0));
        assert_eq!((f.dies()[0].gc_moves, f.dies()[0].gc_erases), (3, 1));
    }
}
