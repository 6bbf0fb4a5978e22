//! Writing requests in the formats other simulators and tools read, and
//! writing files atomically.
//!
//! | target | line | units |
//! |---|---|---|
//! | `ssdsim` | `time_ns device lsn size_sectors op` (op 1 = read) | ns, 512-byte sectors |
//! | `mqsim` | `time_ns device lba_sectors size_sectors type` (type 1 = read) | ns, 512-byte sectors (MQSim's DiskSim ASCII) |
//! | `disksim` | `time_ms device lba_sectors size_sectors type` (type 1 = read) | ms with 6 decimals (exact to 1 ns), 512-byte sectors |
//! | `msr` | `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` | FILETIME 100 ns ticks (rounded to nearest, halves up), bytes; hostname `rainsim`, response time 0 |
//! | `fio` | fio iolog v2: header, `file add`/`open`, `file read|write offset length`, `close` | bytes; no timing (fio replays back to back) |
//!
//! The sector formats cover a request that is not sector-aligned with the
//! whole sectors it touches (counted in [`Written::widened`]). `ssdsim` and
//! `mqsim` write the same text (both simulators read this layout). fio files
//! are named `rainsim-dev{device}`; `fio --read_iolog=F --replay_redirect=/dev/X`
//! sends them all to one device.

use crate::format::{Format, TimeUnit};
use crate::parse::SECTOR_BYTES;
use crate::{Op, Request, TraceError};
use std::fmt;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// An output format of `rainsim trace convert`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// SSDsim ASCII: ns, sectors.
    Ssdsim,
    /// DiskSim ASCII: ms, sectors.
    Disksim,
    /// MQSim's DiskSim ASCII: ns, sectors.
    Mqsim,
    /// MSR Cambridge CSV: FILETIME ticks, bytes.
    Msr,
    /// fio iolog version 2.
    Fio,
}

impl Target {
    /// Every target, in documentation order.
    pub const ALL: [Target; 5] = [Target::Ssdsim, Target::Disksim, Target::Mqsim, Target::Msr, Target::Fio];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Target::Ssdsim => "ssdsim",
            Target::Disksim => "disksim",
            Target::Mqsim => "mqsim",
            Target::Msr => "msr",
            Target::Fio => "fio",
        }
    }

    /// The format (and time unit) that reads a written file back.
    pub fn read_back(self) -> (Format, Option<TimeUnit>) {
        match self {
            Target::Ssdsim => (Format::Ssdsim, None),
            Target::Disksim => (Format::Disksim, Some(TimeUnit::Ms)),
            Target::Mqsim => (Format::Disksim, Some(TimeUnit::Ns)),
            Target::Msr => (Format::Msr, None),
            Target::Fio => (Format::Fio, None),
        }
    }

    /// The target that writes `format` (for output in the input's format).
    pub fn for_format(format: Format, unit: Option<TimeUnit>) -> Option<Target> {
        match (format, unit) {
            (Format::Ssdsim, _) => Some(Target::Ssdsim),
            (Format::Disksim, Some(TimeUnit::Ms)) => Some(Target::Disksim),
            (Format::Disksim, _) => Some(Target::Mqsim),
            (Format::Msr, _) => Some(Target::Msr),
            (Format::Fio, _) => Some(Target::Fio),
            _ => None,
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Target::ALL.into_iter().find(|t| t.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
            format!("unknown output format `{s}`; valid: {}", names.join(", "))
        })
    }
}

/// What writing did besides copying.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Written {
    /// Requests written.
    pub requests: u64,
    /// Requests not sector-aligned, widened to the sectors they touch.
    pub widened: u64,
    /// Requests whose time is not a multiple of the format's time unit
    /// (100 ns for `msr`), rounded to the nearest.
    pub time_rounded: u64,
}

/// First sector and sector count covering a request; whether it was aligned.
fn sectors(r: &Request) -> (u64, u64, bool) {
    let first = r.offset / SECTOR_BYTES;
    let end = (r.offset + u64::from(r.size)).div_ceil(SECTOR_BYTES);
    (first, end - first, r.offset.is_multiple_of(SECTOR_BYTES) && u64::from(r.size).is_multiple_of(SECTOR_BYTES))
}

fn read_flag(op: Op) -> u8 {
    u8::from(op == Op::Read)
}

/// Writes `requests` (in the given order, times as given) in `target`.
pub fn write_requests<W: Write>(out: &mut W, target: Target, requests: &[Request]) -> io::Result<Written> {
    let mut w = Written { requests: requests.len() as u64, ..Default::default() };
    let mut devices: Vec<u32> = requests.iter().map(|r| r.device).collect();
    devices.sort_unstable();
    devices.dedup();
    if target == Target::Fio {
        writeln!(out, "fio version 2 iolog")?;
        for d in &devices {
            writeln!(out, "rainsim-dev{d} add")?;
        }
        for d in &devices {
            writeln!(out, "rainsim-dev{d} open")?;
        }
    }
    for r in requests {
        match target {
            Target::Ssdsim | Target::Mqsim | Target::Disksim => {
                let (lba, n, aligned) = sectors(r);
                w.widened += u64::from(!aligned);
                let op = read_flag(r.op);
                if target == Target::Disksim {
                    let (ms, ns) = (r.time_ns / 1_000_000, r.time_ns % 1_000_000);
                    writeln!(out, "{ms}.{ns:06} {} {lba} {n} {op}", r.device)?;
                } else {
                    writeln!(out, "{} {} {lba} {n} {op}", r.time_ns, r.device)?;
                }
            }
            Target::Msr => {
                w.time_rounded += u64::from(!r.time_ns.is_multiple_of(100));
                let ticks = r.time_ns / 100 + u64::from(r.time_ns % 100 >= 50);
                let op = if r.op == Op::Read { "Read" } else { "Write" };
                writeln!(out, "{ticks},rainsim,{},{op},{},{},0", r.device, r.offset, r.size)?;
            }
            Target::Fio => {
                let op = if r.op == Op::Read { "read" } else { "write" };
                writeln!(out, "rainsim-dev{} {op} {} {}", r.device, r.offset, r.size)?;
            }
        }
    }
    if target == Target::Fio {
        for d in &devices {
            writeln!(out, "rainsim-dev{d} close")?;
        }
    }
    Ok(w)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// An error if `out` is one of `inputs` (the same file by any path).
pub fn check_output(out: &Path, inputs: &[&Path]) -> Result<(), TraceError> {
    match inputs.iter().find(|i| same_file(i, out)) {
        Some(i) => Err(TraceError::Invalid(format!(
            "{}: the output is the input {}; refusing to overwrite it",
            out.display(),
            i.display()
        ))),
        None => Ok(()),
    }
}

/// Where writing `out` lands, and whether atomically: a symbolic link's
/// final target (the link stays a link), written through a temporary file
/// renamed over it; or, for an existing file that is not a regular one (a
/// pipe, a terminal, `/dev/null`, `/dev/stdout`), `out` itself, written in
/// place (a rename would replace the node with a plain file).
pub fn output_target(out: &Path) -> (PathBuf, bool) {
    if let Ok(m) = std::fs::metadata(out) {
        if !m.is_file() && !m.is_dir() {
            return (out.to_path_buf(), false);
        }
    }
    let mut p = out.to_path_buf();
    // As the kernel does: at most 40 links, then give up (the open fails).
    for _ in 0..40 {
        let Ok(t) = std::fs::read_link(&p) else { break };
        p = match p.parent() {
            Some(d) if t.is_relative() => d.join(t),
            _ => t,
        };
    }
    (p, true)
}

/// Writes `out` atomically: `write` fills a temporary file in the same
/// directory, which is then renamed over `out` (over a symbolic link's
/// target; a pipe or device is written in place, see [`output_target`]).
/// Refuses an `out` that is one of `inputs` (the same file by any path).
/// The temporary file is removed when writing fails.
pub fn write_atomic<T>(
    out: &Path,
    inputs: &[&Path],
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<T>,
) -> Result<T, TraceError> {
    check_output(out, inputs)?;
    let name = out.display().to_string();
    let io_err = |source| TraceError::Io { path: name.clone(), source };
    let (target, atomic) = output_target(out);
    if !atomic {
        let result = (|| {
            let mut w = BufWriter::new(std::fs::OpenOptions::new().write(true).open(&target)?);
            let v = write(&mut w)?;
            w.flush()?;
            Ok(v)
        })();
        return result.map_err(io_err);
    }
    let file_name = target.file_name().ok_or_else(|| TraceError::Invalid(format!("{name}: not a file name")))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let tmp = dir.join(format!(".{}.tmp-{}", file_name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut w = BufWriter::new(File::create(&tmp)?);
        let v = write(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, &target)?;
        Ok(v)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io_err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_in_each_target() {
        let rs = [
            Request { time_ns: 1_234_567_891, offset: 4096, size: 8192, device: 3, op: Op::Read },
            Request { time_ns: 1_234_567_950, offset: 1000, size: 100, device: 0, op: Op::Write },
        ];
        let text = |t| {
            let mut v = Vec::new();
            let w = write_requests(&mut v, t, &rs).unwrap();
            (String::from_utf8(v).unwrap(), w)
        };
        // Bytes 1000..1100 touch sectors 1 and 2.
        let (s, w) = text(Target::Ssdsim);
        assert_eq!(s, "1234567891 3 8 16 1\n1234567950 0 1 2 0\n");
        assert_eq!((w.requests, w.widened, w.time_rounded), (2, 1, 0));
        assert_eq!(text(Target::Mqsim).0, s);
        assert_eq!(text(Target::Disksim).0, "1234.567891 3 8 16 1\n1234.567950 0 1 2 0\n");
        let (s, w) = text(Target::Msr);
        assert_eq!(s, "12345679,rainsim,3,Read,4096,8192,0\n12345680,rainsim,0,Write,1000,100,0\n");
        assert_eq!((w.widened, w.time_rounded), (0, 2));
        assert_eq!(
            text(Target::Fio).0,
            "fio version 2 iolog\nrainsim-dev0 add\nrainsim-dev3 add\nrainsim-dev0 open\nrainsim-dev3 open\n\
             rainsim-dev3 read 4096 8192\nrainsim-dev0 write 1000 100\nrainsim-dev0 close\nrainsim-dev3 close\n"
        );
        for t in Target::ALL {
            assert_eq!(t.name().parse::<Target>().unwrap(), t);
        }
        assert!("spc".parse::<Target>().unwrap_err().contains("ssdsim, disksim, mqsim, msr, fio"));
    }

    /// A request with only one of offset and size on a sector boundary
    /// still covers a partial sector, so it is widened too.
    #[test]
    fn half_aligned_requests_are_widened() {
        let rs = [
            Request { time_ns: 0, offset: 0, size: 100, device: 0, op: Op::Write },
            Request { time_ns: 5, offset: 100, size: 512, device: 0, op: Op::Read },
        ];
        let mut v = Vec::new();
        let w = write_requests(&mut v, Target::Ssdsim, &rs).unwrap();
        // Bytes 0..100 touch sector 0; bytes 100..612 touch sectors 0 and 1.
        assert_eq!(String::from_utf8(v).unwrap(), "0 0 0 1 0\n5 0 0 2 1\n");
        assert_eq!(w.widened, 2);
    }

    /// Messages name a target as it is typed on the command line.
    #[test]
    fn targets_print_their_command_line_names() {
        let shown: Vec<String> = Target::ALL.iter().map(Target::to_string).collect();
        assert_eq!(shown, ["ssdsim", "disksim", "mqsim", "msr", "fio"]);
    }

    /// Output "in the input's format" must pick the target whose reader
    /// settings are the input's; other input formats have no writer.
    #[test]
    fn for_format_inverts_read_back() {
        for t in Target::ALL {
            let (format, unit) = t.read_back();
            assert_eq!(Target::for_format(format, unit), Some(t), "{t}");
        }
        assert_eq!(Target::for_format(Format::Ssdsim, Some(TimeUnit::Ms)), Some(Target::Ssdsim));
        assert_eq!(Target::for_format(Format::Disksim, None), Some(Target::Mqsim));
        for f in [Format::Spc, Format::Systor, Format::Alibaba, Format::MsrWindow, Format::Cbs, Format::Blkparse] {
            assert_eq!(Target::for_format(f, None), None, "{f:?}");
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rainsim-write-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A link (relative, two deep) stays a link: its final target is
    /// replaced, and a link to an input counts as that input.
    #[cfg(unix)]
    #[test]
    fn writing_through_a_symbolic_link_keeps_the_link() {
        let d = scratch("link");
        std::fs::write(d.join("target.txt"), "old").unwrap();
        std::os::unix::fs::symlink("target.txt", d.join("mid")).unwrap();
        std::os::unix::fs::symlink("mid", d.join("out.json")).unwrap();
        write_atomic(&d.join("out.json"), &[], |f| f.write_all(b"new")).unwrap();
        assert!(std::fs::symlink_metadata(d.join("out.json")).unwrap().file_type().is_symlink());
        assert!(std::fs::symlink_metadata(d.join("mid")).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(d.join("target.txt")).unwrap(), "new");
        let e = write_atomic(&d.join("out.json"), &[&d.join("target.txt")], |f| f.write_all(b"x")).unwrap_err();
        assert!(e.to_string().contains("the output is the input"), "{e}");
        // A dangling link: its target is created.
        std::os::unix::fs::symlink("fresh.txt", d.join("dangling")).unwrap();
        write_atomic(&d.join("dangling"), &[], |f| f.write_all(b"made")).unwrap();
        assert_eq!(std::fs::read_to_string(d.join("fresh.txt")).unwrap(), "made");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A regular file is replaced through a rename: writing it in place
    /// would leave the tail of a longer old file behind.
    #[test]
    fn an_existing_file_is_replaced_whole() {
        let d = scratch("replace");
        let out = d.join("out.trace");
        std::fs::write(&out, "a much longer old content").unwrap();
        assert_eq!(output_target(&out), (out.clone(), true));
        write_atomic(&out, &[], |f| f.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "new");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// The temporary file must be in the output's directory: a rename from
    /// another directory may cross file systems and fail.
    #[test]
    fn the_temporary_file_sits_beside_the_output() {
        let d = scratch("beside");
        let out = d.join("out.trace");
        let seen = write_atomic(&out, &[], |f| {
            f.write_all(b"x")?;
            let names = std::fs::read_dir(&d)?.map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()));
            names.collect::<io::Result<Vec<String>>>()
        })
        .unwrap();
        assert_eq!(seen, [format!(".out.trace.tmp-{}", std::process::id())]);
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "x");
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// A named pipe is written in place (a reader gets the bytes) and stays
    /// a pipe; renaming a file over it would have replaced it.
    #[cfg(unix)]
    #[test]
    fn a_named_pipe_is_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let d = scratch("fifo");
        let fifo = d.join("out.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils) is needed for this test");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        write_atomic(&fifo, &[], |f| f.write_all(b"through the pipe")).unwrap();
        assert_eq!(reader.join().unwrap(), "through the pipe");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(output_target(&fifo), (fifo.clone(), false));
        std::fs::remove_dir_all(&d).unwrap();
    }
}
