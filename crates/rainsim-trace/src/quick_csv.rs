//! The quick path of the comma-separated formats (MSR Cambridge, SYSTOR'17,
//! UMass SPC, Alibaba): one pass over the bytes of a plain line.
//!
//! As in [`crate::quick`], a line is read here only when the general parser
//! would read it to the same request: no blank anywhere in the fields it
//! reads (the general parser trims them), integers of 1 to 19 digits,
//! times with at most nine decimals (exact in ns, nothing to round), every
//! value in range. Anything else is handed back (`None`) for the general
//! parser, which reads it or names what is wrong. The columns the simulator
//! does not use are skipped unread, as the general parser leaves them.

use crate::format::Format;
use crate::parse::SECTOR_BYTES;
use crate::quick::leading_digits;
use crate::{Op, Request};

/// A line's request if it is a plain line of `format` (one of the four);
/// `None` for anything else, other formats included.
#[inline]
pub(crate) fn csv_line(format: Format, line: &[u8]) -> Option<Request> {
    let mut c = Cursor { s: line };
    let r = match format {
        // Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
        Format::Msr => {
            let ticks = c.uint()?;
            c.comma()?;
            c.skip();
            c.comma()?;
            let device = u32::try_from(c.uint()?).ok()?;
            c.comma()?;
            let op = match c.word() {
                w if w.eq_ignore_ascii_case(b"read") => Op::Read,
                w if w.eq_ignore_ascii_case(b"write") => Op::Write,
                _ => return None,
            };
            c.comma()?;
            let offset = c.uint()?;
            c.comma()?;
            let size = c.size()?;
            c.comma()?;
            c.skip();
            Request { time_ns: ticks.checked_mul(100)?, device, offset, size, op }
        }
        // Timestamp,Response,IOType,LUN,Offset,Size
        Format::Systor => {
            let time_ns = c.seconds()?;
            c.comma()?;
            c.skip();
            c.comma()?;
            let op = c.rw()?;
            c.comma()?;
            let device = u32::try_from(c.uint()?).ok()?;
            c.comma()?;
            let offset = c.uint()?;
            c.comma()?;
            Request { time_ns, op, device, offset, size: c.size()? }
        }
        // ASU,LBA,Size,Opcode,Timestamp[,...]
        Format::Spc => {
            let device = u32::try_from(c.uint()?).ok()?;
            c.comma()?;
            let offset = c.uint()?.checked_mul(SECTOR_BYTES)?;
            c.comma()?;
            let size = c.size()?;
            c.comma()?;
            let op = c.rw()?;
            c.comma()?;
            let time_ns = c.seconds()?;
            // Columns after the fifth are not read.
            if c.s.first() == Some(&b',') {
                c.s = &[];
            }
            Request { device, offset, size, op, time_ns }
        }
        // device_id,opcode,offset,length,timestamp (µs)
        Format::Alibaba => {
            let device = u32::try_from(c.uint()?).ok()?;
            c.comma()?;
            let op = c.rw()?;
            c.comma()?;
            let offset = c.uint()?;
            c.comma()?;
            let size = c.size()?;
            c.comma()?;
            Request { device, op, offset, size, time_ns: c.uint()?.checked_mul(1000)? }
        }
        _ => return None,
    };
    // The line ends here: the general parser would find another field.
    c.s.is_empty().then_some(r)
}

/// The rest of a line.
struct Cursor<'a> {
    s: &'a [u8],
}

impl Cursor<'_> {
    /// Skips one comma.
    #[inline(always)]
    fn comma(&mut self) -> Option<()> {
        let (&b, rest) = self.s.split_first()?;
        (b == b',').then(|| self.s = rest)
    }

    /// Takes the bytes up to the next comma (or the end).
    #[inline(always)]
    fn word(&mut self) -> &[u8] {
        let n = self.s.iter().position(|&b| b == b',').unwrap_or(self.s.len());
        let (w, rest) = self.s.split_at(n);
        self.s = rest;
        w
    }

    /// Skips a column the simulator does not read.
    #[inline(always)]
    fn skip(&mut self) {
        self.word();
    }

    /// 1 to 19 digits (so no overflow); the next byte is not a digit.
    #[inline(always)]
    fn uint(&mut self) -> Option<u64> {
        Some(self.digits(19)?.0)
    }

    /// Up to `most` digits, at least one: their value and count.
    #[inline(always)]
    fn digits(&mut self, most: usize) -> Option<(u64, usize)> {
        let (v, n) = leading_digits(self.s, most)?;
        self.s = &self.s[n..];
        Some((v, n))
    }

    /// A size in bytes: positive and at most `u32::MAX`.
    #[inline(always)]
    fn size(&mut self) -> Option<u32> {
        u32::try_from(self.uint()?).ok().filter(|&v| v > 0)
    }

    /// `R` or `W`, either case, alone in its column.
    #[inline(always)]
    fn rw(&mut self) -> Option<Op> {
        let op = match self.s.first()? {
            b'r' | b'R' => Op::Read,
            b'w' | b'W' => Op::Write,
            _ => return None,
        };
        self.s = &self.s[1..];
        matches!(self.s.first(), None | Some(b',')).then_some(op)
    }

    /// Seconds as decimal text (an integer part, then optionally a point
    /// and 1 to 9 decimals) in whole nanoseconds.
    #[inline(always)]
    fn seconds(&mut self) -> Option<u64> {
        const NS: u64 = 1_000_000_000;
        let int = self.uint()?;
        let frac = match self.s.split_first() {
            Some((b'.', rest)) => {
                self.s = rest;
                let (v, n) = self.digits(9)?;
                v * 10u64.pow(9 - n as u32)
            }
            _ => 0,
        };
        int.checked_mul(NS)?.checked_add(frac)
    }
}

#[cfg(test)]
#[path = "quick_csv_tests.rs"]
mod tests;
