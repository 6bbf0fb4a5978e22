//! Physical addresses: a page number `ppn` packs
//! channel → die (in channel) → plane → block → page, most significant first.

use crate::flash::geometry::Geometry;

/// Physical page number.
pub type Ppn = u32;
/// Marker for "no page" in mapping tables.
pub const NONE: u32 = u32::MAX;

/// Derived geometry with the address arithmetic. The fields are read-only
/// once built: the quotients use divisors derived from them.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Channels.
    pub channels: u32,
    /// Dies per channel (chips × dies per chip).
    pub dies_per_channel: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Page size in bytes.
    pub page_bytes: u32,
    div: Divisors,
}

/// The divisors of the address arithmetic, by what the quotient finds.
#[derive(Debug, Clone, Copy)]
struct Divisors {
    block: Divisor,
    plane: Divisor,
    die_of_plane: Divisor,
    die: Divisor,
    channel_of_die: Divisor,
    channel: Divisor,
    /// log2 of the page size, when a power of two.
    page_shift: Option<u32>,
}

/// A `u32` divisor whose quotients take a shift (a power of two) or a
/// multiply-high by ⌈2^64 / d⌉, which is exact for every `u32` dividend
/// (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019):
/// the address arithmetic runs several times per flash operation, and a
/// hardware division is 10–20 times slower than either.
#[derive(Debug, Clone, Copy)]
pub struct Divisor {
    d: u32,
    shift: u32,
    /// ⌈2^64 / d⌉; 0 for a power of two.
    magic: u64,
}

impl Divisor {
    /// The divisor `d` (at least 1).
    pub fn new(d: u32) -> Divisor {
        assert!(d > 0, "division by zero");
        if d.is_power_of_two() {
            Divisor { d, shift: d.trailing_zeros(), magic: 0 }
        } else {
            Divisor { d, shift: 0, magic: u64::MAX / d as u64 + 1 }
        }
    }
    /// ⌊n / d⌋.
    #[inline(always)]
    pub fn quotient(self, n: u32) -> u32 {
        if self.magic == 0 {
            n >> self.shift
        } else {
            ((self.magic as u128 * n as u128) >> 64) as u32
        }
    }
    /// n mod d.
    #[inline(always)]
    pub fn remainder(self, n: u32) -> u32 {
        n - self.quotient(n) * self.d
    }
    /// d.
    #[inline(always)]
    pub fn get(self) -> u32 {
        self.d
    }
}

impl Layout {
    /// Derives the layout from a validated geometry.
    pub fn new(g: &Geometry) -> Layout {
        Layout::of(
            g.channels,
            g.chips_per_channel * g.dies_per_chip,
            g.planes_per_die,
            g.blocks_per_plane,
            g.pages_per_block,
            g.page_bytes,
        )
    }
    /// The layout of these counts (each at least 1, and the device's pages
    /// within `u32`, as a validated geometry guarantees).
    pub fn of(
        channels: u32,
        dies_per_channel: u32,
        planes_per_die: u32,
        blocks_per_plane: u32,
        pages_per_block: u32,
        page_bytes: u32,
    ) -> Layout {
        let pages_per_die = pages_per_block * blocks_per_plane * planes_per_die;
        Layout {
            channels,
            dies_per_channel,
            planes_per_die,
            blocks_per_plane,
            pages_per_block,
            page_bytes,
            div: Divisors {
                block: Divisor::new(pages_per_block),
                plane: Divisor::new(blocks_per_plane),
                die_of_plane: Divisor::new(planes_per_die),
                die: Divisor::new(pages_per_die),
                channel_of_die: Divisor::new(dies_per_channel),
                channel: Divisor::new(pages_per_die * dies_per_channel),
                page_shift: page_bytes.is_power_of_two().then(|| page_bytes.trailing_zeros()),
            },
        }
    }
    /// All dies.
    pub fn dies(&self) -> u32 {
        self.channels * self.dies_per_channel
    }
    /// All planes.
    pub fn planes(&self) -> u32 {
        self.dies() * self.planes_per_die
    }
    /// All blocks.
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    /// All pages.
    pub fn pages(&self) -> u32 {
        self.blocks() * self.pages_per_block
    }
    /// Pages per channel.
    pub fn pages_per_channel(&self) -> u32 {
        self.dies_per_channel * self.planes_per_die * self.blocks_per_plane * self.pages_per_block
    }
    /// Global block index of a page.
    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        debug_assert!(self.div.block.d == self.pages_per_block, "a field changed after the layout was built");
        self.div.block.quotient(ppn)
    }
    /// Global plane index of a block.
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        debug_assert!(self.div.plane.d == self.blocks_per_plane, "a field changed after the layout was built");
        self.div.plane.quotient(block)
    }
    /// Global die index of a plane.
    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        debug_assert!(self.div.die_of_plane.d == self.planes_per_die, "a field changed after the layout was built");
        self.div.die_of_plane.quotient(plane)
    }
    /// Global die index of a page.
    #[inline]
    pub fn die_of(&self, ppn: Ppn) -> u32 {
        debug_assert!(
            self.div.die.d == self.pages_per_block * self.blocks_per_plane * self.planes_per_die,
            "a field changed after the layout was built"
        );
        self.div.die.quotient(ppn)
    }
    /// Channel of a global die.
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        debug_assert!(self.div.channel_of_die.d == self.dies_per_channel, "a field changed after the layout was built");
        self.div.channel_of_die.quotient(die)
    }
    /// Logical page holding byte `offset` (a shift for the usual page
    /// sizes, powers of two; a request computes two).
    #[inline]
    pub fn page_of_byte(&self, offset: u64) -> u64 {
        debug_assert!(self.div.page_shift.is_none_or(|s| 1 << s == self.page_bytes), "page_bytes changed");
        match self.div.page_shift {
            Some(s) => offset >> s,
            None => offset / self.page_bytes as u64,
        }
    }
    /// Channel of a page.
    #[inline]
    pub fn channel_of(&self, ppn: Ppn) -> u32 {
        debug_assert!(self.div.channel.d == self.pages_per_channel(), "a field changed after the layout was built");
        self.div.channel.quotient(ppn)
    }
    /// First page of a global block.
    #[inline]
    pub fn first_page(&self, block: u32) -> Ppn {
        block * self.pages_per_block
    }
    /// First block of a global plane.
    #[inline]
    pub fn first_block(&self, plane: u32) -> u32 {
        plane * self.blocks_per_plane
    }
    /// First plane of a global die.
    #[inline]
    pub fn first_plane(&self, die: u32) -> u32 {
        die * self.planes_per_die
    }
    /// First global die of a channel.
    #[inline]
    pub fn first_die(&self, channel: u32) -> u32 {
        channel * self.dies_per_channel
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_round_trips() {
        let g = Geometry {
            channels: 3,
            chips_per_channel: 2,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 5,
            pages_per_block: 7,
            ..Geometry::default()
        };
        let l = Layout::new(&g);
        assert_eq!(l.pages(), 3 * 4 * 2 * 5 * 7);
        let (ch, die, plane, block, page) = (2u32, 3u32, 1u32, 4u32, 6u32);
        let gdie = ch * 4 + die;
        let gplane = gdie * 2 + plane;
        let gblock = gplane * 5 + block;
        let ppn = gblock * 7 + page;
        assert_eq!(l.block_of(ppn), gblock);
        assert_eq!(l.plane_of_block(gblock), gplane);
        assert_eq!(l.die_of_plane(gplane), gdie);
        assert_eq!(l.die_of(ppn), gdie);
        assert_eq!(l.channel_of(ppn), ch);
        assert_eq!(l.channel_of_die(gdie), ch);
        // Every page of this (no power of two) layout, against plain division.
        for p in 0..l.pages() {
            assert_eq!((l.block_of(p), l.die_of(p), l.channel_of(p)), (p / 7, p / (7 * 5 * 2), p / (7 * 5 * 2 * 4)));
        }
    }

    /// Quotients by shift or multiply-high equal `/` for divisors small,
    /// large, powers of two or not, at the dividends where rounding could
    /// slip (multiples of d and their neighbours, the top of the range) and
    /// at pseudo-random ones.
    #[test]
    fn divisor_quotients_equal_division() {
        let mut x: u64 = 88172645463325252;
        let mut ds: Vec<u32> = (1..=300).collect();
        ds.extend([641, 4096, 65_535, 65_536, 6_700_417, (1 << 31) - 1, 1 << 31, u32::MAX - 1, u32::MAX]);
        for d in ds {
            let f = Divisor::new(d);
            let mut ns = vec![
                0,
                1,
                d - 1,
                d,
                d.saturating_add(1),
                u32::MAX,
                u32::MAX - 1,
                u32::MAX / d * d,
                u32::MAX / d * d - 1,
            ];
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let n = x as u32;
                ns.extend([n, n / d * d, (n / d * d).wrapping_sub(1)]);
            }
            for n in ns {
                assert_eq!(f.quotient(n), n / d, "{n} / {d}");
                assert_eq!(f.remainder(n), n % d, "{n} mod {d}");
            }
        }
    }

    /// A byte's page by shift (powers of two) or division (other multiples
    /// of 512 bytes) equals the division, at page edges and far offsets.
    #[test]
    fn page_of_byte_equals_division() {
        for pb in [512u32, 1536, 2048, 4096, 6144, 16_384, 1 << 20] {
            let l = Layout::of(2, 2, 1, 4, 4, pb);
            let pb64 = pb as u64;
            for page in [0u64, 1, 2, 1000, 1 << 31, (1 << 32) - 1] {
                for off in [page * pb64, page * pb64 + 1, page * pb64 + pb64 - 1] {
                    assert_eq!(l.page_of_byte(off), off / pb64, "byte {off}, page size {pb}");
                }
            }
        }
    }
}
