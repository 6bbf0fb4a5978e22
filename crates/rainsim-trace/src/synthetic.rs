//! A seeded synthetic workload: Poisson arrivals, a read/write mix, a size
//! distribution and a two-region (hot/cold) address skew.
//!
//! Model: the footprint is the first `footprint × capacity` bytes, cut into
//! slots of `align_bytes`. The hot region is its first `hot_fraction` of the
//! slots and receives `hot_access` of the requests; within a region the start
//! slot is uniform. A request that would run past the footprint end is moved
//! back to end inside it. Gaps between arrivals are exponential with mean
//! `mean_interarrival_ns`, rounded to ns; the first request is at 0 ns. All
//! requests are on device 0. The output depends only on the spec, the
//! capacity and the seed (PCG-64 MCG from `rand_pcg`).

use crate::reader::{hex, Trace, TraceInfo};
use crate::{transform, Op, Request, TraceError};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One entry of the request size distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SizeWeight {
    /// Request size in bytes (> 0).
    pub bytes: u32,
    /// Relative weight (> 0; weights need not sum to 1).
    pub weight: f64,
}

/// Parameters of the synthetic workload. Every field has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SyntheticSpec {
    /// Number of requests (≥ 1).
    pub requests: u64,
    /// Mean gap between arrivals in ns (exponential gaps = Poisson arrivals).
    pub mean_interarrival_ns: u64,
    /// Fraction of requests that are reads, in [0, 1].
    pub read_ratio: f64,
    /// Size distribution (at least one entry).
    pub sizes: Vec<SizeWeight>,
    /// Fraction of the capacity that is addressed, in (0, 1].
    pub footprint: f64,
    /// Fraction of the footprint that is hot, in [0, 1].
    pub hot_fraction: f64,
    /// Fraction of requests that go to the hot region, in [0, 1].
    pub hot_access: f64,
    /// Alignment of request offsets in bytes (> 0).
    pub align_bytes: u32,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        let sw = |kib: u32, weight: f64| SizeWeight { bytes: kib * 1024, weight };
        SyntheticSpec {
            requests: 100_000,
            // 2,000 IOPS: the aged 128 GiB rep-raid-8ch device (WAF ≈ 9) runs
            // at about 60 % die utilisation; at 5,000 IOPS its queues grow
            // without bound.
            mean_interarrival_ns: 500_000,
            read_ratio: 0.3,
            sizes: vec![sw(4, 0.4), sw(8, 0.3), sw(16, 0.2), sw(64, 0.1)],
            footprint: 0.8,
            hot_fraction: 0.2,
            hot_access: 0.8,
            align_bytes: 4096,
        }
    }
}

fn invalid(msg: String) -> TraceError {
    TraceError::Invalid(format!("synthetic workload: {msg}"))
}

impl SyntheticSpec {
    /// Checks every parameter; the error names the field and its valid range.
    pub fn validate(&self) -> Result<(), TraceError> {
        if self.requests == 0 {
            return Err(invalid("requests must be ≥ 1".into()));
        }
        for (name, v) in
            [("read_ratio", self.read_ratio), ("hot_fraction", self.hot_fraction), ("hot_access", self.hot_access)]
        {
            if !(0.0..=1.0).contains(&v) {
                return Err(invalid(format!("{name} must be in [0, 1], got {v}")));
            }
        }
        if !(self.footprint > 0.0 && self.footprint <= 1.0) {
            return Err(invalid(format!("footprint must be in (0, 1], got {}", self.footprint)));
        }
        if self.sizes.is_empty() {
            return Err(invalid("sizes must list at least one size".into()));
        }
        for s in &self.sizes {
            if s.bytes == 0 {
                return Err(invalid("every size must be > 0 bytes".into()));
            }
            if !(s.weight.is_finite() && s.weight > 0.0) {
                return Err(invalid(format!(
                    "size {} bytes has weight {}; weights must be finite and > 0",
                    s.bytes, s.weight
                )));
            }
        }
        if self.align_bytes == 0 {
            return Err(invalid("align_bytes must be > 0".into()));
        }
        Ok(())
    }

    /// A canonical text of the spec (for hashing).
    fn canonical(&self) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(|s| format!("{}:{:?}", s.bytes, s.weight)).collect();
        format!(
            "requests={};mean_interarrival_ns={};read_ratio={:?};sizes=[{}];footprint={:?};hot_fraction={:?};hot_access={:?};align_bytes={}",
            self.requests,
            self.mean_interarrival_ns,
            self.read_ratio,
            sizes.join(","),
            self.footprint,
            self.hot_fraction,
            self.hot_access,
            self.align_bytes
        )
    }
}

/// Generates `spec.requests` requests within `capacity_bytes`, deterministically
/// from `seed`. `TraceInfo::sha256` hashes the canonical spec, capacity and seed.
pub fn generate(spec: &SyntheticSpec, capacity_bytes: u64, seed: u64) -> Result<Trace, TraceError> {
    spec.validate()?;
    let align = u64::from(spec.align_bytes);
    let slots = (capacity_bytes as f64 * spec.footprint) as u64 / align;
    let largest = spec.sizes.iter().map(|s| s.bytes).max().unwrap_or(0);
    let largest_slots = u64::from(largest).div_ceil(align);
    if slots == 0 || largest_slots > slots {
        return Err(invalid(format!(
            "the footprint ({} × {capacity_bytes} bytes, in {align}-byte slots) holds {slots} slots, \
             too small for the largest size of {largest} bytes",
            spec.footprint
        )));
    }
    let hot = ((slots as f64 * spec.hot_fraction).round() as u64).min(slots);
    let total_weight: f64 = spec.sizes.iter().map(|s| s.weight).sum();
    let mean = spec.mean_interarrival_ns as f64;

    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut requests = Vec::new();
    usize::try_from(spec.requests)
        .ok()
        .and_then(|n| requests.try_reserve_exact(n).ok())
        .ok_or_else(|| invalid(format!("{} requests do not fit in memory; lower workload.requests", spec.requests)))?;
    let mut t = 0u64;
    for i in 0..spec.requests {
        let mut u = rng.random::<f64>() * total_weight;
        let mut size = spec.sizes[spec.sizes.len() - 1].bytes;
        for s in &spec.sizes {
            if u < s.weight {
                size = s.bytes;
                break;
            }
            u -= s.weight;
        }
        let in_hot = if hot == 0 {
            false
        } else if hot == slots {
            true
        } else {
            rng.random_bool(spec.hot_access)
        };
        let slot = if in_hot { rng.random_range(0..hot) } else { rng.random_range(hot..slots) };
        let need = u64::from(size).div_ceil(align);
        let start = slot.min(slots - need);
        let op = if rng.random_bool(spec.read_ratio) { Op::Read } else { Op::Write };
        if i > 0 {
            let gap = -mean * (1.0 - rng.random::<f64>()).ln();
            t = t.saturating_add(gap.round() as u64);
        }
        requests.push(Request { time_ns: t, offset: start * align, size, device: 0, op });
    }

    let mut h = Sha256::new();
    h.update(format!("{};capacity_bytes={capacity_bytes};seed={seed}", spec.canonical()).as_bytes());
    let info = TraceInfo {
        path: format!("synthetic (seed {seed})"),
        format: "synthetic".to_string(),
        time_unit: None,
        file_bytes: 0,
        sha256: hex(&h.finalize()),
        records_read: spec.requests,
        skipped_no_direction: 0,
        filtered_out_device: 0,
        unsorted_inversions: 0,
        requests: requests.len() as u64,
        repeat: 1,
        span_ns: transform::span_ns(&requests),
    };
    Ok(Trace { requests, info })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_the_field() {
        let bad = |f: fn(&mut SyntheticSpec), want: &str| {
            let mut s = SyntheticSpec::default();
            f(&mut s);
            let e = generate(&s, 1 << 30, 1).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        };
        bad(|s| s.read_ratio = 1.5, "read_ratio");
        bad(|s| s.hot_access = -0.1, "hot_access");
        bad(|s| s.footprint = 0.0, "footprint");
        bad(|s| s.sizes.clear(), "at least one size");
        bad(|s| s.sizes[0].weight = 0.0, "weight");
        bad(|s| s.sizes[0].bytes = 0, "> 0 bytes");
        bad(|s| s.requests = 0, "requests");
        bad(|s| s.align_bytes = 0, "align_bytes");
        let e = generate(&SyntheticSpec::default(), 4096, 1).unwrap_err().to_string();
        assert!(e.contains("too small"), "{e}");
    }

    #[test]
    fn edge_regions_work() {
        for hf in [0.0, 1.0] {
            let s = SyntheticSpec { requests: 1000, hot_fraction: hf, ..Default::default() };
            let t = generate(&s, 1 << 30, 3).unwrap();
            assert_eq!(t.requests.len(), 1000);
        }
    }
}
