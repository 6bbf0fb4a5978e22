//! The formats read besides the public samples' (Tencent CBS, `blkparse`,
//! fio iologs, MSR with a header) and zstd/xz input, on small hand-written
//! lines written from each format's own documentation.

use crate::common::*;
use rainsim_trace::{load, Format, Op, Request, TraceError, TraceOptions};
use std::io::Write;

fn opts(format: Option<Format>) -> TraceOptions {
    TraceOptions { format, ..Default::default() }
}

fn rq(time_ns: u64, device: u32, offset: u64, size: u32, op: Op) -> Request {
    Request { time_ns, offset, size, device, op }
}

fn skipped(t: &rainsim_trace::Trace, why: &str) -> u64 {
    t.info.skipped.get(why).copied().unwrap_or(0)
}

#[test]
fn cbs_units_counts_and_detection() {
    let tmp = TempDir::new("cbs");
    // Timestamp (Unix s), Offset (sectors), Size (sectors), IOType (0 read, 1 write), VolumeID.
    let text = "1538323200,12309216,8,1,1063\n1538323200,4096,16,0,1063\n1538323201,1,1,1,7\n";
    for (name, body) in
        [("plain.csv", text.to_string()), ("header.csv", format!("Timestamp,Offset,Size,IOType,VolumeID\n{text}"))]
    {
        let p = tmp.file(name, body.as_bytes());
        for f in [None, Some(Format::Cbs)] {
            let t = load(&p, &opts(f), BIG, PAGE).unwrap();
            assert_eq!(t.info.format, "cbs", "{name}");
            assert_eq!(t.info.records_read, 3, "{name}");
            assert_eq!(
                t.requests,
                [
                    rq(0, 1063, 12_309_216 * 512, 4096, Op::Write),
                    rq(0, 1063, 2_097_152, 8192, Op::Read),
                    rq(1_000_000_000, 7, 512, 512, Op::Write)
                ],
                "{name}"
            );
        }
    }
    let p = tmp.file("bad.csv", b"1538323200,12309216,8,1,1063\n\n1538323200,8,8,2,1063\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("bad.csv:3: field 4 (IOType): expected 0 (read) or 1 (write), found `2`"), "{msg}");
    let p = tmp.file("zero.csv", b"1538323200,8,0,1,1063\n");
    let msg = load_err(&p, &opts(Some(Format::Cbs)), BIG).to_string();
    assert!(msg.contains("zero.csv:1: size 0"), "{msg}");
}

/// `blkparse -i` default output: Q, G, I, D, C of one write, a read, a flush
/// without range, a discard, a message, then the summary.
const BLKPARSE: &str = "\
  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]
  8,0    3        2     0.000001500   697  G   W 223490 + 8 [kjournald]
  8,0    3        3     0.000002000   697  I   W 223490 + 8 [kjournald]
  8,0    3        4     0.000003000   697  D   W 223490 + 8 [kjournald]
  8,16   1        1     0.000100000  1201  Q   R 1000 + 16 [cat]
  8,0    3        5     0.000200000     0  C   W 223490 + 8 [0]
  8,0    0        6     0.000300000   699  Q FWS [jbd2/sda1-8]
  8,0    0        7     0.000400000   700  Q  DS 4096 + 2048 [fstrim]
  8,0    0        0     0.000500000     0  m   N cfq697 insert_request
  8,16   1        2     0.001000000     0  C   R 1000 + 16 [0]

CPU0 (8,0):
 Reads Queued:           1,        8KiB\t Writes Queued:           1,        4KiB
 Read Dispatches:        0,        0KiB\t Write Dispatches:        1,        4KiB
Total (8,0):
 Reads Queued:           1,        8KiB\t Writes Queued:           1,        4KiB

Throughput (R/W): 8000KiB/s / 4000KiB/s
Events (8,0): 10 entries
Skips: 0 forward (0 -   0.0%)
";

#[test]
fn blkparse_queued_by_default_completed_on_request() {
    let tmp = TempDir::new("blkparse");
    let p = tmp.file("sda.txt", BLKPARSE.as_bytes());
    let sda = 8 << 20;
    let sdb = (8 << 20) | 16;
    for f in [None, Some(Format::Blkparse)] {
        let t = load(&p, &opts(f), BIG, PAGE).unwrap();
        assert_eq!(t.info.format, "blkparse");
        assert_eq!(t.requests, [rq(0, sda, 223_490 * 512, 4096, Op::Write), rq(100_000, sdb, 512_000, 8192, Op::Read)]);
        assert_eq!(skipped(&t, "blkparse events of another action"), 6, "G I D C m C");
        assert_eq!(skipped(&t, "blkparse events without sector + count (flush, message)"), 1);
        assert_eq!(skipped(&t, "blkparse discards (D in RWBS)"), 1);
        assert_eq!(skipped(&t, "blkparse summary lines"), 8, "non-blank lines from `CPU0 (8,0):` on");
        let total_skipped: u64 = t.info.skipped.values().sum();
        assert_eq!(t.info.records_read, 2 + total_skipped, "every line accounted for");
    }
    let t = load(&p, &opts(Some(Format::BlkparseC)), BIG, PAGE).unwrap();
    assert_eq!(t.info.format, "blkparse-c");
    // Completion times: 0.0002 s and 0.001 s, rebased to the first.
    assert_eq!(t.requests, [rq(0, sda, 223_490 * 512, 4096, Op::Write), rq(800_000, sdb, 512_000, 8192, Op::Read)]);
    assert_eq!(skipped(&t, "blkparse events of another action"), 8);

    let bad = BLKPARSE.replacen("8,16   1        1     0.000100000", "8,16   1        1     0.0001x0000", 1);
    let p = tmp.file("bad.txt", bad.as_bytes());
    let msg = load_err(&p, &opts(Some(Format::Blkparse)), BIG).to_string();
    assert!(msg.contains("bad.txt:5: field 4 (time): expected a non-negative time in seconds"), "{msg}");
    let p = tmp.file("plus.txt", b"  8,0 3 1 0.5 697 Q W 223490 8 [x]\n");
    let msg = load_err(&p, &opts(Some(Format::Blkparse)), BIG).to_string();
    assert!(msg.contains("plus.txt:1: field 8 (sector): expected `sector + count`"), "{msg}");
    let p = tmp.file("junk.txt", b"  8,0 3 1 0.5 697 Q W 1 + 8 [x]\nhello\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("junk.txt:2: expected a blkparse event"), "{msg}");
    let p = tmp.file("only_c.txt", b"  8,0 3 1 0.5 0 C W 1 + 8 [0]\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(matches!(load_err(&p, &opts(None), BIG), TraceError::Empty { .. }), "{msg}");
    assert!(msg.contains("the only record was skipped (1 blkparse event of another action)"), "{msg}");
}

#[test]
fn fio_v2_replays_back_to_back_with_waits_and_counts_file_actions() {
    let tmp = TempDir::new("fio2");
    let text = "fio version 2 iolog\n\
                /dev/sdb add\n/dev/sdc add\n/dev/sdb open\n/dev/sdc open\n\
                /dev/sdb write 0 4096\n/dev/sdc read 8192 512\n\
                /dev/sdb wait 250 0\n/dev/sdb read 4096 4096\n/dev/sdb sync 0 0\n/dev/sdb trim 0 4096\n\
                /dev/sdb wait 1000 0\n/dev/sdc write 1048576 131072\n/dev/sdb close\n/dev/sdc close\n";
    let p = tmp.file("job.iolog", text.as_bytes());
    for f in [None, Some(Format::Fio)] {
        let t = load(&p, &opts(f), BIG, PAGE).unwrap();
        assert_eq!(t.info.format, "fio");
        assert_eq!(
            t.requests,
            [
                rq(0, 0, 0, 4096, Op::Write),
                rq(0, 1, 8192, 512, Op::Read),
                rq(250_000, 0, 4096, 4096, Op::Read),
                rq(1_250_000, 1, 1_048_576, 131_072, Op::Write)
            ]
        );
        assert_eq!(skipped(&t, "fio file actions (add, open, close)"), 6);
        assert_eq!(skipped(&t, "fio waits"), 2);
        assert_eq!(skipped(&t, "fio sync and datasync"), 1);
        assert_eq!(skipped(&t, "fio trims"), 1);
        assert_eq!(t.info.records_read, 14, "all lines but the header");
    }
    let p = tmp.file("bad.iolog", b"fio version 2 iolog\n/dev/sdb add\n/dev/sdb open\n/dev/sdb erase 0 4096\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("bad.iolog:4: field 2: expected read, write"), "{msg}");
    let p = tmp.file("short.iolog", b"fio version 2 iolog\n/dev/sdb write 4096\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("short.iolog:2: expected `filename action` or `filename action offset length`"), "{msg}");
    let p = tmp.file("nohead.iolog", b"/dev/sdb write 0 4096\n");
    let msg = load_err(&p, &opts(Some(Format::Fio)), BIG).to_string();
    assert!(msg.contains("nohead.iolog:1: expected the fio iolog header"), "{msg}");
}

#[test]
fn fio_v3_timestamps_are_milliseconds() {
    let tmp = TempDir::new("fio3");
    let text = "fio version 3 iolog\n0 /dev/nvme0n1 add\n0 /dev/nvme0n1 open\n\
                12 /dev/nvme0n1 write 0 4096\n15 /dev/nvme0n1 read 65536 8192\n\
                2000 /dev/nvme0n1 write 4096 4096\n2001 /dev/nvme0n1 close\n";
    let p = tmp.file("v3.log", text.as_bytes());
    let t = load(&p, &opts(None), BIG, PAGE).unwrap();
    assert_eq!(
        t.requests,
        [
            rq(0, 0, 0, 4096, Op::Write),
            rq(3_000_000, 0, 65536, 8192, Op::Read),
            rq(1_988_000_000, 0, 4096, 4096, Op::Write)
        ]
    );
    assert_eq!(skipped(&t, "fio file actions (add, open, close)"), 3);
    let p = tmp.file("v3bad.log", b"fio version 3 iolog\n0 /dev/a add\nsoon /dev/a write 0 4096\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("v3bad.log:3: field 1 (timestamp): expected a time in milliseconds"), "{msg}");
    // A v2 line in a v3 log has a field too few.
    let p = tmp.file("v3v2.log", b"fio version 3 iolog\n/dev/a write 0 4096\n");
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("v3v2.log:2: expected `timestamp_ms filename action"), "{msg}");
}

#[test]
fn msr_with_a_header_line() {
    let tmp = TempDir::new("msr-header");
    let text = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
                128166372003061629,wdev,2,Read,3154164736,4096,5571\n\
                128166372016382155,wdev,2,Write,3154132992,8192,2000\n";
    let p = tmp.file("wdev_2.csv", text.as_bytes());
    let t = load(&p, &opts(None), BIG, PAGE).unwrap();
    assert_eq!(t.info.format, "msr");
    assert_eq!(t.info.records_read, 2);
    assert_eq!(
        t.requests,
        [rq(0, 2, 3_154_164_736, 4096, Op::Read), rq(1_332_052_600, 2, 3_154_132_992, 8192, Op::Write)]
    );
    let p = tmp.file("bad.csv", format!("{text}128166372016382155,wdev,2,Write,-1,8192,2000\n").as_bytes());
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.contains("bad.csv:4: field 5 (Offset)"), "{msg}");
}

#[test]
fn zstd_and_xz_are_recognised_by_their_magic_bytes() {
    let tmp = TempDir::new("compressed");
    let text = "0,657728,8192,R,0.011413\n1,31244784,32768,W,0.011565\n";
    let plain = load(&tmp.file("plain.spc", text.as_bytes()), &opts(None), BIG, PAGE).unwrap();
    let zst = zstd::encode_all(text.as_bytes(), 3).unwrap();
    let mut xz = liblzma::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(text.as_bytes()).unwrap();
    let xz = xz.finish().unwrap();
    assert_eq!(&zst[..4], [0x28, 0xb5, 0x2f, 0xfd]);
    assert_eq!(&xz[..6], [0xfd, b'7', b'z', b'X', b'Z', 0]);
    for (name, bytes) in [("a.data", &zst), ("b.data", &xz)] {
        let t = load(&tmp.file(name, bytes), &opts(None), BIG, PAGE).unwrap();
        assert_eq!(t.requests, plain.requests, "{name}");
        assert_eq!(t.info.file_bytes, bytes.len() as u64, "{name}: stored size");
    }
    // Two concatenated zstd frames read as one text.
    let mut two = zstd::encode_all(&text.as_bytes()[..25], 1).unwrap();
    two.extend(zstd::encode_all(&text.as_bytes()[25..], 1).unwrap());
    let t = load(&tmp.file("two.zst", &two), &opts(None), BIG, PAGE).unwrap();
    assert_eq!(t.requests, plain.requests);
    // Corrupt data names the file.
    let mut bad = zst.clone();
    bad.truncate(bad.len() - 3);
    let p = tmp.file("cut.zst", &bad);
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.starts_with(&p.display().to_string()), "{msg}");
    let p = tmp.file("cut.xz", &xz[..xz.len() / 2]);
    let msg = load_err(&p, &opts(None), BIG).to_string();
    assert!(msg.starts_with(&p.display().to_string()), "{msg}");
    // Bytes appended after the last frame or stream are named as such, not
    // as a file cut short; xz's zero padding after a stream is no error.
    for (name, bytes, what) in [("tail.zst", &zst, "zstd"), ("tail.xz", &xz, "xz")] {
        let p = tmp.file(name, &[&bytes[..], b"garbage\n"].concat());
        let msg = load_err(&p, &opts(None), BIG).to_string();
        assert!(msg.contains(&format!("trailing data after the {what} stream")) && !msg.contains("cut short"), "{msg}");
    }
    let padded = load(&tmp.file("padded.xz", &[&xz[..], &[0; 8]].concat()), &opts(None), BIG, PAGE).unwrap();
    assert_eq!(padded.requests, plain.requests);
}

#[test]
fn every_format_has_a_readme_row() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md")).unwrap();
    let table = &readme[readme.find("### Trace formats and units").expect("section")..];
    for f in Format::ALL {
        let row = table.lines().find(|l| l.starts_with(&format!("| `{}` |", f.name())));
        let row = row.unwrap_or_else(|| panic!("no README row for {f}"));
        assert_eq!(row.matches(" | ").count(), 3, "{f}: columns, units, example line: {row}");
    }
}

#[test]
fn new_format_names_work_in_config_files() {
    for name in ["cbs", "blkparse", "blkparse-c", "fio"] {
        let o: TraceOptions = toml::from_str(&format!("format = \"{name}\"")).unwrap();
        assert_eq!(o.format.map(|f| f.name()), Some(name));
    }
}
