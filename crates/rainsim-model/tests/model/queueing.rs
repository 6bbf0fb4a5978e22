//! Queueing-theory checks on a one-die device: Poisson arrivals of reads
//! against the M/D/1 and M/M/1 formulas.

use crate::tiny;
use rainsim_model::metrics::collector::Collector;
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

fn one_die(page_bytes: u32) -> rainsim_model::Config {
    let mut c = tiny(1, 1, 1, 256, 64, None);
    c.geometry.page_bytes = page_bytes;
    c.geometry.over_provisioning = 0.05;
    c.precondition.valid = 0.95; // every logical page written: no zero-reads
    c.ftl.gc_threshold = 0.0; // read-only: no GC wanted
    c.timing.read_ns = 20_000;
    c.timing.command_ns = 0;
    c
}

fn exp_gap(rng: &mut Pcg64Mcg, mean_ns: f64) -> f64 {
    -(1.0 - rng.random::<f64>()).ln() * mean_ns
}

/// Reads of `pages(rng)` pages each, Poisson arrivals at `rate` per ns.
fn run(
    cfg: &rainsim_model::Config,
    n: usize,
    rate: f64,
    mut pages: impl FnMut(&mut Pcg64Mcg) -> u64,
) -> (Collector, u64) {
    let mut ssd = Ssd::new(cfg, Collector::new(1), false).unwrap();
    let logical = ssd.stripe_layout().logical_pages();
    let pb = cfg.geometry.page_bytes as u64;
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let mut t = 0.0;
    let reqs: Vec<Request> = (0..n)
        .map(|_| {
            t += exp_gap(&mut rng, 1.0 / rate);
            let len = pages(&mut rng).min(logical);
            let start = rng.random_range(0..=logical - len);
            Request { time_ns: t as u64, offset: start * pb, size: (len * pb) as u32, device: 0, op: Op::Read }
        })
        .collect();
    ssd.run(&reqs, &mut |_| {}).unwrap();
    let d = ssd.timing().unloaded_read();
    assert_eq!(ssd.obs.unmapped_reads, 0, "every page must be mapped");
    (ssd.obs, d)
}

#[test]
fn md1_mean_wait_matches_formula() {
    let cfg = one_die(4096);
    let d0 = 20_000 + (4096u64 * 1000).div_ceil(400);
    // Higher load needs more samples for the same precision of the mean wait.
    for (rho, n) in [(0.5, 200_000), (0.8, 800_000)] {
        let (obs, d) = run(&cfg, n, rho / d0 as f64, |_| 1);
        assert_eq!(d, d0);
        let mean = obs.latency[0].mean();
        let wait = mean - d as f64;
        let expect = rho * d as f64 / (2.0 * (1.0 - rho));
        let err = (wait - expect).abs() / expect;
        eprintln!(
            "M/D/1 ρ = {rho}: wait {wait:.0} ns, formula {expect:.0} ns ({:+.2}%)",
            (wait / expect - 1.0) * 100.0
        );
        assert!(err < 0.03, "ρ = {rho}: M/D/1 wait {wait:.0} ns vs formula {expect:.0} ns ({:.1}% off)", err * 100.0);
        // Sanity: the unloaded latency is exactly D.
        assert_eq!(obs.latency[0].hist().min(), d);
    }
}

#[test]
fn mm1_mean_sojourn_matches_formula() {
    // Geometric page counts (mean 50) approximate exponential service: the
    // discretisation changes E[S²] by p/2 = 1 %, inside the tolerance.
    let cfg = one_die(512);
    let d = 20_000 + (512u64 * 1000).div_ceil(400);
    let p = 0.02;
    let mean_s = d as f64 / p;
    let rho = 0.6;
    let (obs, _) = run(&cfg, 200_000, rho / mean_s, |rng| {
        let u: f64 = 1.0 - rng.random::<f64>();
        (u.ln() / (1.0 - p).ln()).floor() as u64 + 1
    });
    let mean = obs.latency[0].mean();
    let expect = mean_s / (1.0 - rho); // M/M/1 sojourn 1/(μ − λ)
    let err = (mean - expect).abs() / expect;
    eprintln!("M/M/1 ρ = {rho}: sojourn {mean:.0} ns, formula {expect:.0} ns ({:+.2}%)", (mean / expect - 1.0) * 100.0);
    assert!(err < 0.03, "M/M/1 sojourn {mean:.0} ns vs formula {expect:.0} ns ({:.1}% off)", err * 100.0);
}
