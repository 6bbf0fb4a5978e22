//! A text trace line split into its fields.
//!
//! A line under 64 bytes, nearly every one, gets a bitmask of its
//! separators (blanks, or commas), built eight bytes at a time; its fields
//! are then found with a few bit operations each instead of a test per
//! byte. Longer lines take the plain split, which the tests hold the masks to.

use crate::format::trim;

/// The fields between runs of spaces and tabs (no empty fields) into `out`;
/// returns how many there are (may exceed `out.len()`).
pub(crate) fn split_blank<'a, const N: usize>(line: &'a [u8], out: &mut [&'a [u8]; N]) -> usize {
    if line.len() >= 64 {
        return split_into(line.split(|&b| is_blank(b)).filter(|f| !f.is_empty()), out);
    }
    // The bits past the end count as blanks: every field ends at one.
    let blank = blanks(line) | !0u64 << line.len();
    let (mut n, mut field) = (0, !blank);
    while field != 0 {
        let start = field.trailing_zeros();
        let end = start + (blank >> start).trailing_zeros();
        if n < out.len() {
            out[n] = &line[start as usize..end as usize];
        }
        n += 1;
        field &= !0u64 << end;
    }
    n
}

/// The comma-separated fields, each trimmed of spaces and tabs, into `out`;
/// returns how many there are (an empty line has one, empty).
pub(crate) fn split_csv<'a, const N: usize>(line: &'a [u8], out: &mut [&'a [u8]; N]) -> usize {
    if line.len() >= 64 {
        return split_into(line.split(|&b| b == b',').map(trim), out);
    }
    // A comma just past the end closes the last field.
    let mut ends = commas(line) | 1u64 << line.len();
    let (mut n, mut start) = (0, 0);
    loop {
        let end = ends.trailing_zeros() as usize;
        if n < out.len() {
            out[n] = trim(&line[start..end]);
        }
        n += 1;
        if end == line.len() {
            return n;
        }
        ends &= ends - 1;
        start = end + 1;
    }
}

/// Splits into `out`, returning the total number of fields (may exceed `out.len()`).
fn split_into<'a, const N: usize>(it: impl Iterator<Item = &'a [u8]>, out: &mut [&'a [u8]; N]) -> usize {
    let mut n = 0;
    for s in it {
        if n < out.len() {
            out[n] = s;
        }
        n += 1;
    }
    n
}

/// A space or a tab: what separates blank-separated fields.
#[inline(always)]
pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Bit i set when byte i of `line` (shorter than 64 bytes) is a space or a tab.
#[inline(always)]
fn blanks(line: &[u8]) -> u64 {
    mask(line, |x| eq8(x, b' ') | eq8(x, b'\t'))
}

/// Bit i set when byte i of `line` (shorter than 64 bytes) is a comma.
#[inline(always)]
fn commas(line: &[u8]) -> u64 {
    mask(line, |x| eq8(x, b','))
}

/// Bit i set when byte i of `line` (shorter than 64 bytes) is one that
/// `high` marks: `high(x)` sets the high bit of each such byte of the eight
/// in `x` (little-endian), and no other bit. Zero bytes past the end must
/// not be marked.
#[inline(always)]
fn mask(line: &[u8], high: impl Fn(u64) -> u64) -> u64 {
    // Gathers the eight high bits (at 7, 15, … 63) into the low byte.
    let gather = |h: u64| (h >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
    let words = line.chunks_exact(8);
    let tail = words.remainder();
    let (mut m, mut k) = (0u64, 0);
    for w in words {
        m |= gather(high(u64::from_le_bytes(w.try_into().expect("8 bytes")))) << k;
        k += 8;
    }
    m | gather(high(tail.iter().rev().fold(0u64, |v, &b| v << 8 | u64::from(b)))) << k
}

/// The high bit of each byte of `x` that equals `c`, exactly: the low seven
/// bits are added apart, so no byte carries into the next.
#[inline(always)]
fn eq8(x: u64, c: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let y = x ^ (u64::from(c) * 0x0101_0101_0101_0101);
    !(((y & LOW7) + LOW7) | y | LOW7)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blank split against `split` and `filter` (the mask for lines
    /// under 64 bytes, the plain split for longer ones), into arrays
    /// shorter and longer than the line's fields.
    fn check_blank(line: &[u8]) {
        let want: Vec<&[u8]> = line.split(|b| matches!(b, b' ' | b'\t')).filter(|s| !s.is_empty()).collect();
        let mut got = [&b""[..]; 7];
        let n = split_blank(line, &mut got);
        assert_eq!(n, want.len(), "{line:?}");
        assert_eq!(&got[..n.min(7)], &want[..n.min(7)], "{line:?}");
        let mut few = [&b""[..]; 2];
        assert_eq!(split_blank(line, &mut few), want.len(), "{line:?}");
        assert_eq!(&few[..n.min(2)], &want[..n.min(2)], "{line:?}");
    }

    /// The CSV split against `split` and a strip of spaces and tabs from
    /// both ends written out here (not `trim`, which the split uses).
    fn check_csv(line: &[u8]) {
        fn strip(mut f: &[u8]) -> &[u8] {
            while let [b' ' | b'\t', rest @ ..] = f {
                f = rest;
            }
            while let [rest @ .., b' ' | b'\t'] = f {
                f = rest;
            }
            f
        }
        let want: Vec<&[u8]> = line.split(|&b| b == b',').map(strip).collect();
        let mut got = [&b""[..]; 7];
        let n = split_csv(line, &mut got);
        assert_eq!(n, want.len(), "{line:?}");
        assert_eq!(&got[..n.min(7)], &want[..n.min(7)], "{line:?}");
    }

    #[test]
    fn fields_split_as_split_would() {
        for line in
            ["1 2 3", "  1\t 2   3  ", "\t\t", "", "a", "1 2 3 4 5 6 7 8 9", "1,2 3\r", " x\ty z ", ",,", " a , b,"]
        {
            check_blank(line.as_bytes());
            check_csv(line.as_bytes());
        }
    }

    proptest::proptest! {
        /// Lines of separators, digits and bytes a mask could confuse
        /// (`\r`, 0x00, 0x29, 0xA0 = 0x20 | 0x80, 0x89 = 0x09 | 0x80),
        /// from empty to past the mask's width.
        #[test]
        fn fields_split_as_split_would_any_line(
            line in proptest::collection::vec(
                proptest::sample::select(vec![b' ', b'\t', b',', b'0', b'7', b'\r', 0, 0x29, 0xA0, 0x89]),
                0..100)
        ) {
            check_blank(&line);
            check_csv(&line);
        }
    }
}
