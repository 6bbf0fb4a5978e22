//! Flash and bus timing derived from the configuration.

use crate::config::Timing;
use crate::engine::SimTime;

/// Precomputed per-operation times in nanoseconds.
#[derive(Debug, Clone, Copy)]
pub struct FlashTiming {
    /// Array read (sensing) time.
    pub read: SimTime,
    /// Program time.
    pub program: SimTime,
    /// Erase time.
    pub erase: SimTime,
    /// Bus time of one page transfer including command cycles.
    pub xfer: SimTime,
    /// Bus command cycles alone (copyback commands).
    pub command: SimTime,
}

impl FlashTiming {
    /// Derives the times for pages of `page_bytes`.
    pub fn new(t: &Timing, page_bytes: u32) -> FlashTiming {
        // channel_mb_s is bytes per microsecond: ns = bytes · 1000 / rate, rounded up.
        let data = (page_bytes as u64 * 1000).div_ceil(t.channel_mb_s);
        FlashTiming {
            read: t.read_ns,
            program: t.program_ns,
            erase: t.erase_ns,
            xfer: data + t.command_ns,
            command: t.command_ns,
        }
    }

    /// Die time of one GC page move: copyback (read + program inside the die)
    /// or, without copyback, both transfers too.
    pub fn gc_move(&self, copyback: bool) -> SimTime {
        if copyback {
            self.read + self.program + 2 * self.command
        } else {
            self.read + self.program + 2 * self.xfer
        }
    }

    /// Unloaded latency of a single-page read: sensing then transfer.
    pub fn unloaded_read(&self) -> SimTime {
        self.read + self.xfer
    }
}
