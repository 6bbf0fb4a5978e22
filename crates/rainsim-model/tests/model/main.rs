//! Integration tests of the device model (one test binary).

mod ageing;
mod array;
mod array_alloc;
mod array_build;
mod array_direct;
mod array_member_fault;
mod array_options;
mod array_rebuild;
mod array_rows;
mod config_bounds;
mod controller;
mod cost_edges;
mod degraded;
mod determinism;
mod direct_starts;
mod failure;
mod failure_gc;
mod faults;
mod gc;
mod gc_exact;
mod host_schedulers;
mod layering;
mod ldpc;
mod page_allocation;
mod parity_update;
mod percentiles;
mod prereads_and_replicas;
mod process_variation;
mod props;
mod queueing;
mod raid_failure;
mod raid_layer;
mod replication;
mod report_figures;
mod report_semantics;
mod request_log;
mod rotating_gc;
mod setup;
mod stream;
mod timing;
mod together;
mod traces;
mod variation_alloc;
mod writes;

use rainsim_model::config::{Config, RaidLevel};
use rainsim_model::metrics::observer::Observer;
use rainsim_model::Ssd;
use rainsim_trace::{Op, Request};
use std::path::PathBuf;

/// A small device: `channels` × 1 chip × `dies` dies × `planes` planes.
pub fn tiny(channels: u32, dies: u32, planes: u32, blocks: u32, ppb: u32, raid: Option<u32>) -> Config {
    let mut c = Config::default();
    c.geometry.channels = channels;
    c.geometry.chips_per_channel = 1;
    c.geometry.dies_per_chip = dies;
    c.geometry.planes_per_die = planes;
    c.geometry.blocks_per_plane = blocks;
    c.geometry.pages_per_block = ppb;
    c.geometry.page_bytes = 4096;
    c.precondition.valid = 0.0;
    c.precondition.invalid = 0.0;
    match raid {
        Some(k) => {
            c.raid.level = RaidLevel::Raid5;
            c.raid.stripe_width = k;
        }
        None => c.raid.level = RaidLevel::None,
    }
    c
}

/// The report's inputs for a device of `dies_per_channel` dies a channel.
pub fn report_inputs(dies_per_channel: u32) -> rainsim_model::metrics::report::ReportInputs<'static> {
    rainsim_model::metrics::report::ReportInputs {
        scheme: "baseline",
        seed: 1,
        config: serde_json::Value::Null,
        trace: serde_json::Value::Null,
        dies_per_channel,
        capacity_bytes: 0,
        cdf_points: 10,
        pe_cycle_limit: 3000,
        ldpc_level_read_ns: None,
    }
}

/// Ages `cfg` so that GC runs from the first request even on short samples:
/// 80 % valid / 11 % invalid, scattered uniformly, no free margin, nothing
/// mapped for the trace (every plane starts just below the GC trigger).
pub fn gc_from_start(cfg: &mut Config) {
    let p = &mut cfg.precondition;
    p.valid = 0.8;
    p.invalid = 0.11;
    p.layout = rainsim_model::config::AgeLayout::Uniform;
    p.map_trace = rainsim_model::config::MapTrace::None;
    p.free_margin = None;
    p.hot_utilization = None;
    p.target_moves_per_gc = None;
}

/// Request latencies in completion order, via a recording observer.
#[derive(Default)]
pub struct Lat(pub Vec<(Op, u64)>);
impl Observer for Lat {
    fn request_done(&mut self, _slot: u32, op: Op, arrival: u64, done: u64, _bytes: u32) {
        self.0.push((op, done - arrival));
    }
}

/// The first stripe whose chunks were all written by preconditioning.
pub fn full_stripe<O: Observer>(ssd: &Ssd<O>) -> u32 {
    let l = ssd.stripe_layout();
    (0..l.stripes)
        .find(|&s| (0..l.width).all(|j| ssd.ftl.lookup(s * l.width + j).is_some()))
        .expect("a fully written stripe")
}

/// The shared trace samples; a missing folder fails the test loudly.
pub fn traces_dir() -> PathBuf {
    let dir = std::env::var_os("RAINSIM_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces"));
    assert!(
        dir.is_dir(),
        "shared trace samples not found at {} — set RAINSIM_TRACES to the folder holding them",
        dir.display()
    );
    dir
}

/// Every trace sample file in the shared folder.
pub fn trace_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(traces_dir())
        .expect("readable traces folder")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    v.sort();
    assert!(v.len() >= 10, "expected the 10 shared trace samples, found {}", v.len());
    v
}

/// A preset from `configs/`.
pub fn preset(name: &str) -> Config {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs").join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    Config::from_toml(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A scheme from `configs/schemes/` (only its `[policy]` matters; the rest
/// of the returned config is defaults).
pub fn scheme(name: &str) -> Config {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs/schemes").join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    Config::from_toml(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// An idle 3+1 device on 4 channels of `dies` dies, half its pages written
/// (every stripe preconditioned whole or not at all), with the `[policy]` of
/// scheme `kind`.
pub fn three_plus_one(kind: &str, dies: u32) -> Config {
    let mut c = tiny(4, dies, 1, 64, 16, Some(4));
    c.precondition.valid = 0.5;
    c.geometry.over_provisioning = 0.2;
    c.policy = scheme(kind).policy;
    c
}

/// Runs `reqs` on a device of `c` in verify mode; panics on an error.
pub fn run_verified(c: &Config, reqs: &[Request]) -> Ssd<rainsim_model::metrics::collector::Collector> {
    let obs = rainsim_model::metrics::collector::Collector::new(c.geometry.channels);
    let mut ssd = Ssd::for_requests(c, obs, true, reqs).unwrap();
    ssd.run(reqs, &mut |_| {}).unwrap_or_else(|e| panic!("{e}"));
    ssd
}

/// `n` requests `gap_ns` apart over the first `pages` 4 KiB pages, drawn
/// from an xorshift stream started at `x0` (non-zero): a read when the draw
/// is a multiple of `read_every`, else a write, of `size(draw)` bytes.
pub fn xorshift_requests(
    x0: u64,
    n: u64,
    gap_ns: u64,
    pages: u64,
    read_every: u64,
    size: impl Fn(u64) -> u32,
) -> Vec<Request> {
    let mut x = x0;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let op = if x.is_multiple_of(read_every) { Op::Read } else { Op::Write };
            Request { time_ns: i * gap_ns, offset: (x % pages) * 4096, size: size(x), device: 0, op }
        })
        .collect()
}
