//! `rainsim run --request-log FILE`: the per-request log as a Parquet file.
//!
//! One row per completed host request, in completion order:
//!
//! | column | Parquet type | meaning |
//! |---|---|---|
//! | `arrival_ns` | INT64 | trace time of arrival (latency counts from here) |
//! | `class` | UTF-8 string | `read` or `write` |
//! | `size_bytes` | INT64 | request size |
//! | `latency_ns` | INT64 | completion − arrival |
//! | `channels` | list of INT32 | channels its flash operations ran on (reads, pre-reads, programs, parity, rebuild reads), ascending; empty when it touched no flash (a read of never-written data) |
//! | `degraded` | BOOLEAN | served at least in part by a reconstruction: a page rebuilt from its stripe (degraded or GC-tolerant read) or an update placed degraded |
//!
//! A list column holds any channel count (a 64-bit mask would not). The
//! footer's key/value metadata names the rainsim version, scheme, seed and
//! channel count. The same configuration and seed give the same bytes.

use crate::parquet::{self, Column};
use rainsim_model::metrics::request_log::RequestLog;
use rainsim_model::Report;
use std::path::Path;

/// Writes `log` (of the run `report` describes) to `path` atomically: a
/// temporary file in the same directory, renamed into place.
pub fn write(path: &Path, log: &RequestLog, report: &Report) -> Result<(), rainsim_trace::TraceError> {
    let arrival = |i: usize| log.arrival_ns[i] as i64;
    let class = |i: usize| if log.write[i] { "write" } else { "read" };
    let size = |i: usize| log.size[i] as i64;
    let latency = |i: usize| log.latency_ns[i] as i64;
    let channels = |i: usize| log.channels_of(i);
    let degraded = |i: usize| log.degraded[i];
    let columns = [
        Column::Int64("arrival_ns", &arrival),
        Column::Utf8("class", &class),
        Column::Int64("size_bytes", &size),
        Column::Int64("latency_ns", &latency),
        Column::ListInt32("channels", &channels),
        Column::Bool("degraded", &degraded),
    ];
    let meta = [
        ("rainsim.version", report.version.clone()),
        ("rainsim.scheme", report.scheme.clone()),
        ("rainsim.seed", report.seed.to_string()),
        ("rainsim.channels", report.channels.len().to_string()),
    ];
    let created_by = format!("rainsim version {}", env!("CARGO_PKG_VERSION"));
    rainsim_trace::write_atomic(path, &[], |f| parquet::write(f, log.len(), &columns, &created_by, &meta))
}
