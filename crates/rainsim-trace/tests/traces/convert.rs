//! Round trips: requests written in each output format and read back are the
//! same requests (within each format's resolution), and output is atomic.

use crate::common::*;
use rainsim_trace::{read, write_atomic, write_requests, Op, Request, Target};

fn rq(time_ns: u64, device: u32, offset: u64, size: u32, op: Op) -> Request {
    Request { time_ns, offset, size, device, op }
}

/// Sector-aligned, two devices, times on 100 ns ticks, out of address order,
/// with two requests at the same time.
fn requests() -> Vec<Request> {
    vec![
        rq(0, 0, 0, 4096, Op::Write),
        rq(1_500, 1, 1 << 40, 512, Op::Read),
        rq(1_500, 0, 7 * 512, 131_072, Op::Write),
        rq(2_000_000_300, 1, 8192, 65_536, Op::Read),
        rq(3_600_000_000_000, 0, 4096, 1024, Op::Write),
    ]
}

fn round_trip(tmp: &TempDir, target: Target, rs: &[Request]) -> (Vec<Request>, String) {
    let p = tmp.0.join(format!("out.{target}"));
    write_atomic(&p, &[], |w| write_requests(w, target, rs)).unwrap();
    let (format, unit) = target.read_back();
    let back = read(&p, Some(format), unit).unwrap_or_else(|e| panic!("{target}: {e}"));
    (back.requests, std::fs::read_to_string(&p).unwrap())
}

#[test]
fn every_target_reads_back_the_same_requests() {
    let tmp = TempDir::new("round-trip");
    let rs = requests();
    for target in [Target::Ssdsim, Target::Disksim, Target::Mqsim, Target::Msr] {
        let (back, text) = round_trip(&tmp, target, &rs);
        assert_eq!(back, rs, "{target}:\n{text}");
    }
    // fio v2 has no timing: order, op, offset, size and device survive, times are 0.
    let (back, text) = round_trip(&tmp, Target::Fio, &rs);
    let untimed: Vec<Request> = rs.iter().map(|r| Request { time_ns: 0, ..*r }).collect();
    assert_eq!(back, untimed, "fio:\n{text}");
}

#[test]
fn rounding_where_a_format_is_coarser() {
    let tmp = TempDir::new("rounding");
    // DiskSim ms text keeps every ns; MSR FILETIME keeps 100 ns ticks (nearest, halves up).
    let rs = vec![rq(1, 0, 0, 512, Op::Read), rq(149, 0, 0, 512, Op::Read), rq(150, 0, 0, 512, Op::Read)];
    assert_eq!(round_trip(&tmp, Target::Disksim, &rs).0, rs);
    let times: Vec<u64> = round_trip(&tmp, Target::Msr, &rs).0.iter().map(|r| r.time_ns).collect();
    assert_eq!(times, [0, 100, 200]);
    // Sector formats widen a request to the sectors it touches; MSR and fio keep bytes.
    let odd = vec![rq(0, 0, 1000, 100, Op::Write)];
    assert_eq!(round_trip(&tmp, Target::Ssdsim, &odd).0, [rq(0, 0, 512, 1024, Op::Write)]);
    assert_eq!(round_trip(&tmp, Target::Msr, &odd).0, odd);
    assert_eq!(round_trip(&tmp, Target::Fio, &odd).0, odd);
}

#[test]
fn output_is_atomic_and_never_the_input() {
    let tmp = TempDir::new("atomic");
    let input = tmp.file("in.trace", b"0 0 8 8 1\n");
    let alias = tmp.0.join(".").join("in.trace");
    let e = write_atomic(&alias, &[&input], |w| write_requests(w, Target::Ssdsim, &requests())).unwrap_err();
    assert!(e.to_string().contains("refusing to overwrite"), "{e}");
    assert_eq!(std::fs::read(&input).unwrap(), b"0 0 8 8 1\n", "input untouched");
    // A failing writer leaves neither the output nor a temporary file.
    let out = tmp.0.join("out.trace");
    let e = write_atomic(&out, &[&input], |_| -> std::io::Result<()> { Err(std::io::Error::other("disk full")) });
    assert!(e.unwrap_err().to_string().contains("out.trace: disk full"));
    let names: Vec<String> =
        std::fs::read_dir(&tmp.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["in.trace"]);
}
