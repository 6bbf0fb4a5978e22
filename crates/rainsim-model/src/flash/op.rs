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
    /// Replication's own program: a replicated chunk's second copy, or a
    /// conversion's rewrite of a chunk with no copy on its slot's channel.
    ReplicaProgram = 5,
}

impl Origin {
    /// Number of origins.
    pub const COUNT: usize = 6;
    /// Whether this origin is a read.
    pub fn kind(self) -> OpKind {
        match self {
            Origin::HostRead | Origin::PreRead | Origin::DegradedRead => OpKind::Read,
            Origin::HostProgram | Origin::ParityProgram | Origin::ReplicaProgram => OpKind::Program,
        }
    }
}

/// Who an operation works for, which says where its completion goes: a host
/// request (a plain read), a stripe job (its pre-reads and programs) or a
/// degraded read (its partner reads). Each carries that owner's id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A host read of one page, for host request `id`.
    HostRead(u32),
    /// A host read of a replicated chunk, for host request `id`, from copy
    /// A — resolved when it starts, since the chunk may have returned into
    /// its stripe meanwhile. (Two variants rather than a copy index beside
    /// the id: with every payload one `u32`, an owner moves as one word.)
    ReplicaReadA(u32),
    /// [`Owner::ReplicaReadA`] from copy B.
    ReplicaReadB(u32),
    /// A pre-read of stripe job `id`.
    PreRead(u32),
    /// A partner read of degraded read `id`.
    DegradedRead(u32),
    /// A data program of stripe job `id`.
    HostProgram(u32),
    /// The parity program of stripe job `id`.
    ParityProgram(u32),
    /// A program of replica job `id` beyond the host's page (its copy B),
    /// or a data rewrite of conversion job `id`: completes as
    /// [`Owner::HostProgram`] does, counted apart (write amplification).
    ReplicaProgram(u32),
    /// A page program of host request `id` with no stripe job around it:
    /// an array's chunk write to a member without RAID inside
    /// (`ssd/direct.rs`).
    PageProgram(u32),
    /// The read of a one-page request an array handed in with tag `tag`
    /// (no host slot; `ssd/direct.rs`).
    MemberRead(u32),
    /// The program of a one-page request an array handed in with tag `tag`.
    MemberProgram(u32),
}

impl Owner {
    /// The accounting class of the operation.
    #[inline]
    pub fn origin(self) -> Origin {
        match self {
            Owner::HostRead(_) | Owner::ReplicaReadA(_) | Owner::ReplicaReadB(_) | Owner::MemberRead(_) => {
                Origin::HostRead
            }
            Owner::PreRead(_) => Origin::PreRead,
            Owner::DegradedRead(_) => Origin::DegradedRead,
            Owner::HostProgram(_) | Owner::PageProgram(_) | Owner::MemberProgram(_) => Origin::HostProgram,
            Owner::ParityProgram(_) => Origin::ParityProgram,
            Owner::ReplicaProgram(_) => Origin::ReplicaProgram,
        }
    }
}

/// One queued or running flash operation.
#[derive(Debug, Clone, Copy)]
pub struct FlashOp {
    /// Chunk read or written.
    pub chunk: u32,
    /// Who it works for.
    pub owner: Owner,
    /// When it entered its channel queue.
    pub enqueued: SimTime,
    /// Page it reads or programs (set at dispatch).
    pub ppn: u32,
    /// Enqueue order in its channel, for FIFO decisions across queues.
    pub seq: u32,
}

impl FlashOp {
    /// Why it exists (its accounting class).
    #[inline]
    pub fn origin(&self) -> Origin {
        self.owner.origin()
    }
}

/// An owner of class `origin` with id 0 (hand-built queues in tests).
#[doc(hidden)]
pub fn tests_owner(origin: Origin) -> Owner {
    match origin {
        Origin::HostRead => Owner::HostRead(0),
        Origin::PreRead => Owner::PreRead(0),
        Origin::DegradedRead => Owner::DegradedRead(0),
        Origin::HostProgram => Owner::HostProgram(0),
        Origin::ParityProgram => Owner::ParityProgram(0),
        Origin::ReplicaProgram => Owner::ReplicaProgram(0),
    }
}
