//! The quick path of the SSDsim and DiskSim (ns) line: five blank-separated
//! plain integers, read in one pass over the bytes.
//!
//! It reads only lines it is sure of (every field 1 to 19 digits, the last
//! `0` or `1`, every value in range) and hands anything else back, so the
//! general parser ([`crate::parse::LineParser::parse`]) reads it and names
//! what is wrong. A line it reads gives the request the general parser
//! would: a test holds the two to each other on random lines.

use crate::fields::is_blank;
use crate::parse::SECTOR_BYTES;
use crate::{Op, Request};

/// A line's request if it is a plain SSDsim line: `time_ns device lsn
/// size_sectors op`, fields separated (and optionally led and followed) by
/// spaces and tabs; `None` for anything else.
#[inline]
pub(crate) fn ssdsim_line(line: &[u8]) -> Option<Request> {
    let mut rest = line;
    let time_ns = field(&mut rest)?;
    let device = u32::try_from(field(&mut rest)?).ok()?;
    // Below 2^55 a sector number times 512 fits a u64.
    let lsn = field(&mut rest)?;
    let sectors = field(&mut rest)?;
    if lsn >= 1 << 55 || sectors == 0 || sectors > u64::from(u32::MAX) / SECTOR_BYTES {
        return None;
    }
    let op = match skip_blanks(rest) {
        [b'1', tail @ ..] if skip_blanks(tail).is_empty() => Op::Read,
        [b'0', tail @ ..] if skip_blanks(tail).is_empty() => Op::Write,
        _ => return None,
    };
    Some(Request { time_ns, device, offset: lsn * SECTOR_BYTES, size: (sectors * SECTOR_BYTES) as u32, op })
}

/// The field at the start of `rest` (after blanks), 1 to 19 digits (so no
/// overflow) and followed by a blank; `rest` moves past it.
#[inline(always)]
fn field(rest: &mut &[u8]) -> Option<u64> {
    let start = skip_blanks(rest);
    let (v, n) = leading_digits(start, 19)?;
    let s = &start[n..];
    if !s.first().is_some_and(|&b| is_blank(b)) {
        return None;
    }
    *rest = s;
    Some(v)
}

/// The value and the number of the digits `s` starts with, when there are
/// 1 to `most` of them (`most` at most 19: no overflow).
#[inline(always)]
pub(crate) fn leading_digits(s: &[u8], most: usize) -> Option<(u64, usize)> {
    let mut rest = s;
    let mut v = 0u64;
    while let [b, tail @ ..] = rest {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        // Wraps past 19 digits, which are refused below.
        v = v.wrapping_mul(10).wrapping_add(u64::from(d));
        rest = tail;
    }
    let n = s.len() - rest.len();
    (1..=most).contains(&n).then_some((v, n))
}

/// `s` without its leading blanks.
#[inline(always)]
fn skip_blanks(mut s: &[u8]) -> &[u8] {
    while let [b, tail @ ..] = s {
        if !is_blank(*b) {
            break;
        }
        s = tail;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{Format, TimeUnit};
    use crate::parse::{LineParser, Parsed};

    fn general(line: &[u8]) -> Result<Parsed, String> {
        LineParser::new(Format::Ssdsim, None).unwrap().general(line)
    }

    #[test]
    fn reads_plain_lines_and_hands_back_the_rest() {
        let r = ssdsim_line(b"14429 0 8558696 8 0").unwrap();
        assert_eq!((r.time_ns, r.device, r.offset, r.size, r.op), (14429, 0, 8558696 * 512, 4096, Op::Write));
        let r = ssdsim_line(b"\t 7\t3  2 1 1 \t").unwrap();
        assert_eq!((r.time_ns, r.device, r.offset, r.size, r.op), (7, 3, 1024, 512, Op::Read));
        for bad in [
            &b""[..],
            b"1 0 2 8",
            b"1 0 2 8 2",
            b"1 0 2 8 01",
            b"1 0 2 0 1",
            b"1.5 0 2 8 1",
            b"1 0 2 8 1 9",
            b"1 4294967296 2 8 1",
            b"1 0 2 8388608 1",
            b"12345678901234567890 0 2 8 1",
            b"1 0 36028797018963968 8 1",
            b"1 0 2 8 1\r",
        ] {
            assert_eq!(ssdsim_line(bad), None, "{}", String::from_utf8_lossy(bad));
        }
        // Just inside each limit, the general parser agrees.
        for edge in [&b"1 4294967295 36028797018963967 8388607 0"[..], b"9999999999999999999 0 0 1 1"] {
            assert_eq!(Ok(Parsed::Request(ssdsim_line(edge).unwrap())), general(edge));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        /// Every plain line in range is read, to the request the general
        /// parser reads.
        #[test]
        fn reads_every_plain_line(
            time in proptest::prop_oneof![0u64..1 << 40, 0u64..10_000_000_000_000_000_000],
            device in proptest::prop_oneof![0u32..16, proptest::num::u32::ANY],
            lsn in proptest::prop_oneof![0u64..1 << 28, 0u64..1 << 55],
            sectors in proptest::prop_oneof![1u64..=64, 1u64..=8_388_607],
            read: bool,
            sep in "[ \t]{1,3}",
        ) {
            let line = [time.to_string(), device.to_string(), lsn.to_string(), sectors.to_string(), u8::from(read).to_string()].join(&sep);
            let r = ssdsim_line(line.as_bytes());
            proptest::prop_assert!(r.is_some(), "handed back: {:?}", line);
            proptest::prop_assert_eq!(Ok(Parsed::Request(r.unwrap())), general(line.as_bytes()));
        }

        /// On lines of digits, blanks and the bytes next to them, the quick
        /// path either hands the line back or reads what the general parser
        /// reads (which then reads it too); it hands back no line of five
        /// short fields the general parser reads.
        #[test]
        fn agrees_with_the_general_parser(
            fields in proptest::collection::vec(proptest::prop_oneof![
                6 => "[0-9]{1,8}",
                1 => "[0-9]{15,21}",
                1 => "[01]",
                1 => "[0-9./:\r-]{0,4}",
            ], 0..7),
            seps in proptest::collection::vec("[ \t]{1,2}", 8),
            lead in "[ \t]{0,2}",
            trail in "[ \t]{0,2}",
        ) {
            let mut line = lead.clone();
            for (i, f) in fields.iter().enumerate() {
                if i > 0 {
                    line.push_str(&seps[i]);
                }
                line.push_str(f);
            }
            line.push_str(&trail);
            let quick = ssdsim_line(line.as_bytes());
            let want = general(line.as_bytes());
            match quick {
                Some(r) => proptest::prop_assert_eq!(Ok(Parsed::Request(r)), want),
                None => {
                    let short = fields.len() == 5 && fields[..4].iter().all(|f| (1..=9).contains(&f.len()) && f.bytes().all(|b| b.is_ascii_digit()));
                    let sure = short && (fields[4] == "0" || fields[4] == "1") && fields[3].bytes().any(|b| b != b'0') && fields[3].len() < 7;
                    proptest::prop_assert!(!sure, "a plain line was handed back: {:?}", line);
                }
            }
            // The parser's own entry agrees with its general path on every
            // line, under both formats that take the quick path.
            for (format, unit) in [(Format::Ssdsim, None), (Format::Disksim, Some(TimeUnit::Ns))] {
                let p = LineParser::new(format, unit).unwrap();
                proptest::prop_assert_eq!(p.clone().parse(line.as_bytes()), p.clone().general(line.as_bytes()));
            }
        }
    }
}
