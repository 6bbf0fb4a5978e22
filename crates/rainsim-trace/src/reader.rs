//! Loading a trace file: decompression (gzip, zstd, xz, by magic bytes),
//! format detection, streaming parse, transforms, and the provenance record
//! ([`TraceInfo`]).
//!
//! The file is read once, as a stream: its SHA-256 and size are computed over
//! the raw bytes while they are decompressed and parsed. Blank lines are
//! skipped; a header line is accepted only as the first non-empty line of a
//! CSV format (see [`Format::is_header`]). Line numbers in errors are 1-based
//! physical lines of the (decompressed) text.

use crate::format::{chomp, detect_explained, disksim_unit, Format, TimeUnit, DETECT_LINES};
use crate::lines::each_line;
use crate::parse::{LineParser, Parsed};
use crate::transform::{self, AddressMap};
use crate::{Request, TraceError};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// How a trace file is read and transformed. Every field has a default, so
/// an empty TOML table is valid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TraceOptions {
    /// File format; `None` = auto-detect (see [`crate::format`]).
    pub format: Option<Format>,
    /// Time unit of a `disksim` file; `None` = ms if a sampled time has a `.`,
    /// else ns. Setting it for another format is an error.
    pub time_unit: Option<TimeUnit>,
    /// Keep only this device (MSR DiskNumber, SPC ASU, SYSTOR LUN, ...); `None` = all.
    pub device: Option<u32>,
    /// How addresses are fitted into the device capacity.
    pub address_map: AddressMap,
    /// Factor applied to every arrival time (> 0; < 1 compresses the trace).
    pub time_scale: f64,
    /// Total number of copies of the trace to replay back to back (≥ 1).
    pub repeat: u32,
    /// Keep at most this many requests (after repeat); `None` = all.
    pub max_requests: Option<u64>,
}

impl Default for TraceOptions {
    fn default() -> Self {
        TraceOptions {
            format: None,
            time_unit: None,
            device: None,
            address_map: AddressMap::Wrap,
            time_scale: 1.0,
            repeat: 1,
            max_requests: None,
        }
    }
}

/// A loaded or generated trace: time-ordered requests starting at 0 ns.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// Requests in arrival order.
    pub requests: Vec<Request>,
    /// Where they came from and what was done to them.
    pub info: TraceInfo,
}

/// Provenance of a [`Trace`], for reports.
///
/// Counts: `records_read = skipped_no_direction + Σ skipped + filtered_out_device + n`,
/// where `n` is the count before repeat/truncation; `requests` is the final count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceInfo {
    /// File path as given (for a synthetic trace, a description).
    pub path: String,
    /// Format name ([`Format::name`]) or `"synthetic"`.
    pub format: String,
    /// Time unit used for a `disksim` file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_unit: Option<TimeUnit>,
    /// Size of the file as stored (compressed if gzip), bytes.
    pub file_bytes: u64,
    /// SHA-256 (hex) of the file as stored; of the spec and seed for synthetic.
    pub sha256: String,
    /// Data records parsed (header and blank lines excluded).
    pub records_read: u64,
    /// Records without a direction (SYSTOR blank IOType), not replayed.
    pub skipped_no_direction: u64,
    /// Other valid lines that are not requests, by reason (fio `open` lines,
    /// `blkparse` events of another action, ...); absent when none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped: BTreeMap<String, u64>,
    /// Requests dropped by the device filter.
    pub filtered_out_device: u64,
    /// Adjacent pairs out of time order before the stable sort.
    pub unsorted_inversions: u64,
    /// Final number of requests.
    pub requests: u64,
    /// Total copies replayed.
    pub repeat: u32,
    /// Last minus first arrival time of the final trace, ns.
    pub span_ns: u64,
    /// Set when format detection was decided by the alignment rule (see
    /// [`crate::format`]): what was assumed and how to override it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detection: Option<String>,
    /// Set when `max_requests` stopped reading early: the last line read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at_line: Option<u64>,
    /// Requests replayed (`repeat`'s copies counted, those past
    /// `max_requests` not) that lay, whole or in part, beyond the device's
    /// capacity, which the address map placed on it; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub beyond_capacity: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Longest line a trace may have, bytes: a longer one is an error (a file
/// without line breaks would otherwise be read into memory whole).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Longest span of request times a trace may hold, ns (2^62 ns, 146 years:
/// the simulator's limit for arrivals after rebasing, so that `trace stats`
/// and `run` agree).
pub const MAX_TIME_NS: u64 = 1 << 62;

/// A reader that hashes and counts the raw bytes passing through it.
struct Hashing<R> {
    inner: R,
    hash: Sha256,
    bytes: u64,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }
}

pub(crate) const BUF_BYTES: usize = 1 << 16;

/// Compression of a trace file, recognised by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// gzip (`1f 8b`); concatenated members are read as one stream.
    Gzip,
    /// Zstandard (`28 b5 2f fd`); concatenated frames are read as one stream.
    Zstd,
    /// xz (`fd 37 7a 58 5a 00`); concatenated streams are read as one stream.
    Xz,
}

impl Compression {
    /// Its name in messages: `plain`, `gzip`, `zstd`, `xz`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "plain",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
        }
    }

    /// The compression that the file's first bytes announce.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Compression::Xz
        } else {
            Compression::None
        }
    }
}

/// The records of one file as read: requests in file order with the
/// format's own times (not sorted, not rebased), before any transform.
#[derive(Debug, Clone, PartialEq)]
pub struct Records {
    /// Requests in file order, absolute times in the format's epoch.
    pub requests: Vec<Request>,
    /// The format read (detected or given).
    pub format: Format,
    /// Time unit of a `disksim` file.
    pub time_unit: Option<TimeUnit>,
    /// Compression of the stored file.
    pub compression: Compression,
    /// Data records (requests + records without direction + skipped lines).
    pub records: u64,
    /// Records without a direction (SYSTOR blank IOType).
    pub no_direction: u64,
    /// Lines that are not requests, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Size of the file as stored, bytes.
    pub file_bytes: u64,
    /// SHA-256 (hex) of the file as stored.
    pub sha256: String,
    /// Why detection chose the format, when the alignment rule decided it.
    pub detection: Option<String>,
    /// When reading stopped early (a request limit): the last line read.
    pub stopped_at_line: Option<u64>,
}

/// Stop reading once this many requests (of `device`, when set) are read.
#[derive(Debug, Clone, Copy)]
struct Limit {
    requests: u64,
    device: Option<u32>,
}

/// Parsed records of one file, before transforms.
struct Parsing {
    requests: Vec<Request>,
    format: Format,
    time_unit: Option<TimeUnit>,
    records: u64,
    no_direction: u64,
    skipped: BTreeMap<&'static str, u64>,
    detection: Option<String>,
    limit: Option<Limit>,
    kept: u64,
    stopped_at_line: Option<u64>,
    time_range: Option<(u64, u64)>,
}

/// Reads, parses and transforms the trace at `path` (plain or gzip, by magic
/// bytes) to fit a device of `capacity_bytes` with pages of `page_bytes`.
/// See [`crate::transform`] for the order of the transforms.
pub fn load(path: &Path, opts: &TraceOptions, capacity_bytes: u64, page_bytes: u32) -> Result<Trace, TraceError> {
    if opts.repeat == 0 {
        return Err(TraceError::Invalid("trace.repeat must be ≥ 1 (the total number of copies)".into()));
    }
    if !(opts.time_scale.is_finite() && opts.time_scale > 0.0) {
        return Err(TraceError::Invalid(format!("trace.time_scale must be finite and > 0, got {:?}", opts.time_scale)));
    }
    if opts.max_requests == Some(0) {
        return Err(TraceError::Invalid("trace.max_requests must be ≥ 1 when set".into()));
    }
    // Without repeat, the first max_requests requests (of the device) are
    // all that is kept: stop reading there. For a file out of time order
    // they are the first in file order, then sorted.
    let limit = match opts.max_requests {
        Some(requests) if opts.repeat == 1 => Some(Limit { requests, device: opts.device }),
        _ => None,
    };
    let Records {
        mut requests,
        format,
        time_unit,
        records,
        no_direction,
        skipped,
        file_bytes,
        sha256,
        detection,
        stopped_at_line,
        ..
    } = read_limited(path, opts.format, opts.time_unit, limit)?;

    let name = path.display().to_string();
    if requests.is_empty() {
        // "all 1 records" reads wrong: a lone record is "the only record".
        let (all, have, were) = match records {
            1 => ("the only record".to_string(), "has", "was"),
            n => (format!("all {n} records"), "have", "were"),
        };
        let msg = if no_direction > 0 && skipped.is_empty() {
            format!("no request: {all} {have} a blank IOType (no direction)")
        } else if !skipped.is_empty() {
            let why: Vec<String> = skipped.iter().map(|(k, &v)| crate::textlog::skipped(v, k)).collect();
            format!("no request: {all} {were} skipped ({})", why.join(", "))
        } else {
            "no request: the file holds no data record".to_string()
        };
        return Err(TraceError::Empty { path: name, msg });
    }
    let mut filtered = 0;
    if let Some(dev) = opts.device {
        filtered = transform::filter_device(&mut requests, dev)
            .map_err(|msg| TraceError::Empty { path: name.clone(), msg })?;
    }
    let inversions = transform::sort_by_time(&mut requests);
    transform::rebase(&mut requests);
    let finish = |e: TraceError| e.in_file(path);
    transform::scale_time(&mut requests, opts.time_scale).map_err(finish)?;
    // Which of the file's requests the map moves, counted below over the
    // requests replayed (copies included, past `max_requests` not).
    let moved = transform::beyond_capacity(&requests, capacity_bytes, page_bytes).map_err(finish)?;
    transform::map_addresses(&mut requests, opts.address_map, capacity_bytes, page_bytes).map_err(finish)?;
    // Make only the copies that survive truncation (`requests` is not empty here).
    let copies = match opts.max_requests {
        Some(max) => {
            let needed = max.div_ceil(requests.len() as u64).max(1);
            opts.repeat.min(u32::try_from(needed).unwrap_or(u32::MAX))
        }
        _ => opts.repeat,
    };
    transform::repeat(&mut requests, copies).map_err(finish)?;
    if let Some(max) = opts.max_requests {
        transform::truncate(&mut requests, max);
    }
    // Copies follow the file's requests in order (`transform::repeat`).
    let beyond_capacity = match moved.len() {
        0 => 0,
        n => (0..requests.len()).filter(|&i| moved[i % n]).count() as u64,
    };
    let info = TraceInfo {
        path: name,
        format: format.name().to_string(),
        time_unit,
        file_bytes,
        sha256,
        records_read: records,
        skipped_no_direction: no_direction,
        skipped,
        filtered_out_device: filtered,
        unsorted_inversions: inversions,
        requests: requests.len() as u64,
        repeat: opts.repeat,
        span_ns: transform::span_ns(&requests),
        detection,
        stopped_at_line,
        beyond_capacity,
    };
    Ok(Trace { requests, info })
}

/// Reads and parses the file at `path` (plain, gzip, zstd or xz, by magic
/// bytes) in `format` (`None`: detect), without any transform.
pub fn read(path: &Path, format: Option<Format>, time_unit: Option<TimeUnit>) -> Result<Records, TraceError> {
    read_limited(path, format, time_unit, None)
}

fn read_limited(
    path: &Path,
    format: Option<Format>,
    time_unit: Option<TimeUnit>,
    limit: Option<Limit>,
) -> Result<Records, TraceError> {
    let io_err = |source| TraceError::Io { path: path.display().to_string(), source };
    let file = File::open(path).map_err(io_err)?;
    let mut raw = BufReader::with_capacity(BUF_BYTES, Hashing { inner: file, hash: Sha256::new(), bytes: 0 });
    let compression = Compression::sniff(raw.fill_buf().map_err(io_err)?);
    let (parsing, mut raw) = match compression {
        Compression::Gzip | Compression::Zstd | Compression::Xz => {
            let members = crate::members::Members::new(compression, raw).map_err(io_err)?;
            let mut text = BufReader::with_capacity(BUF_BYTES, members);
            let p = parse_stream(&mut text, path, format, time_unit, limit)?;
            (p, text.into_inner().into_inner())
        }
        Compression::None => {
            let p = parse_stream(&mut raw, path, format, time_unit, limit)?;
            (p, raw)
        }
    };
    // The rest of the stored file (all of it after an early stop) is
    // hashed, not parsed: the SHA-256 is always the whole file's.
    io::copy(&mut raw, &mut io::sink()).map_err(io_err)?;
    let hashing = raw.into_inner();
    let Parsing { requests, format, time_unit, records, no_direction, skipped, detection, stopped_at_line, .. } =
        parsing;
    Ok(Records {
        requests,
        format,
        time_unit,
        compression,
        records,
        no_direction,
        skipped: skipped.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        file_bytes: hashing.bytes,
        sha256: hex(&hashing.hash.finalize()),
        detection,
        stopped_at_line,
    })
}

/// SHA-256 (lower-case hex) of the file at `path` as stored, as
/// [`TraceInfo::sha256`] gives it.
pub fn file_sha256(path: &Path) -> io::Result<String> {
    let mut r = Hashing { inner: File::open(path)?, hash: Sha256::new(), bytes: 0 };
    io::copy(&mut r, &mut io::sink())?;
    Ok(hex(&r.hash.finalize()))
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether a line holds only whitespace; a line's first byte nearly always
/// settles it.
#[inline]
fn is_blank(line: &[u8]) -> bool {
    line.first().is_none_or(|b| b.is_ascii_whitespace()) && line.iter().all(|b| b.is_ascii_whitespace())
}

/// Samples the first lines, settles format and unit, then parses everything.
fn parse_stream<R: BufRead>(
    r: &mut R,
    path: &Path,
    format: Option<Format>,
    time_unit: Option<TimeUnit>,
    limit: Option<Limit>,
) -> Result<Parsing, TraceError> {
    // Sample up to DETECT_LINES non-empty lines, with their line numbers.
    let mut sample: Vec<(u64, Vec<u8>)> = Vec::new();
    let mut line_no = 0u64;
    each_line(r, path, 0, |no, raw| {
        line_no = no;
        let mut line = chomp(raw);
        if no == 1 {
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line); // UTF-8 BOM
        }
        if !is_blank(line) {
            sample.push((line_no, line.to_vec()));
        }
        Ok(sample.len() < DETECT_LINES)
    })?;
    // Fewer lines than the sample's size: the input has ended.
    let more = sample.len() == DETECT_LINES;
    let refs: Vec<(u64, &[u8])> = sample.iter().map(|(n, l)| (*n, l.as_slice())).collect();
    if refs.is_empty() {
        let msg = "no request: the file is empty (or holds only blank lines)".to_string();
        return Err(TraceError::Empty { path: path.display().to_string(), msg });
    }
    let mut detection = None;
    let (format, unit) = match format {
        Some(Format::Disksim) => {
            let unit = time_unit.unwrap_or_else(|| disksim_unit(&refs));
            if time_unit.is_none() && unit == TimeUnit::Ns {
                detection = Some(crate::format::whole_ns(refs.len()));
            }
            (Format::Disksim, Some(unit))
        }
        Some(f) => (f, time_unit), // LineParser::new rejects a unit here
        None => {
            let (f, detected_unit, why) =
                detect_explained(&refs).map_err(|msg| TraceError::Detect { path: path.display().to_string(), msg })?;
            detection = why;
            match (f, time_unit) {
                (Format::Disksim, Some(u)) => {
                    if detected_unit == Some(TimeUnit::Ns) {
                        // The unit was given: no guess to explain.
                        detection = None;
                    }
                    (f, Some(u))
                }
                (_, None) => (f, detected_unit),
                (_, Some(u)) => {
                    return Err(TraceError::Invalid(format!(
                        "{}: --time-unit {u} (trace.time_unit) applies to disksim, but the file was detected as {f}, \
                         whose times have a fixed unit; --format disksim (trace.format) reads it as DiskSim",
                        path.display()
                    )))
                }
            }
        }
    };
    let mut parser = LineParser::new(format, unit).map_err(TraceError::Invalid)?;
    let mut out = Parsing {
        requests: Vec::new(),
        format,
        time_unit: unit,
        records: 0,
        no_direction: 0,
        skipped: BTreeMap::new(),
        detection,
        limit,
        kept: 0,
        stopped_at_line: None,
        time_range: None,
    };
    let mut first = true;
    for (no, line) in &refs {
        if std::mem::take(&mut first) && format.is_header(line) {
            parser.header(line);
            continue;
        }
        if !take(&mut parser, line, *no, path, &mut out)? {
            return Ok(rounded(&parser, out));
        }
    }
    if more {
        each_line(r, path, line_no, |no, raw| {
            let line = chomp(raw);
            if is_blank(line) {
                return Ok(true);
            }
            take(&mut parser, line, no, path, &mut out)
        })?;
    }
    Ok(rounded(&parser, out))
}

/// `out` with a word in its detection note when times with a decimal point
/// were read in whole nanoseconds (rounded): a DiskSim file in ms read as ns.
fn rounded(parser: &LineParser, mut out: Parsing) -> Parsing {
    if parser.rounded_ns > 0 {
        let word = format!(
            "{} read as whole ns (rounded); if they are milliseconds, --time-unit ms (trace.time_unit)",
            crate::stats::counted(
                parser.rounded_ns,
                "time has a decimal point but was",
                "times have a decimal point but were"
            )
        );
        out.detection = Some(match out.detection.take() {
            Some(d) => format!("{d}; {word}"),
            None => word,
        });
    }
    out
}

/// Parses one line into `out`; false once the request limit is reached.
#[inline]
fn take(parser: &mut LineParser, line: &[u8], no: u64, path: &Path, out: &mut Parsing) -> Result<bool, TraceError> {
    match parser.parse(line) {
        Ok(Parsed::Request(r)) => {
            // Times are rebased to the earliest: the span is what the
            // simulator must hold. Checked as it grows, so the error names
            // the line that stretched it.
            let (lo, hi) =
                out.time_range.map_or((r.time_ns, r.time_ns), |(lo, hi)| (lo.min(r.time_ns), hi.max(r.time_ns)));
            if hi - lo > MAX_TIME_NS {
                return Err(TraceError::parse(
                    path,
                    no,
                    format!(
                        "time {} ns lies more than 2^62 ns (146 years) from another request of the file (times \
                         span {lo} to {hi} ns); the simulator supports spans up to 2^62 ns: check the time unit",
                        r.time_ns
                    ),
                ));
            }
            if r.offset.checked_add(u64::from(r.size)).is_none() {
                return Err(TraceError::parse(
                    path,
                    no,
                    format!("offset {} + size {} bytes passes 2^64 bytes: check the address unit", r.offset, r.size),
                ));
            }
            out.time_range = Some((lo, hi));
            if let Some(l) = out.limit {
                if l.device.is_none_or(|d| d == r.device) {
                    out.kept += 1;
                }
            }
            out.requests.push(r)
        }
        Ok(Parsed::NoDirection) => out.no_direction += 1,
        Ok(Parsed::Skipped(why)) => *out.skipped.entry(why).or_insert(0) += 1,
        Err(msg) => return Err(TraceError::parse(path, no, msg)),
    }
    out.records += 1;
    if out.limit.is_some_and(|l| out.kept >= l.requests) {
        out.stopped_at_line = Some(no);
        return Ok(false);
    }
    Ok(true)
}
