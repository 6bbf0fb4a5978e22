//! How the array hands work to its members: under DLS a read is charged
//! to the die its page is on (Alg. 1 line 15), found through the member's
//! own mapping; and the members' events wait in the array's queue ranked
//! after its own.

use super::super::params::Allocation;
use super::super::test_config::tiny_array;
use super::super::{Array, ArrayEv};
use crate::config::MapTrace;
use crate::flash::op::Owner;
use rainsim_trace::{Op, Request};

const PAGE: u64 = 4096;

/// 3 fresh devices under DLS, 2 ms reads, every chunk of the first 120
/// mapped.
fn dls_array() -> Array {
    let mut c = tiny_array(3, Allocation::Dls);
    c.precondition.map_trace = MapTrace::Footprint;
    c.timing.read_ns = 2_000_000;
    let reqs: Vec<Request> = (0..120)
        .map(|i| Request { time_ns: 0, offset: i * PAGE, size: PAGE as u32, device: 0, op: Op::Read })
        .collect();
    Array::for_requests(&c, false, &reqs).unwrap()
}

/// Two reads at once of two slots of device 0 on one channel whose pages
/// are on one die: the second waits for that die (a whole read, T_flash_r),
/// not only for the bus, as it would on the channel's other, idle die. The
/// slots are on a channel other than device page 0's, so a read charged to
/// the wrong page (page 0) or to no die shows.
#[test]
fn a_read_waits_for_the_die_its_page_is_on() {
    let mut a = dls_array();
    let core = &mut a.core;
    let dev = &core.devices[0];
    let (ch0, _) = dev.die_of_page(0).expect("page 0 is mapped");
    let on_die: Vec<(u32, u32, u32)> = (0..120u32)
        .filter_map(|c| {
            let (d, slot) = core.map.get(c)?;
            let ch = core.map.channel(slot);
            let (pch, die) = dev.die_of_page(slot as u64)?;
            (d == 0 && pch == ch && ch != ch0).then_some((c, slot, ch * 8 + die))
        })
        .collect();
    let (c1, s1, key) = on_die[0];
    let &(c2, s2, _) = on_die[1..].iter().find(|x| x.2 == key).expect("two slots of device 0 on one die");
    let ch = key / 8;
    let t = core.service;
    core.issue(Owner::HostRead(0), c1, 0, s1, (s1 as u64 * PAGE, PAGE as u32), false);
    core.issue(Owner::HostRead(1), c2, 0, s2, (s2 as u64 * PAGE, PAGE as u32), false);
    let waited = core.loads[0].delays.delay_ns[ch as usize];
    assert!((waited - t.flash_r_ns).abs() < 1e-6, "the second read waited {waited} ns, T_flash_r is {}", t.flash_r_ns);
}

/// At one instant the array's own events run before its devices', and
/// device 0's before device 1's (ranks 0, 1, 2), whatever the order they
/// were scheduled in: device 1's read is issued first, then device 0's,
/// then an arrival is scheduled at the time both finish sensing.
#[test]
fn at_one_instant_the_arrays_own_events_run_first_then_the_devices_by_index() {
    let mut a = dls_array();
    let core = &mut a.core;
    for d in [1, 0] {
        let c = (0..120u32).find(|&c| core.map.get(c).is_some_and(|(dev, _)| dev == d)).unwrap();
        let slot = core.map.get(c).unwrap().1;
        core.issue(Owner::HostRead(d), c, d, slot, (slot as u64 * PAGE, PAGE as u32), false);
        core.take_events();
    }
    let t = core.q.peek_time().expect("both reads scheduled their sensing");
    core.q.at(t, ArrayEv::Arrival);
    let mut order = Vec::new();
    while let Some((at, e)) = core.q.pop() {
        if at == t {
            order.push(match e {
                ArrayEv::Device(tag, _) => format!("device {}", tag & 0xffff),
                other => format!("{other:?}"),
            });
        }
    }
    assert_eq!(order, ["Arrival", "device 0", "device 1"]);
}
