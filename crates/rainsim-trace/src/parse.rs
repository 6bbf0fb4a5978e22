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
mod tests {
    use super::*;

    /// Which formats take which quick path: SSDsim and DiskSim in ns the
    /// blank-separated one (DiskSim in ms never: its integer times are ms),
    /// the four comma-separated formats it reads the other, the rest none.
    #[test]
    fn each_format_takes_its_quick_path() {
        for format in Format::ALL {
            let units: &[Option<TimeUnit>] =
                if format == Format::Disksim { &[Some(TimeUnit::Ns), Some(TimeUnit::Ms)] } else { &[None] };
            for &unit in units {
                let want = match (format, unit) {
                    (Format::Ssdsim, _) | (Format::Disksim, Some(TimeUnit::Ns)) => Quick::Blank,
                    (Format::Msr | Format::Systor | Format::Spc | Format::Alibaba, _) => Quick::Csv,
                    _ => Quick::No,
                };
                assert_eq!(LineParser::new(format, unit).unwrap().quick, want, "{format} {unit:?}");
            }
        }
        // A DiskSim line in ms with an integer time is read in ms.
        let mut ms = LineParser::new(Format::Disksim, Some(TimeUnit::Ms)).unwrap();
        let Ok(Parsed::Request(r)) = ms.parse(b"3 0 8 8 1") else { panic!("not read") };
        assert_eq!(r.time_ns, 3_000_000);
    }

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
        assert_eq!(parse_scaled(b"0000000000000000000000012.5", 1), Ok(125), "leading zeros past 20 digits");
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

    /// `value × 10^digits` of a plain decimal by its definition, in u128
    /// (rounded half up on the digit after the last kept), None past u64.
    fn scaled_by_definition(int: &str, frac: &str, digits: u32) -> Option<u64> {
        let int: u128 = if int.is_empty() { 0 } else { int.parse().unwrap() };
        let mut kept: String = frac.chars().take(digits as usize).collect();
        while kept.len() < digits as usize {
            kept.push('0');
        }
        let fp: u128 = if kept.is_empty() { 0 } else { kept.parse().unwrap() };
        let up = frac.as_bytes().get(digits as usize).is_some_and(|&b| b >= b'5');
        u64::try_from(int * 10u128.pow(digits) + fp + u128::from(up)).ok()
    }

    proptest::proptest! {
        /// Plain decimals (integer part, fraction or both, up to 22 and 24
        /// digits, leading zeros past 20 included) read exactly as defined,
        /// overflow included, at the
        /// formats' scales and others; a stray byte hands the text to the
        /// `f64` path, which agrees with `f64` parsing.
        #[test]
        fn plain_decimals_scale_as_defined(
            int in "[0-9]{0,22}",
            frac in proptest::option::of("[0-9]{0,24}"),
            digits in proptest::sample::select(vec![0u32, 1, 6, 9, 12]),
            stray in proptest::option::of((0usize..30, proptest::sample::select(vec![b'e', b'-', b'/', b':', b' ']))),
        ) {
            let mut text = int.clone().into_bytes();
            if let Some(fr) = &frac {
                text.push(b'.');
                text.extend(fr.bytes());
            }
            let got = parse_scaled(&text, digits);
            if int.is_empty() && frac.as_deref().unwrap_or("").is_empty() {
                proptest::prop_assert_eq!(got, Err("not a number"));
            } else {
                let want = scaled_by_definition(&int, frac.as_deref().unwrap_or(""), digits).ok_or("too large");
                proptest::prop_assert_eq!(got, want);
            }
            if let Some((at, b)) = stray {
                text.insert(at.min(text.len()), b);
                proptest::prop_assert_eq!(parse_scaled(&text, digits), parse_scaled_f64(&text, digits));
            }
        }

        /// `parse_u64` is `str::parse` on ASCII digits, up to 20 of them,
        /// overflow included, and refuses anything else: mostly digits,
        /// with the bytes next to them (`/`, `:`) and ones that differ from a
        /// digit by one bit (0xB0 = `0` | 0x80, `p` = `0` | 0x40, `?`),
        /// up to 21 bytes (every length of the eight-at-a-time path).
        #[test]
        fn parse_u64_is_str_parse_on_digits(
            text in proptest::collection::vec(proptest::prop_oneof![
                12 => proptest::sample::select(b"0123456789".to_vec()),
                1 => proptest::sample::select(vec![b'/', b':', b'+', b'.', b' ', 0xB0, b'p', b'?', b'9' | 0x80]),
            ], 0..22),
            big in 18_446_744_073_709_551_000u64..=u64::MAX,
        ) {
            let want = |t: &[u8]| {
                let digits = !t.is_empty() && t.len() <= 20 && t.iter().all(u8::is_ascii_digit);
                digits.then(|| std::str::from_utf8(t).unwrap().parse::<u64>().ok()).flatten()
            };
            proptest::prop_assert_eq!(parse_u64(&text), want(&text));
            // Near u64::MAX and just past it (a 20-digit text ending in 0–9 more).
            let near = big.to_string();
            proptest::prop_assert_eq!(parse_u64(near.as_bytes()), Some(big));
            let past = format!("{}{}", &near[..19], (big % 10 + 6) % 10);
            proptest::prop_assert_eq!(parse_u64(past.as_bytes()), want(past.as_bytes()));
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
        // Two bad fields: the first in the line is named.
        let e = p.parse(b"x5 0 1 1 2").unwrap_err();
        assert!(e.contains("field 1") && e.contains("`x5`"), "{e}");
        // Sizes: not a number, zero, past 4 GiB (in bytes, after the sectors).
        let e = p.parse(b"5 0 1 8x 1").unwrap_err();
        assert!(
            e.contains("field 4") && e.contains("expected a positive integer (512-byte sectors), found `8x`"),
            "{e}"
        );
        let e = p.parse(b"5 0 1 0 1").unwrap_err();
        assert!(e.starts_with("size 0 in field 4"), "{e}");
        let e = p.parse(b"5 0 1 8388608 1").unwrap_err();
        assert!(e.contains("field 4") && e.ends_with("size 8388608 is too large (more than 4 GiB)"), "{e}");
        assert!(p.parse(b"5 0 1 8388607 1").is_ok(), "4 GiB less a sector");
        let e = p.parse(b"5x 0 1 1 1").unwrap_err();
        assert!(e.contains("field 1") && e.contains("expected a non-negative time in nanoseconds, found `5x`"), "{e}");
        let e = p.parse(b"5 0 18446744073709551615 1 1").unwrap_err();
        assert!(e.contains("field 3") && e.ends_with("value 18446744073709551615 is too large"), "{e}");
        assert!(LineParser::new(Format::Msr, Some(TimeUnit::Ms)).is_err());
        assert!(LineParser::new(Format::Disksim, None).is_err());
    }

    /// A wrong field count names the separator and, for SPC (extra columns
    /// allowed), says "at least".
    #[test]
    fn a_wrong_field_count_names_the_separator_and_spcs_least() {
        let mut spc = LineParser::new(Format::Spc, None).unwrap();
        assert_eq!(
            spc.parse(b"0,657728,8192,R").unwrap_err(),
            "expected at least 5 comma-separated fields (ASU,LBA,Size,Opcode,Timestamp), found 4"
        );
        let mut disksim = LineParser::new(Format::Disksim, Some(TimeUnit::Ns)).unwrap();
        assert_eq!(
            disksim.parse(b"11413000 0 657728 16").unwrap_err(),
            "expected 5 whitespace-separated fields (arrival_time device lba_sectors size_sectors type), found 4"
        );
    }

    /// Only times with a decimal point read in whole ns are counted as
    /// rounded (the reader's note that the file may be in ms); times in ms,
    /// and whole or exponent ns, are exact.
    #[test]
    fn only_decimal_times_read_as_whole_ns_count_as_rounded() {
        let read = |p: &mut LineParser, line: &[u8]| match p.parse(line) {
            Ok(Parsed::Request(r)) => r.time_ns,
            other => panic!("{other:?}"),
        };
        let mut ns = LineParser::new(Format::Disksim, Some(TimeUnit::Ns)).unwrap();
        assert_eq!(read(&mut ns, b"7 0 8 8 1"), 7);
        assert_eq!(read(&mut ns, b"1e3 0 8 8 1"), 1000);
        assert_eq!(ns.rounded_ns, 0);
        assert_eq!(read(&mut ns, b"1.5 0 8 8 1"), 2);
        assert_eq!(read(&mut ns, b"2.25 0 8 8 1"), 2);
        assert_eq!(ns.rounded_ns, 2);
        // DiskSim in ms and msr-window (ms): 1.5 ms and 223.412 ms, exact.
        let mut ms = LineParser::new(Format::Disksim, Some(TimeUnit::Ms)).unwrap();
        assert_eq!(read(&mut ms, b"1.5 0 8 8 1"), 1_500_000);
        let mut window = LineParser::new(Format::MsrWindow, None).unwrap();
        assert_eq!(read(&mut window, b"223.412 0 3159347200 36864 0"), 223_412_000);
        assert_eq!((ms.rounded_ns, window.rounded_ns), (0, 0));
    }

    /// A bad size names its unit: bytes in MSR, 512-byte sectors in DiskSim.
    #[test]
    fn a_bad_size_names_its_unit() {
        let mut msr = LineParser::new(Format::Msr, None).unwrap();
        assert_eq!(
            msr.parse(b"128166385295514663,hm,0,Write,9056014336,2k,2833").unwrap_err(),
            "field 6 (Size): expected a positive integer (bytes), found `2k`"
        );
        let mut disksim = LineParser::new(Format::Disksim, Some(TimeUnit::Ns)).unwrap();
        assert_eq!(
            disksim.parse(b"11413000 0 657728 2k 1").unwrap_err(),
            "field 4 (size_sectors): expected a positive integer (512-byte sectors), found `2k`"
        );
    }

    /// Zero written with an exponent (as printf's `%e` writes it) is a
    /// time of 0, not a negative one.
    #[test]
    fn zero_with_an_exponent_is_zero_not_negative() {
        assert_eq!(parse_scaled(b"0.000000e+00", 9), Ok(0));
        assert_eq!(parse_scaled(b"0e0", 6), Ok(0));
        assert_eq!(parse_scaled(b"1.500000e+00", 9), Ok(1_500_000_000));
    }

    /// A field quoted in an error is shown whole up to 40 bytes, and cut
    /// with an ellipsis after that.
    #[test]
    fn a_quoted_field_is_whole_up_to_40_bytes_and_cut_after() {
        let forty = "x".repeat(40);
        assert_eq!(show(forty.as_bytes()), format!("`{forty}`"));
        assert_eq!(show(format!("{forty}y").as_bytes()), format!("`{forty}…`"));
        assert_eq!(show(b"abc"), "`abc`");
    }

    #[test]
    fn systor_blank_iotype_has_no_direction() {
        let mut p = LineParser::new(Format::Systor, None).unwrap();
        assert_eq!(p.parse(b"1456095145.133076000,0,,0,0,4096"), Ok(Parsed::NoDirection));
    }
}
