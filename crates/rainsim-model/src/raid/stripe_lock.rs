//! The stripe lock: one write job, or any number of degraded reads, holds a
//! stripe; later write jobs wait in a FIFO threaded through the jobs.

/// Marker for "no job".
pub const NO_JOB: u32 = u32::MAX;

/// Who holds a stripe: one write job, or degraded reads; and who waits.
#[derive(Debug, Clone, Copy)]
pub struct StripeLock {
    /// A write job is running.
    pub writing: bool,
    /// Degraded reads in flight.
    pub readers: u32,
    /// First waiting write job (`NO_JOB` when none wait).
    pub head: u32,
    /// Last waiting write job.
    pub tail: u32,
    /// First reconstruct read waiting for the writer (`NO_JOB`: none).
    pub rhead: u32,
    /// Last waiting reconstruct read.
    pub rtail: u32,
}

impl StripeLock {
    /// Nobody holds it, nobody waits.
    pub fn free() -> Self {
        StripeLock { writing: false, readers: 0, head: NO_JOB, tail: NO_JOB, rhead: NO_JOB, rtail: NO_JOB }
    }
    /// A degraded read may join: no writer runs or waits.
    pub fn readable(&self) -> bool {
        !self.writing && self.head == NO_JOB
    }
}
