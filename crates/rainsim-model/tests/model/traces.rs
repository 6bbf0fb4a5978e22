//! Verification mode on every shared trace sample, on aged devices (GC
//! active from the first request), for each parity-update scheme.

use crate::{preset, scheme, trace_files};
use rainsim_model::metrics::collector::Collector;
use rainsim_model::run::capacity_bytes;
use rainsim_model::Ssd;

#[test]
fn verify_passes_for_every_parity_scheme_on_every_shared_trace_with_gc() {
    // 3+1 stripes over 8 channels, and the adaptive paper's 5+1 over 6.
    for name in ["degraded-mode-8ch", "adaptive-parity-6ch"] {
        let mut adjusted = [0u64; 3];
        for (k, s) in ["baseline", "bpu", "adaptive"].iter().enumerate() {
            let mut cfg = preset(name);
            cfg.policy = scheme(s).policy;
            // GC from the start even under read-only samples, so that the
            // checks see reads racing page moves.
            crate::gc_from_start(&mut cfg);
            for path in trace_files() {
                let at = format!("{name}, {s}, {}", path.display());
                let trace = rainsim_trace::load(&path, &cfg.trace, capacity_bytes(&cfg), cfg.geometry.page_bytes)
                    .unwrap_or_else(|e| panic!("{e}"));
                let mut ssd = Ssd::new(&cfg, Collector::new(cfg.geometry.channels), true).unwrap();
                let totals = ssd.run(&trace.requests, &mut |_| {}).unwrap_or_else(|e| panic!("{at}: {e}"));
                assert_eq!(totals.completed, trace.requests.len() as u64, "{at}");
                let gcs: u64 = ssd.obs.channels.iter().map(|c| c.gc_count).sum();
                assert!(gcs > 0, "{at}: GC never ran on the aged device");
                let writes = trace.requests.iter().filter(|r| r.op == rainsim_trace::Op::Write).count();
                if writes > 0 {
                    assert!(totals.stripes_verified > 0, "{at}: no stripe checked");
                }
                adjusted[k] += ssd.obs.raid.adjusted;
            }
        }
        // The checks must have seen the policies leave fewest pre-reads.
        assert_eq!(adjusted[0], 0, "{name}: the baseline adjusted a routine");
        assert!(adjusted[1] > 0 && adjusted[2] > 0, "{name}: bpu / adaptive never adjusted: {adjusted:?}");
    }
}
