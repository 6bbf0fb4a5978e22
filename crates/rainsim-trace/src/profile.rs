//! The `[expect]` table of a workload profile: the published statistics of
//! the trace (one row of a paper's table) the profile's `[workload]` was
//! built to match. The simulator does not read it; it is checked when a
//! profile is loaded, so that a misspelt or unknown key is an error rather
//! than a number silently left unchecked, and the profile tests compare the
//! generated workload against it.

use serde::Deserialize;

/// A profile's `[expect]` table: the row's columns; `None` where the
/// paper's table has no such column.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The paper's file under `papers/`.
    pub paper: String,
    /// The table the row comes from (e.g. "Table III").
    pub table: String,
    /// The row's trace name; the profile's file name ends with it.
    pub row: String,
    /// The preset the profile is sized for.
    pub preset: String,
    /// That preset's logical capacity in GiB, as the profile assumed it.
    pub capacity_gib: f64,
    /// Requests the profile generates.
    pub requests: u64,
    /// Fraction of requests that are writes.
    pub write_ratio: f64,
    /// Fraction of written pages that overwrite a page written before.
    pub update_ratio: f64,
    /// Mean time between arrivals, in ms.
    pub mean_interarrival_ms: f64,
    /// Mean request size in KiB.
    pub mean_size_kib: Option<f64>,
    /// Mean write size in KiB.
    pub write_size_kib: Option<f64>,
    /// Bytes written over the whole profile, in GiB.
    pub write_volume_gib: Option<f64>,
    /// Page size the update ratio is counted at (default 8 KiB, the page of
    /// the papers' devices; vios-128g has 2 KiB pages).
    pub update_page_bytes: Option<u32>,
}
