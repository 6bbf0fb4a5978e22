//! Controller-core contention (`controller.cores`): stripe XORs queue for a
//! core, and each goes to the core that frees first.

use crate::{tiny, Lat};
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};

const PB: u64 = 4096;
const T_PROG: u64 = 500_000;
const XFER: u64 = 10_240 + 300;
const CTL: u64 = 49_000 + 1_000;

/// Latencies of full-stripe writes to stripes 0, 1, … all arriving at 0 on
/// an idle 4-channel 3+1 device with 3 dies per channel.
fn stripe_writes(cores: u32, n: u64) -> Vec<u64> {
    let mut c = tiny(4, 3, 1, 64, 16, Some(4));
    c.timing.program_ns = T_PROG;
    c.timing.command_ns = 300;
    c.timing.xor_ns = 49_000;
    c.timing.stripe_overhead_ns = 1_000;
    c.controller.cores = cores;
    let mut ssd = Ssd::new(&c, Lat::default(), true).unwrap();
    let reqs: Vec<Request> = (0..n)
        .map(|s| Request { time_ns: 0, offset: s * 3 * PB, size: 3 * PB as u32, device: 0, op: Op::Write })
        .collect();
    ssd.run(&reqs, &mut |_| {}).unwrap();
    assert!(ssd.obs.0.iter().all(|(op, _)| *op == Op::Write));
    let mut lat: Vec<u64> = ssd.obs.0.iter().map(|x| x.1).collect();
    lat.sort();
    lat
}

/// Each stripe puts one chunk on every channel. After its XOR, a stripe's
/// four programs start on the channels' idle dies: transfer, then tPROG.
#[test]
fn one_core_serialises_stripe_xors_and_two_overlap() {
    // One core: the second XOR starts when the first ends; its transfers find
    // the buses free again (CTL > XFER) and its programs the second dies.
    const { assert!(CTL > XFER) };
    assert_eq!(stripe_writes(1, 2), vec![CTL + XFER + T_PROG, 2 * CTL + XFER + T_PROG]);
    // Two cores: both XORs end at CTL; the second stripe's transfers queue
    // behind the first's on each bus.
    assert_eq!(stripe_writes(2, 2), vec![CTL + XFER + T_PROG, CTL + 2 * XFER + T_PROG]);
    // No contention (0 = a pure delay): the same as two cores here.
    assert_eq!(stripe_writes(0, 2), vec![CTL + XFER + T_PROG, CTL + 2 * XFER + T_PROG]);
}

/// Three XORs on two cores: the third takes the core that frees first (at
/// CTL) and ends at 2 CTL, when the buses are free again; its programs go to
/// the third dies.
#[test]
fn work_goes_to_the_least_loaded_core() {
    const { assert!(2 * CTL > CTL + 2 * XFER) };
    assert_eq!(stripe_writes(2, 3), vec![CTL + XFER + T_PROG, CTL + 2 * XFER + T_PROG, 2 * CTL + XFER + T_PROG]);
}

/// A request with no admission overhead (`request_overhead_ns` and the
/// policies' decision time both 0) does not queue for a controller core:
/// a read arriving 1 ns after a stripe's XOR took the only core is served at
/// once, T_R + transfer, not after the XOR.
#[test]
fn a_request_without_admission_overhead_does_not_wait_for_a_busy_core() {
    const T_R: u64 = 20_000;
    let mut c = tiny(4, 3, 1, 64, 16, Some(4));
    (c.timing.read_ns, c.timing.program_ns, c.timing.command_ns) = (T_R, T_PROG, 300);
    (c.timing.xor_ns, c.timing.stripe_overhead_ns) = (49_000, 1_000);
    c.timing.request_overhead_ns = 0;
    c.controller.cores = 1;
    let mut ssd = Ssd::new(&c, Lat::default(), true).unwrap();
    let at = 10_000_000;
    let stripe =
        |time_ns, s: u64| Request { time_ns, offset: s * 3 * PB, size: 3 * PB as u32, device: 0, op: Op::Write };
    let reqs = [
        stripe(0, 1),
        stripe(at, 2),
        Request { time_ns: at + 1, offset: 3 * PB, size: PB as u32, device: 0, op: Op::Read },
    ];
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let reads: Vec<u64> = ssd.obs.0.iter().filter(|x| x.0 == Op::Read).map(|x| x.1).collect();
    assert_eq!(reads, vec![T_R + XFER], "the read waited for the XOR's core");
    let writes: Vec<u64> = ssd.obs.0.iter().filter(|x| x.0 == Op::Write).map(|x| x.1).collect();
    assert_eq!(writes, vec![CTL + XFER + T_PROG; 2]);
}
