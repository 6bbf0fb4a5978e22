//! Trace statistics on hand-computed inputs.

use rainsim_trace::{stats, Op, Request};

fn rq(time_ns: u64, offset: u64, size: u32, op: Op) -> Request {
    Request { time_ns, offset, size, device: 0, op }
}

#[test]
fn update_ratio_and_sizes_by_hand() {
    use Op::*;
    // 4 KiB pages.
    let v = [
        rq(0, 0, 8192, Write),      // pages 0,1: new
        rq(10, 4096, 4096, Read),   // reads never count
        rq(30, 8192, 4096, Write),  // page 2: new
        rq(60, 6144, 4096, Write),  // pages 1,2: update
        rq(100, 20480, 512, Write), // page 5: new
        rq(150, 20992, 512, Write), // page 5 again: update
        rq(210, 65536, 4096, Read),
    ];
    let s = stats(&v, 4096);
    assert_eq!((s.requests, s.reads, s.writes), (7, 2, 5));
    assert_eq!(s.update_ratio, 2.0 / 5.0);
    assert_eq!(s.write_ratio, 5.0 / 7.0);
    assert_eq!((s.bytes_read, s.bytes_written), (8192, 8192 + 4096 + 4096 + 512 + 512));
    assert_eq!(s.avg_read_size, 4096.0);
    assert_eq!(s.avg_write_size, 17408.0 / 5.0);
    assert_eq!(s.avg_size_bytes, (8192.0 + 17408.0) / 7.0);
    assert_eq!(s.span_ns, 210);
    // gaps sorted: 10,20,30,40,50,60 → nearest rank.
    let ia = s.inter_arrival;
    assert_eq!((ia.p20_ns, ia.p50_ns, ia.p90_ns, ia.max_ns), (20, 30, 60, 60));
    assert_eq!(ia.mean_ns, 35.0);
    assert_eq!(s.devices, [0]);
    // A coarser page makes the page-5 pair and more overlap.
    let s = stats(&v, 65536);
    assert_eq!(s.update_ratio, 4.0 / 5.0);
    let table = s.to_string();
    for col in ["Req #", "Wr Ratio", "Avg Req SZ", "Upd R", "p20", "p99", "max"] {
        assert!(table.contains(col), "{table}");
    }
}

#[test]
fn same_page_on_another_device_is_not_an_update() {
    let mut a = rq(0, 0, 4096, Op::Write);
    let mut b = a;
    b.device = 1;
    b.time_ns = 5;
    let s = stats(&[a, b], 4096);
    assert_eq!(s.update_ratio, 0.0);
    assert_eq!(s.devices, [0, 1]);
    a.time_ns = 9;
    assert_eq!(stats(&[b, a, b], 4096).update_ratio, 1.0 / 3.0);
}
