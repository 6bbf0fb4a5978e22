//! Per-die scheduling: each channel-local die gets its own scheduler of the
//! configured kind, holding its reads and the programs bound to it; service
//! order inside a die is the inner scheduler's. What binds a program to a die
//! is the one difference between its users: its stripe's die column under
//! rotating GC (`column_bound.rs`), its chunk's Eq. 1 die under static
//! channel-first allocation (`chip_bound.rs`).

use super::{ChannelScheduler, Sched};
use crate::flash::op::FlashOp;
use crate::raid::stripe::StripeLayout;

/// What binds a program to a channel-local die.
pub enum Binding {
    /// The die column its stripe is bound to (the layout has columns bound).
    Column(StripeLayout),
    /// Chunk c goes to die ⌊c / channels⌋ mod dies per channel.
    Chip {
        /// Channels of the device.
        channels: u32,
    },
}

/// One inner scheduler per channel-local die.
pub struct DieBound {
    per_die: Vec<Sched>,
    binding: Binding,
    /// Reads and programs queued over all dies: the channel's counts, asked
    /// on every dispatch, kept rather than summed.
    reads: u32,
    writes: u32,
}

impl DieBound {
    /// `per_die[d]` serves channel-local die `d`.
    pub fn new(per_die: Vec<Sched>, binding: Binding) -> DieBound {
        if let Binding::Column(l) = &binding {
            debug_assert!(l.column(0).is_some());
        }
        let reads = per_die.iter().map(|s| s.reads_queued()).sum();
        let writes = per_die.iter().map(|s| s.writes_queued()).sum();
        DieBound { per_die, binding, reads, writes }
    }

    /// The channel-local die a program of `chunk` is bound to.
    #[inline]
    pub fn die_of(&self, chunk: u32) -> usize {
        match &self.binding {
            Binding::Column(l) => l.column(chunk / l.width).unwrap_or(0) as usize,
            Binding::Chip { channels } => ((chunk / channels.max(&1)) as usize) % self.per_die.len(),
        }
    }
}

impl ChannelScheduler for DieBound {
    fn push_read(&mut self, die: u32, op: FlashOp) {
        self.reads += 1;
        self.per_die[die as usize].push_read(0, op);
    }
    fn push_read_front(&mut self, die: u32, op: FlashOp) {
        self.reads += 1;
        self.per_die[die as usize].push_read_front(0, op);
    }
    fn push_read_background(&mut self, die: u32, op: FlashOp) {
        self.reads += 1;
        self.per_die[die as usize].push_read_background(0, op);
    }
    fn push_write(&mut self, op: FlashOp) {
        let d = self.die_of(op.chunk);
        self.writes += 1;
        self.per_die[d].push_write(op);
    }
    fn push_write_for(&mut self, die: u32, op: FlashOp) {
        self.writes += 1;
        self.per_die[die as usize].push_write(op);
    }
    fn pop_for(&mut self, die: u32, writes_ok: bool) -> Option<FlashOp> {
        let s = &mut self.per_die[die as usize];
        let (r, w) = (s.reads_queued(), s.writes_queued());
        let op = s.pop_for(0, writes_ok);
        (self.reads, self.writes) = (self.reads - (r - s.reads_queued()), self.writes - (w - s.writes_queued()));
        op
    }
    fn reads_queued(&self) -> u32 {
        debug_assert_eq!(self.reads, self.per_die.iter().map(|s| s.reads_queued()).sum::<u32>());
        self.reads
    }
    fn reads_queued_for(&self, die: u32) -> u32 {
        self.per_die[die as usize].reads_queued_for(0)
    }
    fn writes_queued(&self) -> u32 {
        debug_assert_eq!(self.writes, self.per_die.iter().map(|s| s.writes_queued()).sum::<u32>());
        self.writes
    }
    fn bound_die(&self, chunk: u32) -> Option<u32> {
        Some(self.die_of(chunk) as u32)
    }
    fn writes_queued_for(&self, die: u32) -> u32 {
        self.per_die[die as usize].writes_queued()
    }
}
