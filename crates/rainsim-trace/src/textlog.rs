//! The two line formats that carry state from line to line: `blkparse`
//! text output and fio iologs.
//!
//! # `blkparse`
//!
//! `blkparse -i` default output has one event a line:
//! `maj,min cpu seq seconds pid action RWBS [sector + count] [process]`, e.g.
//! `  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]`.
//! Only events of one action are requests: `Q` (queued, format `blkparse`)
//! or `C` (completed, format `blkparse-c`; the request then arrives at its
//! completion time). Every other line is counted under a reason, never
//! dropped unseen: events of another action, events without `sector + count`
//! (flushes, messages), discards (`D` in RWBS), events neither read nor
//! write, and the summary blkparse prints at the end (from the first line
//! `CPUn (maj,min):` or `Total (maj,min):` on, every line is summary).
//! Device = `major << 20 | minor` (the kernel's `MKDEV`).
//!
//! # fio iolog
//!
//! The first line is `fio version 2 iolog` or `fio version 3 iolog`. Lines
//! are `filename action` (add/open/close: counted, not requests) or
//! `filename action offset length` (bytes); version 3 puts a timestamp in
//! milliseconds first. Version 2 has no timestamps: a request arrives at the
//! sum of the `wait` lines before it (`wait` = offset µs), so a log without
//! waits replays back to back at 0 ns, in file order. `sync`, `datasync`,
//! `trim` and `wait` lines are counted, not requests. Device = index of the
//! file in order of first appearance (0, 1, ...).

use crate::fields::split_blank;
use crate::parse::{bad, parse_scaled, parse_u64, time, uint, Col, Parsed, SECTOR_BYTES};
use crate::stats::counted;
use crate::{format::Format, Op, Request};
use rustc_hash::FxHashMap;

/// Skip reasons (keys of [`crate::TraceInfo::skipped`]).
pub const BLK_SUMMARY: &str = "blkparse summary lines";
/// A `blkparse` event of an action other than the chosen one.
pub const BLK_OTHER_ACTION: &str = "blkparse events of another action";
/// A `blkparse` event of the chosen action without `sector + count`.
pub const BLK_NO_RANGE: &str = "blkparse events without sector + count (flush, message)";
/// A `blkparse` discard.
pub const BLK_DISCARD: &str = "blkparse discards (D in RWBS)";
/// A `blkparse` event neither read nor write.
pub const BLK_NOT_RW: &str = "blkparse events neither read nor write";
/// A `blkparse` event of 0 sectors.
pub const BLK_ZERO: &str = "blkparse events of 0 sectors";
/// fio `add`, `open`, `close`.
pub const FIO_FILE: &str = "fio file actions (add, open, close)";
/// fio `sync`, `datasync`.
pub const FIO_SYNC: &str = "fio sync and datasync";
/// fio `trim`.
pub const FIO_TRIM: &str = "fio trims";
/// fio `wait`.
pub const FIO_WAIT: &str = "fio waits";

/// Each reason with its singular: the plural stays the report's key.
const SINGULAR: [(&str, &str); 10] = [
    (BLK_SUMMARY, "blkparse summary line"),
    (BLK_OTHER_ACTION, "blkparse event of another action"),
    (BLK_NO_RANGE, "blkparse event without sector + count (flush, message)"),
    (BLK_DISCARD, "blkparse discard (D in RWBS)"),
    (BLK_NOT_RW, "blkparse event neither read nor write"),
    (BLK_ZERO, "blkparse event of 0 sectors"),
    (FIO_FILE, "fio file action (add, open, close)"),
    (FIO_SYNC, "fio sync or datasync"),
    (FIO_TRIM, "fio trim"),
    (FIO_WAIT, "fio wait"),
];

/// `n` lines skipped for `reason` (a key of [`crate::TraceInfo::skipped`]),
/// its noun agreeing with `n`: "1 fio wait", "2 fio waits".
pub fn skipped(n: u64, reason: &str) -> String {
    let one = SINGULAR.iter().find(|(many, _)| *many == reason).map_or(reason, |&(_, one)| one);
    counted(n, one, reason)
}

fn is_summary_start(line: &[u8]) -> bool {
    let line = crate::format::trim(line);
    let cpu = line.strip_prefix(b"CPU").is_some_and(|r| r.first().is_some_and(u8::is_ascii_digit));
    cpu || line.starts_with(b"Total (")
}

/// One `blkparse` line, keeping events of `action` (`b'Q'` or `b'C'`).
pub(crate) fn blkparse(line: &[u8], action: u8, in_summary: &mut bool) -> Result<Parsed, String> {
    if *in_summary || is_summary_start(line) {
        *in_summary = true;
        return Ok(Parsed::Skipped(BLK_SUMMARY));
    }
    // `blkparse-c` has the same columns.
    let col = |i| Col(Format::Blkparse, i);
    let mut f = [&b""[..]; 10];
    let n = split_blank(line, &mut f);
    if n < 7 {
        return Err(format!(
            "expected a blkparse event (maj,min cpu seq seconds pid action RWBS [sector + count] [process]) \
             or the summary starting `CPU0 (maj,min):`, found {}",
            counted(n as u64, "field", "fields")
        ));
    }
    let (maj, min) = f[0]
        .iter()
        .position(|&b| b == b',')
        .and_then(|c| Some((parse_u64(&f[0][..c])?, parse_u64(&f[0][c + 1..])?)))
        .filter(|&(maj, min)| maj < 1 << 12 && min < 1 << 20)
        .ok_or_else(|| bad(col(0), "`major,minor` (major < 4096, minor < 2^20)", f[0]))?;
    uint(f[1], col(1), "an unsigned integer (CPU)")?;
    uint(f[2], col(2), "an unsigned integer (sequence number)")?;
    let time_ns = time(f[3], col(3), 9, "seconds")?;
    uint(f[4], col(4), "an unsigned integer (pid)")?;
    let (act, rwbs) = (f[5], f[6]);
    if act.is_empty() || act.len() > 2 || !act.iter().all(u8::is_ascii_alphabetic) {
        return Err(bad(col(5), "an action letter (Q, C, D, ...)", act));
    }
    if !rwbs.iter().all(u8::is_ascii_alphabetic) {
        return Err(bad(col(6), "RWBS letters (R, W, D, S, ...)", rwbs));
    }
    if act != [action] {
        return Ok(Parsed::Skipped(BLK_OTHER_ACTION));
    }
    if n < 8 || parse_u64(f[7]).is_none() {
        return Ok(Parsed::Skipped(BLK_NO_RANGE));
    }
    if n < 10 || f[8] != b"+" {
        return Err(format!("{}: expected `sector + count` after the sector", col(7)));
    }
    let sector = uint(f[7], col(7), "an unsigned integer (512-byte sectors)")?;
    let count = uint(f[9], col(9), "an unsigned integer (512-byte sectors)")?;
    if rwbs.contains(&b'D') {
        return Ok(Parsed::Skipped(BLK_DISCARD));
    }
    let op = match (rwbs.contains(&b'R'), rwbs.contains(&b'W')) {
        (true, false) => Op::Read,
        (false, true) => Op::Write,
        _ => return Ok(Parsed::Skipped(BLK_NOT_RW)),
    };
    if count == 0 {
        return Ok(Parsed::Skipped(BLK_ZERO));
    }
    let offset = sector.checked_mul(SECTOR_BYTES).ok_or_else(|| format!("{}: sector {sector} is too large", col(7)))?;
    let size = count
        .checked_mul(SECTOR_BYTES)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| format!("{}: {count} sectors is too large (more than 4 GiB)", col(9)))?;
    Ok(Parsed::Request(Request { time_ns, offset, size, device: ((maj << 20) | min) as u32, op }))
}

/// What a fio iolog has told so far: its version, its files, the v2 clock.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FioState {
    /// 2 or 3, from the header; `None` before it.
    pub(crate) version: Option<u8>,
    files: FxHashMap<Vec<u8>, u32>,
    clock_ns: u64,
}

impl FioState {
    fn device(&mut self, name: &[u8]) -> u32 {
        let next = self.files.len() as u32;
        *self.files.entry(name.to_vec()).or_insert(next)
    }

    /// One line after the header.
    pub(crate) fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let Some(version) = self.version else {
            return Err("expected the fio iolog header `fio version 2 iolog` or `fio version 3 iolog` \
                        as the first line"
                .into());
        };
        let mut all = [&b""[..]; 6];
        let n = split_blank(line, &mut all);
        let skip = usize::from(version == 3);
        let shape = if version == 3 {
            "`timestamp_ms filename action` or `timestamp_ms filename action offset length`"
        } else {
            "`filename action` or `filename action offset length`"
        };
        if n != 2 + skip && n != 4 + skip {
            let n = counted(n as u64, "field", "fields");
            return Err(format!("expected {shape} (fio version {version} iolog), found {n}"));
        }
        let at = if version == 3 {
            Some(parse_scaled(all[0], 6).map_err(|why| {
                format!("field 1 (timestamp): expected a time in milliseconds, found `{}` ({why})", show(all[0]))
            })?)
        } else {
            None
        };
        let f = &all[skip..n];
        let field = |i: usize| i + 1 + skip;
        let action = f[1];
        if f.len() == 2 {
            return match action {
                b"add" | b"open" | b"close" => {
                    self.device(f[0]);
                    Ok(Parsed::Skipped(FIO_FILE))
                }
                x => Err(format!("field {}: expected add, open or close, found `{}`", field(1), show(x))),
            };
        }
        let num = |i: usize, what: &str| {
            parse_u64(f[i]).ok_or_else(|| {
                format!("field {}: expected an unsigned integer ({what}), found `{}`", field(i), show(f[i]))
            })
        };
        let offset = num(2, "offset in bytes")?;
        let length = num(3, "length in bytes")?;
        let op = match action {
            b"read" => Op::Read,
            b"write" => Op::Write,
            b"sync" | b"datasync" => return Ok(Parsed::Skipped(FIO_SYNC)),
            b"trim" => return Ok(Parsed::Skipped(FIO_TRIM)),
            b"wait" => {
                if version == 2 {
                    let ns = offset.checked_mul(1000).ok_or("wait too long")?;
                    self.clock_ns = self.clock_ns.checked_add(ns).ok_or("the waits add up past 64 bits of ns")?;
                }
                return Ok(Parsed::Skipped(FIO_WAIT));
            }
            x => {
                return Err(format!(
                    "field {}: expected read, write, sync, datasync, trim or wait, found `{}`",
                    field(1),
                    show(x)
                ))
            }
        };
        if length == 0 {
            return Err(format!("size 0 in field {}: a request must have a positive size", field(3)));
        }
        let size = u32::try_from(length)
            .map_err(|_| format!("field {}: size {length} is too large (more than 4 GiB)", field(3)))?;
        let device = self.device(f[0]);
        Ok(Parsed::Request(Request { time_ns: at.unwrap_or(self.clock_ns), offset, size, device, op }))
    }
}

fn show(f: &[u8]) -> String {
    crate::error::printable(&f[..f.len().min(40)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blk(line: &str) -> Result<Parsed, String> {
        blkparse(line.as_bytes(), b'Q', &mut false)
    }

    fn write(time_ns: u64, device: u32, offset: u64, size: u32) -> Result<Parsed, String> {
        Ok(Parsed::Request(Request { time_ns, offset, size, device, op: Op::Write }))
    }

    fn fio(version: u8, line: &str) -> Result<Parsed, String> {
        FioState { version: Some(version), ..Default::default() }.parse(line.as_bytes())
    }

    /// `MKDEV` holds a major below 2^12 and a minor below 2^20.
    #[test]
    fn blkparse_device_numbers_up_to_their_limits() {
        assert_eq!(blk("4095,1048575 0 1 0.5 9 Q W 8 + 8 [x]"), write(500_000_000, u32::MAX, 4096, 4096));
        for dev in ["4096,0", "0,1048576"] {
            let e = blk(&format!("{dev} 0 1 0.5 9 Q W 8 + 8 [x]")).unwrap_err();
            assert_eq!(e, format!("field 1 (dev): expected `major,minor` (major < 4096, minor < 2^20), found `{dev}`"));
        }
    }

    /// Actions are one or two letters (`UT`: unplug on a timer); the process
    /// name is optional, so a flush can have 7 fields and a request 10.
    #[test]
    fn blkparse_actions_and_optional_fields() {
        assert_eq!(blk("8,0 0 1 0.5 9 UT N [x]"), Ok(Parsed::Skipped(BLK_OTHER_ACTION)));
        for act in ["QQQ", "Q1"] {
            let e = blk(&format!("8,0 0 1 0.5 9 {act} W 8 + 8 [x]")).unwrap_err();
            assert_eq!(e, format!("field 6 (action): expected an action letter (Q, C, D, ...), found `{act}`"));
        }
        assert_eq!(blk("8,0 0 1 0.5 9 Q FWS"), Ok(Parsed::Skipped(BLK_NO_RANGE)));
        assert!(blk("8,0 0 1 0.5 9 Q").unwrap_err().ends_with("found 6 fields"));
        assert!(blk("garbage").unwrap_err().ends_with("found 1 field"));
        assert_eq!(blk("8,1 0 1 0.5 9 Q W 8 + 8"), write(500_000_000, (8 << 20) | 1, 4096, 4096));
        // A sector without `+ count` is an error, not a flush.
        let e = blk("8,0 0 1 0.5 9 Q W 8").unwrap_err();
        assert_eq!(e, "field 8 (sector): expected `sector + count` after the sector");
    }

    /// Every reason has a singular of its own, and keeps its plural.
    #[test]
    fn skip_reasons_agree_with_their_count() {
        assert_eq!(skipped(1, FIO_WAIT), "1 fio wait");
        assert_eq!(skipped(3, FIO_WAIT), "3 fio waits");
        assert_eq!(skipped(1, FIO_SYNC), "1 fio sync or datasync");
        assert_eq!(skipped(2, BLK_SUMMARY), "2 blkparse summary lines");
        assert_eq!(skipped(1, BLK_SUMMARY), "1 blkparse summary line");
        for (many, one) in SINGULAR {
            assert_ne!(skipped(1, many), format!("1 {many}"));
            assert_eq!(skipped(1, many), format!("1 {one}"));
            assert_eq!(skipped(0, many), format!("0 {many}"));
        }
    }

    /// Field numbers count the whole line: a version 3 line starts with its timestamp.
    #[test]
    fn fio_errors_name_the_field_and_what_was_found() {
        assert_eq!(fio(3, "0 /dev/a erase"), Err("field 3: expected add, open or close, found `erase`".into()));
        assert_eq!(fio(2, "/dev/a erase"), Err("field 2: expected add, open or close, found `erase`".into()));
        let e = fio(3, "0 /dev/a write 0x10 4096").unwrap_err();
        assert_eq!(e, "field 4: expected an unsigned integer (offset in bytes), found `0x10`");
        assert!(fio(2, "/dev/a").unwrap_err().ends_with("(fio version 2 iolog), found 1 field"));
        assert!(fio(3, "0 /dev/a").unwrap_err().ends_with("(fio version 3 iolog), found 2 fields"));
        let e = fio(2, "/dev/a read 0 0").unwrap_err();
        assert_eq!(e, "size 0 in field 4: a request must have a positive size");
    }
}
