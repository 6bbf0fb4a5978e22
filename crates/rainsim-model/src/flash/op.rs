//! A flash operation as it waits in a channel queue and runs on a die.

use crate::engine::SimTime;

/// What a die does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// Array read then bus transfer out.
    Read,
    /// Bus transfer in then program.
    Program,
}

/// Why an operation exists (its origin, for accounting and routing completions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Origin {
    /// A host read of a data chunk.
    HostRead = 0,
    /// A host data chunk being programmed.
    HostProgram = 1,
    /// A pre-read for a parity update or page merge.
    PreRead = 2,
    /// A chunk read to rebuild another one (degraded read).
    DegradedRead = 3,
    /// A parity chunk being programmed.
    ParityProgram = 4,
}

impl Origin {
    /// Number of origins.
    pub const COUNT: usize = 5;
    /// Whether this origin is a read.
    pub fn kind(self) -> OpKind {
        match self {
            Origin::HostRead | Origin::PreRead | Origin::DegradedRead => OpKind::Read,
            Origin::HostProgram | Origin::ParityProgram => OpKind::Program,
        }
    }
}

/// One queued or running flash operation.
#[derive(Debug, Clone, Copy)]
pub struct FlashOp {
    /// Chunk read or written.
    pub chunk: u32,
    /// Host request (host reads) or stripe job (everything else).
    pub owner: u32,
    /// Why it exists.
    pub origin: Origin,
    /// When it entered its channel queue.
    pub enqueued: SimTime,
    /// Page it reads or programs (set at dispatch).
    pub ppn: u32,
    /// Enqueue order in its channel, for FIFO decisions across queues.
    pub seq: u32,
}
