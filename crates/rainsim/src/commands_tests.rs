use super::{array_speed, median, peak_rss_kib, physical_gib, speed, status_kib, stopped_after, timed_runs};
use rainsim_model::Config;
use std::cell::Cell;

/// `bench` once printed the upper of two runs as their median.
#[test]
fn the_median_of_an_even_count_is_the_middle_pairs_mean() {
    assert_eq!(median(&[1.0, 3.0]), 2.0);
    assert_eq!(median(&[1.0, 2.0, 10.0]), 2.0);
    assert_eq!(median(&[1.0, 2.0, 4.0, 10.0]), 3.0);
    assert_eq!(median(&[5.0]), 5.0);
}

/// Counts agree with their nouns: one run, one channel, one request.
#[test]
fn the_speed_and_interrupt_lines_count_in_words_that_agree() {
    assert_eq!(speed(&[5.0]), "best 5, median 5 host requests per CPU-second over 1 run");
    assert_eq!(speed(&[1.0, 3.0]), "best 3, median 2 host requests per CPU-second over 2 runs");
    assert!(array_speed(3, 1, &[5.0]).starts_with("array of 3 devices × 1 channel: speed best 5,"));
    assert!(array_speed(4, 16, &[5.0]).starts_with("array of 4 devices × 16 channels: speed best 5,"));
    assert_eq!(stopped_after(0, 1, "x"), "the run stopped after 0 of 1 request; x");
    assert_eq!(stopped_after(3, 9, "x"), "the run stopped after 3 of 9 requests; x");
}

fn geometry(blocks_per_plane: u32) -> Config {
    let mut cfg = Config::default();
    let g = &mut cfg.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (2, 1, 1, 1);
    (g.blocks_per_plane, g.pages_per_block, g.page_bytes) = (blocks_per_plane, 256, 8192);
    cfg
}

/// 2 × 512 blocks × 256 pages × 8 KiB = 2^31 bytes; 384 blocks are 3/4 of that.
#[test]
fn physical_gib_is_pages_times_page_size_in_gib() {
    assert_eq!(physical_gib(&geometry(512)), 2.0);
    assert_eq!(physical_gib(&geometry(384)), 1.5);
}

/// After touching 64 MiB the high-water mark holds at least that, and it
/// never falls below the resident size read apart.
#[test]
fn peak_rss_is_the_high_water_mark_in_kib() {
    let v = std::hint::black_box(vec![1u8; 64 << 20]);
    let rss = status_kib("VmRSS:").expect("VmRSS in /proc/self/status");
    let peak = peak_rss_kib().expect("VmHWM in /proc/self/status");
    drop(v);
    assert!(peak >= 64 << 10, "{peak} KiB");
    assert!(peak >= rss, "peak {peak} KiB < resident {rss} KiB");
}

/// Every round runs once, in order; the first report alone is described;
/// the speeds come back sorted, not in run order.
#[test]
fn timed_runs_runs_each_round_and_sorts_the_speeds() {
    let (seen, described) = (Cell::new(Vec::new()), Cell::new(0));
    let speeds = timed_runs(
        3,
        |i| {
            let mut s = seen.take();
            s.push(i);
            seen.set(s);
            Ok(("same", [3.0, 1.0, 2.0][i as usize]))
        },
        |r| {
            described.set(described.get() + 1);
            r.to_string()
        },
    )
    .unwrap();
    assert_eq!(speeds, [1.0, 2.0, 3.0]);
    assert_eq!(seen.take(), [0, 1, 2]);
    assert_eq!(described.get(), 1);
}

/// A later report unlike the first fails the benchmark; a run's error is passed on.
#[test]
fn timed_runs_refuses_differing_reports_and_passes_errors_on() {
    let err = timed_runs(3, |i| Ok((i.min(1), 1.0)), |r| r.to_string()).unwrap_err();
    assert!(err.to_string().contains("different reports"), "{err}");
    let err = timed_runs(2, |i| if i == 1 { Err("round 2 failed".into()) } else { Ok((0, 1.0)) }, |r| r.to_string())
        .unwrap_err();
    assert_eq!(err.to_string(), "round 2 failed");
}
