//! Physical addresses: a page number `ppn` packs
//! channel → die (in channel) → plane → block → page, most significant first.

use crate::flash::geometry::Geometry;

/// Physical page number.
pub type Ppn = u32;
/// Marker for "no page" in mapping tables.
pub const NONE: u32 = u32::MAX;

/// Derived geometry with the address arithmetic.
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
}

impl Layout {
    /// Derives the layout from a validated geometry.
    pub fn new(g: &Geometry) -> Layout {
        Layout {
            channels: g.channels,
            dies_per_channel: g.chips_per_channel * g.dies_per_chip,
            planes_per_die: g.planes_per_die,
            blocks_per_plane: g.blocks_per_plane,
            pages_per_block: g.pages_per_block,
            page_bytes: g.page_bytes,
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
        ppn / self.pages_per_block
    }
    /// Global plane index of a block.
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_plane
    }
    /// Global die index of a plane.
    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        plane / self.planes_per_die
    }
    /// Global die index of a page.
    #[inline]
    pub fn die_of(&self, ppn: Ppn) -> u32 {
        ppn / (self.pages_per_block * self.blocks_per_plane * self.planes_per_die)
    }
    /// Channel of a global die.
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        die / self.dies_per_channel
    }
    /// Channel of a page.
    #[inline]
    pub fn channel_of(&self, ppn: Ppn) -> u32 {
        ppn / self.pages_per_channel()
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
    }
}
