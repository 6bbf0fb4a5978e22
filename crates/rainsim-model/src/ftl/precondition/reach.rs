//! Whether preconditioning's deal is laid out at set-up or as the run
//! reaches it.
//!
//! Both fill the same tables (`lazy.rs`), so the choice moves time only,
//! never a report. Set-up lays out every segment in one sweep, whether the
//! run reaches it or not; on demand, a segment costs about half as much
//! again (each first touch interrupts the run, cold). Measured on the 128
//! GiB `rep-raid-8ch` preset (whole process, CPU time, 8–12 alternated
//! runs each), set-up against on demand: +0.085 s when the run reaches 20 %
//! of the segments (the 1M-request trace of the README), +0.02 s at 49 %,
//! +0.00 s at 58 %, −0.012 s at 73 % (the default workload). So a run
//! expected to reach at least [`EAGER_SHARE`] of the segments has them all
//! laid out at set-up.
//!
//! Left on demand, set-up still writes the forward map's pages the run will
//! read (`Mapping::defer`), so the segments themselves are wanted too: a
//! held trace names them, and so does a synthetic stream short enough to be
//! read through once ([`STREAM_REQUESTS_PER_MAP_PAGE`]); otherwise every
//! page is written.

use crate::raid::stripe::StripeLayout;
use rainsim_trace::synthetic::SyntheticSpec;
use rainsim_trace::Request;

/// Share of the segments at or above which all are laid out at set-up.
pub const EAGER_SHARE: f64 = 0.6;

/// What preconditioning knows of the requests the run will make.
#[derive(Clone, Copy)]
pub enum Reach<'a> {
    /// Nothing (an array's member, whose requests pass through its array):
    /// laid out on demand.
    Unknown,
    /// The run's requests, held: the segments they touch are counted.
    Requests(&'a [Request]),
    /// A synthetic workload read as a stream, with its seed: the share is
    /// estimated from its spec (and the stream read through when short).
    Synthetic(&'a SyntheticSpec, u64),
}

/// The segments a run will touch, as far as preconditioning can tell.
pub struct Touched {
    /// Their share of all segments (exact when `segments` names them, else
    /// expected).
    pub share: f64,
    /// Which ones, one bit per segment, when known: the requests are held,
    /// or the stream is short enough to be read through once at set-up.
    pub segments: Option<Vec<u64>>,
}

/// A synthetic stream of at most this many requests per 4 KiB page of the
/// forward map is read through at set-up for its segments, unless the run
/// is expected to reach [`EAGER_SHARE`] of them (then all are laid out).
/// Measured on the 128 GiB preset: writing a page of the table at set-up
/// costs about 1.5 µs (the page fault and its zeroing), generating a request
/// about 0.06 µs, so reading the stream through pays while it spares at
/// least a 25th of a page a request; a run expected to reach under 60 % of
/// the segments spares 40 % of the pages, 10 requests' worth each.
pub const STREAM_REQUESTS_PER_MAP_PAGE: u64 = 10;

impl Reach<'_> {
    /// The share of the segments of 2^`zbits` stripes the run's requests
    /// touch (held requests, or a stream read through: exactly; else
    /// expected from the synthetic spec), and which, when known.
    pub fn touched(&self, stripes: &StripeLayout, page_bytes: u32, zbits: u32) -> Touched {
        let segments = (stripes.stripes as u64).div_ceil(1 << zbits).max(1);
        let pb = page_bytes as u64;
        let dps = stripes.data_per_stripe() as u64;
        let pages = stripes.logical_pages();
        let mut seen = Seen { bits: vec![0u64; segments.div_ceil(64) as usize], touched: 0 };
        let mut mark = |offset: u64, size: u32| {
            let first = (offset / pb).min(pages - 1);
            let last = ((offset.saturating_add(size.max(1) as u64) - 1) / pb).min(pages - 1);
            for g in (first / dps) >> zbits..=(last / dps) >> zbits {
                seen.mark(g);
            }
        };
        match *self {
            Reach::Unknown => Touched { share: 0.0, segments: None },
            // (Some logical page means some data chunk a stripe: dps > 0.)
            Reach::Requests(requests) if pages > 0 => {
                requests.iter().for_each(|r| mark(r.offset, r.size));
                seen.into_touched(segments)
            }
            Reach::Requests(_) => Touched { share: 0.0, segments: Some(Vec::new()) },
            Reach::Synthetic(spec, seed) => {
                let share = expected_share(spec, stripes, page_bytes, zbits);
                let map_pages = (stripes.chunks() * 4).div_ceil(4096);
                if share >= EAGER_SHARE
                    || pages == 0
                    || spec.requests > STREAM_REQUESTS_PER_MAP_PAGE.saturating_mul(map_pages)
                {
                    return Touched { share, segments: None };
                }
                // The run's own stream (same spec, capacity and seed); one
                // that fails mid-way leaves the segments unknown.
                let Ok(stream) = rainsim_trace::Stream::new(spec, pages * pb, seed) else {
                    return Touched { share, segments: None };
                };
                for r in stream {
                    let Ok(r) = r else { return Touched { share, segments: None } };
                    mark(r.offset, r.size);
                }
                seen.into_touched(segments)
            }
        }
    }
}

/// Segments marked so far, one bit each, and how many.
struct Seen {
    bits: Vec<u64>,
    touched: u64,
}

impl Seen {
    fn mark(&mut self, g: u64) {
        let (word, bit) = ((g / 64) as usize, 1u64 << (g % 64));
        if self.bits[word] & bit == 0 {
            self.bits[word] |= bit;
            self.touched += 1;
        }
    }
    fn into_touched(self, segments: u64) -> Touched {
        Touched { share: self.touched as f64 / segments as f64, segments: Some(self.bits) }
    }
}

/// The share of the segments a synthetic spec's requests are expected to
/// touch.
fn expected_share(spec: &SyntheticSpec, stripes: &StripeLayout, page_bytes: u32, zbits: u32) -> f64 {
    let segments = (stripes.stripes as u64).div_ceil(1 << zbits).max(1);
    let pb = page_bytes as u64;
    let dps = stripes.data_per_stripe() as u64;
    let capacity = (stripes.logical_pages() * pb) as f64;
    let footprint = spec.footprint_gib.map_or(spec.footprint * capacity, |g| g * (1u64 << 30) as f64);
    let segment_bytes = ((dps * pb) << zbits) as f64;
    let n = spec.requests as f64;
    // Requests fall uniformly within each region: a region of S segments
    // that n requests reach has S·(1 − e^(−n/S)) touched.
    let touched = |bytes: f64, n: f64| {
        let s = (bytes.min(capacity) / segment_bytes).ceil();
        if s < 1.0 {
            0.0
        } else {
            s * (1.0 - (-n / s).exp())
        }
    };
    let hot = footprint * spec.hot_fraction;
    let t = touched(hot, n * spec.hot_access) + touched(footprint - hot, n * (1.0 - spec.hot_access));
    (t / segments as f64).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rainsim_trace::Op;

    fn request(offset: u64, size: u32) -> Request {
        Request { time_ns: 0, device: 0, offset, size, op: Op::Write }
    }

    /// Held requests: the segments their pages' stripes lie in, each once,
    /// worked by hand on 8 channels of width 8 (7 data pages a stripe) and
    /// segments of 2 stripes (14 pages, 57,344 bytes).
    #[test]
    fn held_requests_count_the_segments_they_touch_once() {
        let st = StripeLayout::new(8, 8, true, 64);
        let seg = 14 * 4096u64;
        // Segment 0 (twice), segment 3's last page and segment 4's first
        // (one request across the boundary), segment 31 (the last).
        let reqs = [request(0, 4096), request(4096, 8192), request(4 * seg - 4096, 8192), request(31 * seg, 4096)];
        let share = Reach::Requests(&reqs).touched(&st, 4096, 1).share;
        assert_eq!(share, 4.0 / 32.0);
        // The same segments by name (the forward map's pages set-up writes).
        let bits = Reach::Requests(&reqs).touched(&st, 4096, 1).segments.expect("held requests name them");
        assert_eq!(bits, vec![1 << 0 | 1 << 3 | 1 << 4 | 1 << 31]);
        // A request ending on a segment's last byte stays in that segment.
        let edge = [request(2 * seg - 4096, 4096)];
        assert_eq!(Reach::Requests(&edge).touched(&st, 4096, 1).segments, Some(vec![1 << 1]));
        // An address past the logical space counts in the last segment, as
        // the device clips it; an empty trace reaches nothing.
        let past = [request(1 << 40, 4096)];
        assert_eq!(Reach::Requests(&past).touched(&st, 4096, 1).share, 1.0 / 32.0);
        assert_eq!(Reach::Requests(&[]).touched(&st, 4096, 1).share, 0.0);
        assert_eq!(Reach::Unknown.touched(&st, 4096, 1).share, 0.0);
        // A layout without data pages (no stripes) has nothing to touch.
        let none = Reach::Requests(&reqs).touched(&StripeLayout::new(8, 8, true, 0), 4096, 1);
        assert_eq!((none.share, none.segments), (0.0, Some(Vec::new())));
    }

    /// A synthetic spec: the expected share against the formula's extremes.
    #[test]
    fn a_synthetic_spec_expects_what_its_footprint_and_requests_allow() {
        let st = StripeLayout::new(8, 8, true, 1 << 16);
        // The formula itself (a short stream is read through instead).
        let share = |spec: SyntheticSpec| expected_share(&spec, &st, 4096, 8);
        let all = SyntheticSpec { footprint: 1.0, requests: 1_000_000, ..Default::default() };
        assert!(share(all.clone()) > 0.999, "every segment, many times over");
        // One request reaches at most one segment of 256.
        let one = share(SyntheticSpec { requests: 1, ..all.clone() });
        assert!(one > 0.0 && one <= 1.0 / 256.0, "{one}");
        // A tenth of the capacity, however many requests: about a tenth.
        let tenth = share(SyntheticSpec { footprint: 0.1, ..all.clone() });
        assert!((tenth - 0.1).abs() < 0.01, "{tenth}");
        // Hot and cold regions: 256 segments, 80 % of 256 requests to the
        // first 20 % (52 segments), the rest to 205 segments.
        let skew = SyntheticSpec { requests: 256, hot_fraction: 0.2, hot_access: 0.8, ..all };
        let want = (52.0 * (1.0 - (-204.8f64 / 52.0).exp()) + 205.0 * (1.0 - (-51.2f64 / 205.0).exp())) / 256.0;
        assert!((share(skew) - want).abs() < 1e-9, "{want}");
        // A footprint in GiB of one and of two whole segments (7 data pages
        // of 4 KiB × 2^8 stripes = 7 MiB), one request, one region.
        let region = |mib: f64| SyntheticSpec {
            footprint_gib: Some(mib / 1024.0),
            requests: 1,
            hot_fraction: 0.0,
            hot_access: 0.0,
            ..Default::default()
        };
        assert_eq!(share(region(7.0)), (1.0 - (-1.0f64).exp()) / 256.0);
        assert_eq!(share(region(14.0)), 2.0 * (1.0 - (-0.5f64).exp()) / 256.0);
    }

    /// A short stream is read through: its segments are those of the same
    /// requests held. A long one, or one expected to reach most segments,
    /// is left unread (all pages written at set-up).
    #[test]
    fn a_short_stream_names_its_segments_a_long_one_does_not() {
        // 2^16 stripes of 8 chunks: a forward map of 512 pages, so streams
        // of up to 5,120 requests are read; segments of 2^8 stripes.
        let st = StripeLayout::new(8, 8, true, 1 << 16);
        let cap = st.logical_pages() * 4096;
        let spec = SyntheticSpec { footprint: 0.3, requests: 2_000, ..Default::default() };
        for seed in [1, 2] {
            let got = Reach::Synthetic(&spec, seed).touched(&st, 4096, 8);
            let held = rainsim_trace::generate(&spec, cap, seed).expect("valid spec").requests;
            let want = Reach::Requests(&held).touched(&st, 4096, 8);
            assert_eq!(got.segments, want.segments, "seed {seed}");
            assert_eq!(got.share, want.share, "seed {seed}");
            // Within the footprint: nothing past its last segment.
            let bits = got.segments.expect("read through");
            let last = (0.3 * 256.0f64).ceil() as usize;
            assert!((last..256).all(|g| bits[g / 64] >> (g % 64) & 1 == 0), "seed {seed}");
            assert!(got.share > 0.2 && got.share <= 0.31, "{}", got.share);
        }
        let at_bound = SyntheticSpec { requests: 5_120, ..spec.clone() };
        assert!(Reach::Synthetic(&at_bound, 1).touched(&st, 4096, 8).segments.is_some(), "read: at the bound");
        let long = SyntheticSpec { requests: 5_121, ..spec.clone() };
        assert!(Reach::Synthetic(&long, 1).touched(&st, 4096, 8).segments.is_none(), "too long to read");
        let wide = SyntheticSpec { footprint: 1.0, requests: 5_000, ..spec };
        let t = Reach::Synthetic(&wide, 1).touched(&st, 4096, 8);
        assert!(t.share >= EAGER_SHARE && t.segments.is_none(), "laid out at set-up: {}", t.share);
    }
}
