//! Verification mode on every shared trace sample, on an aged device (GC
//! active from the first request).

use crate::{preset, trace_files};
use rainsim_model::metrics::collector::Collector;
use rainsim_model::run::capacity_bytes;
use rainsim_model::Ssd;

#[test]
fn verify_passes_for_baseline_on_every_shared_trace_with_gc() {
    let mut cfg = preset("degraded-mode-8ch");
    assert!(cfg.precondition.valid >= 0.8, "the preset is aged");
    // One more percent of invalid pages puts every plane just past the GC
    // threshold, so GC runs from the start even under read-only samples and
    // the checks see reads racing page moves.
    cfg.precondition.invalid += 0.01;
    for path in trace_files() {
        let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes)
            .unwrap_or_else(|e| panic!("{e}"));
        let mut ssd = Ssd::new(&cfg, Collector::new(cfg.geometry.channels), true).unwrap();
        let totals = ssd.run(&trace.requests, &mut |_| {}).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(totals.completed, trace.requests.len() as u64, "{}", path.display());
        let gcs: u64 = ssd.obs.channels.iter().map(|c| c.gc_count).sum();
        assert!(gcs > 0, "{}: GC never ran on the aged device", path.display());
        let writes = trace.requests.iter().filter(|r| r.op == rainsim_trace::Op::Write).count();
        if writes > 0 {
            assert!(totals.stripes_verified > 0, "{}: no stripe checked", path.display());
        }
    }
}
