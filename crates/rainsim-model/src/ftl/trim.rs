//! Trim: the host says a chunk's data is no longer needed (an array moved it
//! to another device). Its page becomes invalid without a write, as an
//! overwrite would make it, and the chunk reads as never written.

use super::Ftl;
use crate::flash::address::Ppn;

impl Ftl {
    /// Unmaps `chunk`; its page, returned, becomes invalid (GC may reclaim it).
    pub fn trim(&mut self, chunk: u32) -> Option<Ppn> {
        let ppn = self.map.get(chunk)?;
        self.map.unmap(ppn);
        self.invalidate(ppn);
        Some(ppn)
    }
}
