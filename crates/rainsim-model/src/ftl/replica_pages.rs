//! Page operations of replication: a copy id given up, and a copy taking
//! its chunk's stripe slot (`raid/replica.rs` explains the copy ids).

use super::Ftl;

impl Ftl {
    /// Unmaps `id` and invalidates its page, if it has one.
    pub fn drop_id(&mut self, id: u32) {
        if let Some(p) = self.map.get(id) {
            self.map.unmap(p);
            self.invalidate(p);
        }
    }

    /// The page of copy id `copy` becomes `chunk`'s (its stripe slot); the
    /// slot's old page, if still mapped, becomes invalid. The page stays
    /// valid, so no block count changes for it.
    pub fn promote(&mut self, chunk: u32, copy: u32) {
        let p = self.map.get(copy).expect("the promoted copy is mapped");
        self.drop_id(chunk);
        self.map.unmap(p);
        self.map.set(chunk, p);
    }

    /// Copy ids `a` and `b` of one pair exchange their pages (the copy on
    /// the slot's channel becomes copy A). No page changes validity.
    pub fn swap_ids(&mut self, a: u32, b: u32) {
        self.map.swap_ids(a, b);
    }
}
