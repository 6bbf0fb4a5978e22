//! Per-channel request schedulers: the order in which a channel's queued
//! flash operations reach its dies.
//!
//! Reads are bound to the die holding their page; programs are not bound to a
//! die until dispatch (dynamic allocation inside the channel), so they wait in
//! one channel-wide queue. A read joins its die's queue at a `ReadPlace`: the
//! tail, the head, or the background, where it waits for everything else.

pub mod chip_bound;
pub mod column_bound;
pub mod die_bound;
pub mod fifo;

use crate::flash::op::FlashOp;
use serde::{Deserialize, Serialize};

pub use crate::raid::layer::ReadPlace;

/// A channel's queues and their service order.
pub trait ChannelScheduler {
    /// Queues a read for channel-local die `die`.
    fn push_read(&mut self, die: u32, op: FlashOp);
    /// Queues a read at the head of `die`'s queue (re-routed, keeps its age).
    fn push_read_front(&mut self, die: u32, op: FlashOp);
    /// Queues a read for channel-local die `die` in the background
    /// ([`ReadPlace::Background`]); it counts among the die's reads.
    fn push_read_background(&mut self, die: u32, op: FlashOp);
    /// Queues a program for any die of the channel.
    fn push_write(&mut self, op: FlashOp);
    /// Queues a program that only channel-local die `die` may take (CR5M's
    /// mirror on another die of the channel).
    fn push_write_for(&mut self, die: u32, op: FlashOp);
    /// Next operation for idle channel-local die `die`, if any; programs only
    /// when `writes_ok` (the die has room for them).
    fn pop_for(&mut self, die: u32, writes_ok: bool) -> Option<FlashOp>;
    /// Reads waiting on the channel.
    fn reads_queued(&self) -> u32;
    /// Reads waiting for channel-local die `die`.
    fn reads_queued_for(&self, die: u32) -> u32;
    /// Programs waiting on the channel.
    fn writes_queued(&self) -> u32;
    /// Programs channel-local die `die` may take: all of the channel's
    /// unless programs are bound to dies.
    fn writes_queued_for(&self, die: u32) -> u32;
    /// The channel-local die a program of `chunk` is bound to (`None`: any
    /// die of the channel takes it).
    fn bound_die(&self, _chunk: u32) -> Option<u32> {
        None
    }
}

/// Scheduler implementations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SchedulerKind {
    /// First come first served per channel (NOOP), reads first when
    /// `policy.read_priority` is on.
    #[default]
    Fifo,
}

impl SchedulerKind {
    /// Builds one channel's (or, under a die-bound scheduler, one die's) scheduler.
    pub fn build(self, dies_per_channel: u32, read_priority: bool) -> Sched {
        match self {
            SchedulerKind::Fifo => Sched::Fifo(fifo::Fifo::new(dies_per_channel, read_priority)),
        }
    }
}

/// A scheduler as a device (or a die-bound scheduler) holds it: the FIFO one inline,
/// so that dispatch's many small queries (queue lengths, several per flash
/// operation) compile to loads instead of calls through a vtable; any
/// other scheduler behind the trait.
pub enum Sched {
    /// [`fifo::Fifo`], held inline.
    Fifo(fifo::Fifo),
    /// Any scheduler.
    Dyn(Box<dyn ChannelScheduler>),
}

/// `self.$m(args)` on whichever scheduler `self` holds.
macro_rules! delegate {
    ($self:ident.$m:ident($($a:expr),*)) => {
        match $self {
            Sched::Fifo(s) => s.$m($($a),*),
            Sched::Dyn(s) => s.$m($($a),*),
        }
    };
}

impl ChannelScheduler for Sched {
    #[inline]
    fn push_read(&mut self, die: u32, op: FlashOp) {
        delegate!(self.push_read(die, op))
    }
    #[inline]
    fn push_read_front(&mut self, die: u32, op: FlashOp) {
        delegate!(self.push_read_front(die, op))
    }
    fn push_read_background(&mut self, die: u32, op: FlashOp) {
        delegate!(self.push_read_background(die, op))
    }
    #[inline]
    fn push_write(&mut self, op: FlashOp) {
        delegate!(self.push_write(op))
    }
    #[inline]
    fn push_write_for(&mut self, die: u32, op: FlashOp) {
        delegate!(self.push_write_for(die, op))
    }
    #[inline]
    fn pop_for(&mut self, die: u32, writes_ok: bool) -> Option<FlashOp> {
        delegate!(self.pop_for(die, writes_ok))
    }
    #[inline]
    fn reads_queued(&self) -> u32 {
        delegate!(self.reads_queued())
    }
    #[inline]
    fn reads_queued_for(&self, die: u32) -> u32 {
        delegate!(self.reads_queued_for(die))
    }
    #[inline]
    fn writes_queued(&self) -> u32 {
        delegate!(self.writes_queued())
    }
    #[inline]
    fn writes_queued_for(&self, die: u32) -> u32 {
        delegate!(self.writes_queued_for(die))
    }
    #[inline]
    fn bound_die(&self, chunk: u32) -> Option<u32> {
        delegate!(self.bound_die(chunk))
    }
}

impl Sched {
    /// Whether a read pushed now for channel-local die `die` would be the
    /// next operation `pop_for` gives that die, whatever it may take (see
    /// [`fifo::Fifo::read_goes_first`]). A boxed scheduler says no: its
    /// reads are queued and popped as usual.
    #[inline]
    pub fn read_goes_first(&self, die: u32) -> bool {
        match self {
            Sched::Fifo(s) => s.read_goes_first(die),
            Sched::Dyn(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::op::{tests_owner, Origin};
    use rand::{RngExt, SeedableRng};

    /// What dispatch relies on to pass a die by (`Ssd::may_take`): a die
    /// with no read and no program it may take gets nothing from `pop_for`;
    /// and the counts a die-bound scheduler keeps are its dies' sums. Random
    /// pushes and pops on the channel FIFO (with bound programs) and on a
    /// die-bound one.
    #[test]
    fn a_die_with_nothing_it_may_take_gets_nothing() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(8);
        let dies = 4;
        for case in 0..200 {
            let mut s: Box<dyn ChannelScheduler> = if case % 2 == 0 {
                Box::new(SchedulerKind::Fifo.build(dies, rng.random_bool(0.5)))
            } else {
                let per_die = (0..dies).map(|_| SchedulerKind::Fifo.build(1, true)).collect();
                Box::new(chip_bound::chip_bound(per_die, 3))
            };
            let (mut pushed, mut popped) = (0u32, 0u32);
            for seq in 0..300 {
                let die = rng.random_range(0..dies);
                let origin = if rng.random_bool(0.5) { Origin::HostRead } else { Origin::HostProgram };
                let op =
                    FlashOp { chunk: rng.random_range(0..64), owner: tests_owner(origin), enqueued: 0, ppn: 0, seq };
                match rng.random_range(0..7) {
                    0 => s.push_read(die, op),
                    1 => s.push_read_front(die, op),
                    2 => s.push_write(op),
                    3 => s.push_write_for(die, op),
                    4 => s.push_read_background(die, op),
                    _ => {
                        let ok = rng.random_bool(0.8);
                        let has = s.reads_queued_for(die) > 0 || (ok && s.writes_queued_for(die) > 0);
                        let got = s.pop_for(die, ok);
                        assert!(has || got.is_none(), "case {case}: die {die} took {got:?} with nothing of its own");
                        popped += u32::from(got.is_some());
                        continue;
                    }
                }
                pushed += 1;
            }
            let sums = (0..dies).map(|d| s.reads_queued_for(d)).sum::<u32>();
            assert_eq!(s.reads_queued(), sums, "case {case}");
            assert_eq!(s.reads_queued() + s.writes_queued(), pushed - popped, "case {case}");
        }
    }

    /// What dispatch relies on to start a read without queueing it
    /// (`Ssd::enqueue_read_at`): when `read_goes_first` says so, a read
    /// pushed now is what `pop_for` gives the die next, whether or not the
    /// die may take programs. Random queues with and without read
    /// priority, bound programs, background reads and reads at the head.
    #[test]
    fn a_read_that_goes_first_is_popped_first() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
        let dies = 3;
        let mut checked = 0;
        for case in 0..300 {
            let mut s = SchedulerKind::Fifo.build(dies, case % 2 == 0);
            for seq in 0..200u32 {
                let die = rng.random_range(0..dies);
                let origin = if rng.random_bool(0.5) { Origin::HostRead } else { Origin::HostProgram };
                let op = FlashOp { chunk: seq, owner: tests_owner(origin), enqueued: 0, ppn: 0, seq };
                match rng.random_range(0..8) {
                    0 => s.push_read(die, op),
                    1 => s.push_read_front(die, op),
                    2 | 3 => s.push_write(op),
                    4 => s.push_write_for(die, op),
                    5 => s.push_read_background(die, op),
                    6 if s.read_goes_first(die) => {
                        let read = FlashOp { owner: tests_owner(Origin::HostRead), ..op };
                        s.push_read(die, read);
                        let got = s.pop_for(die, rng.random_bool(0.7)).map(|o| o.seq);
                        assert_eq!(got, Some(seq), "case {case}: the read should have gone first");
                        checked += 1;
                    }
                    _ => {
                        s.pop_for(die, rng.random_bool(0.8));
                    }
                }
            }
        }
        assert!(checked > 500, "too few cases where a read goes first: {checked}");
    }
}
