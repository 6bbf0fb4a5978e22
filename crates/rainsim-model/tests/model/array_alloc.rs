//! Array write allocation: the DLS paper's worked numbers (Eq. 1–7), the
//! delay state (Eq. 8–9), the selection rule on hand-built device states
//! (with the "no SSD qualifies" fallback, unwritten devices and averages
//! over the whole array), EGS and RR on hand-built views, DLS's choice of device and channel on a hand-built view,
//! and whole arrays: free placement trims what moved, static placement is plain RAID-5
//! whose devices report as separate runs, and `--verify` is refused for
//! layouts that are not single-failure tolerant and catches a parity bug
//! in the one that is.

use crate::array::array_cfg;
use rainsim_model::array::alloc::dls::{select_device, DeviceState};
use rainsim_model::array::alloc::{
    egs_write_weight, ArrayView, ArrayWriteAllocation, Choice, DeviceLoad, Dls, Egs, RoundRobin,
};
use rainsim_model::array::model::{life_days, ChannelDelays, ServiceTimes};
use rainsim_model::array::params::{Allocation, ArrayParams};
use rainsim_model::array::report::device_report;
use rainsim_model::array::{device_config, Array};
use rainsim_model::fault::Fault;
use rainsim_model::metrics::report::FlashOps;
use rainsim_model::RunOptions;
use rainsim_trace::{Op, Request};

const PAGE: u64 = 4096;

#[test]
fn eq_1_to_7_give_the_papers_numbers_for_a_50_mb_s_bus() {
    // 2 KiB pages, N = 1, tR = 20 µs, tPROG = 200 µs.
    let t = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    assert_eq!(t.bus_ns, 20.0);
    assert!((t.commands_ns - 140.0).abs() < 1e-9, "T_commands = 0.14 µs");
    assert!((t.data_ns - 40_960.0).abs() < 1e-9, "T_data = 40.96 µs");
    assert!((t.flash_w_ns - 241_100.0).abs() < 1e-9, "T_flash_w = 241.1 µs");
    assert!((t.flash_r_ns - 61_100.0).abs() < 1e-9, "T_flash_r = 61.1 µs");
    // N = 2 doubles the channel part only.
    let t2 = ServiceTimes::new(50, 2048, 2, 20_000, 200_000);
    assert!((t2.flash_w_ns - (2.0 * 41_100.0 + 200_000.0)).abs() < 1e-9);
}

#[test]
fn a_batch_waits_for_the_bus_and_a_free_die_and_its_wait_leaves_on_completion() {
    let t = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    let mut d = ChannelDelays::new(2, 1);
    assert_eq!(d.issue(0, None, 0, true, &t), 0.0, "an idle channel starts at once");
    // The one die is busy until 241.1 µs: a read issued at 100 µs waits 141.1 µs.
    let w = d.issue(0, Some(0), 100_000, false, &t);
    assert!((w - 141_100.0).abs() < 1e-6);
    assert!((d.ssd_delay() - 141_100.0).abs() < 1e-6, "Eq. 10: the worst channel");
    assert_eq!(d.ssd_min_delay(), 0.0, "Eq. 15: channel 1 is idle");
    d.done(0, w);
    assert_eq!(d.ssd_delay(), 0.0);
}

/// Eq. 9's wait is for the bus as well as the die, a read waits on the die
/// its data is on (Alg. 1 line 15), and Eq. 8 sums the waits of a
/// channel's outstanding batches.
#[test]
fn a_read_waits_for_the_bus_and_its_own_die_and_the_channel_sums_the_waits() {
    let t = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    let mut d = ChannelDelays::new(1, 2);
    // A program at 0: the bus until 41.1 µs (T_channel), its die (the first
    // free, die 0) until 241.1 µs.
    assert_eq!(d.issue(0, None, 0, true, &t), 0.0);
    // A read of a page on idle die 1 waits for the bus alone: 41.1 µs. It
    // holds the bus until 82.2 µs and die 1 until 102.2 µs.
    let bus = d.issue(0, Some(1), 0, false, &t);
    assert!((bus - 41_100.0).abs() < 1e-6, "{bus}");
    // A read of a page on die 0 waits for die 0 (241.1 µs), not for die 1,
    // which is free sooner (102.2 µs).
    let die = d.issue(0, Some(0), 0, false, &t);
    assert!((die - 241_100.0).abs() < 1e-6, "{die}");
    // Eq. 8: 0 + 41.1 + 241.1 µs; the first to end leaves the sum.
    assert!((d.ssd_delay() - 282_200.0).abs() < 1e-6, "{}", d.ssd_delay());
    d.done(0, bus);
    assert!((d.ssd_delay() - 241_100.0).abs() < 1e-6);
    // A program takes the first free die: die 1, free at 102.2 µs; the bus is
    // reserved until 282.2 µs (the last read's transfer): it waits 282.2 µs.
    let w = d.issue(0, None, 0, true, &t);
    assert!((w - 282_200.0).abs() < 1e-6, "{w}");
}

#[test]
fn life_by_eq_12_counts_the_days_left_at_the_daily_write_rate() {
    // 1 GB × 100 P/E, 10 GB written in 1 day: (100 − 10) GB / 10 GB per day = 9 days.
    let day = 86_400_000_000_000;
    assert!((life_days(1_000_000_000, 100, 10_000_000_000, day) - 9.0).abs() < 1e-9);
    assert!(life_days(1_000_000_000, 100, 0, day).is_infinite(), "nothing written: infinite");
}

fn st(delay: f64, min_delay: f64, life: f64) -> DeviceState {
    DeviceState { delay, min_delay, life }
}

#[test]
fn dls_keeps_devices_below_average_delay_and_above_average_life_and_picks_the_least_min_delay() {
    let all = [true; 4];
    // avg_d = 100: device 3 (delay 200) is out although its best channel is idle.
    let s = [st(100.0, 10.0, 100.0), st(50.0, 40.0, 100.0), st(50.0, 5.0, 100.0), st(200.0, 0.0, 100.0)];
    assert_eq!(select_device(&s, &all, &all), Some(2));
    // Equal delays; avg_l = 100 keeps devices 1 and 2; 2 has the lesser min delay.
    let s = [st(0.0, 0.0, 50.0), st(0.0, 3.0, 150.0), st(0.0, 2.0, 150.0), st(0.0, 0.0, 50.0)];
    assert_eq!(select_device(&s, &all, &all), Some(2));
    // A device that may not take the write is not a candidate, but it counts
    // in the averages.
    assert_eq!(select_device(&s, &[true, true, false, true], &all), Some(1));
}

/// Eq. 13–14 average over all S devices, the one that may not take this
/// chunk (its stripe's parity device) included. SSD_delay (max, min) of the
/// four: (6, 5), (10, 10), (20, 1), (100, 0), device 3 holding the parity,
/// equal lives. avg_d = 136 / 4 = 34 keeps devices 0, 1 and 2, and device 2
/// has the least min delay. (Averaged over the three allowed devices, 12,
/// only 0 and 1 would pass, and 0 would take it.) A failed device is not
/// counted: without device 3 the average is 12 and device 0 takes it.
#[test]
fn dls_averages_over_every_device_of_the_array() {
    let s = [st(6.0, 5.0, 100.0), st(10.0, 10.0, 100.0), st(20.0, 1.0, 100.0), st(100.0, 0.0, 100.0)];
    let allowed = [true, true, true, false];
    assert_eq!(select_device(&s, &allowed, &[true; 4]), Some(2));
    assert_eq!(select_device(&s, &allowed, &allowed), Some(0));
    // The same through the policy (channel delays in µs): device 0 (0, 0),
    // device 1 (10, 8), device 2 (30, 1), device 3 (100, 100), equal lives.
    let service = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    let mut d = [load(0, 0, 4096), load(0, 0, 4096), load(0, 0, 4096), load(0, 0, 4096)];
    d[1].delays.delay_ns = vec![10_000.0, 8_000.0];
    d[2].delays.delay_ns = vec![30_000.0, 1_000.0];
    d[3].delays.delay_ns = vec![100_000.0, 100_000.0];
    let v = |failed| ArrayView { now: 1_000, devices: &d, capacity_bytes: 1 << 30, pe_limit: 3000, service, failed };
    // avg_d = 140 / 4 = 35 µs: devices 0, 1 and 2 pass; 0 has the least min
    // delay, and without 0, device 2 (1 µs). Device 3 failed: avg_d = 40 / 3
    // = 13.3 µs, and of devices 1 and 2 only 1 passes.
    assert_eq!(Dls::default().choose(&v(None), &allowed).map(|c| c.device), Some(0));
    assert_eq!(Dls::default().choose(&v(None), &[false, true, true, false]).map(|c| c.device), Some(2));
    assert_eq!(Dls::default().choose(&v(Some(3)), &[false, true, true, false]).map(|c| c.device), Some(1));
}

#[test]
fn when_no_device_qualifies_life_decides() {
    // Short delays (0, 3) have short lives; long lives (1, 2) have long delays:
    // nobody passes both tests, so the long-lived devices stay, and of them the
    // one with the least min delay takes the write.
    let s = [st(10.0, 0.0, 50.0), st(300.0, 7.0, 150.0), st(300.0, 3.0, 150.0), st(10.0, 0.0, 50.0)];
    assert_eq!(select_device(&s, &[true; 4], &[true; 4]), Some(2));
}

#[test]
fn while_a_device_is_unwritten_only_unwritten_devices_pass_the_life_test() {
    let inf = f64::INFINITY;
    let s = [st(30.0, 30.0, inf), st(0.0, 0.0, 100.0), st(10.0, 10.0, inf), st(0.0, 0.0, 5.0)];
    assert_eq!(select_device(&s, &[true; 4], &[true; 4]), Some(2), "device 0's delay is above average");
    assert_eq!(select_device(&s, &[false; 4], &[true; 4]), None);
}

fn load(reads: u32, writes: u32, written: u64) -> DeviceLoad {
    DeviceLoad { delays: ChannelDelays::new(2, 1), written_bytes: written, reads, writes, free: vec![5, 5] }
}

#[test]
fn egs_takes_the_least_weighted_load_among_devices_within_the_wear_slack() {
    let service = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    let view = |devices: &[DeviceLoad]| -> Option<Choice> {
        let v = ArrayView { now: 1, devices, capacity_bytes: 1 << 30, pe_limit: 3000, service, failed: None };
        Egs::new(4.0, 0.1).choose(&v, &[true; 3])
    };
    // Loads 1 + 4·2 = 9, 6 reads = 6, 4·1 = 4: device 2.
    let d = [load(1, 2, 100), load(6, 0, 100), load(0, 1, 100)];
    assert_eq!(view(&d).map(|c| c.device), Some(2));
    // Device 2 wrote far more than the mean × 1.1: out; device 1 is next.
    let d = [load(1, 2, 100), load(6, 0, 100), load(0, 1, 400)];
    assert_eq!(view(&d).map(|c| c.device), Some(1));
    // The slack is relative, above the mean: 1,150 is within 1.1 × a mean
    // of 1,050; with a mean of 1,000, 1,000 is within (so is 850) and
    // 1,150 is not.
    let d = [load(1, 2, 1000), load(6, 0, 1000), load(0, 1, 1150)];
    assert_eq!(view(&d).map(|c| c.device), Some(2));
    let d = [load(1, 2, 850), load(6, 0, 1150), load(0, 1, 1000)];
    assert_eq!(view(&d).map(|c| c.device), Some(2));
}

/// EGS's default write weight is Eq. 6 over Eq. 7 for one request,
/// 241.1 / 61.1 µs, whatever DLS's batch size; inside the chosen device,
/// channels take its writes in rotation, passing full ones.
#[test]
fn egs_weighs_a_write_by_eq_6_over_7_and_rotates_channels() {
    let one = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    let eight = ServiceTimes::new(50, 2048, 8, 20_000, 200_000);
    assert!((egs_write_weight(&one) - 241_100.0 / 61_100.0).abs() < 1e-12);
    assert_eq!(egs_write_weight(&eight), egs_write_weight(&one), "N is DLS's parameter, not EGS's");
    let mut d = [load(0, 0, 100), load(0, 0, 100)];
    d[0].free = vec![5, 0, 5];
    d[0].delays = ChannelDelays::new(3, 1);
    let mut egs = Egs::new(4.0, 0.1);
    let mut chans = Vec::new();
    for _ in 0..4 {
        let v = ArrayView { now: 1, devices: &d, capacity_bytes: 1 << 30, pe_limit: 3000, service: one, failed: None };
        let c = egs.choose(&v, &[true, false]).unwrap();
        assert_eq!(c.device, 0);
        chans.push(c.channel);
    }
    assert_eq!(chans, [0, 2, 0, 2], "channel 1 has no free slot");
    // EGS as `[array]` builds it under DLS's batch size N = 8: device 0 has
    // three reads outstanding, device 1 one write. Weighed 3.95 the write
    // is the heavier load (device 0 takes the next); weighed by Eq. 6–7 of
    // N = 8 (1.52) it would not be.
    let params = ArrayParams { allocation: Allocation::Egs, dls_batch: 8, ..Default::default() };
    let mut egs = rainsim_model::array::alloc::build(&params, &eight);
    let d = [load(3, 0, 100), load(0, 1, 100)];
    let v = ArrayView { now: 1, devices: &d, capacity_bytes: 1 << 30, pe_limit: 3000, service: eight, failed: None };
    assert_eq!(egs.choose(&v, &[true, true]).map(|c| c.device), Some(0));
}

/// RR: the next allowed device in rotation, and inside each device the next
/// channel with room in rotation.
#[test]
fn rr_rotates_over_allowed_devices_and_their_channels() {
    let one = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    let mut d = [load(0, 0, 0), load(0, 0, 0), load(0, 0, 0)];
    d[1].free = vec![0, 5];
    let mut rr = RoundRobin::default();
    let mut picks = Vec::new();
    for allowed in [[true; 3], [true; 3], [true; 3], [true; 3], [true, false, true], [true; 3], [true, true, false]] {
        let v = ArrayView { now: 1, devices: &d, capacity_bytes: 1 << 30, pe_limit: 3000, service: one, failed: None };
        let c = rr.choose(&v, &allowed).unwrap();
        picks.push((c.device, c.channel));
    }
    // Devices 0, 1, 2, 0, then 2 (1 not allowed), 0, 1; each device's
    // channels in turn, but device 1's channel 0 is full: it takes channel 1.
    assert_eq!(picks, [(0, 0), (1, 1), (2, 0), (0, 1), (2, 1), (0, 0), (1, 1)]);
}

fn w(t: u64, lpn: u64, pages: u32) -> Request {
    Request { time_ns: t, offset: lpn * PAGE, size: pages * PAGE as u32, device: 0, op: Op::Write }
}

fn r(t: u64, lpn: u64) -> Request {
    Request { time_ns: t, offset: lpn * PAGE, size: PAGE as u32, device: 0, op: Op::Read }
}

/// Single-chunk writes over the first `stripes` stripes, `gap` ns apart,
/// each chunk twice.
fn rewrites(stripes: u64, gap: u64) -> Vec<Request> {
    (0..2 * 4 * stripes).map(|i| w(i * gap, (i * 7) % (4 * stripes), 1)).collect()
}

/// Chunks of one page and of two: every page of a moved chunk's old slot
/// is trimmed.
#[test]
fn free_placement_moves_chunks_and_trims_their_old_pages() {
    for (alloc, pages) in [(Allocation::Rr, 1), (Allocation::Egs, 1), (Allocation::Dls, 1), (Allocation::Rr, 2)] {
        let mut cfg = array_cfg(5, alloc);
        cfg.array.as_mut().unwrap().chunk_kib = pages * 4;
        let chunk_bytes = pages as u64 * PAGE;
        // Whole-chunk writes, each chunk twice.
        let reqs: Vec<Request> =
            rewrites(8, 50_000).iter().map(|q| w(q.time_ns, q.offset / PAGE * pages as u64, pages)).collect();
        let mut a = Array::new(&cfg, false).unwrap();
        a.run(&reqs, &mut |_| {}).unwrap();
        assert!(a.counters().moves > 0, "{alloc:?}: data chunks moved");
        // Chunks ever written: the data chunks written and their stripes' parity.
        let layout = a.stripe_layout().clone();
        let chunk = |q: &Request| layout.chunk_of_lpn(q.offset / chunk_bytes);
        let mut written: Vec<u32> = reqs.iter().map(|q| chunk(q).1).collect();
        written.extend(reqs.iter().map(|q| layout.parity_chunk(chunk(q).0)));
        written.sort_unstable();
        written.dedup();
        // Each device maps exactly the pages of chunks living on it: nothing
        // stale is left where a chunk moved away.
        for (d, dev) in a.devices().iter().enumerate() {
            let mapped = (0..dev.stripe_layout().chunks() as u32).filter(|&c| dev.ftl.lookup(c).is_some()).count();
            let here = written.iter().filter(|&&c| a.location(c).unwrap().0 == d as u32).count();
            assert_eq!(mapped, here * pages as usize, "{alloc:?}, {pages}-page chunks: device {d}");
        }
        let parity_elsewhere = (0..layout.stripes)
            .filter(|&s| a.location(layout.parity_chunk(s)).unwrap().0 != layout.parity_pos(s))
            .count();
        assert_eq!(parity_elsewhere, 0, "{alloc:?}: parity stays on its rotating device");
    }
}

/// A trim happens at the array's time: on a device idle since long before,
/// the collection a trim starts (its idle, full die's first invalid page)
/// starts then, not at the device's last event, so that no event of it
/// lands before the array's time (the array checks each one it takes) and
/// reads arriving meanwhile wait for it. Devices nearly full of valid data,
/// round-robin placement moving every rewritten chunk, writes 200 ms apart (longer than a collection).
#[test]
fn a_trim_starts_its_collection_at_the_arrays_time() {
    let mut cfg = crate::preset("dls-4ssd");
    cfg.array.as_mut().unwrap().allocation = Allocation::Rr;
    cfg.geometry.blocks_per_plane = 16;
    cfg.precondition.valid = 0.84;
    cfg.precondition.invalid = 0.0;
    cfg.ftl.gc_threshold = 0.14;
    cfg.workload.mean_interarrival_ns = 200_000_000;
    cfg.workload.requests = 3_000;
    let mut a = Array::new(&cfg, false).unwrap();
    let reqs = rainsim_trace::generate(&cfg.workload, a.capacity_bytes(), cfg.seed).unwrap().requests;
    a.run(&reqs, &mut |_| {}).unwrap();
    assert!(a.counters().moves > 1_000, "chunks moved and their old slots were trimmed");
    let gcs: u64 = a.devices().iter().map(|d| d.obs.channels.iter().map(|c| c.gc_count).sum::<u64>()).sum();
    assert!(gcs > 1_000, "the devices collected ({gcs} GCs)");
}

/// Five devices under `alloc`, replayed closed loop at depth 32, with
/// reads (2 ms) slower than programs.
fn slow_reads_closed(alloc: Allocation) -> rainsim_model::config::Config {
    let mut cfg = array_cfg(5, alloc);
    cfg.timing.read_ns = 2_000_000;
    let p = cfg.array.as_mut().unwrap();
    p.replay = rainsim_model::config::Replay::Closed;
    p.queue_depth = 32;
    cfg
}

/// Alg. 1's bookkeeping through a whole array: a read feeds the delay
/// model of the device it goes to, and every batch leaves its channel's sum
/// when it completes. Ten 2 ms reads of one chunk queue on its die of
/// device 0 at time 0; a one-chunk write 1 µs later takes its new slot when
/// its pre-reads are done (about 2 ms), while no device has been written
/// (every life infinite, so delay alone decides): it goes elsewhere, where
/// with device 0's reads unseen every device would look idle and the tie
/// would go to device 0. At the end no delay is left on any channel.
#[test]
fn dls_sees_the_reads_queued_on_a_device_and_forgets_what_completed() {
    let mut cfg = array_cfg(5, Allocation::Dls);
    cfg.timing.read_ns = 2_000_000;
    // The stripes the trace touches are written before it starts, so that
    // its reads and pre-reads go to the flash.
    cfg.precondition.map_trace = rainsim_model::config::MapTrace::Footprint;
    let plain = Array::new(&cfg, false).unwrap();
    let layout = plain.stripe_layout().clone();
    let home = |c: u32| plain.location(c).unwrap().0;
    let read = (0..400).find(|&c| home(c) == 0).unwrap();
    // A chunk of another device whose stripe's parity is not on device 0.
    let written = (0..400).find(|&c| home(c) == 1 && layout.parity_pos(layout.stripe_of(c)) != 0).unwrap();
    let mut reqs: Vec<Request> = (0..10).map(|_| r(0, read as u64)).collect();
    reqs.push(w(1_000, written as u64, 1));
    let mut a = Array::for_requests(&cfg, false, &reqs).unwrap();
    a.run(&reqs, &mut |_| {}).unwrap();
    assert_ne!(a.location(written).unwrap().0, 0, "the write went to the device with reads queued");
    for (d, l) in a.loads().iter().enumerate() {
        assert!(l.delays.delay_ns.iter().all(|&x| x == 0.0), "device {d} keeps {:?}", l.delays.delay_ns);
    }
}

/// `n` requests over `hot` chunks, reads and single-chunk writes in turn.
fn hot_mix(n: u64, hot: u64) -> Vec<Request> {
    (0..n).map(|i| if i % 2 == 0 { r(i, (i / 2 * 5) % hot) } else { w(i, (i / 2 * 7) % hot, 1) }).collect()
}

#[test]
fn a_moved_chunks_old_slot_is_trimmed_only_after_the_reads_of_it_in_flight() {
    // Closed loop at depth 32 over 24 hot chunks, reads and single-chunk
    // writes mixed, reads (2 ms) slower than programs: a read of a chunk's old
    // slot issued while its write programs elsewhere is still in flight when
    // the move commits.
    for alloc in [Allocation::Rr, Allocation::Egs, Allocation::Dls] {
        let cfg = slow_reads_closed(alloc);
        let reqs = hot_mix(600, 24);
        let mut a = Array::new(&cfg, false).unwrap();
        a.run(&reqs, &mut |_| {}).unwrap();
        let c = a.counters();
        assert!(c.deferred_trims > 0, "{alloc:?}: some trims waited for reads");
        assert_eq!(c.completed(), 600);
        let layout = a.stripe_layout().clone();
        let mut written: Vec<u32> = (0..24).map(|l| layout.chunk_of_lpn(l).1).collect();
        written.extend((0..6).map(|s| layout.parity_chunk(s)));
        for (d, dev) in a.devices().iter().enumerate() {
            let mapped = (0..dev.stripe_layout().chunks() as u32).filter(|&c| dev.ftl.lookup(c).is_some()).count();
            let here = written.iter().filter(|&&c| a.location(c).unwrap().0 == d as u32).count();
            assert_eq!(mapped, here, "{alloc:?}: device {d} holds no stale page once the reads are done");
        }
    }
}

/// Devices with their own RAID-5 under free placement: a moved chunk's old
/// page stays valid (its stripe's parity inside the device still covers it),
/// so no queued pre-read or read of it finds it gone; every move keeps one
/// page, every chunk is mapped where it lives, and each device holds more
/// pages than the chunks living on it. Dropping the page instead failed the
/// run ("queued read … finds it unmapped": a device's pre-read of a
/// stripe-mate queued before the array trimmed it).
#[test]
fn devices_with_their_own_raid_5_keep_a_moved_chunks_old_page_for_its_parity() {
    for alloc in [Allocation::Rr, Allocation::Egs, Allocation::Dls] {
        let mut cfg = slow_reads_closed(alloc);
        (cfg.raid.level, cfg.raid.stripe_width) = (rainsim_model::config::RaidLevel::Raid5, 4);
        let reqs = hot_mix(3000, 48);
        let mut a = Array::new(&cfg, false).unwrap();
        a.run(&reqs, &mut |_| {}).unwrap_or_else(|e| panic!("{alloc:?}: {e}"));
        let c = a.counters();
        assert_eq!(c.completed(), 3000);
        assert!(c.moves > 0, "{alloc:?}");
        assert_eq!(c.trims_kept, c.moves, "{alloc:?}: one page per moved one-page chunk kept");
        let layout = a.stripe_layout().clone();
        let mut written: Vec<u32> = (0..48).map(|l| layout.chunk_of_lpn(l).1).collect();
        written.extend((0..12).map(|s| layout.parity_chunk(s)));
        let (mut mapped_all, mut here_all) = (0, 0);
        for (d, dev) in a.devices().iter().enumerate() {
            let mapped = |c: u32| dev.ftl.lookup(c).is_some();
            let data = (0..dev.stripe_layout().chunks() as u32).filter(|&c| !dev.stripe_layout().is_parity(c));
            let n = data.filter(|&c| mapped(c)).count();
            let here: Vec<u32> = written.iter().copied().filter(|&c| a.location(c).unwrap().0 == d as u32).collect();
            for &c in &here {
                let slot = a.location(c).unwrap().1;
                assert!(mapped(dev.stripe_layout().chunk_of_lpn(slot as u64).1), "{alloc:?}: chunk {c} on device {d}");
            }
            (mapped_all, here_all) = (mapped_all + n, here_all + here.len());
        }
        assert!(mapped_all > here_all, "{alloc:?}: old pages kept ({mapped_all} mapped, {here_all} living)");
        // Every page a device programmed counts once in its bytes written:
        // the array's chunks, the device's own parity and its GC moves.
        let ops = members_count_every_page(&a, &cfg, "baseline");
        for (d, f) in ops.iter().enumerate() {
            assert_eq!(f.host_program * 4096, c.device_bytes[d], "{alloc:?}: device {d}, the array's chunks");
        }
        assert!(ops.iter().any(|f| f.parity_program > 0), "{alloc:?}: the devices' own parity programs count");
    }
}

#[test]
fn dls_avoids_a_device_whose_channels_wait_and_takes_the_least_delay_channel() {
    let service = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    // Equal bytes written (equal lives); device 1 has reads queued on both
    // channels (SSD_delay and min delay high); device 2 has one busy channel.
    let mut d = [load(0, 0, 4096), load(0, 0, 4096), load(0, 0, 4096)];
    for _ in 0..3 {
        d[1].delays.issue(0, None, 0, false, &service);
        d[1].delays.issue(1, None, 0, false, &service);
    }
    d[2].delays.issue(0, None, 0, true, &service);
    d[2].delays.issue(0, None, 0, true, &service);
    let v = ArrayView { now: 1_000, devices: &d, capacity_bytes: 1 << 30, pe_limit: 3000, service, failed: None };
    let mut dls = Dls::default();
    // SSD delays (Eq. 10): 0; 0 + 61.1 + 122.2 = 183.3 µs; 241.1 µs (the second
    // write waits for the first). avg = 141.5 µs: only device 0 qualifies.
    assert_eq!(dls.choose(&v, &[true; 3]), Some(Choice { device: 0, channel: 0 }));
    // Without device 0 among the candidates (it still counts in avg_d =
    // 141.5 µs): neither 1 (183.3) nor 2 (241.1) passes, lives are equal, so
    // life keeps both and device 2 takes it by its idle channel (Eq. 15).
    assert_eq!(dls.choose(&v, &[false, true, true]), Some(Choice { device: 2, channel: 1 }));
    // Inside device 2, the channel with no wait.
    assert_eq!(dls.choose(&v, &[false, false, true]), Some(Choice { device: 2, channel: 1 }));
    // Device 2 has written the most: its life is below average and device 0 is
    // the only candidate left; device 1 only when nothing else may be chosen.
    d[2].written_bytes = 1 << 20;
    let v = ArrayView { now: 1_000, devices: &d, capacity_bytes: 1 << 30, pe_limit: 3000, service, failed: None };
    assert_eq!(dls.choose(&v, &[true; 3]).map(|c| c.device), Some(0));
    assert_eq!(dls.choose(&v, &[false, true, false]).map(|c| c.device), Some(1));
}

/// Inside the chosen device DLS takes the channel of least delay among
/// those with room, and among equal delays the next in rotation (channel 1
/// full: 0, 2, 3, 0, 2). And "at most the average" allows a rounding error
/// (a relative 10^-9): a delay 0.5 ps above an average of 1 ms is not above it.
#[test]
fn dls_rotates_over_the_channels_with_room_and_allows_a_rounding_error() {
    let service = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    let d = [DeviceLoad { delays: ChannelDelays::new(4, 1), free: vec![5, 0, 5, 5], ..load(0, 0, 0) }];
    let mut dls = Dls::default();
    let mut chans = Vec::new();
    for _ in 0..5 {
        let v = ArrayView { now: 1, devices: &d, capacity_bytes: 1 << 30, pe_limit: 3000, service, failed: None };
        chans.push(dls.choose(&v, &[true]).unwrap().channel);
    }
    assert_eq!(chans, [0, 2, 3, 0, 2]);
    let s = [st(1e6 + 5e-4, 0.0, f64::INFINITY), st(1e6 - 5e-4, 1.0, f64::INFINITY)];
    assert_eq!(select_device(&s, &[true; 2], &[true; 2]), Some(0));
}

fn json_of(rep: &rainsim_model::Report) -> serde_json::Value {
    let v = serde_json::to_value(rep).unwrap();
    let keep = ["latency", "channels", "flash_ops", "gc", "wear", "raid", "host", "iops", "waf"];
    keep.iter().map(|k| (k.to_string(), v[k].clone())).collect::<serde_json::Map<_, _>>().into()
}

#[test]
fn under_static_placement_each_device_reports_as_a_separate_run_of_its_requests() {
    // Traffic without cross-device dependence: reads, and full-stripe writes of
    // distinct stripes (no pre-read, no wait for another job), at random ns
    // times. Each device's recorded requests, replayed alone through the
    // single-device run, give that device's numbers exactly. (A pre-read issued
    // when another job's program completes arrives at the very time of that
    // completion; a trace replay cannot order the two causally, so with such
    // traffic a same-time queue-length sample may differ.)
    let cfg = array_cfg(4, Allocation::Static);
    let mut reqs = Vec::new();
    let (mut x, mut t, mut stripe) = (12345u64, 0, 0);
    for i in 0..600u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        t += 1 + (x >> 33) % 40_000;
        reqs.push(if i % 4 == 0 {
            stripe += 1;
            w(t, 3 * stripe, 3)
        } else {
            r(t, (x >> 20) % 450)
        });
    }
    let mut a = Array::new(&cfg, true).unwrap();
    a.record_device_requests();
    a.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(a.counters().stripe_writes[0], stripe, "full-stripe writes only");
    let recorded = a.device_requests().unwrap().to_vec();
    for (i, dev) in a.devices().iter().enumerate() {
        let dc = device_config(&cfg, i as u32);
        assert!(recorded[i].len() > 200, "device {i} had work");
        let alone = rainsim_model::simulate(&dc, &recorded[i], RunOptions::new("s", true, &mut |_| {})).unwrap();
        let (x, y) = (json_of(&device_report(dev, &dc, "s")), json_of(&alone));
        assert!(x["latency"]["all"]["count"].as_u64().unwrap() > 200);
        assert!(x == y, "device {i} differs from its run alone");
    }
}

#[test]
fn verify_refuses_free_placement_and_catches_a_parity_bug_in_the_static_layout() {
    for alloc in [Allocation::Rr, Allocation::Egs, Allocation::Dls] {
        let e = Array::new(&array_cfg(5, alloc), true).err().expect("refused").to_string();
        assert!(e.contains("not single-failure tolerant"), "{alloc:?}: {e}");
        assert!(!alloc.single_failure_tolerant());
    }
    assert!(Allocation::Static.single_failure_tolerant());
    let cfg = array_cfg(5, Allocation::Static);
    let reqs = rewrites(8, 50_000);
    let mut a = Array::new(&cfg, true).unwrap();
    a.run(&reqs, &mut |_| {}).unwrap();
    assert_eq!(a.co_resident_stripes(), 0);
    let mut a = Array::new(&cfg, true).unwrap();
    a.inject_fault(Fault::ParityMissesChunk);
    let e = a.run(&reqs, &mut |_| {}).expect_err("verify catches it").to_string();
    assert!(e.contains("parity does not match"), "{e}");
}

/// Free placement moves chunks wherever the policy likes, so some stripes
/// end with two chunks on one device: the count the report gives is the
/// count of such stripes found from every chunk's location.
#[test]
fn co_resident_stripes_are_the_stripes_with_two_chunks_on_a_device() {
    for alloc in [Allocation::Rr, Allocation::Egs, Allocation::Dls] {
        let cfg = array_cfg(5, alloc);
        let mut a = Array::new(&cfg, false).unwrap();
        a.run(&rewrites(8, 50_000), &mut |_| {}).unwrap();
        let l = a.stripe_layout();
        let w = l.width;
        let by_hand = (0..l.stripes)
            .filter(|&s| {
                let devices: Vec<u32> = (0..w).filter_map(|p| a.location(s * w + p)).map(|(d, _)| d).collect();
                (1..devices.len()).any(|i| devices[..i].contains(&devices[i]))
            })
            .count() as u64;
        assert!(by_hand > 0, "{alloc:?}: the rewrites moved chunks onto their partners' devices");
        assert_eq!(a.co_resident_stripes(), by_hand, "{alloc:?}");
    }
}

/// `array.egs_write_weight` set overrides Eq. 6 over 7: device 0 has three
/// reads outstanding, device 1 one write. Weighed 3.95 by default the write
/// is the heavier load (device 0 takes the chunk); weighed 2 it is the
/// lighter (device 1 does).
#[test]
fn an_egs_write_weight_set_overrides_the_default() {
    let one = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
    let d = [load(3, 0, 100), load(0, 1, 100)];
    let v = ArrayView { now: 1, devices: &d, capacity_bytes: 1 << 30, pe_limit: 3000, service: one, failed: None };
    for (weight, device) in [(0.0, 0), (2.0, 1)] {
        let params = ArrayParams { allocation: Allocation::Egs, egs_write_weight: weight, ..Default::default() };
        let mut egs = rainsim_model::array::alloc::build(&params, &one);
        assert_eq!(egs.choose(&v, &[true, true]).unwrap().device, device, "weight {weight}");
    }
}

/// A device has room while any of its channels has a free slot.
#[test]
fn room_is_a_free_slot_on_any_channel() {
    let mut d = load(0, 0, 0);
    for (free, room) in [(vec![0, 0], false), (vec![0, 1], true), (vec![3, 0], true)] {
        d.free = free;
        assert_eq!(d.has_room(), room, "{:?}", d.free);
    }
}

/// Members running a replicating scheme program pages of their own beside
/// the array's chunks (an update's two copies): a member's bytes written
/// count every page it programmed — the array's chunks, its own copies, its
/// own parity and its GC moves — once.
#[test]
fn a_replicating_members_own_copies_count_in_its_bytes_written() {
    let mut cfg = slow_reads_closed(Allocation::Rr);
    (cfg.raid.level, cfg.raid.stripe_width) = (rainsim_model::config::RaidLevel::Raid5, 4);
    cfg.policy.replication = rainsim_model::policy::replication::ReplicationKind::RepRaid;
    let mut a = Array::new(&cfg, false).unwrap();
    a.run(&hot_mix(3000, 48), &mut |_| {}).unwrap();
    let ops = members_count_every_page(&a, &cfg, "rep-raid");
    // The array's writes are the members' host programs; their second
    // copies (and conversions' rewrites) are replication's own.
    for (d, (f, &b)) in ops.iter().zip(&a.counters().device_bytes).enumerate() {
        assert_eq!(f.host_program * 4096, b, "device {d}: host programs are the array's writes");
    }
    assert!(ops.iter().map(|f| f.replica_program).sum::<u64>() > 0, "the members programmed copies of their own");
}

/// Asserts that each member's bytes written in the array's report are every
/// page it programmed (host, parity, replica and GC programs), once; returns the
/// members' flash operations.
fn members_count_every_page(a: &Array, cfg: &rainsim_model::Config, scheme: &str) -> Vec<FlashOps> {
    let r = a.report(cfg, scheme, serde_json::Value::Null);
    let ops: Vec<FlashOps> = (0..a.devices().len())
        .map(|d| device_report(&a.devices()[d], &device_config(cfg, d as u32), scheme).flash_ops)
        .collect();
    for (d, f) in ops.iter().enumerate() {
        let pages = f.host_program + f.parity_program + f.replica_program + f.gc_program;
        assert_eq!(r.devices[d].bytes_written, pages * 4096, "device {d}");
    }
    ops
}
