//! Parsing one trace line into a [`Request`] with an absolute time.
//!
//! Numbers are parsed from bytes without allocation. Integer columns must be
//! plain unsigned decimal integers. Time columns with a fraction are parsed
//! exactly as decimal text (integer part + fraction scaled to ns, rounded half
//! up at the first digit below 1 ns); only text with an exponent (`1e-3`) goes
//! through `f64`. Columns the simulator does not use (MSR Hostname and
//! ResponseTime, SYSTOR Response, SPC fields after the 5th) are not validated.
//!
//! `blkparse` and fio lines are read in [`crate::textlog`]: they carry state
//! (the fio version and file table, the `blkparse` summary at the end).

use crate::fields::{split_blank, split_csv};
use crate::format::{Format, TimeUnit};
use crate::textlog::{self, FioState};
use crate::{Op, Request};

/// Bytes per sector in the sector-addressed formats.
pub const SECTOR_BYTES: u64 = 512;

/// The result of parsing one data line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed {
    /// A request; `time_ns` is absolute in the format's own epoch (not rebased).
    Request(Request),
    /// A valid row without direction (SYSTOR blank IOType), not a request.
    NoDirection,
    /// A valid line that is not a request (a fio `open`, a `blkparse` event
    /// of another action, ...), counted under this reason.
    Skipped(&'static str),
}

/// Parses the lines of one file of one format, in order (fio and `blkparse`
/// lines depend on earlier lines; the other formats are line by line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineParser {
    format: Format,
    unit: TimeUnit,
    fio: FioState,
    in_summary: bool,
    /// Times with a decimal point read in whole nanoseconds (rounded): a
    /// DiskSim file in ms read as ns, for the reader to say so.
    pub(crate) rounded_ns: u64,
    /// Which quick path plain lines take first, if any.
    quick: Quick,
}

/// The quick path of a format's plain lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quick {
    /// None: every line goes to the general parser.
    No,
    /// SSDsim, DiskSim in ns ([`crate::quick`]).
    Blank,
    /// MSR, SYSTOR, SPC, Alibaba ([`crate::quick_csv`]).
    Csv,
}

impl LineParser {
    /// A parser for `format`. `time_unit` is required for (and only allowed
    /// with) [`Format::Disksim`]; the other formats have a fixed unit.
    pub fn new(format: Format, time_unit: Option<TimeUnit>) -> Result<Self, String> {
        match (format, time_unit) {
            (Format::Disksim, Some(unit)) => Ok(Self::with(format, unit)),
            (Format::Disksim, None) => Err("the disksim format needs a time unit (ns or ms)".into()),
            (_, Some(u)) => Err(format!("time_unit = \"{u}\" only applies to the disksim format, not to {format}")),
            (_, None) => Ok(Self::with(format, TimeUnit::Ns)),
        }
    }

    fn with(format: Format, unit: TimeUnit) -> Self {
        let quick = match format {
            Format::Ssdsim => Quick::Blank,
            Format::Disksim if unit == TimeUnit::Ns => Quick::Blank,
            Format::Msr | Format::Systor | Format::Spc | Format::Alibaba => Quick::Csv,
            _ => Quick::No,
        };
        LineParser { format, unit, fio: FioState::default(), in_summary: false, rounded_ns: 0, quick }
    }

    /// Takes the file's header line (see [`Format::is_header`]); a fio
    /// header sets the iolog version.
    pub fn header(&mut self, line: &[u8]) {
        if let Some(v) = crate::format::fio_version(line) {
            self.fio.version = Some(v);
        }
    }

    /// The format this parser reads.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Parses one line (without its line ending). The error says what was
    /// expected; the caller adds file and line number.
    #[inline]
    pub fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let quick = match self.quick {
            Quick::No => None,
            Quick::Blank => crate::quick::ssdsim_line(line),
            Quick::Csv => crate::quick_csv::csv_line(self.format, line),
        };
        match quick {
            Some(r) => Ok(Parsed::Request(r)),
            None => self.general(line),
        }
    }

    /// [`Self::parse`] without the quick path: every line of every format.
    pub(crate) fn general(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let format = self.format;
        if let Some(action) = format.blkparse_action() {
            return textlog::blkparse(line, action, &mut self.in_summary);
        }
        if format == Format::Fio {
            return self.fio.parse(line);
        }
        let mut f = [&b""[..]; 7];
        let n = if format.is_csv() { split_csv(line, &mut f) } else { split_blank(line, &mut f) };
        let want = format.field_count();
        let count_ok = if format == Format::Spc { n >= want } else { n == want };
        if !count_ok {
            let (sep, least) = match format {
                Format::Spc => ("comma-separated", "at least "),
                _ if format.is_csv() => ("comma-separated", ""),
                _ => ("whitespace-separated", ""),
            };
            return Err(format!("expected {least}{want} {sep} fields ({}), found {n}", format.columns()));
        }
        let col = |i: usize| Col(format, i);
        let req = match format {
            Format::Msr => {
                let ticks = uint(f[0], col(0), "an unsigned integer (100 ns FILETIME ticks)")?;
                let op = match f[3] {
                    x if x.eq_ignore_ascii_case(b"read") => Op::Read,
                    x if x.eq_ignore_ascii_case(b"write") => Op::Write,
                    x => return Err(bad(col(3), "`Read` or `Write`", x)),
                };
                Request {
                    time_ns: mul(ticks, 100, col(0))?,
                    device: uint32(f[2], col(2), "an unsigned integer (disk number)")?,
                    offset: uint(f[4], col(4), "an unsigned integer (bytes)")?,
                    size: size(f[5], col(5), 1)?,
                    op,
                }
            }
            Format::Spc => Request {
                device: uint32(f[0], col(0), "an unsigned integer (ASU)")?,
                offset: mul(uint(f[1], col(1), "an unsigned integer (512-byte sectors)")?, SECTOR_BYTES, col(1))?,
                size: size(f[2], col(2), 1)?,
                op: rw(f[3], col(3))?,
                time_ns: time(f[4], col(4), 9, "seconds")?,
            },
            Format::Systor => {
                let time_ns = time(f[0], col(0), 9, "Unix seconds")?;
                if f[2].is_empty() {
                    return Ok(Parsed::NoDirection);
                }
                Request {
                    time_ns,
                    op: rw(f[2], col(2))?,
                    device: uint32(f[3], col(3), "an unsigned integer (LUN)")?,
                    offset: uint(f[4], col(4), "an unsigned integer (bytes)")?,
                    size: size(f[5], col(5), 1)?,
                }
            }
            Format::Alibaba => Request {
                device: uint32(f[0], col(0), "an unsigned integer (device id)")?,
                op: rw(f[1], col(1))?,
                offset: uint(f[2], col(2), "an unsigned integer (bytes)")?,
                size: size(f[3], col(3), 1)?,
                time_ns: mul(uint(f[4], col(4), "an unsigned integer (µs since the epoch)")?, 1000, col(4))?,
            },
            Format::Cbs => Request {
                time_ns: time(f[0], col(0), 9, "Unix seconds")?,
                offset: mul(uint(f[1], col(1), "an unsigned integer (512-byte sectors)")?, SECTOR_BYTES, col(1))?,
                size: size(f[2], col(2), SECTOR_BYTES)?,
                op: match f[3] {
                    b"0" => Op::Read,
                    b"1" => Op::Write,
                    x => return Err(bad(col(3), "0 (read) or 1 (write)", x)),
                },
                device: uint32(f[4], col(4), "an unsigned integer (volume ID)")?,
            },
            Format::Blkparse | Format::BlkparseC | Format::Fio => {
                return Err(format!("{format} lines are read elsewhere"))
            }
            Format::Disksim | Format::Ssdsim | Format::MsrWindow => {
                let (digits, what) = match (format, self.unit) {
                    (Format::MsrWindow, _) | (Format::Disksim, TimeUnit::Ms) => (6, "milliseconds"),
                    _ => (0, "nanoseconds"),
                };
                // In whole ns a plain integer is read at once (as `time` would);
                // anything else is counted when it has a decimal point (rounded).
                let time_ns = match parse_u64(f[0]) {
                    Some(v) if digits == 0 => v,
                    _ => {
                        if digits == 0 && f[0].contains(&b'.') {
                            self.rounded_ns += 1;
                        }
                        time(f[0], col(0), digits, what)?
                    }
                };
                let sectors = format != Format::MsrWindow;
                let mult = if sectors { SECTOR_BYTES } else { 1 };
                let what_addr =
                    if sectors { "an unsigned integer (512-byte sectors)" } else { "an unsigned integer (bytes)" };
                // Fields checked in their order: a line's first bad field is the one named.
                Request {
                    time_ns,
                    device: uint32(f[1], col(1), "an unsigned integer (device)")?,
                    offset: mul(uint(f[2], col(2), what_addr)?, mult, col(2))?,
                    size: size(f[3], col(3), mult)?,
                    op: match f[4] {
                        b"1" => Op::Read,
                        b"0" => Op::Write,
                        x => return Err(bad(col(4), "1 (read) or 0 (write)", x)),
                    },
                }
            }
        };
        Ok(Parsed::Request(req))
    }
}

pub(crate) fn show(field: &[u8]) -> String {
    let s = crate::error::printable(&field[..field.len().min(40)]);
    if field.len() > 40 {
        format!("`{s}…`")
    } else {
        format!("`{s}`")
    }
}

/// A column of a format, named lazily (only on the error path).
#[derive(Clone, Copy)]
pub(crate) struct Col(pub(crate) Format, pub(crate) usize);

impl std::fmt::Display for Col {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = self.0.columns().split([',', ' ']).nth(self.1).unwrap_or("?");
        write!(f, "field {} ({name})", self.1 + 1)
    }
}

// The field readers below are inlined into each format's parse, and what
// they do on an error is kept out of line (#[cold]): a call and its setup
// cost more than reading a one-digit field.

#[cold]
pub(crate) fn bad(col: Col, expected: &str, found: &[u8]) -> String {
    format!("{col}: expected {expected}, found {}", show(found))
}

/// Parses a plain unsigned decimal integer.
#[inline]
pub fn parse_u64(f: &[u8]) -> Option<u64> {
    if f.is_empty() || f.len() > 20 {
        return None;
    }
    // 19 digits always fit in a u64 (< 10^19 < 2^64): only a 20th can overflow.
    let (head, last) = f.split_at(f.len().min(19));
    // Eight digits at a time while eight are left, then one by one (most
    // fields are short and take only the loop).
    let (mut v, mut rest) = (0u64, head);
    while let Some((c, tail)) = rest.split_first_chunk::<8>() {
        v = v * 100_000_000 + digits8(*c)?;
        rest = tail;
    }
    for &b in rest {
        v = v * 10 + digit(b)?;
    }
    match last {
        [] => Some(v),
        [b] => v.checked_mul(10)?.checked_add(digit(*b)?),
        _ => unreachable!("at most 20 digits"),
    }
}

#[inline(always)]
fn digit(b: u8) -> Option<u64> {
    let d = b.wrapping_sub(b'0');
    (d <= 9).then_some(u64::from(d))
}

/// The value of eight ASCII digits (the first the most significant), or
/// None if any byte is not a digit: a few word operations instead of a
/// loop (each step joins neighbouring lanes: digits into pairs, pairs into
/// fours, fours into eight).
#[inline(always)]
fn digits8(c: [u8; 8]) -> Option<u64> {
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    let x = u64::from_le_bytes(c);
    let d = x.wrapping_sub(0x3030_3030_3030_3030);
    // Every byte 0x30..=0x39: its high nibble 3, its low one below 10 (so
    // that adding 6 keeps the byte under 16; no byte carries into the next).
    if x & HIGH != 0x3030_3030_3030_3030 || d.wrapping_add(0x0606_0606_0606_0606) & HIGH != 0 {
        return None;
    }
    let d = (d * 10 + (d >> 8)) & 0x00FF_00FF_00FF_00FF;
    let d = (d * 100 + (d >> 16)) & 0x0000_FFFF_0000_FFFF;
    Some((d * 10_000 + (d >> 32)) & 0xFFFF_FFFF)
}

#[inline(always)]
pub(crate) fn uint(f: &[u8], col: Col, expected: &str) -> Result<u64, String> {
    parse_u64(f).ok_or_else(|| bad(col, expected, f))
}

#[inline(always)]
pub(crate) fn uint32(f: &[u8], col: Col, expected: &str) -> Result<u32, String> {
    parse_u64(f).and_then(|v| u32::try_from(v).ok()).ok_or_else(|| bad(col, expected, f))
}

#[inline(always)]
pub(crate) fn mul(v: u64, by: u64, col: Col) -> Result<u64, String> {
    v.checked_mul(by).ok_or_else(|| too_large(v, col))
}

#[cold]
fn too_large(v: u64, col: Col) -> String {
    format!("{col}: value {v} is too large")
}

/// A size in units of `mult` bytes, > 0 and at most `u32::MAX` bytes.
#[inline(always)]
pub(crate) fn size(f: &[u8], col: Col, mult: u64) -> Result<u32, String> {
    match parse_u64(f).map(|v| (v, v.checked_mul(mult).and_then(|b| u32::try_from(b).ok()))) {
        Some((v, Some(b))) if v > 0 => Ok(b),
        _ => Err(bad_size(f, col, mult)),
    }
}

#[cold]
fn bad_size(f: &[u8], col: Col, mult: u64) -> String {
    match parse_u64(f) {
        None if mult == 1 => bad(col, "a positive integer (bytes)", f),
        None => bad(col, "a positive integer (512-byte sectors)", f),
        Some(0) => format!("size 0 in {col}: a request must have a positive size"),
        Some(v) => format!("{col}: size {v} is too large (more than 4 GiB)"),
    }
}

#[inline(always)]
fn rw(f: &[u8], col: Col) -> Result<Op, String> {
    match f {
        b"r" | b"R" => Ok(Op::Read),
        b"w" | b"W" => Ok(Op::Write),
        _ => Err(bad(col, "`R` or `W`", f)),
    }
}

#[inline(always)]
pub(crate) fn time(f: &[u8], col: Col, digits: u32, unit: &str) -> Result<u64, String> {
    parse_scaled(f, digits).map_err(|why| bad_time(f, col, unit, why))
}

#[cold]
fn bad_time(f: &[u8], col: Col, unit: &str, why: &str) -> String {
    format!("{col}: expected a non-negative time in {unit}, found {} ({why})", show(f))
}

/// Parses a non-negative decimal number and returns `value × 10^digits`,
/// rounded to the nearest integer (half up). Plain decimals (`12`, `0.011413`,
/// `.5`) are exact; text with an exponent is parsed as `f64`. Errors say why:
/// negative, not finite, too large, or not a number.
#[inline]
pub fn parse_scaled(f: &[u8], digits: u32) -> Result<u64, &'static str> {
    // The common case, a plain integer, in one pass (what follows gives the
    // same value for it, or the same error when it overflows).
    match parse_u64(f).and_then(|v| v.checked_mul(10u64.checked_pow(digits)?)) {
        Some(v) => Ok(v),
        None => parse_decimal(f, digits),
    }
}

/// [`parse_scaled`] of any text. A plain decimal is read in one pass over
/// each part: the integer part, then the fraction's first `digits` digits,
/// both as integers; only a failure looks again at why (too large, or not
/// plain, which `f64` then reads).
fn parse_decimal(f: &[u8], digits: u32) -> Result<u64, &'static str> {
    let (int, frac) = match f.iter().position(|&b| b == b'.') {
        Some(p) => (&f[..p], &f[p + 1..]),
        None => (f, &f[f.len()..]),
    };
    let plain = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    if int.is_empty() && frac.is_empty() {
        return parse_scaled_f64(f, digits);
    }
    // Leading zeros do not count against the 20 digits a u64 holds.
    let int = &int[int.iter().take_while(|&&b| b == b'0').count()..];
    let part = |s: &[u8]| if s.is_empty() { Some(0) } else { parse_u64(s) };
    let keep = frac.len().min(digits as usize);
    let (head, rest) = frac.split_at(keep);
    match (part(int), part(head), 10u64.checked_pow(digits)) {
        (Some(ip), Some(fp), Some(pow)) if plain(rest) => {
            // Scaled to `digits` places (below 10^digits: no overflow).
            let fp = fp * 10u64.pow(digits - keep as u32);
            let round_up = rest.first().is_some_and(|&b| b >= b'5');
            ip.checked_mul(pow).and_then(|v| v.checked_add(fp + u64::from(round_up))).ok_or("too large")
        }
        _ if plain(int) && plain(frac) => Err("too large"),
        _ => parse_scaled_f64(f, digits),
    }
}

fn parse_scaled_f64(f: &[u8], digits: u32) -> Result<u64, &'static str> {
    let v: f64 = std::str::from_utf8(f).ok().and_then(|s| s.parse().ok()).ok_or("not a number")?;
    if !v.is_finite() {
        return Err("not finite");
    }
    if v < 0.0 {
        return Err("negative");
    }
    let scaled = (v * 10f64.powi(digits as i32)).round();
    if scaled >= u64::MAX as f64 {
        return Err("too large");
    }
    Ok(scaled as u64)
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
