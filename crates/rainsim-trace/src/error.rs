//! The crate's error type. Every message is complete on its own: it names the
//! file (and line, where there is one) and says what was expected.

use std::path::Path;

/// Anything that can go wrong while reading, transforming or generating a trace.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened or read (includes corrupt gzip data).
    #[error("{path}: {source}")]
    Io {
        /// File path as given.
        path: String,
        /// Underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line could not be parsed.
    #[error("{path}:{line}: {msg}")]
    Parse {
        /// File path as given.
        path: String,
        /// 1-based physical line number (header and blank lines count).
        line: u64,
        /// What was expected and what was found.
        msg: String,
    },
    /// The format could not be auto-detected.
    #[error("{path}: cannot detect the trace format: {msg}")]
    Detect {
        /// File path as given.
        path: String,
        /// Why, and what to do (usually: set the format explicitly).
        msg: String,
    },
    /// The file (after filtering) holds no request.
    #[error("{path}: {msg}")]
    Empty {
        /// File path as given.
        path: String,
        /// What was found instead.
        msg: String,
    },
    /// A transform could not be applied (e.g. a request larger than the capacity).
    #[error("{}{msg}", prefix(.path))]
    Transform {
        /// File path, when the requests came from a file.
        path: Option<String>,
        /// What failed.
        msg: String,
    },
    /// An option or synthetic-workload parameter is out of range.
    #[error("{0}")]
    Invalid(String),
}

fn prefix(path: &Option<String>) -> String {
    match path {
        Some(p) => format!("{p}: "),
        None => String::new(),
    }
}

impl TraceError {
    /// A parse error at `path:line`.
    pub(crate) fn parse(path: &Path, line: u64, msg: impl Into<String>) -> Self {
        TraceError::Parse { path: path.display().to_string(), line, msg: msg.into() }
    }

    /// A transform error not yet attached to a file.
    pub(crate) fn transform(msg: impl Into<String>) -> Self {
        TraceError::Transform { path: None, msg: msg.into() }
    }

    /// Attaches a file path to a [`TraceError::Transform`] that has none.
    pub(crate) fn in_file(self, path: &Path) -> Self {
        match self {
            TraceError::Transform { path: None, msg } => {
                TraceError::Transform { path: Some(path.display().to_string()), msg }
            }
            other => other,
        }
    }
}

/// `bytes` as text safe to print on a terminal: invalid UTF-8 becomes
/// U+FFFD, and control characters (escape sequences, carriage returns, NUL)
/// are shown escaped (`\u{1b}`), so that a message quoting a file cannot
/// drive the terminal.
pub fn printable(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for c in String::from_utf8_lossy(bytes).chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn printable_escapes_control_bytes() {
        assert_eq!(super::printable(b"a\x1b[2Jb\r\x00\xff"), "a\\u{1b}[2Jb\\r\\u{0}\u{fffd}");
        assert_eq!(super::printable("µs ok".as_bytes()), "µs ok");
    }
}
