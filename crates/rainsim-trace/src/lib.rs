//! Block I/O traces for rainsim: readers for the common public formats, the
//! transforms a replay needs (device filter, address mapping, time scaling,
//! repetition, truncation), a seeded synthetic workload, and trace statistics.
//!
//! ```text
//!  file (gzip/zstd/xz ok) ──detect/override──▶ reader ──▶ Vec<Request> ──▶ transforms ──▶ Trace
//!  SyntheticSpec + seed ─────────────────────────────────────────▶ Trace
//! ```
//!
//! **Invariant:** every reader converts to bytes and nanoseconds; a line that
//! cannot be read is an error naming the file, the line number and what was
//! expected, never a silently skipped record. (Blank lines and one leading
//! header line are not records. SYSTOR rows with a blank IOType have no
//! direction: they are counted in [`TraceInfo::skipped_no_direction`]; other
//! valid lines that are not requests, such as fio `open` lines or `blkparse`
//! events of another action, are counted by reason in [`TraceInfo::skipped`].)
//!
//! Modules: [`format`](mod@format) (names, auto-detection rule), [`parse`] (one line →
//! [`Request`]), [`textlog`] (`blkparse`, fio), [`reader`] ([`load`], [`read`]),
//! [`transform`], [`edit`] (windows, merge), [`write`](mod@write) (other formats),
//! [`synthetic`], [`profile`] (a workload profile's `[expect]`), [`stats`](mod@stats), [`error`].
//!
//! ```no_run
//! use rainsim_trace::{load, stats, TraceOptions};
//! let trace = load("hm_0.csv.gz".as_ref(), &TraceOptions::default(), 32 << 30, 8192)?;
//! println!("{}\n{}", trace.info.format, stats(&trace.requests, 8192));
//! # Ok::<(), rainsim_trace::TraceError>(())
//! ```
#![warn(missing_docs)]

use serde::{Deserialize, Serialize};

pub mod edit;
pub mod error;
mod fields;
pub mod format;
mod lines;
mod members;
pub mod parse;
pub mod profile;
mod quick;
mod quick_csv;
pub mod reader;
pub mod stats;
pub mod stream;
pub mod synthetic;
pub mod textlog;
pub mod transform;
pub mod write;

pub use error::TraceError;
pub use format::{detect, Format, TimeUnit};
pub use reader::{file_sha256, load, read, Compression, Records, Trace, TraceInfo, TraceOptions, MAX_TIME_NS};
pub use stats::{stats, InterArrival, TraceStats};
pub use synthetic::{generate, stream_identity, stream_info, SizeWeight, Stream, SyntheticSpec};
pub use transform::AddressMap;
pub use write::{check_output, output_target, write_atomic, write_requests, Target, Written};

/// Direction of a host request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Op {
    /// Read from the device.
    Read,
    /// Write to the device.
    Write,
}

/// One host request, in the simulator's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Arrival time in nanoseconds from the start of the replay.
    pub time_ns: u64,
    /// Byte offset on the (logical) device.
    pub offset: u64,
    /// Length in bytes (> 0).
    pub size: u32,
    /// Device / ASU / LUN / volume number from the trace (0 when the format has none).
    pub device: u32,
    /// Read or write.
    pub op: Op,
}
