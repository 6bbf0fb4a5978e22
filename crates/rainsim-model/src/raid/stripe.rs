//! Stripe layout: which channel holds each chunk, where the parity sits.
//!
//! A stripe has k chunks (k − 1 data + 1 parity), one page each, on k distinct
//! channels out of m. Stripe s uses channels `(s·k + j) mod m` for positions
//! j = 0..k, so consecutive stripes rotate over channel groups when k < m.
//! The stripe bases repeat every L = m / gcd(m, k) stripes (one period); the
//! parity position steps down by one each period, so over k periods every
//! channel holds parity exactly equally often, whatever m and k.
//! Without RAID the layout degenerates to k = 1, no parity, channel = lpn mod m.
//! With rotating GC a stripe is also bound to one die "column" (the same
//! channel-local die on each of its channels): column = (s / (L·k)) mod dies
//! per channel. A period of stripes covers every channel equally, and k
//! periods take every parity position once, so each column gets the same
//! share of every channel's data and of its parity. (A column stepping every
//! period, (s / L) mod dies, moved in step with the parity position and left
//! one die per channel holding only parity.)
//!
//! Chunks are numbered `s·k + j`; this chunk id is the FTL's logical page.

use crate::flash::address::Divisor;

/// Chunk id: stripe × width + position.
pub type ChunkId = u32;

/// The stripe geometry.
#[derive(Debug, Clone)]
pub struct StripeLayout {
    /// Channels m.
    pub channels: u32,
    /// Chunks per stripe k (1 without RAID).
    pub width: u32,
    /// Whether the last rotating position holds parity.
    pub parity: bool,
    /// Stripes in the logical space.
    pub stripes: u32,
    /// Stripes per period of the base rotation, m / gcd(m, k).
    period: u32,
    /// Die columns a stripe is bound to (0 = unbound, dies chosen at dispatch).
    columns: u32,
    /// The quotients of every request (its pages' stripes, positions and
    /// channels) by multiply or shift, not the CPU's division.
    div: StripeDivisors,
}

/// Divisors of the fields above (which are not changed after `new`).
#[derive(Debug, Clone, Copy)]
struct StripeDivisors {
    data: Divisor,
    period: Divisor,
    width: Divisor,
    channels: Divisor,
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl StripeLayout {
    /// Layout with `stripes` stripes of `width` chunks over `channels`.
    pub fn new(channels: u32, width: u32, parity: bool, stripes: u32) -> Self {
        let period = channels / gcd(channels, width);
        let div = StripeDivisors {
            // A one-chunk stripe with parity holds no data (some test
            // set-ups build one without mapping pages through it).
            data: Divisor::new((width - parity as u32).max(1)),
            period: Divisor::new(period),
            width: Divisor::new(width),
            channels: Divisor::new(channels),
        };
        StripeLayout { channels, width, parity, stripes, period, columns: 0, div }
    }
    /// The layout with the parity staying on one position for `n`
    /// consecutive stripes before it rotates (an array's page rows: the `n`
    /// rows of a chunk share its stripe's parity device). Meant for layouts
    /// without die columns.
    pub fn with_parity_run(mut self, n: u32) -> Self {
        debug_assert_eq!(self.columns, 0, "die columns follow the period");
        self.period *= n.max(1);
        self.div.period = Divisor::new(self.period);
        self
    }
    /// Stripes after which the stripes' channel sets repeat: m / gcd(m, k)
    /// (times a parity run's length, `with_parity_run`).
    pub(crate) fn period(&self) -> u32 {
        self.period
    }
    /// The layout with each stripe bound to one of `columns` channel-local dies.
    pub fn with_columns(mut self, columns: u32) -> Self {
        self.columns = columns;
        self
    }
    /// The channel-local die every chunk of stripe `s` lives on, when bound.
    #[inline]
    pub fn column(&self, s: u32) -> Option<u32> {
        (self.columns > 0).then(|| self.div.width.quotient(self.div.period.quotient(s)) % self.columns)
    }
    /// Data chunks per stripe.
    #[inline]
    pub fn data_per_stripe(&self) -> u32 {
        self.width - self.parity as u32
    }
    /// Host-visible logical pages.
    pub fn logical_pages(&self) -> u64 {
        self.stripes as u64 * self.data_per_stripe() as u64
    }
    /// Chunk ids in the logical space (the FTL's mapping table size).
    pub fn chunks(&self) -> u64 {
        self.stripes as u64 * self.width as u64
    }
    /// Position of the parity chunk of stripe `s`.
    #[inline]
    pub fn parity_pos(&self, s: u32) -> u32 {
        self.width - 1 - self.div.width.remainder(self.div.period.quotient(s))
    }
    /// Position of data index `d` (0..k−1) in stripe `s`.
    #[inline]
    pub fn data_pos(&self, s: u32, d: u32) -> u32 {
        if !self.parity {
            return d;
        }
        let p = self.parity_pos(s);
        if d < p {
            d
        } else {
            d + 1
        }
    }
    /// Home channel of position `j` in stripe `s`.
    #[inline]
    pub fn channel(&self, s: u32, j: u32) -> u32 {
        ((s as u64 * self.width as u64 + j as u64) % self.channels as u64) as u32
    }
    /// Home channel of chunk `c` (position `c % width` of stripe
    /// `c / width`): the chunk ids run along the channels.
    #[inline]
    pub fn home_channel(&self, c: ChunkId) -> u32 {
        self.div.channels.remainder(c)
    }
    /// Stripe of chunk `c`.
    #[inline]
    pub fn stripe_of(&self, c: ChunkId) -> u32 {
        debug_assert!(self.div.width.get() == self.width, "a field changed after the layout was built");
        self.div.width.quotient(c)
    }
    /// Position of chunk `c` in its stripe.
    #[inline]
    pub fn position_of(&self, c: ChunkId) -> u32 {
        self.div.width.remainder(c)
    }
    /// Stripe of logical page `lpn` and the page's data index in it. Logical
    /// pages are chunk ids, which fit a `u32` (the geometry's validation
    /// keeps the physical pages below 2^32).
    #[inline]
    pub fn split_lpn(&self, lpn: u64) -> (u32, u32) {
        debug_assert!(lpn <= u32::MAX as u64, "logical page {lpn} beyond the chunk ids");
        debug_assert!(self.data_per_stripe() > 0, "a stripe of parity alone holds no logical page");
        debug_assert!(self.div.data.get() == self.data_per_stripe(), "a field changed after the layout was built");
        let l = lpn as u32;
        let s = self.div.data.quotient(l);
        (s, l - s * self.div.data.get())
    }
    /// Chunk id holding logical page `lpn`, and its stripe.
    #[inline]
    pub fn chunk_of_lpn(&self, lpn: u64) -> (u32, ChunkId) {
        let (s, d) = self.split_lpn(lpn);
        (s, s * self.width + self.data_pos(s, d))
    }
    /// Parity chunk of stripe `s`.
    #[inline]
    pub fn parity_chunk(&self, s: u32) -> ChunkId {
        s * self.width + self.parity_pos(s)
    }
    /// Whether chunk `c` is its stripe's parity.
    #[inline]
    pub fn is_parity(&self, c: ChunkId) -> bool {
        self.parity && self.position_of(c) == self.parity_pos(self.stripe_of(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The greatest common divisor, against the largest number dividing
    /// both found by trial (with gcd(a, 0) = a).
    #[test]
    fn gcd_is_the_largest_common_divisor() {
        for a in 0..40u32 {
            for b in 0..40u32 {
                let want = (1..=a.max(b)).filter(|d| a % d == 0 && b % d == 0).max().unwrap_or(0);
                assert_eq!(gcd(a, b), want, "gcd({a}, {b})");
            }
        }
    }

    #[test]
    fn hand_computed_8ch_4wide() {
        // m = 8, k = 4: stripes alternate groups {0..3} and {4..7}; the parity
        // position steps down once per row of two stripes.
        let l = StripeLayout::new(8, 4, true, 100);
        let chans: Vec<u32> = (0..4).map(|j| l.channel(1, j)).collect();
        assert_eq!(chans, vec![4, 5, 6, 7]);
        let parity_ch: Vec<u32> = (0..8).map(|s| l.channel(s, l.parity_pos(s))).collect();
        assert_eq!(parity_ch, vec![3, 7, 2, 6, 1, 5, 0, 4]);
        // lpn 0..2 are stripe 0 data on channels 0,1,2; lpn 3 starts stripe 1.
        assert_eq!(l.chunk_of_lpn(0), (0, 0));
        assert_eq!(l.chunk_of_lpn(2), (0, 2));
        assert_eq!(l.chunk_of_lpn(3), (1, 4));
        // Stripe 2 has parity at position 2, so data index 2 sits at position 3.
        assert_eq!(l.chunk_of_lpn(8), (2, 2 * 4 + 3));
        assert!(l.is_parity(l.parity_chunk(2)));
        // Chunk 4·s + j lives on the channel of position j of stripe s:
        // chunk 13 (stripe 3, position 1) on channel 5, as 4·3 + 1 = 13.
        assert_eq!(l.home_channel(13), 5);
        let l6 = StripeLayout::new(8, 6, true, 0);
        for c in 0..200 {
            assert_eq!(l6.home_channel(c), l6.channel(c / 6, c % 6), "chunk {c}");
        }
    }

    #[test]
    fn parity_and_chunks_balanced_over_channels() {
        for (m, k) in [(8, 4), (8, 8), (6, 6), (16, 4), (8, 6), (16, 8), (8, 3), (16, 6), (8, 5), (16, 7), (3, 3)] {
            let l = StripeLayout::new(m, k, true, 0);
            let n = m * k * 8;
            let mut parity = vec![0u32; m as usize];
            let mut all = vec![0u32; m as usize];
            for s in 0..n {
                let mut seen = vec![false; m as usize];
                for j in 0..k {
                    let c = l.channel(s, j) as usize;
                    assert!(!seen[c], "stripe {s} uses channel {c} twice (m={m}, k={k})");
                    seen[c] = true;
                    all[c] += 1;
                }
                parity[l.channel(s, l.parity_pos(s)) as usize] += 1;
            }
            assert!(parity.iter().all(|&p| p == parity[0]), "parity unbalanced for m={m} k={k}: {parity:?}");
            assert!(all.iter().all(|&a| a == all[0]), "chunks unbalanced: {all:?}");
        }
    }

    /// The quotients by divisor equal the arithmetic of the module's doc
    /// written out, for widths and channel counts powers of two or not,
    /// with and without parity, up to the top of the chunk ids.
    #[test]
    fn quotients_equal_the_arithmetic_written_out() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for (m, k, parity) in
            [(8, 8, true), (8, 4, true), (8, 6, true), (6, 5, true), (16, 7, true), (5, 1, false), (3, 3, false)]
        {
            let l = StripeLayout::new(m, k, parity, 0);
            let (dps, period) = (k - parity as u32, m / gcd(m, k));
            let mut cs: Vec<u32> = (0..500).chain([u32::MAX - 1, u32::MAX]).collect();
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                cs.push(x as u32);
            }
            for c in cs {
                assert_eq!((l.stripe_of(c), l.position_of(c)), (c / k, c % k), "chunk {c}, m={m} k={k}");
                assert_eq!(l.home_channel(c), c % m, "chunk {c}, m={m} k={k}");
                assert_eq!(l.split_lpn(c as u64), (c / dps, c % dps), "page {c}, m={m} k={k}");
                let s = c / k;
                assert_eq!(l.parity_pos(s), k - 1 - (s / period) % k, "stripe {s}, m={m} k={k}");
                assert_eq!(l.channel(s, c % k), ((s as u64 * k as u64 + (c % k) as u64) % m as u64) as u32);
            }
        }
    }

    /// An array of 4 devices with chunks of 3 page rows: rows 0–2 (the
    /// chunks of stripe 0) keep parity on device 3, rows 3–5 on device 2,
    /// …, rows 12–14 on device 3 again; a row's data skips its parity.
    #[test]
    fn a_parity_run_keeps_parity_on_one_device_for_a_chunk_s_rows() {
        let l = StripeLayout::new(4, 4, true, 30).with_parity_run(3);
        let parity: Vec<u32> = (0..15).map(|r| l.parity_pos(r)).collect();
        assert_eq!(parity, [3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 3, 3, 3]);
        assert_eq!((0..3).map(|d| l.data_pos(4, d)).collect::<Vec<_>>(), [0, 1, 3]);
        assert_eq!(l.chunk_of_lpn(3 * 4), (4, 4 * 4));
        // Without the run, as before: one row per parity position.
        let one = StripeLayout::new(4, 4, true, 30).with_parity_run(1);
        assert_eq!((0..5).map(|r| one.parity_pos(r)).collect::<Vec<_>>(), [3, 2, 1, 0, 3]);
    }

    /// Bound columns: m = 8, k = 4 has L = 2, so stripes 0–7 (four periods:
    /// every channel, every parity position) take column 0, stripes 8–15
    /// column 1, …; over m·k·D stripes every (channel, column) holds the same
    /// number of chunks and the same number of parity chunks.
    #[test]
    fn columns_rotate_per_parity_cycle_and_balance_data_and_parity() {
        let l = StripeLayout::new(8, 4, true, 0).with_columns(4);
        let cols: Vec<u32> = (0..34).step_by(4).map(|s| l.column(s).unwrap()).collect();
        assert_eq!(cols, vec![0, 0, 1, 1, 2, 2, 3, 3, 0]);
        assert_eq!(StripeLayout::new(8, 4, true, 0).column(3), None);
        for (m, k, d) in [(8, 4, 4), (8, 3, 4), (6, 6, 2), (8, 6, 4), (16, 7, 3), (16, 4, 16)] {
            let l = StripeLayout::new(m, k, true, 0).with_columns(d);
            let (mut n, mut parity) = (vec![0u32; (m * d) as usize], vec![0u32; (m * d) as usize]);
            for s in 0..m * k * d {
                for j in 0..k {
                    let at = (l.channel(s, j) * d + l.column(s).unwrap()) as usize;
                    n[at] += 1;
                    parity[at] += (j == l.parity_pos(s)) as u32;
                }
            }
            assert!(n.iter().all(|&x| x == n[0]), "m={m} k={k} d={d}: {n:?}");
            assert!(parity.iter().all(|&x| x == parity[0] && x > 0), "m={m} k={k} d={d}: parity {parity:?}");
        }
    }
}
