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

use crate::format::{trim, Format, TimeUnit};
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
        LineParser { format, unit, fio: FioState::default(), in_summary: false }
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
    pub fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let format = self.format;
        if let Some(action) = format.blkparse_action() {
            return textlog::blkparse(line, action, &mut self.in_summary);
        }
        if format == Format::Fio {
            return self.fio.parse(line);
        }
        let mut f = [&b""[..]; 7];
        let n = if format.is_csv() {
            split_into(line.split(|&b| b == b',').map(trim), &mut f)
        } else {
            split_blank(line, &mut f)
        };
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
                let sectors = format != Format::MsrWindow;
                let mult = if sectors { SECTOR_BYTES } else { 1 };
                let op = match f[4] {
                    b"1" => Op::Read,
                    b"0" => Op::Write,
                    x => return Err(bad(col(4), "1 (read) or 0 (write)", x)),
                };
                let what_addr =
                    if sectors { "an unsigned integer (512-byte sectors)" } else { "an unsigned integer (bytes)" };
                Request {
                    time_ns: time(f[0], col(0), digits, what)?,
                    device: uint32(f[1], col(1), "an unsigned integer (device)")?,
                    offset: mul(uint(f[2], col(2), what_addr)?, mult, col(2))?,
                    size: size(f[3], col(3), mult)?,
                    op,
                }
            }
        };
        Ok(Parsed::Request(req))
    }
}

/// Splits into `out`, returning the total number of fields (may exceed `out.len()`).
fn split_into<'a>(it: impl Iterator<Item = &'a [u8]>, out: &mut [&'a [u8]; 7]) -> usize {
    let mut n = 0;
    for s in it {
        if n < out.len() {
            out[n] = s;
        }
        n += 1;
    }
    n
}

/// [`split_into`] of the fields between runs of spaces and tabs (no empty
/// fields), in one pass over the line.
fn split_blank<'a>(line: &'a [u8], out: &mut [&'a [u8]; 7]) -> usize {
    let blank = |b: u8| b == b' ' || b == b'\t';
    let (mut n, mut i) = (0, 0);
    loop {
        while i < line.len() && blank(line[i]) {
            i += 1;
        }
        if i == line.len() {
            return n;
        }
        let start = i;
        while i < line.len() && !blank(line[i]) {
            i += 1;
        }
        if n < out.len() {
            out[n] = &line[start..i];
        }
        n += 1;
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

pub(crate) fn bad(col: Col, expected: &str, found: &[u8]) -> String {
    format!("{col}: expected {expected}, found {}", show(found))
}

/// Parses a plain unsigned decimal integer.
pub fn parse_u64(f: &[u8]) -> Option<u64> {
    if f.is_empty() || f.len() > 20 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in f {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

pub(crate) fn uint(f: &[u8], col: Col, expected: &str) -> Result<u64, String> {
    parse_u64(f).ok_or_else(|| bad(col, expected, f))
}

pub(crate) fn uint32(f: &[u8], col: Col, expected: &str) -> Result<u32, String> {
    parse_u64(f).and_then(|v| u32::try_from(v).ok()).ok_or_else(|| bad(col, expected, f))
}

pub(crate) fn mul(v: u64, by: u64, col: Col) -> Result<u64, String> {
    v.checked_mul(by).ok_or_else(|| format!("{col}: value {v} is too large"))
}

/// A size in units of `mult` bytes, > 0 and at most `u32::MAX` bytes.
pub(crate) fn size(f: &[u8], col: Col, mult: u64) -> Result<u32, String> {
    let what = if mult == 1 { "a positive integer (bytes)" } else { "a positive integer (512-byte sectors)" };
    let v = uint(f, col, what)?;
    if v == 0 {
        return Err(format!("size 0 in {col}: a request must have a positive size"));
    }
    v.checked_mul(mult)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| format!("{col}: size {v} is too large (more than 4 GiB)"))
}

fn rw(f: &[u8], col: Col) -> Result<Op, String> {
    match f {
        b"r" | b"R" => Ok(Op::Read),
        b"w" | b"W" => Ok(Op::Write),
        _ => Err(bad(col, "`R` or `W`", f)),
    }
}

pub(crate) fn time(f: &[u8], col: Col, digits: u32, unit: &str) -> Result<u64, String> {
    parse_scaled(f, digits)
        .map_err(|why| format!("{col}: expected a non-negative time in {unit}, found {} ({why})", show(f)))
}

/// Parses a non-negative decimal number and returns `value × 10^digits`,
/// rounded to the nearest integer (half up). Plain decimals (`12`, `0.011413`,
/// `.5`) are exact; text with an exponent is parsed as `f64`. Errors say why:
/// negative, not finite, too large, or not a number.
pub fn parse_scaled(f: &[u8], digits: u32) -> Result<u64, &'static str> {
    // The common case, a plain integer, in one pass (what follows gives the
    // same value for it, or the same error when it overflows).
    match parse_u64(f).and_then(|v| v.checked_mul(10u64.checked_pow(digits)?)) {
        Some(v) => Ok(v),
        None => parse_decimal(f, digits),
    }
}

/// [`parse_scaled`] of any text.
fn parse_decimal(f: &[u8], digits: u32) -> Result<u64, &'static str> {
    let dot = f.iter().position(|&b| b == b'.');
    let (int, frac) = match dot {
        Some(p) => (&f[..p], &f[p + 1..]),
        None => (f, &f[f.len()..]),
    };
    let plain = !(int.is_empty() && frac.is_empty()) && int.iter().chain(frac).all(u8::is_ascii_digit);
    if !plain {
        return parse_scaled_f64(f, digits);
    }
    let pow = 10u64.checked_pow(digits).ok_or("too large")?;
    let ip = if int.is_empty() { 0 } else { parse_u64(int).ok_or("too large")? };
    let mut fp: u64 = 0;
    for k in 0..digits as usize {
        fp = fp * 10 + frac.get(k).map_or(0, |b| u64::from(b - b'0'));
    }
    let round_up = frac.get(digits as usize).is_some_and(|&b| b >= b'5');
    ip.checked_mul(pow).and_then(|v| v.checked_add(fp + u64::from(round_up))).ok_or("too large")
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
mod tests {
    use super::*;

    #[test]
    fn scaled_decimals_are_exact() {
        assert_eq!(parse_scaled(b"1456095145.133076000", 9), Ok(1_456_095_145_133_076_000));
        assert_eq!(parse_scaled(b"0.011413", 9), Ok(11_413_000));
        assert_eq!(parse_scaled(b"223.412", 6), Ok(223_412_000));
        assert_eq!(parse_scaled(b"12", 0), Ok(12));
        assert_eq!(parse_scaled(b"1.5", 0), Ok(2));
        assert_eq!(parse_scaled(b".5", 1), Ok(5));
        assert_eq!(parse_scaled(b"0.0000000004", 9), Ok(0));
        assert_eq!(parse_scaled(b"0.0000000005", 9), Ok(1));
        assert_eq!(parse_scaled(b"1e-3", 9), Ok(1_000_000));
        assert_eq!(parse_scaled(b"-1", 9), Err("negative"));
        assert_eq!(parse_scaled(b"inf", 9), Err("not finite"));
        assert_eq!(parse_scaled(b"NaN", 9), Err("not finite"));
        assert_eq!(parse_scaled(b"", 9), Err("not a number"));
        assert_eq!(parse_scaled(b".", 9), Err("not a number"));
        assert_eq!(parse_scaled(b"1x", 9), Err("not a number"));
        assert_eq!(parse_scaled(b"99999999999999999999", 9), Err("too large"));
    }

    /// The one-pass integer path of `parse_scaled` agrees with the general
    /// one, overflow included.
    #[test]
    fn scaled_integers_take_the_general_paths_value() {
        let mut ints: Vec<String> = ["0", "7", "12", "000123", "18446744073709551615", "18446744073709551616"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ints.push((x >> (x % 64)).to_string());
        }
        for s in &ints {
            for digits in 0..=12 {
                assert_eq!(
                    parse_scaled(s.as_bytes(), digits),
                    parse_decimal(s.as_bytes(), digits),
                    "{s} × 10^{digits}"
                );
            }
        }
    }

    /// Blank-separated fields: runs of spaces and tabs separate, nothing
    /// else does, and no field is empty; the count goes past the array.
    #[test]
    fn blank_fields_split_as_split_and_filter_would() {
        for line in ["1 2 3", "  1\t 2   3  ", "\t\t", "", "a", "1 2 3 4 5 6 7 8 9", "1,2 3\r", " x\ty z "] {
            let line = line.as_bytes();
            let want: Vec<&[u8]> = line.split(|b| matches!(b, b' ' | b'\t')).filter(|s| !s.is_empty()).collect();
            let mut got = [&b""[..]; 7];
            let n = split_blank(line, &mut got);
            assert_eq!(n, want.len(), "{line:?}");
            assert_eq!(&got[..n.min(7)], &want[..n.min(7)], "{line:?}");
        }
    }

    #[test]
    fn integers() {
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"1.0"), None);
        assert_eq!(parse_u64(b"+1"), None);
        assert_eq!(parse_u64(b""), None);
    }

    #[test]
    fn field_errors_name_the_column() {
        let mut p = LineParser::new(Format::Msr, None).unwrap();
        let e = p.parse(b"1,hm,0,Write,9056014336").unwrap_err();
        assert!(e.starts_with("expected 7 comma-separated fields (Timestamp,Hostname,"), "{e}");
        assert!(e.ends_with("found 5"), "{e}");
        let e = p.parse(b"1,hm,0,Write,9056014336,0,1").unwrap_err();
        assert!(e.starts_with("size 0"), "{e}");
        let e = p.parse(b"1,hm,0,Delete,9056014336,512,1").unwrap_err();
        assert!(e.contains("field 4 (Type)") && e.contains("`Delete`"), "{e}");
        let mut p = LineParser::new(Format::Disksim, Some(TimeUnit::Ns)).unwrap();
        let e = p.parse(b"-5 0 1 1 1").unwrap_err();
        assert!(e.contains("negative"), "{e}");
        let e = p.parse(b"5 0 1 1 2").unwrap_err();
        assert!(e.contains("1 (read) or 0 (write)"), "{e}");
        assert!(LineParser::new(Format::Msr, Some(TimeUnit::Ms)).is_err());
        assert!(LineParser::new(Format::Disksim, None).is_err());
    }

    #[test]
    fn systor_blank_iotype_has_no_direction() {
        let mut p = LineParser::new(Format::Systor, None).unwrap();
        assert_eq!(p.parse(b"1456095145.133076000,0,,0,0,4096"), Ok(Parsed::NoDirection));
    }
}
