//! FIFO (NOOP) channel scheduler. With read priority (the default, as in
//! SSDsim) an idle die takes its oldest read before any program; without it,
//! the older of its oldest read and the channel's oldest program. Background
//! reads (a rebuild at background priority) come after both.

use super::ChannelScheduler;
use crate::flash::op::FlashOp;
use std::collections::VecDeque;

/// Per-die read queues, one channel write queue, per-die queues of
/// programs bound to a die (empty unless a scheme binds them) and of
/// background reads (empty unless a rebuild runs at background priority).
pub struct Fifo {
    reads: Vec<VecDeque<FlashOp>>,
    writes: VecDeque<FlashOp>,
    bound: Vec<VecDeque<FlashOp>>,
    background: Vec<VecDeque<FlashOp>>,
    bound_count: u32,
    background_count: u32,
    /// Reads queued on the channel, background ones included.
    read_count: u32,
    read_priority: bool,
}

impl Fifo {
    /// Empty queues for `dies` dies.
    pub fn new(dies: u32, read_priority: bool) -> Fifo {
        Fifo {
            reads: (0..dies).map(|_| VecDeque::new()).collect(),
            writes: VecDeque::new(),
            bound: (0..dies).map(|_| VecDeque::new()).collect(),
            background: (0..dies).map(|_| VecDeque::new()).collect(),
            bound_count: 0,
            background_count: 0,
            read_count: 0,
            read_priority,
        }
    }
}

/// Whether sequence number `a` was given before `b` (they wrap: compare by distance).
#[inline]
fn older(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

impl ChannelScheduler for Fifo {
    #[inline]
    fn push_read(&mut self, die: u32, op: FlashOp) {
        self.read_count += 1;
        self.reads[die as usize].push_back(op);
    }
    fn push_read_front(&mut self, die: u32, mut op: FlashOp) {
        // At the head it must also count as the oldest, or without read
        // priority it would still wait for every older program, the
        // channel's and those bound to this die.
        let q = &mut self.reads[die as usize];
        let bound = self.bound[die as usize].front();
        for front in [q.front(), self.writes.front(), bound].into_iter().flatten() {
            if !older(op.seq, front.seq) {
                op.seq = front.seq.wrapping_sub(1);
            }
        }
        self.read_count += 1;
        q.push_front(op);
    }
    fn push_read_background(&mut self, die: u32, op: FlashOp) {
        self.read_count += 1;
        self.background_count += 1;
        self.background[die as usize].push_back(op);
    }
    #[inline]
    fn push_write(&mut self, op: FlashOp) {
        self.writes.push_back(op);
    }
    fn push_write_for(&mut self, die: u32, op: FlashOp) {
        self.bound_count += 1;
        self.bound[die as usize].push_back(op);
    }
    #[inline(always)]
    fn pop_for(&mut self, die: u32, writes_ok: bool) -> Option<FlashOp> {
        if self.bound_count > 0 && writes_ok {
            if let Some(op) = self.pop_bound(die) {
                return Some(op);
            }
        }
        let q = &mut self.reads[die as usize];
        let write = if writes_ok { self.writes.front() } else { None };
        let take_read = match (q.front(), write) {
            (None, None) if self.background_count > 0 => return self.pop_background(die),
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(r), Some(w)) => self.read_priority || older(r.seq, w.seq),
        };
        if take_read {
            self.read_count -= 1;
            q.pop_front()
        } else {
            self.writes.pop_front()
        }
    }
    #[inline]
    fn reads_queued(&self) -> u32 {
        self.read_count
    }
    #[inline]
    fn reads_queued_for(&self, die: u32) -> u32 {
        let n = self.reads[die as usize].len() as u32;
        if self.background_count == 0 {
            n
        } else {
            n + self.background[die as usize].len() as u32
        }
    }
    #[inline]
    fn writes_queued(&self) -> u32 {
        self.writes.len() as u32 + self.bound_count
    }
    fn writes_queued_for(&self, die: u32) -> u32 {
        self.writes.len() as u32 + self.bound[die as usize].len() as u32
    }
}

impl Fifo {
    /// Whether a read pushed now for `die` is what [`ChannelScheduler::pop_for`]
    /// gives it next: no read of its own waits, and with read priority a
    /// die's oldest read goes before every program (bound ones too:
    /// `pop_bound` yields to it); without it, only when no program waits,
    /// since every queued one is older than a new read.
    #[inline]
    pub fn read_goes_first(&self, die: u32) -> bool {
        self.reads[die as usize].is_empty() && (self.read_priority || self.writes_queued() == 0)
    }

    /// A program bound to `die`, when it is older than the die's oldest read
    /// and the channel's oldest program (or reads wait behind programs
    /// anyway): bound programs keep their place in the FIFO order.
    #[inline(never)]
    fn pop_bound(&mut self, die: u32) -> Option<FlashOp> {
        let b = self.bound[die as usize].front()?;
        let read_first = self.reads[die as usize].front().is_some_and(|r| self.read_priority || older(r.seq, b.seq));
        let write_first = self.writes.front().is_some_and(|w| older(w.seq, b.seq));
        if read_first || write_first {
            return None;
        }
        self.bound_count -= 1;
        self.bound[die as usize].pop_front()
    }

    /// The die's oldest background read (nothing else waits for the die).
    #[cold]
    #[inline(never)]
    fn pop_background(&mut self, die: u32) -> Option<FlashOp> {
        let op = self.background[die as usize].pop_front()?;
        self.background_count -= 1;
        self.read_count -= 1;
        Some(op)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::op::Origin;

    fn op(seq: u32, origin: Origin) -> FlashOp {
        FlashOp { chunk: seq, owner: crate::flash::op::tests_owner(origin), enqueued: 0, ppn: 0, seq }
    }

    #[test]
    fn read_priority_and_plain_fifo() {
        for (prio, expect) in [(true, vec![2, 3, 1]), (false, vec![1, 2, 3])] {
            let mut f = Fifo::new(2, prio);
            f.push_write(op(1, Origin::HostProgram));
            f.push_read(0, op(2, Origin::HostRead));
            f.push_read(0, op(3, Origin::PreRead));
            let got: Vec<u32> = std::iter::from_fn(|| f.pop_for(0, true)).map(|o| o.seq).collect();
            assert_eq!(got, expect, "read_priority = {prio}");
        }
        // A read for die 1 is never served to die 0.
        let mut f = Fifo::new(2, true);
        f.push_read(1, op(7, Origin::HostRead));
        assert!(f.pop_for(0, true).is_none());
        f.push_write(op(8, Origin::HostProgram));
        assert!(f.pop_for(0, false).is_none(), "a full die takes no program");
        assert_eq!(f.reads_queued_for(1), 1);
    }

    /// A read pushed to the head goes first even without read priority, and
    /// ahead of older reads; the counts follow.
    #[test]
    fn a_head_read_counts_as_the_oldest() {
        let mut f = Fifo::new(1, false);
        f.push_write(op(10, Origin::HostProgram));
        f.push_read(0, op(11, Origin::HostRead));
        f.push_read_front(0, op(12, Origin::DegradedRead));
        f.push_write(op(13, Origin::HostProgram));
        assert_eq!(f.reads_queued(), 2);
        let got: Vec<u32> = std::iter::from_fn(|| f.pop_for(0, true)).map(|o| o.chunk).collect();
        assert_eq!(got, vec![12, 10, 11, 13]);
        assert_eq!(f.reads_queued(), 0);
        // Across the wrap of the sequence numbers too.
        let mut f = Fifo::new(1, false);
        f.push_write(op(u32::MAX, Origin::HostProgram));
        f.push_read_front(0, op(3, Origin::DegradedRead));
        assert_eq!(f.pop_for(0, true).map(|o| o.chunk), Some(3));
        // Ahead of a program bound to the die too (CR5M's mirror), even
        // when its sequence number is just below the read's front.
        let mut f = Fifo::new(1, false);
        f.push_write_for(0, op(20, Origin::HostProgram));
        f.push_read(0, op(21, Origin::HostRead));
        f.push_read_front(0, op(22, Origin::DegradedRead));
        let got: Vec<u32> = std::iter::from_fn(|| f.pop_for(0, true)).map(|o| o.chunk).collect();
        assert_eq!(got, vec![22, 20, 21]);
    }

    /// A background read waits for every other read of its die and every
    /// program the die may take, older or not, with or without read
    /// priority; a die that takes no programs serves it past them.
    #[test]
    fn a_background_read_goes_last() {
        for prio in [true, false] {
            let mut f = Fifo::new(2, prio);
            f.push_read_background(0, op(1, Origin::PreRead));
            f.push_write(op(2, Origin::HostProgram));
            f.push_read(0, op(3, Origin::HostRead));
            f.push_read(1, op(4, Origin::HostRead));
            assert_eq!((f.reads_queued(), f.reads_queued_for(0), f.reads_queued_for(1)), (3, 2, 1));
            let got: Vec<u32> = std::iter::from_fn(|| f.pop_for(0, true)).map(|o| o.seq).collect();
            let expect = if prio { vec![3, 2, 1] } else { vec![2, 3, 1] };
            assert_eq!(got, expect, "read_priority = {prio}");
            assert_eq!((f.reads_queued(), f.reads_queued_for(0)), (1, 0));
            // The count that spares the common path a look at the
            // background queues is theirs: none left.
            assert_eq!((f.background_count, f.pop_for(1, true).map(|o| o.seq)), (0, Some(4)));
        }
        let mut f = Fifo::new(1, true);
        f.push_write(op(5, Origin::HostProgram));
        f.push_read_background(0, op(6, Origin::PreRead));
        assert_eq!(f.pop_for(0, false).map(|o| o.seq), Some(6), "a full die takes it past the program");
        assert_eq!((f.reads_queued(), f.writes_queued()), (0, 1));
    }
}
