//! Trace file formats, their names, and auto-detection.
//!
//! # Detection rule
//!
//! [`detect`] looks at the first non-empty lines (the reader passes up to
//! [`DETECT_LINES`]) and classifies each one by its shape alone:
//!
//! | shape of a line | format |
//! |---|---|
//! | `fio version 2 iolog` / `fio version 3 iolog` (first line only) | fio |
//! | header `Timestamp,Response,IOType,...` / `Timestamp,Hostname,...` / `ASU,LBA,...` / `device_id,opcode,...` / `Timestamp,Offset,...` (first line only) | systor / msr / spc / alibaba / cbs |
//! | `maj,min cpu seq seconds pid action RWBS ...` (whitespace-separated) | blkparse (`Q` events; `blkparse-c` only explicitly) |
//! | 7 comma-separated fields, 4th is `Read`/`Write` | msr |
//! | 6 comma-separated fields, 3rd is `R`, `W` or blank | systor |
//! | 5+ comma-separated fields, 4th is `r`/`R`/`w`/`W` | spc |
//! | 5 comma-separated fields, 2nd is `R`/`W` | alibaba |
//! | 5 comma-separated unsigned integers, 4th is `0`/`1` | cbs |
//! | 5 whitespace-separated unsigned numbers | the numeric family, below |
//!
//! Lines matching no shape are ignored by detection (the parser reports them
//! with their line number). If two lines match different formats, detection
//! fails and asks for an explicit format; it never picks by majority.
//!
//! The numeric family (`disksim`, `ssdsim`, `msr-window`) all have the columns
//! `time device address size op`; they differ in units only. Over all sampled
//! numeric lines:
//!
//! 1. some time field contains `.` and every address **and** size is a multiple
//!    of 512 → `msr-window` (ms, bytes, bytes);
//! 2. some time field contains `.` otherwise → `disksim` with [`TimeUnit::Ms`]
//!    (addresses and sizes in 512-byte sectors);
//! 3. all time fields are integers and some address or size is not a
//!    multiple of 512 → `disksim` with [`TimeUnit::Ns`]. This is also what an
//!    SSDsim file is detected as: `ssdsim` and `disksim`+`ns` read every line
//!    identically, so the label is the only difference;
//! 4. all time fields are integers and every address and size is a multiple
//!    of 512 → an error asking for the format: whole nanoseconds and sectors,
//!    or whole milliseconds and bytes (an `msr-window` file of whole-ms times)?
//!
//! Rules 1 and 4 rely on block traces in bytes being sector-aligned, while
//! sector numbers and sector counts of a DiskSim file are essentially never
//! all multiples of 512. Rules 1 and 2 warn (the choice rested on alignment
//! alone). An explicit format always overrides detection.

use crate::fields::is_blank;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How many non-empty lines the reader hands to [`detect`].
pub const DETECT_LINES: usize = 200;

/// A supported trace file format. See the crate README of the traces and
/// [`Format::columns`] for the exact columns and units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// MSR Cambridge CSV: FILETIME (100 ns ticks), bytes; device = DiskNumber.
    Msr,
    /// UMass/SPC CSV: ASU, LBA (512 B sectors), size (bytes), opcode, seconds.
    Spc,
    /// SYSTOR '17 CSV with header: Unix seconds (9 decimals), bytes; device = LUN.
    Systor,
    /// Alibaba 2020 block traces: device, opcode, bytes, µs since the epoch.
    Alibaba,
    /// DiskSim/MQSim ASCII: time (ns or ms, see [`TimeUnit`]), device, 512 B sectors, 1 = read.
    Disksim,
    /// SSDsim ASCII: time ns, device, 512 B sectors, 1 = read (= `disksim` with ns).
    Ssdsim,
    /// FlashNet/Heimdall MSR windows: time ms (decimal), device, bytes, 1 = read.
    MsrWindow,
    /// Tencent CBS (SNIA IOTTA): Unix seconds, 512 B sectors, 0 = read / 1 = write, volume.
    Cbs,
    /// `blkparse -i` default text output, queued (`Q`) events: seconds, 512 B sectors.
    Blkparse,
    /// `blkparse -i` default text output, completed (`C`) events.
    BlkparseC,
    /// fio iolog, version 2 (no timing but `wait`) or 3 (ms timestamps), by its header; bytes.
    Fio,
}

impl Format {
    /// Every format, in documentation order.
    pub const ALL: [Format; 11] = [
        Format::Msr,
        Format::Spc,
        Format::Systor,
        Format::Alibaba,
        Format::Disksim,
        Format::Ssdsim,
        Format::MsrWindow,
        Format::Cbs,
        Format::Blkparse,
        Format::BlkparseC,
        Format::Fio,
    ];

    /// The name used in configuration files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Msr => "msr",
            Format::Spc => "spc",
            Format::Systor => "systor",
            Format::Alibaba => "alibaba",
            Format::Disksim => "disksim",
            Format::Ssdsim => "ssdsim",
            Format::MsrWindow => "msr-window",
            Format::Cbs => "cbs",
            Format::Blkparse => "blkparse",
            Format::BlkparseC => "blkparse-c",
            Format::Fio => "fio",
        }
    }

    /// Column names, separated as in the file (comma or space).
    pub fn columns(self) -> &'static str {
        match self {
            Format::Msr => "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
            Format::Spc => "ASU,LBA,Size,Opcode,Timestamp",
            Format::Systor => "Timestamp,Response,IOType,LUN,Offset,Size",
            Format::Alibaba => "device_id,opcode,offset,length,timestamp",
            Format::Disksim => "arrival_time device lba_sectors size_sectors type",
            Format::Ssdsim => "time_ns device lsn size_sectors op",
            Format::MsrWindow => "time_ms device offset_bytes size_bytes op",
            Format::Cbs => "Timestamp,Offset,Size,IOType,VolumeID",
            Format::Blkparse | Format::BlkparseC => "dev cpu seq time pid action rwbs sector + count [process]",
            Format::Fio => "[timestamp_ms] filename action offset length",
        }
    }

    /// True for the comma-separated formats.
    pub fn is_csv(self) -> bool {
        matches!(self, Format::Msr | Format::Spc | Format::Systor | Format::Alibaba | Format::Cbs)
    }

    /// The `blkparse` action letter a `blkparse` format keeps, if it is one.
    pub fn blkparse_action(self) -> Option<u8> {
        match self {
            Format::Blkparse => Some(b'Q'),
            Format::BlkparseC => Some(b'C'),
            _ => None,
        }
    }

    /// Number of fields a line must have (SPC: at least this many).
    pub fn field_count(self) -> usize {
        match self {
            Format::Msr => 7,
            Format::Systor => 6,
            _ => 5,
        }
    }

    /// Whether `line` is this format's header line (only accepted as the
    /// first non-empty line of a file). Compares the first two column names,
    /// case-insensitively.
    pub fn is_header(self, line: &[u8]) -> bool {
        if self == Format::Fio {
            return fio_version(line).is_some();
        }
        if !self.is_csv() {
            return false;
        }
        let mut want = self.columns().split(',');
        let mut got = line.split(|&b| b == b',').map(trim);
        (0..2).all(|_| match (want.next(), got.next()) {
            (Some(w), Some(g)) => g.eq_ignore_ascii_case(w.as_bytes()),
            _ => false,
        })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Format::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
            format!("unknown trace format `{s}`; valid formats: {}", names.join(", "))
        })
    }
}

/// Unit of the time column of a [`Format::Disksim`] file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeUnit {
    /// Nanoseconds (MQSim's convention; integers expected, decimals are rounded).
    Ns,
    /// Milliseconds (DiskSim's convention; decimals allowed, exact to 1 ns).
    Ms,
}

impl TimeUnit {
    /// The name used in configuration files ("ns", "ms").
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Ns => "ns",
            TimeUnit::Ms => "ms",
        }
    }
}

impl fmt::Display for TimeUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TimeUnit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ns" => Ok(TimeUnit::Ns),
            "ms" => Ok(TimeUnit::Ms),
            _ => Err(format!("unknown time unit `{s}`; valid units: ns, ms")),
        }
    }
}

/// The version (2 or 3) named by a fio iolog header line `fio version N iolog`.
pub fn fio_version(line: &[u8]) -> Option<u8> {
    match trim(chomp(line)) {
        b"fio version 2 iolog" => Some(2),
        b"fio version 3 iolog" => Some(3),
        _ => None,
    }
}

/// Whether `line` has the shape of a `blkparse` event: `maj,min cpu seq
/// seconds pid action rwbs ...`.
fn is_blkparse_event(line: &[u8]) -> bool {
    let mut f = line.split(|b| matches!(b, b' ' | b'\t')).filter(|f| !f.is_empty());
    let dev = f.next().unwrap_or_default();
    let mut dev_parts = dev.split(|&b| b == b',');
    let dev_ok =
        dev_parts.next().is_some_and(is_uint) && dev_parts.next().is_some_and(is_uint) && dev_parts.next().is_none();
    let rest: Vec<&[u8]> = f.take(6).collect();
    dev_ok
        && rest.len() == 6
        && is_uint(rest[0])
        && is_uint(rest[1])
        && is_udecimal(rest[2])
        && is_uint(rest[3])
        && rest[4].iter().all(u8::is_ascii_alphabetic)
        && rest[5].iter().all(u8::is_ascii_alphabetic)
}

/// Strips spaces and tabs around a field.
#[inline]
pub(crate) fn trim(f: &[u8]) -> &[u8] {
    let kept = |b: &u8| !is_blank(*b);
    // Nearly every field: nothing to strip.
    if f.first().is_some_and(kept) && f.last().is_some_and(kept) {
        return f;
    }
    let start = f.iter().position(kept).unwrap_or(f.len());
    let end = f.iter().rposition(kept).map_or(start, |e| e + 1);
    &f[start..end]
}

/// Strips a trailing `\n` / `\r\n` / `\r`.
pub(crate) fn chomp(mut line: &[u8]) -> &[u8] {
    while let [rest @ .., b'\n' | b'\r'] = line {
        line = rest;
    }
    line
}

/// What one sampled line looks like.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Fixed(Format),
    Numeric { decimal_time: bool, byte_aligned: bool },
    Unknown,
}

fn is_uint(f: &[u8]) -> bool {
    !f.is_empty() && f.iter().all(u8::is_ascii_digit)
}

fn is_udecimal(f: &[u8]) -> bool {
    let digits = f.iter().filter(|b| b.is_ascii_digit()).count();
    digits > 0 && f.iter().filter(|&&b| b == b'.').count() <= 1 && digits + usize::from(f.contains(&b'.')) == f.len()
}

fn is_rw(f: &[u8]) -> bool {
    matches!(f, b"r" | b"R" | b"w" | b"W")
}

fn classify(line: &[u8], first: bool) -> Shape {
    if first && fio_version(line).is_some() {
        return Shape::Fixed(Format::Fio);
    }
    if is_blkparse_event(line) {
        return Shape::Fixed(Format::Blkparse);
    }
    if line.contains(&b',') {
        if first {
            if let Some(f) = Format::ALL.into_iter().find(|f| f.is_header(line)) {
                return Shape::Fixed(f);
            }
        }
        let mut fields = [&b""[..]; 8];
        let mut n = 0;
        for f in line.split(|&b| b == b',') {
            if n < fields.len() {
                fields[n] = trim(f);
            }
            n += 1;
        }
        let numeric0 = is_udecimal(fields[0]);
        if n == 7 && numeric0 && (fields[3].eq_ignore_ascii_case(b"read") || fields[3].eq_ignore_ascii_case(b"write")) {
            Shape::Fixed(Format::Msr)
        } else if n == 6 && numeric0 && (is_rw(fields[2]) || fields[2].is_empty()) {
            Shape::Fixed(Format::Systor)
        } else if n >= 5 && numeric0 && is_rw(fields[3]) {
            Shape::Fixed(Format::Spc)
        } else if n == 5 && numeric0 && is_rw(fields[1]) {
            Shape::Fixed(Format::Alibaba)
        } else if n == 5 && fields[..5].iter().all(|f| is_uint(f)) && matches!(fields[3], b"0" | b"1") {
            Shape::Fixed(Format::Cbs)
        } else {
            Shape::Unknown
        }
    } else {
        let mut fields = [&b""[..]; 5];
        let mut n = 0;
        for f in line.split(|b| matches!(b, b' ' | b'\t')).filter(|f| !f.is_empty()) {
            if n < 5 {
                fields[n] = f;
            }
            n += 1;
        }
        if n != 5 || !is_udecimal(fields[0]) || !fields[1..].iter().all(|f| is_uint(f)) {
            return Shape::Unknown;
        }
        let aligned =
            |f: &[u8]| std::str::from_utf8(f).ok().and_then(|s| s.parse::<u64>().ok()).is_some_and(|v| v % 512 == 0);
        Shape::Numeric {
            decimal_time: fields[0].contains(&b'.'),
            byte_aligned: aligned(fields[2]) && aligned(fields[3]),
        }
    }
}

fn family(s: Shape) -> Option<&'static str> {
    match s {
        Shape::Fixed(f) => Some(f.name()),
        Shape::Numeric { .. } => Some("disksim/ssdsim/msr-window (5 numeric columns)"),
        Shape::Unknown => None,
    }
}

/// Detects the format of a trace from its first lines (see the module docs for
/// the rule). Lines may keep their `\n`/`\r\n`; empty lines are skipped.
/// Returns the format and, for [`Format::Disksim`], the time unit. The error
/// says why and names the lines involved (numbered from 1 within `first_lines`).
pub fn detect<L: AsRef<[u8]>>(first_lines: &[L]) -> Result<(Format, Option<TimeUnit>), String> {
    let numbered: Vec<(u64, &[u8])> = first_lines.iter().enumerate().map(|(i, l)| (i as u64 + 1, l.as_ref())).collect();
    detect_numbered(&numbered)
}

/// [`detect`] on lines that carry their own (file) line numbers.
pub(crate) fn detect_numbered(lines: &[(u64, &[u8])]) -> Result<(Format, Option<TimeUnit>), String> {
    detect_explained(lines).map(|(f, u, _)| (f, u))
}

/// [`detect_numbered`], with a warning when the alignment rule (rules 1 and
/// 2 of the module docs) decided between `msr-window` and `disksim`: the
/// two read the same lines with sizes 512 times apart.
pub(crate) fn detect_explained(lines: &[(u64, &[u8])]) -> Result<(Format, Option<TimeUnit>, Option<String>), String> {
    let mut first_seen: Option<(u64, Shape)> = None;
    let mut decimal_time = false;
    let mut all_aligned = true;
    let mut first_unaligned: Option<u64> = None;
    let mut first_nonempty = true;
    let mut first_unknown: Option<(u64, &[u8])> = None;
    for &(no, raw) in lines {
        let line = trim(chomp(raw));
        if line.is_empty() {
            continue;
        }
        let shape = classify(line, first_nonempty);
        first_nonempty = false;
        let Some(fam) = family(shape) else {
            first_unknown.get_or_insert((no, line));
            continue;
        };
        if let Shape::Numeric { decimal_time: d, byte_aligned: a } = shape {
            decimal_time |= d;
            all_aligned &= a;
            if !a {
                first_unaligned.get_or_insert(no);
            }
        }
        match first_seen {
            None => first_seen = Some((no, shape)),
            Some((prev_no, prev)) if family(prev) != Some(fam) => {
                return Err(format!(
                    "ambiguous: line {prev_no} looks like {} but line {no} looks like {fam}; set the format explicitly",
                    family(prev).unwrap_or("?")
                ));
            }
            _ => {}
        }
    }
    match first_seen {
        Some((_, Shape::Fixed(f))) => Ok((f, None, None)),
        Some((_, Shape::Numeric { .. })) => Ok(match (decimal_time, all_aligned) {
            (true, true) => (
                Format::MsrWindow,
                None,
                Some(format!(
                    "detected as msr-window (addresses and sizes in bytes) only because every address and size in \
                     {} is a multiple of 512; --format disksim (trace.format) if they are 512-byte sectors",
                    sampled(lines.len())
                )),
            ),
            (true, false) => (
                Format::Disksim,
                Some(TimeUnit::Ms),
                Some(format!(
                    "detected as disksim (512-byte sectors) only because line {} has an address or size that is \
                     not a multiple of 512; --format msr-window (trace.format) if they are bytes",
                    first_unaligned.unwrap_or(0)
                )),
            ),
            (false, false) => (Format::Disksim, Some(TimeUnit::Ns), Some(whole_ns(lines.len()))),
            (false, true) => {
                return Err(format!(
                    "ambiguous: every time in {} is a whole number and every address and size a \
                     multiple of 512, which reads as disksim/ssdsim (ns, 512-byte sectors) or as msr-window (whole \
                     milliseconds, bytes), sizes 512 times apart; set the format explicitly (disksim, ssdsim or \
                     msr-window)",
                    sampled(lines.len())
                ))
            }
        }),
        _ => match first_unknown {
            None => Err("no non-empty line".to_string()),
            Some((no, line)) => Err(format!(
                "line {no} (`{}`) matches no supported format ({}); set the format explicitly",
                crate::error::printable(&line[..line.len().min(80)]),
                Format::ALL.map(|f| f.name()).join(", ")
            )),
        },
    }
}

/// Why whole-number times were read as nanoseconds (rule 3, or `disksim`
/// given without a unit): DiskSim's own traces count milliseconds.
pub(crate) fn whole_ns(lines: usize) -> String {
    format!(
        "times read as ns (SSDsim's and MQSim's convention) because every time in {} is a whole number; DiskSim's \
         own traces count ms: --time-unit ms (trace.time_unit) reads them so, --format ssdsim (trace.format) keeps \
         ns and silences this",
        sampled(lines)
    )
}

/// The lines a rule sampled: "the first 2 lines", or "the only line".
fn sampled(lines: usize) -> String {
    match lines {
        1 => "the only line".to_string(),
        n => format!("the first {n} lines"),
    }
}

/// The DiskSim time unit implied by sampled lines: ms if any time field
/// contains `.`, else ns.
pub(crate) fn disksim_unit(lines: &[(u64, &[u8])]) -> TimeUnit {
    let decimal = lines.iter().any(|(_, l)| {
        let l = trim(chomp(l));
        l.split(|b| matches!(b, b' ' | b'\t')).find(|f| !f.is_empty()).is_some_and(|f| f.contains(&b'.'))
    });
    if decimal {
        TimeUnit::Ms
    } else {
        TimeUnit::Ns
    }
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
