//! A failed channel's (or die's) data, and its replacement: the chunks it
//! holds when it fails, and fresh dies in its place (every block erased, the
//! chunks it held unmapped until the RAID layer rebuilds them).

use super::Ftl;

impl Ftl {
    /// The chunks whose current page is on channel `ch`, in page order.
    pub fn chunks_on_channel(&self, ch: u32) -> Vec<u32> {
        self.chunks_on_dies(self.layout.first_die(ch), self.layout.dies_per_channel)
    }

    /// The chunks whose current page is on dies `first..first + n`, in page order.
    pub fn chunks_on_dies(&self, first: u32, n: u32) -> Vec<u32> {
        let l = &self.layout;
        let p0 = l.first_page(l.first_block(l.first_plane(first)));
        let pages = n * l.planes_per_die * l.blocks_per_plane * l.pages_per_block;
        (p0..p0 + pages).filter_map(|p| self.map.owner(p)).collect()
    }

    /// Puts fresh dies in place of dies `first..first + n`: every chunk they
    /// held is unmapped, every block is erased with no wear, every plane's
    /// blocks are free. Returns the chunks unmapped.
    pub fn replace_dies(&mut self, first: u32, n: u32) -> Vec<u32> {
        let lost = self.chunks_on_dies(first, n);
        let l = self.layout.clone();
        let first_plane = l.first_plane(first);
        let planes = n * l.planes_per_die;
        for plane in first_plane..first_plane + planes {
            let first_block = l.first_block(plane);
            for b in first_block..first_block + l.blocks_per_plane {
                let p0 = l.first_page(b);
                for p in p0..p0 + l.pages_per_block {
                    if self.map.owner(p).is_some() {
                        self.map.unmap(p);
                    }
                }
                self.index.remove(b);
                // Its age is stamped when it is opened (`open_block`); under
                // process variation its speed is detected afresh, at 0 erases.
                let dvp_step = self.pv.as_ref().map_or(0, |pv| pv.detect(b, 0));
                self.blocks[b as usize] = super::block::BlockMeta { dvp_step, ..Default::default() };
            }
            // No open block of either lane, every block free, none worn.
            self.planes[plane as usize] = super::block::PlaneMeta {
                free: (0..l.blocks_per_plane).collect(),
                at_min: l.blocks_per_plane,
                ..Default::default()
            };
        }
        for die in first..first + n {
            self.plane_cursor[die as usize] = 0;
        }
        self.recount_free_lists();
        lost
    }
}
