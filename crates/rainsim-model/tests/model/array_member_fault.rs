//! A channel failing inside one member of an array (`[fault]` with
//! `fault.device`): the member's own RAID-5 loses and rebuilds that channel's
//! chunks, the array above sends every member the same work as without the
//! failure, and `--verify` holds (a reconstructed read returns the chunk's
//! latest version) on the member and on the array.

use crate::array::array_cfg;
use crate::xorshift_requests;
use rainsim_model::array::params::Allocation;
use rainsim_model::array::report::ArrayReport;
use rainsim_model::array::Array;
use rainsim_model::config::RaidLevel;
use rainsim_model::Config;
use rainsim_trace::{Op, Request};

const MEMBER: u32 = 1;
const CHANNEL: u32 = 2;

/// Four members of 4 channels, each with RAID-5 3+1 inside.
fn cfg() -> Config {
    let mut c = array_cfg(4, Allocation::Static);
    (c.raid.level, c.raid.stripe_width) = (RaidLevel::Raid5, 4);
    c
}

fn failing(at_ns: u64, rebuild: bool) -> Config {
    let mut c = cfg();
    (c.fault.device, c.fault.channel, c.fault.at_ns, c.fault.rebuild) = (Some(MEMBER), Some(CHANNEL), at_ns, rebuild);
    c
}

fn run(c: &Config, reqs: &[Request]) -> (Array, ArrayReport) {
    let mut a = Array::new(c, true).unwrap();
    a.run(reqs, &mut |_| {}).unwrap();
    let r = a.report(c, "baseline", serde_json::Value::Null);
    (a, r)
}

/// Writes only, 1–3 pages, 50 µs apart over the array's first 600 pages.
fn writes(n: u64) -> Vec<Request> {
    xorshift_requests(0x9e37_79b9, n, 50_000, 600, u64::MAX, |x| (1 + x % 3) as u32 * 4096)
}

#[test]
fn an_idle_members_channel_comes_back_whole_and_the_other_members_see_nothing() {
    // The failure comes 1 s after the last write (every chunk in place),
    // before a last read at 2 s (a failure after the last request does not
    // happen: see below).
    let mut reqs = writes(400);
    reqs.push(Request { time_ns: 2_000_000_000, offset: 0, size: 4096, device: 0, op: Op::Read });
    let (clean, clean_r) = run(&cfg(), &reqs);
    let before = clean.devices()[MEMBER as usize].ftl.chunks_on_channel(CHANNEL);
    assert!(before.len() > 30, "{} chunks on the channel", before.len());
    assert!(clean_r.member_fault.is_none());
    let (a, r) = run(&failing(1_000_000_000, true), &reqs);
    let m = r.member_fault.as_ref().expect("the member reports its failure");
    let f = &m.fault;
    assert_eq!((m.device, f.channel, f.failed_at_ns), (MEMBER, CHANNEL, 1_000_000_000));
    assert_eq!((f.chunks_lost_at_failure, f.pages_rebuilt), (before.len() as u64, before.len() as u64));
    assert_eq!((f.chunks_lost_after_failure, f.rewritten_by_host, f.chunks_lost_at_end), (0, 0, 0));
    let mut after = a.devices()[MEMBER as usize].ftl.chunks_on_channel(CHANNEL);
    after.sort_unstable();
    let mut before = before;
    before.sort_unstable();
    assert_eq!(after, before, "the member's replacement channel holds the same chunks");
    // The array sent every member the same reads and programs, and the
    // members that did not fail did the same flash work.
    assert_eq!(a.counters().device_ops, clean.counters().device_ops);
    for d in [0, 2, 3] {
        let (x, y) = (&a.devices()[d].ftl, &clean.devices()[d].ftl);
        assert_eq!(x.chunks_on_channel(CHANNEL), y.chunks_on_channel(CHANNEL), "member {d}");
        assert_eq!(r.devices[d].erases, clean_r.devices[d].erases, "member {d}");
        assert_eq!(r.devices[d].waf, clean_r.devices[d].waf, "member {d}: no rebuild programs");
        assert!(a.devices()[d].fault_report().is_none(), "member {d} did not fail");
    }
    // The failed member programmed its rebuilt chunks on top of the same work.
    assert!(r.devices[MEMBER as usize].waf > clean_r.devices[MEMBER as usize].waf);
}

/// A member's channel rebuilt after the last request: the other members'
/// Eq. 12 lives are over the requests' time (their writes, the same as
/// without the failure, are all done by then), the rebuilding member's over
/// the run to its rebuild's end.
#[test]
fn a_members_rebuild_after_the_trace_leaves_the_other_members_lives_alone() {
    let reqs = writes(400);
    let last = reqs.last().unwrap().time_ns;
    let (_, clean_r) = run(&cfg(), &reqs);
    // The replacement is due after the last write: the rebuild follows the trace.
    let mut late = failing(last - 1_000_000, true);
    late.fault.replace_after_ns = 30_000_000;
    let (a, r) = run(&late, &reqs);
    let f = &r.member_fault.as_ref().expect("the member failed").fault;
    let rebuilt = f.rebuilt_at_ns.expect("rebuilt");
    let done = a.counters().last_completion;
    assert!(rebuilt > done + 10_000_000, "the rebuild runs on after the trace: {f:?}");
    let c = cfg();
    let cap = c.physical_pages() * c.geometry.page_bytes as u64;
    let life = |bytes: u64, ns: u64| rainsim_model::array::model::life_days(cap, c.ftl.pe_cycle_limit, bytes, ns);
    for d in [0, 2, 3] {
        let m = &r.devices[d];
        assert_eq!(m.bytes_written, clean_r.devices[d].bytes_written, "member {d}");
        assert_eq!(m.life_days_eq12, Some(life(m.bytes_written, done)), "member {d}");
    }
    let m = &r.devices[MEMBER as usize];
    let want = life(m.bytes_written, rebuilt);
    assert!(m.life_days_eq12.unwrap() >= want * 0.999, "{:?} against {want} over the rebuild", m.life_days_eq12);
}

#[test]
fn reads_of_a_members_lost_chunks_are_reconstructed_inside_it() {
    // Writes, then a mix of reads and writes after the failure at 5 ms, no
    // rebuild: the member serves its lost chunks from its own parity.
    let mut reqs = writes(100);
    let mixed = xorshift_requests(0x2545_f491, 600, 40_000, 600, 2, |x| (1 + x % 2) as u32 * 4096);
    reqs.extend(mixed.into_iter().map(|mut q| {
        q.time_ns += 10_000_000;
        q
    }));
    let (clean, _) = run(&cfg(), &reqs);
    let (a, r) = run(&failing(5_000_000, false), &reqs);
    let f = &r.member_fault.as_ref().unwrap().fault;
    assert!(f.reads_reconstructed > 0, "{f:?}");
    assert_eq!(
        f.chunks_lost_at_failure + f.chunks_lost_after_failure,
        f.pages_rebuilt + f.rewritten_by_host + f.chunks_lost_at_end,
        "every lost chunk is rebuilt, rewritten or still lost"
    );
    assert_eq!((f.pages_rebuilt, f.replaced_at_ns), (0, None));
    assert_eq!(a.counters().device_ops, clean.counters().device_ops);
    assert_eq!(r.requests, reqs.len() as u64);
}

#[test]
fn a_member_fault_names_its_member_and_only_inside_an_array() {
    let msg = |c: &Config| c.validate().unwrap_err().to_string();
    let mut c = failing(1_000, true);
    c.fault.device = None;
    assert!(msg(&c).contains("give fault.device = 0..3"), "{}", msg(&c));
    c.fault.device = Some(4);
    assert!(msg(&c).contains("fault.device = 4 but the array has devices 0..3"), "{}", msg(&c));
    c.fault.device = Some(MEMBER);
    c.array.as_mut().unwrap().fail_device = Some(MEMBER);
    assert!(msg(&c).contains("is array.fail_device"), "{}", msg(&c));
    let mut c = failing(1_000, true);
    c.raid.level = RaidLevel::None;
    assert!(msg(&c).contains("needs raid.level = \"raid5\""), "{}", msg(&c));
    let mut c = failing(1_000, true);
    c.array = None;
    assert!(msg(&c).contains("names a member of an [array]"), "{}", msg(&c));
    let mut c = cfg();
    c.fault.device = Some(MEMBER);
    assert!(msg(&c).contains("fault.device set but nothing fails"), "{}", msg(&c));
    let mut c = failing(1_000, true);
    (c.fault.second_channel, c.fault.second_at_ns) = (Some(3), 2_000);
    assert!(msg(&c).contains("fault.second_channel on member 1 is not modelled"), "{}", msg(&c));
    assert!(failing(1_000, true).validate().is_ok());
}

/// As with `array.fail_device`, a member's failure due after the run's last
/// request does not happen (it would only add a rebuild to the report), and a
/// later run of the same array does not fail the member again.
#[test]
fn a_member_fails_once_and_not_after_the_last_request() {
    let reqs = writes(200);
    let last = reqs.last().unwrap().time_ns;
    let (clean, clean_r) = run(&cfg(), &reqs);
    let (a, r) = run(&failing(last + 1_000_000_000, true), &reqs);
    assert!(r.member_fault.is_none() && a.devices()[MEMBER as usize].fault_report().is_none());
    assert_eq!(r.devices[MEMBER as usize].waf, clean_r.devices[MEMBER as usize].waf, "no rebuild ran");
    assert_eq!(a.counters().device_ops, clean.counters().device_ops);
    // Failing at 1 ms, during the first run; a second run, later, finds it failed already.
    let c = failing(1_000_000, true);
    let mut a = Array::new(&c, true).unwrap();
    a.run(&reqs, &mut |_| {}).unwrap();
    let first = a.devices()[MEMBER as usize].fault_report().unwrap();
    let later: Vec<Request> = writes(50)
        .into_iter()
        .map(|mut q| {
            q.time_ns += 60_000_000_000;
            q
        })
        .collect();
    a.run(&later, &mut |_| {}).unwrap();
    let second = a.devices()[MEMBER as usize].fault_report().unwrap();
    assert_eq!(
        (second.failed_at_ns, second.chunks_lost_at_failure),
        (first.failed_at_ns, first.chunks_lost_at_failure)
    );
}
