//! Flash and bus timing derived from the configuration.

use crate::engine::SimTime;
use serde::{Deserialize, Serialize};

/// Latencies in nanoseconds; bus rate in bytes per microsecond (= MB/s).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Timing {
    /// Array read time tR (LDPC level 0).
    pub read_ns: u64,
    /// Program time tPROG.
    pub program_ns: u64,
    /// Block erase time tBERS.
    pub erase_ns: u64,
    /// Channel bus rate in MB/s (bytes per microsecond).
    pub channel_mb_s: u64,
    /// Command and address cycles charged to the bus per transfer.
    pub command_ns: u64,
    /// Controller time to XOR the chunks of one stripe update.
    pub xor_ns: u64,
    /// Controller software overhead per host request, before it is split.
    pub request_overhead_ns: u64,
    /// Controller software overhead per stripe write, charged with its XOR.
    pub stripe_overhead_ns: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            read_ns: 45_000,
            program_ns: 700_000,
            erase_ns: 3_500_000,
            channel_mb_s: 400,
            command_ns: 200,
            xor_ns: 19_000,
            request_overhead_ns: 0,
            stripe_overhead_ns: 0,
        }
    }
}

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
