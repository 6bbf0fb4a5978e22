//! Latency statistics of one request class: an HdrHistogram's bucket counts,
//! kept by hand.
//!
//! Recording is the hot path (an array's members record one latency per
//! chunk operation), so a latency is counted straight into the bucket the
//! `hdrhistogram` crate would put it in (1 ns to 2^45 ns, 3 significant
//! digits: the same index arithmetic, without its range checks, resizing and
//! min/max bookkeeping). The report's quantiles are read from the counts in
//! one pass; the histogram itself is built from them only for a single
//! query. Every value of a bucket is equivalent to the histogram, so the
//! built one answers every query as recording each sample into it would have
//! (property tests hold the two equal). The counts are
//! allocated whole when the statistics are made, as the histogram's were, so
//! that no recording pays for memory.

use hdrhistogram::Histogram;

/// The longest latency the histograms hold: 2^45 ns (about 9.8 hours).
/// Longer ones saturate there (percentiles and the CDF count them at this
/// bound; `max` and `sum` stay exact) and the report says so.
pub const HIST_MAX_NS: u64 = 1 << 45;

/// The fewest samples that leave 10 beyond percentile `q`: 10 / (1 − q),
/// rounded (1 − 0.9999 is a little under 10⁻⁴ in floating point, so the
/// unrounded quotient would ask for 100,001 samples for p99.99). A
/// percentile of fewer samples is about the largest few, not a tail.
pub fn tail_samples(q: f64) -> u64 {
    (10.0 / (1.0 - q)).round() as u64
}

/// The histogram's shape for (1, 2^45, 3 digits): 2^11 sub-buckets
/// (2 × 10^3 rounded up to a power of two), half of them per bucket past
/// the first, unit 1 ns.
const SUB_HALF_BITS: u32 = 10;
const SUB_HALF: u64 = 1 << SUB_HALF_BITS;
const SUB_MASK: u64 = (1 << (SUB_HALF_BITS + 1)) - 1;
/// Leading zeros of the largest value of bucket 0 (64 − 11).
const LZ_BASE: u32 = 64 - (SUB_HALF_BITS + 1);
/// Buckets covering [`HIST_MAX_NS`]: bucket k holds values below 2^(11+k).
const BUCKETS: usize = 46 - (SUB_HALF_BITS as usize + 1) + 1;
/// The histogram's number of counts: (buckets + 1) × half a bucket.
const LEN: usize = (BUCKETS + 1) << SUB_HALF_BITS;

/// The count index of `ns`, as the histogram computes it.
#[inline(always)]
fn index_of(ns: u64) -> usize {
    let bucket = LZ_BASE - (ns | SUB_MASK).leading_zeros();
    let sub = ns >> bucket;
    (((bucket as u64 + 1) << SUB_HALF_BITS) + sub - SUB_HALF) as usize
}

/// The lowest value of count index `i` (the inverse of [`index_of`]).
fn value_of(i: usize) -> u64 {
    let bucket = (i >> SUB_HALF_BITS) as i64 - 1;
    let sub = (i as u64 & (SUB_HALF - 1)) + SUB_HALF;
    if bucket < 0 {
        sub - SUB_HALF
    } else {
        sub << bucket
    }
}

/// Latency statistics of one request class.
#[derive(Debug, Clone)]
pub struct LatencyStats {
    /// Samples per histogram bucket.
    counts: Vec<u64>,
    /// Number of samples.
    n: u64,
    /// Exact sum of latencies in ns.
    pub sum: u128,
    /// Exact maximum in ns.
    pub max: u64,
}

impl Default for LatencyStats {
    fn default() -> Self {
        LatencyStats { counts: vec![0; LEN], n: 0, sum: 0, max: 0 }
    }
}

impl LatencyStats {
    /// Records one latency.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let i = index_of(ns);
        match self.counts.get_mut(i) {
            Some(c) => *c += 1,
            None => self.record_above(i),
        }
        self.n += 1;
        self.sum += ns as u128;
        self.max = self.max.max(ns);
    }

    /// Brings the count a later [`Self::record`] of `ns` increments into the
    /// cache (a hint: records nothing).
    #[inline(always)]
    pub fn prefetch(&self, ns: u64) {
        if let Some(c) = self.counts.get(index_of(ns)) {
            crate::prefetch::line(c);
        }
    }

    /// A sample past the histogram's last bucket: it saturates at
    /// [`HIST_MAX_NS`], as the histogram's saturating record does.
    #[cold]
    #[inline(never)]
    fn record_above(&mut self, i: usize) {
        debug_assert!(i >= LEN);
        self.counts[index_of(HIST_MAX_NS)] += 1;
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The histogram of the samples, as recording each into it gives.
    pub fn hist(&self) -> Histogram<u64> {
        let mut h = Histogram::new_with_bounds(1, HIST_MAX_NS, 3).expect("valid histogram bounds");
        debug_assert_eq!(h.distinct_values(), LEN, "the shape the counts assume");
        for (i, &c) in self.counts.iter().enumerate() {
            if c > 0 {
                h.record_n(value_of(i), c).expect("a bucket of the histogram");
            }
        }
        h
    }

    /// The `q` quantile in ns, at most the exact maximum (0 when empty).
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count() == 0 {
            0
        } else {
            self.hist().value_at_quantile(q).min(self.max)
        }
    }

    /// For ascending quantiles `ps` (above 0): the value at each (as [`Self::quantile`])
    /// and the fraction of samples in its bucket or below (as the
    /// histogram's `quantile_below` of it), in one pass over the counts.
    pub fn at_quantiles(&self, ps: &[f64]) -> Vec<(u64, f64)> {
        let total = self.count();
        if total == 0 {
            return vec![(0, 1.0); ps.len()];
        }
        let mut counts = self.counts.iter().enumerate().filter(|(_, &c)| c > 0);
        let (mut below, mut value) = (0u64, 0u64);
        let mut out = Vec::with_capacity(ps.len());
        for &p in ps {
            debug_assert!(p > 0.0 && (out.is_empty() || p >= ps[out.len() - 1]), "ascending quantiles above 0");
            // The rank the histogram's `value_at_quantile` looks for: ⌈p·n⌉, at least 1.
            let rank = ((p.min(1.0) * total as f64).ceil() as u64).max(1);
            while below < rank {
                let (i, &c) = counts.next().expect("the rank is at most the count");
                below += c;
                // The highest value of the bucket (the histogram's answer).
                value = value_of(i + 1) - 1;
            }
            out.push((value.min(self.max), below as f64 / total as f64));
        }
        out
    }

    /// Exact mean in ns (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.count() == 0 {
            0.0
        } else {
            self.sum as f64 / self.count() as f64
        }
    }

    /// The samples of `a` and `b` together, as if recorded into one (bucket
    /// counts simply add).
    pub fn merged(a: &LatencyStats, b: &LatencyStats) -> LatencyStats {
        let mut counts = a.counts.clone();
        for (c, s) in counts.iter_mut().zip(&b.counts) {
            *c += s;
        }
        LatencyStats { counts, n: a.n + b.n, sum: a.sum + b.sum, max: a.max.max(b.max) }
    }
}

/// 1 to `n` ns, one sample each: the tests' sample whose ranks are known.
#[cfg(test)]
pub(crate) fn one_to(n: u64) -> LatencyStats {
    let mut s = LatencyStats::default();
    (1..=n).for_each(|v| s.record(v));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The histogram the report used to record into directly.
    fn direct(samples: &[u64]) -> Histogram<u64> {
        let mut h = Histogram::new_with_bounds(1, HIST_MAX_NS, 3).unwrap();
        for &s in samples {
            h.saturating_record(s);
        }
        h
    }

    /// The statistics of `samples`, recorded one by one.
    fn stats_of(samples: &[u64]) -> LatencyStats {
        let mut s = LatencyStats::default();
        samples.iter().for_each(|&x| s.record(x));
        s
    }

    /// Latencies of every scale: 0 and near it, typical, far past the
    /// histogram's bound, and one value repeated.
    fn latencies(n: std::ops::Range<usize>) -> impl proptest::strategy::Strategy<Value = Vec<u64>> {
        use proptest::strategy::{Just, Strategy};
        proptest::collection::vec(proptest::prop_oneof![0u64..3, 1u64..5_000, 1u64..(1 << 47), Just(1 << 46)], n)
            .boxed()
    }

    /// Every query the reports make, on the built and the direct histogram.
    fn assert_same(s: &LatencyStats, h: &Histogram<u64>) {
        let b = s.hist();
        assert_eq!(b.distinct_values(), h.distinct_values());
        assert_eq!((b.len(), b.min(), b.max(), b.min_nz()), (h.len(), h.min(), h.max(), h.min_nz()));
        let got: Vec<_> = b.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect();
        let want: Vec<_> = h.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect();
        assert_eq!(got, want);
        for q in [0.0, 1e-9, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0] {
            assert_eq!(b.value_at_quantile(q), h.value_at_quantile(q), "quantile {q}");
        }
    }

    #[test]
    fn the_shape_is_the_histograms() {
        let h = Histogram::<u64>::new_with_bounds(1, HIST_MAX_NS, 3).unwrap();
        assert_eq!(h.distinct_values(), LEN);
        assert_eq!(index_of(0), 0);
        assert_eq!(index_of(2047), 2047, "bucket 0 holds every value below 2^11");
        assert_eq!(index_of(2048), 2048, "bucket 1 starts at half of its counts");
        for i in [0, 1, 1023, 1024, 2047, 2048, 3000, LEN - 1] {
            assert_eq!(index_of(value_of(i)), i, "index {i}");
        }
        // Each bucket's lowest value, and the one below it, land in
        // neighbouring counts.
        for i in 1..LEN {
            assert_eq!(index_of(value_of(i) - 1), i - 1, "just below index {i}");
        }
    }

    /// Latencies around every bucket edge, 0, and past the histogram's
    /// last bucket (they saturate at its bound).
    #[test]
    fn edges_and_saturation_match_recording_into_the_histogram() {
        let mut samples = vec![0, 1, 2, HIST_MAX_NS, HIST_MAX_NS + 1, 1 << 46, 1 << 47, u64::MAX / 2];
        for k in 10..47 {
            samples.extend([(1u64 << k) - 1, 1 << k, (1 << k) + 1, (3 << k) / 2]);
        }
        let s = stats_of(&samples);
        assert_same(&s, &direct(&samples));
        assert_eq!(s.count(), samples.len() as u64);
    }

    proptest::proptest! {
        /// Random latencies (few or many, repeats, small and huge) give the
        /// histogram recording each into it gives, and so do two merged sets.
        #[test]
        fn counts_build_the_histogram_recording_gives(
            a in latencies(0..300),
            b in proptest::collection::vec(1u64..(1 << 40), 0..300),
        ) {
            let (sa, sb) = (stats_of(&a), stats_of(&b));
            assert_same(&sa, &direct(&a));
            let all: Vec<u64> = a.iter().chain(&b).copied().collect();
            let m = LatencyStats::merged(&sa, &sb);
            assert_same(&m, &direct(&all));
            proptest::prop_assert_eq!(m.sum, all.iter().map(|&x| x as u128).sum::<u128>());
            proptest::prop_assert_eq!(m.max, all.iter().copied().max().unwrap_or(0));
        }
    }

    /// Reads and writes merged for the report give what recording every
    /// latency into one histogram gives: count, exact sum and maximum, and
    /// every quantile the report prints.
    #[test]
    fn merged_latency_equals_one_histogram_of_all() {
        let (mut r, mut w, mut all) = (LatencyStats::default(), LatencyStats::default(), LatencyStats::default());
        // Two classes of different spread, up to past the histogram's bound.
        let mut x: u64 = 12345;
        for i in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let ns = if i % 3 == 0 { 40_000 + (x >> 40) % 2_000_000 } else { 1 + (x >> 20) % (1 << 46) };
            if i % 3 == 0 {
                r.record(ns)
            } else {
                w.record(ns)
            }
            all.record(ns);
        }
        let m = LatencyStats::merged(&r, &w);
        assert_eq!((m.count(), m.sum, m.max), (all.count(), all.sum, all.max));
        for q in [0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999, 1.0] {
            assert_eq!(m.quantile(q), all.quantile(q), "quantile {q}");
        }
        assert_eq!(m.hist().min(), all.hist().min());
        assert_eq!(m.mean(), all.mean());
    }

    proptest::proptest! {
        /// One pass over the buckets gives, for every quantile the report
        /// asks, what a separate `value_at_quantile` (capped at the exact
        /// maximum) and `quantile_below` of that value give: few or many
        /// samples, repeats, 0, and latencies past the histogram's bound.
        #[test]
        fn quantiles_in_one_pass_equal_one_query_each(
            samples in latencies(1..400),
            mut ps in proptest::collection::vec(1e-12f64..1.2, 0..40),
        ) {
            let s = stats_of(&samples);
            ps.extend([1e-9, 0.5, 0.99999, 1.0]);
            ps.sort_by(f64::total_cmp);
            let got = s.at_quantiles(&ps);
            let h = s.hist();
            for (&p, &(v, below)) in ps.iter().zip(&got) {
                let want = h.value_at_quantile(p).min(s.max);
                proptest::prop_assert_eq!(v, want, "value at {}", p);
                proptest::prop_assert_eq!(below, h.quantile_below(v), "fraction below {}", v);
            }
        }
    }

    /// Latencies of 1 to 1,000 ns (exact in a histogram of 3 significant
    /// digits): the q quantile is the ⌈q·n⌉-th smallest, the mean 500.5; the
    /// maximum caps a quantile of a wider bucket.
    #[test]
    fn quantiles_and_mean_of_known_samples() {
        let s = stats_of(&(1..=1000).rev().collect::<Vec<u64>>());
        let want = [(0.001, 1), (0.5, 500), (0.99, 990), (0.999, 999), (1.0, 1000)];
        for (q, v) in want {
            assert_eq!(s.quantile(q), v, "quantile {q}");
        }
        assert_eq!(s.at_quantiles(&want.map(|w| w.0)).iter().map(|g| g.0).collect::<Vec<_>>(), want.map(|w| w.1));
        assert_eq!(s.mean(), 500.5);
        // Near 1 ms a bucket is 512 ns wide; the sample's bucket ends above
        // it, and the exact maximum caps the answer.
        let wide = stats_of(&[1_000_003]);
        assert!(wide.hist().value_at_quantile(0.5) > 1_000_003);
        assert_eq!((wide.quantile(0.5), wide.mean()), (1_000_003, 1_000_003.0));
    }

    /// An empty histogram: every quantile is 0.
    #[test]
    fn quantiles_of_nothing_are_zero() {
        assert_eq!((LatencyStats::default().quantile(0.5), LatencyStats::default().mean()), (0, 0.0));
        let got = LatencyStats::default().at_quantiles(&[0.5, 0.99]);
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), [0, 0]);
    }
}
