//! The lines of a text trace, read in place from the reader's buffer.
//!
//! Why not `read_until`: copying every line out of the buffer, through a
//! `take` adapter that bounds its length, cost about as much as parsing it.
//! A line that lies whole in the buffer is handed out as a slice of it; only
//! a line cut by the buffer's end is gathered (`carry`).

use crate::error::TraceError;
use crate::reader::MAX_LINE_BYTES;
use std::io::{self, BufRead};
use std::path::Path;

/// Calls `f(number, line)` for each line after line `after`, numbered on
/// from it, without its `\n` (a `\r` before it stays), blank ones included,
/// until the input ends or `f` returns false. The input's position is then
/// just after the last line handed out. A line longer than
/// [`MAX_LINE_BYTES`] is an error, raised before more of it is read.
pub(crate) fn each_line<R: BufRead>(
    r: &mut R,
    path: &Path,
    after: u64,
    mut f: impl FnMut(u64, &[u8]) -> Result<bool, TraceError>,
) -> Result<(), TraceError> {
    let mut no = after;
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let buf = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_error(e, path, no, !carry.is_empty())),
        };
        if buf.is_empty() {
            // A last line without a line break.
            if !carry.is_empty() {
                f(no + 1, &carry)?;
            }
            return Ok(());
        }
        let mut start = 0;
        let mut more = true;
        for end in memchr::memchr_iter(b'\n', buf) {
            no += 1;
            more = if carry.is_empty() {
                check_length(end - start, path, no)?;
                f(no, &buf[start..end])?
            } else {
                carry.extend_from_slice(&buf[start..end]);
                check_length(carry.len(), path, no)?;
                let m = f(no, &carry)?;
                carry.clear();
                m
            };
            start = end + 1;
            if !more {
                break;
            }
        }
        if more {
            carry.extend_from_slice(&buf[start..]);
            check_length(carry.len(), path, no + 1)?;
            start = buf.len();
        }
        r.consume(start);
        if !more {
            return Ok(());
        }
    }
}

/// The error of line `no` once `len` bytes of it (its `\n` aside) pass the limit.
#[inline]
fn check_length(len: usize, path: &Path, no: u64) -> Result<(), TraceError> {
    if len > MAX_LINE_BYTES {
        return Err(TraceError::parse(
            path,
            no,
            format!("the line is longer than {MAX_LINE_BYTES} bytes (1 MiB) without a line break: not a text trace?"),
        ));
    }
    Ok(())
}

/// A read error after line `done`, or `inside` the next one: what the
/// decoders report for a stream cut short or damaged gets a note saying so
/// (the line counts the decompressed text).
#[cold]
fn read_error(source: io::Error, path: &Path, done: u64, inside: bool) -> TraceError {
    use std::io::ErrorKind::{InvalidData, InvalidInput, UnexpectedEof};
    let source = match source.kind() {
        k @ (UnexpectedEof | InvalidData | InvalidInput) => io::Error::new(
            k,
            format!(
                "reading stopped {} line {}: {source} (a compressed file cut short or damaged ends like this)",
                if inside { "inside" } else { "after" },
                if inside { done + 1 } else { done }
            ),
        ),
        _ => source,
    };
    TraceError::Io { path: path.display().to_string(), source }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    /// Lines as `read_until` and `lines` would give them, with the buffer
    /// cutting lines at every place: capacities from 1 byte up.
    fn scan(text: &[u8], cap: usize, stop_after: Option<u64>) -> (Vec<(u64, Vec<u8>)>, Vec<u8>) {
        let mut r = BufReader::with_capacity(cap, text);
        let mut got = Vec::new();
        each_line(&mut r, Path::new("t"), 0, |no, l| {
            got.push((no, l.to_vec()));
            Ok(stop_after != Some(no))
        })
        .unwrap();
        let mut rest = Vec::new();
        io::Read::read_to_end(&mut r, &mut rest).unwrap();
        (got, rest)
    }

    #[test]
    fn lines_match_split_at_every_buffer_size() {
        let text = b"a b\r\n\n  \nlonger line here\nlast";
        let want: Vec<(u64, Vec<u8>)> =
            text.split(|&b| b == b'\n').enumerate().map(|(i, l)| (i as u64 + 1, l.to_vec())).collect();
        for cap in 1..=text.len() + 1 {
            let (got, rest) = scan(text, cap, None);
            assert_eq!(got, want, "capacity {cap}");
            assert!(rest.is_empty());
            // Stopped after line 4: the input continues with line 5.
            let (got, rest) = scan(text, cap, Some(4));
            assert_eq!(got, want[..4], "capacity {cap}");
            assert_eq!(rest, b"last");
        }
        // A final line break ends the last line: no empty line after it.
        assert_eq!(scan(b"x\ny\n", 3, None).0, [(1, b"x".to_vec()), (2, b"y".to_vec())]);
        assert!(scan(b"", 4, None).0.is_empty());
    }

    #[test]
    fn a_line_over_the_limit_is_an_error_naming_it() {
        let mut text = b"ok\n".to_vec();
        text.extend(std::iter::repeat_n(b'7', MAX_LINE_BYTES + 1));
        text.extend(b"\nnext\n");
        for cap in [4096, 1 << 16, 4 << 20] {
            let mut r = BufReader::with_capacity(cap, &text[..]);
            let mut seen = 0;
            let err = each_line(&mut r, Path::new("t"), 0, |_, _| {
                seen += 1;
                Ok(true)
            })
            .unwrap_err()
            .to_string();
            assert!(err.starts_with("t:2: the line is longer than 1048576 bytes"), "{err}");
            assert_eq!(seen, 1, "only the first line was handed out");
        }
        // Exactly the limit is allowed, with or without a final break.
        for end in [&b"\n"[..], b""] {
            let mut text = std::iter::repeat_n(b'7', MAX_LINE_BYTES).collect::<Vec<u8>>();
            text.extend(end);
            let mut r = BufReader::with_capacity(4096, &text[..]);
            let mut lens = Vec::new();
            each_line(&mut r, Path::new("t"), 0, |_, l| {
                lens.push(l.len());
                Ok(true)
            })
            .unwrap();
            assert_eq!(lens, [MAX_LINE_BYTES]);
        }
    }

    /// A line over the limit that has no line break yet in the buffer (a
    /// binary file, say) is named by its own number, not the line before.
    #[test]
    fn a_long_line_without_a_break_names_its_own_line() {
        let mut text = b"ok\n".to_vec();
        text.extend(std::iter::repeat_n(b'7', 2 * MAX_LINE_BYTES));
        for cap in [4096, 1 << 16] {
            let mut r = BufReader::with_capacity(cap, &text[..]);
            let err = each_line(&mut r, Path::new("t"), 0, |_, _| Ok(true)).unwrap_err().to_string();
            assert!(err.starts_with("t:2: the line is longer than"), "{err}");
        }
    }

    /// A line of exactly the limit after another in the same buffer is
    /// allowed: its length is counted from its own start.
    #[test]
    fn a_line_of_the_limit_after_another_in_the_buffer_is_allowed() {
        let mut text = b"ok\n".to_vec();
        text.extend(std::iter::repeat_n(b'7', MAX_LINE_BYTES));
        text.extend(b"\nnext\n");
        let mut r = BufReader::with_capacity(4 << 20, &text[..]);
        let mut lens = Vec::new();
        each_line(&mut r, Path::new("t"), 0, |no, l| {
            lens.push((no, l.len()));
            Ok(true)
        })
        .unwrap();
        assert_eq!(lens, [(1, 2), (2, MAX_LINE_BYTES), (3, 4)]);
    }

    /// A read interrupted by a signal is retried, not an error.
    #[test]
    fn an_interrupted_read_is_retried() {
        struct Interrupting(bool, &'static [u8]);
        impl io::Read for Interrupting {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                self.0 = !self.0;
                if self.0 {
                    return Err(io::Error::new(io::ErrorKind::Interrupted, "signal"));
                }
                let n = buf.len().min(self.1.len());
                buf[..n].copy_from_slice(&self.1[..n]);
                self.1 = &self.1[n..];
                Ok(n)
            }
        }
        let mut r = BufReader::with_capacity(4, Interrupting(false, b"a b\nc\nlast"));
        let mut got = Vec::new();
        each_line(&mut r, Path::new("t"), 0, |no, l| {
            got.push((no, l.to_vec()));
            Ok(true)
        })
        .unwrap();
        assert_eq!(got, [(1, b"a b".to_vec()), (2, b"c".to_vec()), (3, b"last".to_vec())]);
    }

    /// A reader that fails after its bytes: the error says after or inside
    /// which line reading stopped.
    struct Cut(&'static [u8]);
    impl io::Read for Cut {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "cut"));
            }
            let n = buf.len().min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_read_error_names_the_line_it_stopped_after_or_inside() {
        for (text, want) in [(&b"a\nb\n"[..], "after line 2"), (b"a\nb\nc", "inside line 3")] {
            let mut r = BufReader::with_capacity(2, Cut(text));
            let err = each_line(&mut r, Path::new("t"), 0, |_, _| Ok(true)).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
        }
    }
}
