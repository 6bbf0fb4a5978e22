//! LDPC read retry end to end: a read senses for tR plus its level's retries,
//! and the level rises with the block's wear, data age and reads.
//!
//! Expected levels are worked out by hand from the default model
//! RBER = 1.48e-3 + 3.90e-10·PE^2.05 + 6.28e-5·PE^0.14·t^0.54 + 3.73e-9·PE^0.33·reads^1.71
//! (t in days) and the default table: thresholds 2e-3, 3e-3, …, 7e-3 and
//! retries 0, 1, 2, 4, 8, 16, 32 at 24 µs each.

use crate::{preset, tiny, traces_dir};
use rainsim_model::flash::op::Origin;
use rainsim_model::metrics::observer::Observer;
use rainsim_model::run::{capacity_bytes, simulate, RunOptions};
use rainsim_model::{Config, Report, Ssd};
use rainsim_trace::{Op, Request};

const PB: u64 = 4096;
const T_R: u64 = 45_000;
const STEP: u64 = 24_000;
const RETRIES: [u64; 7] = [0, 1, 2, 4, 8, 16, 32];
// 4096 B at 400 MB/s = 10,240 ns, plus 300 ns of command cycles.
const XFER: u64 = 10_240 + 300;

/// Unloaded latency of a one-page host read at `level`.
fn read_at(level: usize) -> u64 {
    T_R + RETRIES[level] * STEP + XFER
}

/// One die, half full; LDPC on with no prior wear and no data age unless a
/// test sets them, so that only what the test changes moves the RBER.
fn cfg() -> Config {
    let mut c = tiny(1, 1, 1, 64, 16, None);
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    c.timing.read_ns = T_R;
    c.timing.command_ns = 300;
    c.ldpc.enabled = true;
    c.ldpc.initial_pe_cycles = 0;
    c.ldpc.precondition_age_days = 0.0;
    c
}

fn req(t: u64, lpn: u64, op: Op) -> Request {
    Request { time_ns: t, offset: lpn * PB, size: PB as u32, device: 0, op }
}

/// Request latencies and the LDPC level of every flash read, in order.
#[derive(Default)]
struct Rec {
    lat: Vec<u64>,
    levels: Vec<u8>,
}
impl Observer for Rec {
    fn request_done(&mut self, _slot: u32, _op: Op, arrival: u64, done: u64, _bytes: u32) {
        self.lat.push(done - arrival);
    }
    fn flash_read(&mut self, _channel: u32, _origin: Origin, level: u8, _retry_ns: u64) {
        self.levels.push(level);
    }
}

/// The first mapped logical page and its block.
fn mapped_page(ssd: &Ssd<Rec>) -> (u64, usize) {
    let lpn = (0..ssd.stripe_layout().logical_pages()).find(|&l| ssd.ftl.lookup(l as u32).is_some()).expect("aged");
    let ppn = ssd.ftl.lookup(lpn as u32).unwrap();
    (lpn, ssd.layout().block_of(ppn) as usize)
}

/// Latency of one read of a page whose block has `pe` erase cycles, at time 0
/// (data age 0, no earlier read: RBER = 1.48e-3 + 3.90e-10·PE^2.05).
fn one_read(pe: u32) -> (u64, u8) {
    let mut ssd = Ssd::new(&cfg(), Rec::default(), false).unwrap();
    let (lpn, block) = mapped_page(&ssd);
    ssd.ftl.blocks[block].erases = pe;
    ssd.run(&[req(0, lpn, Op::Read)], &mut |_| {}).unwrap();
    assert_eq!(ssd.obs.levels.len(), 1);
    (ssd.obs.lat[0], ssd.obs.levels[0])
}

#[test]
fn a_read_senses_for_tr_plus_its_levels_retries() {
    // PE → 3.90e-10·PE^2.05 + 1.48e-3 → level:
    //    0:                 1.480e-3 → 0       2250: 2.904e-3 + … = 4.384e-3 → 3
    // 1500: 1.265e-3 + … = 2.745e-3 → 1        2500: 5.084e-3 → 4
    // 2000: 2.281e-3 + … = 3.761e-3 → 2        3000: 6.718e-3 → 5
    //                                           4000: 1.093e-2 → 6 (the top)
    for (pe, level) in [(0, 0), (1500, 1), (2000, 2), (2250, 3), (2500, 4), (3000, 5), (4000, 6)] {
        let (lat, got) = one_read(pe);
        assert_eq!(got as usize, level, "PE {pe}");
        assert_eq!(lat, read_at(level), "PE {pe}: tR + {} retries × 24 µs + transfer", RETRIES[level]);
    }
}

#[test]
fn levels_rise_with_wear() {
    let runs: Vec<(u64, u8)> = (0..=16).map(|i| one_read(i * 250)).collect();
    assert!(runs.windows(2).all(|w| w[0].1 <= w[1].1 && w[0].0 <= w[1].0), "{runs:?}");
    assert_eq!((runs[0].0, runs[16].0), (read_at(0), read_at(6)), "from level 0 (fresh) to the top (4000 P/E)");
}

#[test]
fn a_configured_table_sets_the_read_times() {
    // Linear retries (DESIGN §6's "level × step") and halved thresholds: PE
    // 2000 (3.761e-3) now exceeds 1e-3, 1.5e-3, …, 3.5e-3, the top of 7 levels.
    let mut c = cfg();
    c.ldpc.retries = vec![0, 1, 2, 3, 4, 5, 6];
    c.ldpc.rber_thresholds = vec![1e-3, 1.5e-3, 2e-3, 2.5e-3, 3e-3, 3.5e-3];
    c.ldpc.retry_step_ns = 10_000;
    let mut ssd = Ssd::new(&c, Rec::default(), false).unwrap();
    let (lpn, block) = mapped_page(&ssd);
    ssd.ftl.blocks[block].erases = 2000;
    ssd.run(&[req(0, lpn, Op::Read)], &mut |_| {}).unwrap();
    assert_eq!((ssd.obs.levels[0], ssd.obs.lat[0]), (6, T_R + 6 * 10_000 + XFER));
}

#[test]
fn read_disturb_raises_the_level_of_a_block_read_again_and_again() {
    // 1000 P/E before the run: 1.48e-3 + 5.508896e-4 = 2.030890e-3 (level 1)
    // plus 3.73e-9·1000^0.33·r^1.71 = 3.645095e-8·r^1.71 after r earlier reads.
    // The thresholds 3e-3 … 7e-3 are crossed after r = 386.8, 585.6, 744.5,
    // 882.3 and 1006.2 reads. 1100 reads 0.9 ms apart keep the age under 1 s,
    // and each ends before the next starts (the slowest takes 0.824 ms).
    let mut c = cfg();
    c.ldpc.initial_pe_cycles = 1000;
    let mut ssd = Ssd::new(&c, Rec::default(), false).unwrap();
    let (lpn, _) = mapped_page(&ssd);
    let reqs: Vec<Request> = (0..1100).map(|i| req(i * 900_000, lpn, Op::Read)).collect();
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let mut per_level = [0u32; 7];
    for &l in &ssd.obs.levels {
        per_level[l as usize] += 1;
    }
    assert_eq!(per_level, [0, 387, 199, 159, 138, 124, 93]);
    assert!(ssd.obs.levels.windows(2).all(|w| w[0] <= w[1]), "a level never falls while reads accumulate");
    for (i, (&lat, &l)) in ssd.obs.lat.iter().zip(&ssd.obs.levels).enumerate() {
        assert_eq!(lat, read_at(l as usize), "read {i}");
    }
}

#[test]
fn data_age_counts_from_the_precondition_age_and_restarts_when_rewritten() {
    // 1000 P/E, preconditioned data 30 days old:
    // 2.030890e-3 + 6.28e-5·1000^0.14·30^0.54 (1.036585e-3) = 3.067475e-3 → level 2.
    let mut c = cfg();
    c.ldpc.initial_pe_cycles = 1000;
    c.ldpc.precondition_age_days = 30.0;
    let mut ssd = Ssd::new(&c, Rec::default(), false).unwrap();
    let (lpn, _) = mapped_page(&ssd);
    let day = 86_400 * 1_000_000_000u64;
    ssd.run(
        &[
            req(0, lpn, Op::Read),
            // Rewritten: a block opened now holds it (no erase yet, age 0):
            // 2.030890e-3 → level 1.
            req(1_000_000, lpn, Op::Write),
            req(2_000_000, lpn, Op::Read),
            // 90 days later: + 6.28e-5·1000^0.14·90^0.54 (1.876077e-3) and one
            // earlier read (3.6e-8) = 3.907e-3 → level 2 again.
            req(90 * day, lpn, Op::Read),
        ],
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(ssd.obs.levels, vec![2, 1, 2]);
    let lat = &ssd.obs.lat;
    assert_eq!((lat[0], lat[2], lat[3]), (read_at(2), read_at(1), read_at(2)));
}

/// `precondition_age_spread = "uniform"`: each written block's data age at
/// time 0 is its own draw from [0, 30 days], so over a device's blocks they
/// span nearly all of it with a mean near 15 days, and each seed draws its
/// own; "fixed" makes every one 30 days. (The age is the clock's reading
/// minus the block's stamp.)
#[test]
fn a_uniform_age_spread_draws_each_blocks_age_from_zero_to_the_age() {
    let mut c = tiny(4, 2, 2, 64, 16, None);
    c.precondition.valid = 0.5;
    (c.ldpc.enabled, c.ldpc.precondition_age_days) = (true, 30.0);
    let month = 30 * 86_400u32;
    let ages = |spread, seed| {
        let mut c = c.clone();
        (c.ldpc.precondition_age_spread, c.seed) = (spread, seed);
        let ssd = Ssd::new(&c, rainsim_model::metrics::observer::NullObserver, false).unwrap();
        let ages: Vec<u32> = ssd
            .ftl
            .blocks
            .iter()
            .filter(|b| b.written > 0)
            .map(|b| month.checked_sub(b.opened_at_s).unwrap())
            .collect();
        assert!(ages.len() > 500, "{} written blocks", ages.len());
        ages
    };
    use rainsim_model::config::AgeSpread;
    assert!(ages(AgeSpread::Fixed, 1).iter().all(|&a| a == month));
    let a = ages(AgeSpread::Uniform, 1);
    let (lo, hi) = (*a.iter().min().unwrap(), *a.iter().max().unwrap());
    let mean = a.iter().map(|&x| x as f64).sum::<f64>() / a.len() as f64 / 86_400.0;
    assert!(lo < 86_400 && hi > month - 86_400, "ages {lo}..{hi} s");
    assert!((mean - 15.0).abs() < 1.5, "mean age {mean} days");
    // Each seed its own draws, seeds differing in one low bit too (a seed
    // mixed by `|` or `&` with the constant would make some pairs alike).
    let seeds = [0, 1, 4, 8];
    let by_seed: Vec<Vec<u32>> = seeds.iter().map(|&s| ages(AgeSpread::Uniform, s)).collect();
    for i in 0..4 {
        for j in i + 1..4 {
            assert_ne!(by_seed[i], by_seed[j], "seeds {} and {}", seeds[i], seeds[j]);
        }
    }
}

#[test]
fn pre_reads_pay_their_pages_levels() {
    // A 4-channel RAID-5 (3+1) whose blocks all have 2000 P/E (level 2, as
    // above): the RMW of one chunk pre-reads old data and old parity in
    // parallel at level 2, XORs, then programs.
    let mut c = tiny(4, 1, 1, 64, 16, Some(4));
    c.timing.read_ns = T_R;
    c.timing.command_ns = 300;
    c.timing.xor_ns = 19_000;
    c.ldpc.enabled = true;
    c.ldpc.initial_pe_cycles = 0;
    c.ldpc.precondition_age_days = 0.0;
    let mut ssd = Ssd::new(&c, Rec::default(), true).unwrap();
    for b in ssd.ftl.blocks.iter_mut() {
        b.erases = 2000;
    }
    let gap = 100_000_000;
    let reqs = [
        Request { time_ns: 0, offset: 0, size: 3 * PB as u32, device: 0, op: Op::Write },
        Request { time_ns: gap, offset: 0, size: PB as u32, device: 0, op: Op::Write },
    ];
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let program = XFER + c.timing.program_ns;
    assert_eq!(ssd.obs.levels, vec![2, 2], "two pre-reads");
    assert_eq!(ssd.obs.lat, vec![19_000 + program, read_at(2) + 19_000 + program]);
}

#[test]
fn zero_retries_change_nothing() {
    // With every level at 0 retries the model must not move any event.
    let mut c = tiny(4, 2, 2, 16, 16, Some(4));
    c.precondition.valid = 0.6;
    c.precondition.invalid = 0.1;
    c.geometry.over_provisioning = 0.3;
    c.ftl.gc_threshold = 0.2;
    let cap = capacity_bytes(&c) / PB;
    // A fixed pseudo-random mix of reads and writes, dense enough to queue and GC.
    let mut x = 12345u64;
    let reqs: Vec<Request> = (0..3000)
        .map(|i| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let op = if (x >> 33).is_multiple_of(3) { Op::Write } else { Op::Read };
            req(i * 100_000, (x >> 20) % cap, op)
        })
        .collect();
    let run = |on: bool| {
        let mut c = c.clone();
        c.ldpc.enabled = on;
        c.ldpc.retries = vec![0; 7];
        let mut ssd = Ssd::new(&c, Rec::default(), true).unwrap();
        ssd.run(&reqs, &mut |_| {}).unwrap();
        ssd.obs
    };
    let (off, on) = (run(false), run(true));
    assert_eq!(off.lat, on.lat);
    assert!(off.levels.is_empty() && !on.levels.is_empty(), "the probe fires only with the model on");
}

/// A run of `requests` on `cfg` through the report path.
fn report(cfg: &Config, requests: &[Request]) -> Report {
    simulate(cfg, requests, RunOptions::new("baseline", false, &mut |_| {})).unwrap()
}

#[test]
fn the_report_counts_every_flash_read_by_level() {
    // The degraded-mode preset's 7-level table, turned on (its sensitivity variant).
    let mut cfg = preset("degraded-mode-8ch");
    assert!(!cfg.ldpc.enabled, "the degraded-mode preset reads at tR, as the paper's latency runs");
    cfg.ldpc.enabled = true;
    let path = traces_dir().join("msr.cut.per_10k.rw_40_60.1370.trace");
    let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes).unwrap();
    let r = report(&cfg, &trace.requests);
    let l = r.ldpc.as_ref().expect("an ldpc section");
    assert_eq!(l.level_read_ns, vec![45_000, 69_000, 93_000, 141_000, 237_000, 429_000, 813_000]);
    let f = &r.flash_ops;
    let reads: u64 = l.reads_by_level.iter().sum();
    assert_eq!(reads, f.host_read + f.pre_read + f.degraded_read);
    assert!(reads > 0 && l.mean_level > 0.0, "an aged, mid-life device reads above level 0");
    let retry: f64 = l.reads_by_level.iter().zip(&l.level_read_ns).map(|(&n, &t)| n as f64 * (t - 45_000) as f64).sum();
    assert!((l.mean_retry_ns - retry / reads as f64).abs() < 1e-6, "mean retry time from the distribution");
    // Off: no section.
    let mut off = cfg.clone();
    off.ldpc.enabled = false;
    assert!(report(&off, &trace.requests).ldpc.is_none());
}
