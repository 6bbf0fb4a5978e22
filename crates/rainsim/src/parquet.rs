//! A small Apache Parquet writer: the subset the request log needs, with no
//! dependency beyond zstd (already linked for reading traces).
//!
//! What it writes: flat required columns of INT64, BOOLEAN and UTF-8 strings,
//! and required lists of INT32 (the standard three-level LIST layout:
//! `required group NAME (LIST) { repeated group list { required int32 element } }`);
//! row groups of up to 2^20 rows, v1 data pages of up to 2^16 rows, PLAIN
//! values, RLE/bit-packed levels, every page compressed with ZSTD (level 3);
//! no statistics, no dictionary. The metadata is Thrift's compact protocol,
//! as the format specifies. The same columns always give the same bytes.
//!
//! Why not the `parquet` crate: it needs Rust 1.88 (this workspace supports
//! 1.87), and even without default features it is 23 crates with its
//! dependencies (42 s of a clean release build on the 2-core machine) for
//! what is a few hundred lines here.
//! pyarrow, pandas and polars read these files (`python/tests/test_request_log.py`).

use std::io::{self, Write};
use std::ops::Range;

/// Rows per row group.
const ROW_GROUP: usize = 1 << 20;
/// Rows per data page.
const PAGE: usize = 1 << 16;
/// ZSTD level of every page.
const ZSTD_LEVEL: i32 = 3;

/// One column: its name and, per row index, its value.
pub enum Column<'a> {
    /// INT64.
    Int64(&'a str, &'a dyn Fn(usize) -> i64),
    /// BOOLEAN.
    Bool(&'a str, &'a dyn Fn(usize) -> bool),
    /// BYTE_ARRAY annotated as a UTF-8 string.
    Utf8(&'a str, &'a dyn Fn(usize) -> &'a str),
    /// A list of INT32 (never null, possibly empty), from u16 values.
    ListInt32(&'a str, &'a dyn Fn(usize) -> &'a [u16]),
}

impl Column<'_> {
    fn name(&self) -> &str {
        match self {
            Column::Int64(n, _) | Column::Bool(n, _) | Column::Utf8(n, _) | Column::ListInt32(n, _) => n,
        }
    }
    /// Parquet physical type of the leaf.
    fn physical(&self) -> i32 {
        match self {
            Column::Bool(..) => 0,
            Column::ListInt32(..) => 1,
            Column::Int64(..) => 2,
            Column::Utf8(..) => 6,
        }
    }
    fn path(&self) -> Vec<&str> {
        match self {
            Column::ListInt32(n, _) => vec![n, "list", "element"],
            _ => vec![self.name()],
        }
    }
    /// The uncompressed body of a page of `rows`: levels (lists only), then
    /// PLAIN values; and the number of values it holds (level entries).
    fn page(&self, rows: Range<usize>, out: &mut Vec<u8>) -> usize {
        match self {
            Column::Int64(_, f) => {
                for i in rows.clone() {
                    out.extend_from_slice(&f(i).to_le_bytes());
                }
                rows.len()
            }
            Column::Bool(_, f) => {
                bits(rows.clone().map(f), out);
                rows.len()
            }
            Column::Utf8(_, f) => {
                for i in rows.clone() {
                    let s = f(i).as_bytes();
                    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
                    out.extend_from_slice(s);
                }
                rows.len()
            }
            Column::ListInt32(_, f) => {
                // One level entry per element, one for an empty list.
                let entries = || rows.clone().flat_map(|i| (0..f(i).len().max(1)).map(move |k| (i, k)));
                let n = entries().count();
                // Repetition: 0 starts a row. Definition: 1 = an element, 0 = an empty list.
                levels(entries().map(|(_, k)| k > 0), out);
                levels(entries().map(|(i, _)| !f(i).is_empty()), out);
                for i in rows {
                    for &v in f(i) {
                        out.extend_from_slice(&(v as i32).to_le_bytes());
                    }
                }
                n
            }
        }
    }
}

/// Booleans bit-packed, least significant bit first.
fn bits(values: impl Iterator<Item = bool>, out: &mut Vec<u8>) -> usize {
    let (mut byte, mut n) = (0u8, 0usize);
    for v in values {
        byte |= (v as u8) << (n % 8);
        n += 1;
        if n % 8 == 0 {
            out.push(byte);
            byte = 0;
        }
    }
    if n % 8 != 0 {
        out.push(byte);
    }
    n
}

/// Levels of bit width 1 as one bit-packed run of the RLE/bit-packing
/// hybrid, prefixed by its byte length (data page v1).
fn levels(values: impl Iterator<Item = bool>, out: &mut Vec<u8>) {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut packed = Vec::new();
    let n = bits(values, &mut packed);
    varint(((n.div_ceil(8) as u64) << 1) | 1, out);
    out.extend_from_slice(&packed);
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Thrift compact protocol, the subset Parquet's metadata uses.
struct Thrift {
    buf: Vec<u8>,
    /// Last field id of each open struct.
    last: Vec<i16>,
}

const T_I32: u8 = 5;
const T_I64: u8 = 6;
const T_BINARY: u8 = 8;
const T_LIST: u8 = 9;
const T_STRUCT: u8 = 12;

impl Thrift {
    fn new() -> Thrift {
        Thrift { buf: Vec::new(), last: vec![0] }
    }
    fn field(&mut self, id: i16, ty: u8) {
        let last = self.last.last_mut().expect("inside a struct");
        let delta = id - *last;
        if (1..=15).contains(&delta) {
            self.buf.push(((delta as u8) << 4) | ty);
        } else {
            self.buf.push(ty);
            varint(zigzag(id as i64), &mut self.buf);
        }
        *last = id;
    }
    fn i32(&mut self, id: i16, v: i32) {
        self.field(id, T_I32);
        varint(zigzag(v as i64), &mut self.buf);
    }
    fn i64(&mut self, id: i16, v: i64) {
        self.field(id, T_I64);
        varint(zigzag(v), &mut self.buf);
    }
    fn string(&mut self, id: i16, s: &str) {
        self.field(id, T_BINARY);
        self.raw_string(s);
    }
    fn raw_string(&mut self, s: &str) {
        varint(s.len() as u64, &mut self.buf);
        self.buf.extend_from_slice(s.as_bytes());
    }
    fn begin(&mut self, id: i16) {
        self.field(id, T_STRUCT);
        self.last.push(0);
    }
    /// A struct that is an element of a list (no field header).
    fn begin_element(&mut self) {
        self.last.push(0);
    }
    fn end(&mut self) {
        self.buf.push(0);
        self.last.pop();
    }
    /// An empty struct as field `id` (a union's choice without parameters).
    fn empty(&mut self, id: i16) {
        self.begin(id);
        self.end();
    }
    fn list(&mut self, id: i16, elem: u8, n: usize) {
        self.field(id, T_LIST);
        if n < 15 {
            self.buf.push(((n as u8) << 4) | elem);
        } else {
            self.buf.push(0xf0 | elem);
            varint(n as u64, &mut self.buf);
        }
    }
    fn finish(mut self) -> Vec<u8> {
        self.buf.push(0);
        self.buf
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// A written column chunk, for the footer.
struct Chunk {
    offset: u64,
    values: u64,
    uncompressed: u64,
    compressed: u64,
}

/// Writes `rows` rows of `columns` as a Parquet file to `out`, with
/// `created_by` and the key/value pairs `meta` in its footer.
pub fn write(
    out: &mut impl Write,
    rows: usize,
    columns: &[Column],
    created_by: &str,
    meta: &[(&str, String)],
) -> io::Result<()> {
    let mut pos = 0u64;
    let put = |out: &mut dyn Write, pos: &mut u64, bytes: &[u8]| -> io::Result<()> {
        *pos += bytes.len() as u64;
        out.write_all(bytes)
    };
    put(out, &mut pos, b"PAR1")?;
    let mut groups: Vec<(usize, Vec<Chunk>)> = Vec::new();
    let mut body = Vec::new();
    for start in (0..rows).step_by(ROW_GROUP) {
        let end = (start + ROW_GROUP).min(rows);
        let mut chunks = Vec::new();
        for col in columns {
            let mut c = Chunk { offset: pos, values: 0, uncompressed: 0, compressed: 0 };
            for p in (start..end).step_by(PAGE) {
                body.clear();
                let n = col.page(p..(p + PAGE).min(end), &mut body);
                let packed = zstd::bulk::compress(&body, ZSTD_LEVEL)?;
                let mut h = Thrift::new();
                h.i32(1, 0); // DATA_PAGE
                h.i32(2, body.len() as i32);
                h.i32(3, packed.len() as i32);
                h.begin(5);
                h.i32(1, n as i32);
                h.i32(2, 0); // PLAIN
                h.i32(3, 3); // RLE
                h.i32(4, 3); // RLE
                h.end();
                let h = h.finish();
                c.values += n as u64;
                c.uncompressed += (h.len() + body.len()) as u64;
                c.compressed += (h.len() + packed.len()) as u64;
                put(out, &mut pos, &h)?;
                put(out, &mut pos, &packed)?;
            }
            chunks.push(c);
        }
        groups.push((end - start, chunks));
    }
    let footer = footer(rows, columns, &groups, created_by, meta);
    put(out, &mut pos, &footer)?;
    put(out, &mut pos, &(footer.len() as u32).to_le_bytes())?;
    put(out, &mut pos, b"PAR1")?;
    Ok(())
}

fn footer(
    rows: usize,
    columns: &[Column],
    groups: &[(usize, Vec<Chunk>)],
    created_by: &str,
    meta: &[(&str, String)],
) -> Vec<u8> {
    let mut t = Thrift::new();
    t.i32(1, 1); // version
    let leaves: usize = columns.iter().map(|c| if matches!(c, Column::ListInt32(..)) { 3 } else { 1 }).sum();
    t.list(2, T_STRUCT, 1 + leaves);
    t.begin_element();
    t.string(4, "schema");
    t.i32(5, columns.len() as i32);
    t.end();
    for c in columns {
        t.begin_element();
        if let Column::ListInt32(name, _) = c {
            t.i32(3, 0); // REQUIRED
            t.string(4, name);
            t.i32(5, 1);
            t.i32(6, 3); // converted type LIST
            t.begin(10);
            t.empty(3); // logical type LIST
            t.end();
            t.end();
            t.begin_element();
            t.i32(3, 2); // REPEATED
            t.string(4, "list");
            t.i32(5, 1);
            t.end();
            t.begin_element();
            t.i32(1, c.physical());
            t.i32(3, 0);
            t.string(4, "element");
        } else {
            t.i32(1, c.physical());
            t.i32(3, 0); // REQUIRED
            t.string(4, c.name());
            if matches!(c, Column::Utf8(..)) {
                t.i32(6, 0); // converted type UTF8
                t.begin(10);
                t.empty(1); // logical type STRING
                t.end();
            }
        }
        t.end();
    }
    t.i64(3, rows as i64);
    t.list(4, T_STRUCT, groups.len());
    for (n, chunks) in groups {
        t.begin_element();
        t.list(1, T_STRUCT, chunks.len());
        for (c, col) in chunks.iter().zip(columns) {
            t.begin_element();
            t.i64(2, c.offset as i64);
            t.begin(3);
            t.i32(1, col.physical());
            let encodings: &[i32] = if matches!(col, Column::ListInt32(..)) { &[0, 3] } else { &[0] };
            t.list(2, T_I32, encodings.len());
            for &e in encodings {
                varint(zigzag(e as i64), &mut t.buf);
            }
            let path = col.path();
            t.list(3, T_BINARY, path.len());
            for p in path {
                t.raw_string(p);
            }
            t.i32(4, 6); // ZSTD
            t.i64(5, c.values as i64);
            t.i64(6, c.uncompressed as i64);
            t.i64(7, c.compressed as i64);
            t.i64(9, c.offset as i64);
            t.end();
            t.end();
        }
        t.i64(2, chunks.iter().map(|c| c.uncompressed as i64).sum());
        t.i64(3, *n as i64);
        t.end();
    }
    if !meta.is_empty() {
        t.list(5, T_STRUCT, meta.len());
        for (k, v) in meta {
            t.begin_element();
            t.string(1, k);
            t.string(2, v);
            t.end();
        }
    }
    t.string(6, created_by);
    t.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_protocol_fields_and_varints() {
        let mut t = Thrift::new();
        t.i32(1, 1);
        t.i64(3, -1);
        t.string(20, "ab");
        assert_eq!(t.finish(), vec![0x15, 0x02, 0x26, 0x01, 0x08, 0x28, 0x02, b'a', b'b', 0x00]);
        let mut v = Vec::new();
        varint(300, &mut v);
        assert_eq!(v, vec![0xac, 0x02]);
        assert_eq!((zigzag(0), zigzag(-1), zigzag(1), zigzag(-2)), (0, 1, 2, 3));
    }

    #[test]
    fn list_levels_are_one_bit_packed_run() {
        // Rows [5, 6], [], [7]: repetition 0 1 0 0, definition 1 1 0 1.
        let rows: [&[u16]; 3] = [&[5, 6], &[], &[7]];
        let f = |i: usize| rows[i];
        let mut body = Vec::new();
        let n = Column::ListInt32("c", &f).page(0..3, &mut body);
        assert_eq!(n, 4);
        let mut want = vec![2, 0, 0, 0, 0x03, 0b0010, 2, 0, 0, 0, 0x03, 0b1011];
        for v in [5i32, 6, 7] {
            want.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(body, want);
    }
}
