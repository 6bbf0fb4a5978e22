//! What a write-allocation policy sees of a device's bytes written.

use super::super::params::Allocation;
use super::super::test_config::tiny_array;
use super::super::Array;
use crate::flash::op::Origin;
use rainsim_trace::{Op, Request};

const PAGE: u64 = 4096;

/// A device's bytes written, as the policy sees them, are the array's
/// writes to it plus, a page each, its GC moves and its own parity
/// programs, summed over its channels: device 1 is given 3 moves and 2
/// parity programs on channel 0 and 4 moves on channel 2 (9 pages), device
/// 0 nothing of its own.
#[test]
fn a_devices_bytes_written_count_its_own_moves_and_parity_a_page_each() {
    let mut a = Array::new(&tiny_array(3, Allocation::Egs), false).unwrap();
    let reqs: Vec<Request> = (0..12)
        .map(|i| Request { time_ns: i * 1_000_000, offset: i * PAGE, size: PAGE as u32, device: 0, op: Op::Write })
        .collect();
    a.run(&reqs, &mut |_| {}).unwrap();
    let written = a.core.counters.device_bytes.clone();
    assert!(written.iter().all(|&b| b > 0), "every device took writes: {written:?}");
    let chans = &mut a.core.devices[1].obs.channels;
    chans[0].pages_moved += 3;
    chans[0].ops[Origin::ParityProgram as usize] += 2;
    chans[2].pages_moved += 4;
    a.core.refresh_written();
    let seen: Vec<u64> = a.core.loads.iter().map(|l| l.written_bytes).collect();
    assert_eq!(seen, [written[0], written[1] + 9 * PAGE, written[2]]);
}
