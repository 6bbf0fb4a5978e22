//! The synthetic workload as a stream: the requests of
//! [`generate`](crate::synthetic::generate), one at a time, so that a run
//! need not hold them (a 10M-request workload is 320 MB held). The model is
//! described in [`crate::synthetic`]; the draws and their order are the
//! same, so the stream and the generated trace are the same requests.

use crate::synthetic::{pick_size, pick_slot, SizeWeight, SyntheticSpec};
use crate::{Op, Request, TraceError};
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The requests of a synthetic workload, generated as they are read.
#[derive(Debug, Clone)]
pub struct Stream {
    rng: Pcg64Mcg,
    /// Requests yielded so far, and in all.
    i: u64,
    n: u64,
    /// Arrival time of the last request.
    t: u64,
    mean: f64,
    read_ratio: f64,
    hot_fraction: f64,
    hot_access: f64,
    align: u64,
    slots: u64,
    hot: u64,
    footprint_bytes: u64,
    sizes: Sizes,
}

/// The size lists and, with `update_ratio`, the update model's state.
#[derive(Debug, Clone)]
enum Sizes {
    /// The original model (no profile key set).
    One { sizes: Vec<SizeWeight>, weight: f64 },
    /// A profile: a list per direction, and the update quota.
    PerDirection {
        reads: Vec<SizeWeight>,
        writes: Vec<SizeWeight>,
        weights: (f64, f64),
        update_ratio: Option<f64>,
        cursor: u64,
        nwrites: u64,
        updates: u64,
    },
}

impl Stream {
    /// The stream of `spec` on a device of `capacity_bytes`, from `seed`;
    /// an error if the spec is invalid or its footprint does not fit.
    pub fn new(spec: &SyntheticSpec, capacity_bytes: u64, seed: u64) -> Result<Stream, TraceError> {
        spec.validate()?;
        let align = u64::from(spec.align_bytes);
        let footprint_bytes = match spec.footprint_gib {
            None => (capacity_bytes as f64 * spec.footprint) as u64,
            Some(g) => {
                let bytes = (g * (1u64 << 30) as f64) as u64;
                if bytes > capacity_bytes {
                    return Err(invalid(format!(
                        "footprint_gib = {g} GiB ({bytes} bytes) exceeds the device's logical capacity of \
                         {capacity_bytes} bytes ({:.2} GiB); use a larger device (--config) or a smaller footprint",
                        capacity_bytes as f64 / (1u64 << 30) as f64
                    )));
                }
                bytes
            }
        };
        let slots = footprint_bytes / align;
        let lists = [&spec.sizes, &spec.read_sizes, &spec.write_sizes];
        let largest = lists.iter().flat_map(|l| l.iter()).map(|s| s.bytes).max().unwrap_or(0);
        let largest_slots = u64::from(largest).div_ceil(align);
        if slots == 0 || largest_slots > slots {
            let what = match spec.footprint_gib {
                None => format!("{} × {capacity_bytes} bytes", spec.footprint),
                Some(g) => format!("{g} GiB"),
            };
            return Err(invalid(format!(
                "the footprint ({what}, in {align}-byte slots) holds {}, too small for the largest size of \
                 {largest} bytes",
                crate::stats::counted(slots, "slot", "slots")
            )));
        }
        let profile = spec.update_ratio.is_some() || !spec.read_sizes.is_empty() || !spec.write_sizes.is_empty();
        let weight = |l: &[SizeWeight]| l.iter().map(|s| s.weight).sum::<f64>();
        let sizes = if !profile {
            Sizes::One { sizes: spec.sizes.clone(), weight: weight(&spec.sizes) }
        } else {
            let or_sizes = |l: &Vec<SizeWeight>| if l.is_empty() { spec.sizes.clone() } else { l.clone() };
            let (reads, writes) = (or_sizes(&spec.read_sizes), or_sizes(&spec.write_sizes));
            let weights = (weight(&reads), weight(&writes));
            Sizes::PerDirection {
                reads,
                writes,
                weights,
                update_ratio: spec.update_ratio,
                cursor: 0,
                nwrites: 0,
                updates: 0,
            }
        };
        Ok(Stream {
            rng: Pcg64Mcg::seed_from_u64(seed),
            i: 0,
            n: spec.requests,
            t: 0,
            mean: spec.mean_interarrival_ns as f64,
            read_ratio: spec.read_ratio,
            hot_fraction: spec.hot_fraction,
            hot_access: spec.hot_access,
            align,
            slots,
            hot: ((slots as f64 * spec.hot_fraction).round() as u64).min(slots),
            footprint_bytes,
            sizes,
        })
    }

    /// Requests in all (what the stream yields unless it fails).
    pub fn len(&self) -> u64 {
        self.n
    }

    /// Whether the workload has no requests.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The next arrival time: 0 first, then exponential gaps.
    fn next_time(&mut self) -> u64 {
        if self.i > 0 {
            let gap = -self.mean * (1.0 - self.rng.random::<f64>()).ln();
            self.t = self.t.saturating_add(gap.round() as u64);
        }
        self.t
    }

    fn next_request(&mut self) -> Result<Request, TraceError> {
        let (align, slots, hot) = (self.align, self.slots, self.hot);
        let rng = &mut self.rng;
        let (op, size, start) = match &mut self.sizes {
            // The original model; its draws and their order are part of the
            // contract (reports of the default workload depend on them).
            Sizes::One { sizes, weight } => {
                let size = pick_size(rng, sizes, *weight);
                let slot = pick_slot(rng, hot, slots, self.hot_access);
                let need = u64::from(size).div_ceil(align);
                let start = slot.min(slots - need);
                let op = if rng.random_bool(self.read_ratio) { Op::Read } else { Op::Write };
                (op, size, start)
            }
            Sizes::PerDirection { reads, writes, weights, update_ratio, cursor, nwrites, updates } => {
                let op = if rng.random_bool(self.read_ratio) { Op::Read } else { Op::Write };
                let size = match op {
                    Op::Read => pick_size(rng, reads, weights.0),
                    Op::Write => pick_size(rng, writes, weights.1),
                };
                let need = u64::from(size).div_ceil(align);
                let start = match (op, *update_ratio) {
                    (Op::Write, Some(u)) => {
                        *nwrites += 1;
                        let quota = (u * *nwrites as f64 + 1e-9).floor() as u64;
                        let start = if *cursor > 0 && *updates < quota {
                            *updates += 1;
                            let hot_w = ((*cursor as f64 * self.hot_fraction).round() as u64).min(*cursor);
                            pick_slot(rng, hot_w, *cursor, self.hot_access).min(slots - need)
                        } else {
                            if *cursor + need > slots {
                                return Err(invalid(format!(
                                    "the fresh (non-update) writes filled the footprint of {slots} {align}-byte \
                                     slots ({} bytes) after {nwrites} of the writes; raise footprint_gib or \
                                     update_ratio ({u})",
                                    self.footprint_bytes
                                )));
                            }
                            *cursor
                        };
                        *cursor = (*cursor).max(start + need);
                        start
                    }
                    _ => pick_slot(rng, hot, slots, self.hot_access).min(slots - need),
                };
                (op, size, start)
            }
        };
        let time_ns = self.next_time();
        Ok(Request { time_ns, offset: start * align, size, device: 0, op })
    }
}

impl Iterator for Stream {
    type Item = Result<Request, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.i >= self.n {
            return None;
        }
        let r = self.next_request();
        // A failed stream ends there.
        self.i = if r.is_ok() { self.i + 1 } else { self.n };
        Some(r)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.n - self.i).unwrap_or(usize::MAX);
        (0, Some(left))
    }
}

fn invalid(msg: String) -> TraceError {
    crate::synthetic::invalid(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{generate, stream_info};

    /// The stream yields exactly the generated trace, and its one-pass info
    /// is the generated trace's, for the original model and a profile.
    #[test]
    fn the_stream_is_the_generated_trace() {
        let profile = SyntheticSpec {
            requests: 3000,
            update_ratio: Some(0.6),
            read_sizes: vec![SizeWeight { bytes: 4096, weight: 1.0 }],
            write_sizes: vec![SizeWeight { bytes: 8192, weight: 2.0 }, SizeWeight { bytes: 16384, weight: 1.0 }],
            ..Default::default()
        };
        for spec in [SyntheticSpec { requests: 3000, ..Default::default() }, profile] {
            let t = generate(&spec, 1 << 30, 7).unwrap();
            let s: Vec<Request> = Stream::new(&spec, 1 << 30, 7).unwrap().map(|r| r.unwrap()).collect();
            assert_eq!(s, t.requests);
            assert_eq!(stream_info(&spec, 1 << 30, 7).unwrap(), t.info);
        }
    }

    /// A footprint too small for the largest size says how many slots it holds.
    #[test]
    fn a_footprint_too_small_counts_its_slots() {
        let holds = |slots: f64| {
            let spec = SyntheticSpec {
                sizes: vec![SizeWeight { bytes: 16384, weight: 1.0 }],
                footprint_gib: Some(slots * 4096.0 / (1u64 << 30) as f64),
                align_bytes: 4096,
                ..Default::default()
            };
            let Err(e) = Stream::new(&spec, 1 << 30, 1) else { panic!("{slots} slots fit") };
            e.to_string()
        };
        assert!(holds(1.0).contains("4096-byte slots) holds 1 slot, too small"), "{}", holds(1.0));
        assert!(holds(3.0).contains("4096-byte slots) holds 3 slots, too small"), "{}", holds(3.0));
    }

    /// A stream yields `len` requests, each within the footprint: a slot
    /// too near its end is moved back so the request ends there.
    #[test]
    fn requests_end_inside_the_footprint() {
        // 32 slots of 4 KiB; a 64 KiB request needs 16 and starts at slot 16 at most.
        let spec = SyntheticSpec {
            requests: 2000,
            read_ratio: 0.5,
            sizes: vec![SizeWeight { bytes: 4096, weight: 1.0 }, SizeWeight { bytes: 65536, weight: 1.0 }],
            footprint_gib: Some(1.0 / 8192.0),
            hot_fraction: 0.0,
            ..Default::default()
        };
        let s = Stream::new(&spec, 1 << 30, 3).unwrap();
        assert_eq!((s.len(), s.is_empty()), (2000, false));
        let big: Vec<u64> = s.map(|r| r.unwrap()).filter(|r| r.size == 65536).map(|r| r.offset / 4096).collect();
        assert_eq!(big.iter().max(), Some(&16));
        // So are the reads of a profile (a list per direction).
        let reads = SyntheticSpec {
            read_sizes: vec![SizeWeight { bytes: 65536, weight: 1.0 }],
            write_sizes: vec![SizeWeight { bytes: 4096, weight: 1.0 }],
            ..spec.clone()
        };
        let big = Stream::new(&reads, 1 << 30, 3).unwrap().map(|r| r.unwrap()).filter(|r| r.op == Op::Read);
        assert_eq!(big.map(|r| r.offset / 4096).max(), Some(16));
        // Fresh writes may fill the footprint exactly: two of 16 slots, not three.
        let fresh = SyntheticSpec {
            read_ratio: 0.0,
            sizes: vec![SizeWeight { bytes: 65536, weight: 1.0 }],
            update_ratio: Some(0.0),
            ..spec.clone()
        };
        let got: Vec<_> = Stream::new(&fresh, 1 << 30, 3).unwrap().collect();
        assert_eq!(
            got.iter().map(|r| r.as_ref().ok().map(|r| r.offset)).collect::<Vec<_>>(),
            [Some(0), Some(65536), None]
        );
        // The profile model's updates (99 % of writes) start anywhere below
        // the written region's end, then are moved back the same way.
        let spec = SyntheticSpec {
            read_ratio: 0.0,
            sizes: vec![SizeWeight { bytes: 65536, weight: 1.0 }],
            update_ratio: Some(0.99),
            ..spec
        };
        let starts: Vec<u64> =
            Stream::new(&spec, 1 << 30, 3).unwrap().map_while(Result::ok).map(|r| r.offset / 4096).collect();
        assert!(starts.len() >= 50, "{}", starts.len());
        assert_eq!(starts.iter().max(), Some(&16));
    }

    /// Updates follow the hot/cold skew over the written region: with
    /// one-slot writes, `hot_access` of them land in its first `hot_fraction`.
    #[test]
    fn updates_are_skewed_over_the_written_region() {
        let spec = SyntheticSpec {
            requests: 40_000,
            read_ratio: 0.0,
            sizes: vec![SizeWeight { bytes: 4096, weight: 1.0 }],
            footprint_gib: Some(1.0),
            hot_fraction: 0.2,
            hot_access: 0.9,
            update_ratio: Some(0.5),
            ..Default::default()
        };
        let (mut written, mut updates, mut hot) = (0u64, 0u64, 0u64);
        for r in Stream::new(&spec, 1 << 30, 11).unwrap() {
            let slot = r.unwrap().offset / 4096;
            if slot < written {
                updates += 1;
                hot += u64::from(slot < (written as f64 * 0.2).round() as u64);
            }
            written = written.max(slot + 1);
        }
        assert_eq!(updates, 20_000);
        // Binomial sd ≈ 0.002; the written region grows, so allow more.
        let share = hot as f64 / updates as f64;
        assert!((share - 0.9).abs() < 0.02, "hot share {share}");
    }

    /// The upper bound is what is left to yield; a failure ends the stream.
    #[test]
    fn size_hint_counts_down_to_the_end() {
        let mut s = Stream::new(&SyntheticSpec { requests: 5, ..Default::default() }, 1 << 30, 1).unwrap();
        assert_eq!(s.size_hint(), (0, Some(5)));
        s.nth(1).unwrap().unwrap();
        assert_eq!(s.size_hint(), (0, Some(3)));
        assert_eq!(s.by_ref().count(), 3);
        assert_eq!(s.size_hint(), (0, Some(0)));
    }

    /// A stream that fails says so where generation does, and ends.
    #[test]
    fn a_failing_stream_reports_the_error_and_ends() {
        let spec = SyntheticSpec { footprint_gib: Some(1.0 / 1024.0), update_ratio: Some(0.0), ..Default::default() };
        let want = generate(&spec, 1 << 30, 1).unwrap_err().to_string();
        let mut s = Stream::new(&spec, 1 << 30, 1).unwrap();
        let err = s.by_ref().find_map(|r| r.err()).expect("the footprint fills");
        assert_eq!(err.to_string(), want);
        assert_eq!(s.size_hint(), (0, Some(0)));
        assert!(s.next().is_none());
        assert_eq!(stream_info(&spec, 1 << 30, 1).unwrap_err().to_string(), want);
    }
}
