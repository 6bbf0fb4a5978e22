//! A compressed trace as its members one after another (gzip members, zstd
//! frames, xz streams), read as one text. Bytes after the last member that
//! do not start another are an error naming them: the decoders' own
//! multi-member readers report them as "unexpected end of file", "invalid
//! gzip header", "Unknown frame descriptor" or "premature eof", which send
//! a user looking for a file cut short rather than one appended to.

use crate::reader::Compression;
use std::io::{self, BufRead, Read};

/// One member's decoder over the file's bytes.
enum Decoder<R: BufRead> {
    Gzip(flate2::bufread::GzDecoder<R>),
    Zstd(zstd::stream::read::Decoder<'static, R>),
    Xz(liblzma::bufread::XzDecoder<R>),
}

impl<R: BufRead> Decoder<R> {
    fn new(kind: Compression, r: R) -> io::Result<Self> {
        Ok(match kind {
            Compression::Gzip => Decoder::Gzip(flate2::bufread::GzDecoder::new(r)),
            // One frame each: the reader, not the decoder, looks at what follows.
            Compression::Zstd => Decoder::Zstd(zstd::stream::read::Decoder::with_buffer(r)?.single_frame()),
            Compression::Xz => Decoder::Xz(liblzma::bufread::XzDecoder::new(r)),
            Compression::None => unreachable!("plain text has no members"),
        })
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Decoder::Gzip(d) => d.read(buf),
            Decoder::Zstd(d) => d.read(buf),
            Decoder::Xz(d) => d.read(buf),
        }
    }

    fn into_inner(self) -> R {
        match self {
            Decoder::Gzip(d) => d.into_inner(),
            Decoder::Zstd(d) => d.finish(),
            Decoder::Xz(d) => d.into_inner(),
        }
    }
}

/// Whether `next` (at least one byte) may start another member of `kind`.
/// Fewer bytes than a magic number that agree with it pass: the decoder
/// then judges the header itself.
fn starts_member(kind: Compression, next: &[u8]) -> bool {
    let agrees = |magic: &[u8]| next.iter().zip(magic).all(|(a, b)| a == b);
    match kind {
        Compression::Gzip => agrees(&[0x1f, 0x8b]),
        // A data frame, or a skippable frame (magic 0x184D2A50..=5F, little-endian).
        Compression::Zstd => {
            agrees(&[0x28, 0xb5, 0x2f, 0xfd]) || (next[0] & 0xf0 == 0x50 && agrees(&[next[0], 0x2a, 0x4d, 0x18]))
        }
        Compression::Xz => agrees(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]),
        Compression::None => false,
    }
}

/// The members of a compressed file, as one stream.
pub(crate) struct Members<R: BufRead> {
    kind: Compression,
    member: Option<Decoder<R>>,
    done: Option<R>,
}

impl<R: BufRead> Members<R> {
    /// Reads the members of `kind` from `r` (which starts with one).
    pub(crate) fn new(kind: Compression, r: R) -> io::Result<Self> {
        Ok(Members { kind, member: Some(Decoder::new(kind, r)?), done: None })
    }

    /// The file's reader, where decoding stopped.
    pub(crate) fn into_inner(self) -> R {
        match (self.member, self.done) {
            (Some(m), _) => m.into_inner(),
            (None, Some(r)) => r,
            (None, None) => unreachable!("one of the two is always set"),
        }
    }

    /// After a member: the next one, the end, or trailing data (an error).
    fn next_member(&mut self, mut r: R) -> io::Result<bool> {
        if self.kind == Compression::Xz {
            // Stream padding: zero bytes between and after xz streams.
            loop {
                let buf = r.fill_buf()?;
                let zeros = buf.iter().take_while(|&&b| b == 0).count();
                if zeros == 0 {
                    break;
                }
                r.consume(zeros);
            }
        }
        let next = r.fill_buf()?;
        if next.is_empty() {
            self.done = Some(r);
            return Ok(false);
        }
        if !starts_member(self.kind, next) {
            let head = crate::error::printable(&next[..next.len().min(16)]);
            let n = next.len();
            let name = self.kind.name();
            self.done = Some(r);
            // Not InvalidData: that kind gets the note for a file cut short.
            return Err(io::Error::other(format!(
                "trailing data after the {name} stream ({}{n} bytes that are not {name}, starting `{head}`); \
                     the file is damaged or was appended to: cut it at the end of the {name} data",
                if n >= crate::reader::BUF_BYTES { "at least " } else { "" }
            )));
        }
        self.member = Some(Decoder::new(self.kind, r)?);
        Ok(true)
    }
}

impl<R: BufRead> Read for Members<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(m) = self.member.as_mut() else { return Ok(0) };
            let n = m.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let r = self.member.take().expect("checked").into_inner();
            if !self.next_member(r)? {
                return Ok(0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    fn xz(text: &[u8]) -> Vec<u8> {
        let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
        e.write_all(text).unwrap();
        e.finish().unwrap()
    }

    fn zstd(text: &[u8]) -> Vec<u8> {
        zstd::encode_all(text, 1).unwrap()
    }

    /// The text of `bytes` read as members of `kind`, through a buffer of
    /// `cap` bytes (so that members end at every place in it).
    fn read_all(kind: Compression, bytes: &[u8], cap: usize) -> io::Result<Vec<u8>> {
        let mut m = Members::new(kind, io::BufReader::with_capacity(cap, bytes))?;
        let mut out = Vec::new();
        m.read_to_end(&mut out)?;
        Ok(out)
    }

    type Encode = fn(&[u8]) -> Vec<u8>;
    const KINDS: [(Compression, Encode, &str); 3] =
        [(Compression::Gzip, gzip, "gzip"), (Compression::Zstd, zstd, "zstd"), (Compression::Xz, xz, "xz")];

    /// Members one after another read as their texts joined, whatever the
    /// buffer; xz's zero padding between and after streams is skipped, and
    /// a zstd skippable frame passed over.
    #[test]
    fn members_read_as_one_text() {
        for (kind, enc, name) in KINDS {
            let mut bytes = enc(b"0 0 8 8 1\n");
            if kind == Compression::Xz {
                bytes.extend_from_slice(&[0; 8]);
            }
            if kind == Compression::Zstd {
                bytes.extend_from_slice(&[0x53, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9]);
            }
            bytes.extend(enc(b"1 0 16 8 0\n"));
            if kind == Compression::Xz {
                bytes.extend_from_slice(&[0; 4]);
            }
            for cap in [1, 2, 3, 5, 7, 64, 1 << 16] {
                let text = read_all(kind, &bytes, cap).unwrap_or_else(|e| panic!("{name}, buffer {cap}: {e}"));
                assert_eq!(text, b"0 0 8 8 1\n1 0 16 8 0\n", "{name}, buffer {cap}");
            }
        }
    }

    /// Bytes after the last member that start no member are an error that
    /// says so and quotes them, after the text before them was read.
    #[test]
    fn trailing_data_is_named() {
        for (kind, enc, name) in KINDS {
            let mut bytes = enc(b"0 0 8 8 1\n");
            bytes.extend_from_slice(b"garbage\n");
            let mut m = Members::new(kind, io::BufReader::new(&bytes[..])).unwrap();
            let mut out = Vec::new();
            let e = m.read_to_end(&mut out).unwrap_err();
            assert_eq!(out, b"0 0 8 8 1\n", "{name}");
            assert_eq!(e.kind(), io::ErrorKind::Other, "{name}");
            let msg = e.to_string();
            assert!(
                msg.contains(&format!("trailing data after the {name} stream")) && msg.contains("garbage"),
                "{msg}"
            );
        }
    }

    #[test]
    fn magic_prefixes() {
        assert!(starts_member(Compression::Gzip, &[0x1f]));
        assert!(!starts_member(Compression::Gzip, b"g"));
        assert!(starts_member(Compression::Zstd, &[0x5f, 0x2a, 0x4d, 0x18]));
        assert!(!starts_member(Compression::Zstd, &[0x60, 0x2a, 0x4d, 0x18]));
        assert!(starts_member(Compression::Xz, &[0xfd, b'7']));
        assert!(!starts_member(Compression::Xz, &[0xfd, b'8']));
    }
}
