//! A text trace line split into its fields.
//!
//! A blank-separated line under 64 bytes, nearly every one, gets a bitmask
//! of its blanks, built eight bytes at a time; its fields are then found
//! with a few bit operations each instead of a test per byte. Longer lines
//! take the byte-by-byte split, which the tests hold the mask to.

use crate::format::trim;

/// Room for the fields of any format; a line may have more (counted).
pub(crate) type Fields<'a> = [&'a [u8]; 7];

/// The fields between runs of spaces and tabs (no empty fields) into `out`;
/// returns how many there are (may exceed `out.len()`).
pub(crate) fn split_blank<'a>(line: &'a [u8], out: &mut Fields<'a>) -> usize {
    if line.len() >= 64 {
        return split_blank_bytes(line, out);
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
/// returns how many there are (an empty line has one, empty). (Masks of
/// commas and blanks were no faster here: trimming each field costs as much
/// as the test per byte they save.)
pub(crate) fn split_csv<'a>(line: &'a [u8], out: &mut Fields<'a>) -> usize {
    split_into(line.split(|&b| b == b',').map(trim), out)
}

/// Splits into `out`, returning the total number of fields (may exceed `out.len()`).
fn split_into<'a>(it: impl Iterator<Item = &'a [u8]>, out: &mut Fields<'a>) -> usize {
    let mut n = 0;
    for s in it {
        if n < out.len() {
            out[n] = s;
        }
        n += 1;
    }
    n
}

/// [`split_blank`] of any line, byte by byte.
fn split_blank_bytes<'a>(line: &'a [u8], out: &mut Fields<'a>) -> usize {
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

/// Bit i set when byte i of `line` (shorter than 64 bytes) is a space or a tab.
#[inline(always)]
fn blanks(line: &[u8]) -> u64 {
    let mut blank = 0u64;
    let words = line.chunks_exact(8);
    let tail = words.remainder();
    let mut k = 0;
    for w in words {
        blank |= blanks8(u64::from_le_bytes(w.try_into().expect("8 bytes"))) << k;
        k += 8;
    }
    // Zero bytes past the end are not blank.
    blank | blanks8(tail.iter().rev().fold(0u64, |v, &b| v << 8 | u64::from(b))) << k
}

/// Bit i set when byte i of `x` (little-endian) is a space or a tab.
#[inline(always)]
fn blanks8(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    // The high bit of each byte that equals `c` (repeated), exactly: the low
    // seven bits are added apart, so no byte carries into the next.
    let eq = |c: u64| {
        let y = x ^ c;
        !(((y & LOW7) + LOW7) | y | LOW7)
    };
    let high = eq(0x2020_2020_2020_2020) | eq(0x0909_0909_0909_0909);
    // Gathers the eight high bits (at 7, 15, … 63) into the top byte.
    (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both blank splits against `split` and `filter`: the masks (lines
    /// under 64 bytes) and the byte-by-byte one (any line).
    fn check_blank(line: &[u8]) {
        let want: Vec<&[u8]> = line.split(|b| matches!(b, b' ' | b'\t')).filter(|s| !s.is_empty()).collect();
        for split in [split_blank, split_blank_bytes] {
            let mut got = [&b""[..]; 7];
            let n = split(line, &mut got);
            assert_eq!(n, want.len(), "{line:?}");
            assert_eq!(&got[..n.min(7)], &want[..n.min(7)], "{line:?}");
        }
    }

    /// The CSV split against `split` and `trim`.
    fn check_csv(line: &[u8]) {
        let want: Vec<&[u8]> = line.split(|&b| b == b',').map(trim).collect();
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
