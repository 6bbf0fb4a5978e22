//! How an array is put together from its configuration: the refusals
//! before any device is built, each member's free slots by channel and the
//! dies the DLS model gives a channel.

use crate::array::array_cfg;
use crate::tiny;
use rainsim_model::array::params::Allocation;
use rainsim_model::array::Array;
use rainsim_model::config::WarmupWorkload;
use rainsim_model::Config;

fn refusal(cfg: &Config) -> String {
    match Array::new(cfg, false) {
        Ok(_) => panic!("built"),
        Err(e) => e.0,
    }
}

/// A warm-up on the trace's writes has no device trace to read in an
/// array; the synthetic one is allowed, and no warm-up needs neither.
#[test]
fn a_warm_up_on_the_trace_is_refused_and_a_synthetic_one_is_not() {
    let mut cfg = array_cfg(4, Allocation::Static);
    cfg.warmup.workload = WarmupWorkload::Trace;
    assert!(Array::new(&cfg, false).is_ok(), "no warm-up asked for");
    cfg.warmup.device_writes = 0.05;
    let e = refusal(&cfg);
    assert!(e.contains("in an array the trace is the array's") && e.contains("\"synthetic\""), "{e}");
    cfg.warmup.workload = WarmupWorkload::Synthetic;
    assert!(Array::new(&cfg, false).is_ok());
}

/// 2^32 units or more: the message names what to change, which depends on
/// the placement (page rows under static placement, chunks under free).
#[test]
fn too_many_units_name_page_rows_or_chunks() {
    for (alloc, want) in [(Allocation::Static, "page rows × devices"), (Allocation::Rr, "raise array.chunk_kib")] {
        // 2^31 pages a device (a device may have at most 2^32 − 2), eight of them.
        let mut cfg = array_cfg(8, alloc);
        let g = &mut cfg.geometry;
        (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (16, 8, 4, 4);
        (g.blocks_per_plane, g.pages_per_block, g.page_bytes) = (8192, 128, 4096);
        let e = refusal(&cfg);
        assert!(e.contains("at most 2^32 − 2") && e.contains(want), "{alloc:?}: {e}");
    }
}

/// Under free placement the slots past the array's stripes are free, each
/// on the home channel of its first page: chunks of one page spread over
/// three channels in turn, chunks of four pages by their first page.
#[test]
fn free_slots_count_on_the_channel_of_their_first_page() {
    for chunk_kib in [0u32, 16] {
        let mut cfg = tiny(3, 1, 1, 32, 32, None);
        cfg.array = array_cfg(4, Allocation::Rr).array;
        cfg.array.as_mut().unwrap().chunk_kib = chunk_kib;
        let a = Array::new(&cfg, false).unwrap();
        let (slots, stripes) = rainsim_model::array::shape(&cfg, cfg.array.as_ref().unwrap());
        let pages = if chunk_kib == 0 { 1 } else { 4 };
        let dev = a.devices()[0].stripe_layout();
        let mut want = vec![0u32; 3];
        for s in stripes as u64..slots {
            want[dev.home_channel(dev.chunk_of_lpn(s * pages).1) as usize] += 1;
        }
        assert!(want.iter().all(|&n| n > 0), "every channel has free slots: {want:?}");
        for d in 0..4 {
            assert_eq!(a.loads()[d].free, want, "chunk {chunk_kib} KiB, device {d}");
        }
    }
}

/// The DLS model gives a channel its chips × dies per chip.
#[test]
fn the_delay_model_has_every_die_of_a_channel() {
    let mut cfg = array_cfg(4, Allocation::Dls);
    (cfg.geometry.chips_per_channel, cfg.geometry.dies_per_chip) = (2, 3);
    let a = Array::new(&cfg, false).unwrap();
    assert!(a.loads().iter().all(|l| l.delays.dies() == 6));
}
