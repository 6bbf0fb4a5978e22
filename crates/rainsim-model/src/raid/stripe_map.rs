//! The physical stripe indirection of any-chunk reorganisation (rep-raid
//! Alg. 1, Fig. 7(b)): which logical chunk owns each stripe slot.
//!
//! The identity layout gives logical chunk c the slot c (`raid/stripe.rs`).
//! A GC reorganisation may let a copy of replicated chunk y fill the stale
//! slot of another replicated chunk x. Both slots hold stale pages then
//! (the parity covers them, the newest versions live in the copies), so
//! their logical owners can be swapped at no cost: y takes x's slot (where
//! its copy becomes the member), x takes y's old slot, still stale and
//! covered by its own stripe's parity, until x is written, converted or its
//! new slot is matched in turn. The map is a permutation of chunk ids, kept
//! sparse: only slots whose owner is not their own chunk have entries.
//!
//! Everything below the host interface (stripe jobs, the replica table, GC,
//! degraded reads, verify) works on slots; only a host request's logical
//! chunks pass through the map, so every stripe lookup sees the physical
//! members by construction.

use rustc_hash::FxHashMap;

/// Slot ↔ logical chunk, identity unless overridden.
#[derive(Debug, Clone, Default)]
pub struct StripeMap {
    /// Logical chunk → its slot, where they differ.
    slot_of: FxHashMap<u32, u32>,
    /// Slot → its logical owner, where they differ.
    owner_of: FxHashMap<u32, u32>,
    /// Most overrides held at once.
    pub max_entries: usize,
}

impl StripeMap {
    /// The slot holding logical chunk `c`.
    #[inline]
    pub fn slot(&self, c: u32) -> u32 {
        if self.slot_of.is_empty() {
            return c;
        }
        self.slot_of.get(&c).copied().unwrap_or(c)
    }

    /// The logical chunk owning slot `s`.
    #[inline]
    pub fn logical(&self, s: u32) -> u32 {
        if self.owner_of.is_empty() {
            return s;
        }
        self.owner_of.get(&s).copied().unwrap_or(s)
    }

    /// Whether every slot is its own chunk's.
    #[inline]
    pub fn is_identity(&self) -> bool {
        self.slot_of.is_empty()
    }

    /// Overrides held (slots owned by another chunk).
    pub fn len(&self) -> usize {
        self.owner_of.len()
    }

    /// Whether no slot is overridden.
    pub fn is_empty(&self) -> bool {
        self.owner_of.is_empty()
    }

    /// Swaps the logical owners of slots `a` and `b`.
    pub fn swap(&mut self, a: u32, b: u32) {
        if a == b {
            return;
        }
        let (la, lb) = (self.logical(a), self.logical(b));
        self.set(a, lb);
        self.set(b, la);
        self.max_entries = self.max_entries.max(self.owner_of.len());
    }

    fn set(&mut self, slot: u32, owner: u32) {
        if slot == owner {
            self.owner_of.remove(&slot);
            self.slot_of.remove(&owner);
        } else {
            self.owner_of.insert(slot, owner);
            self.slot_of.insert(owner, slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Swaps compose as permutations; a swap undone leaves no entry.
    #[test]
    fn swaps_compose_and_undo() {
        let mut m = StripeMap::default();
        assert_eq!((m.slot(5), m.logical(5)), (5, 5));
        m.swap(1, 5);
        assert_eq!((m.slot(1), m.slot(5), m.logical(1), m.logical(5)), (5, 1, 5, 1));
        assert!(!m.is_empty() && !m.is_identity());
        // Slot 5 (owned by chunk 1) swaps with slot 9: chunk 1 → 9, chunk 9 → 5.
        m.swap(5, 9);
        assert_eq!((m.slot(1), m.slot(9), m.slot(5)), (9, 5, 1));
        assert_eq!((m.logical(9), m.logical(5), m.logical(1)), (1, 9, 5));
        assert_eq!((m.len(), m.max_entries), (3, 3));
        m.swap(9, 1);
        assert_eq!((m.slot(1), m.slot(5), m.slot(9)), (1, 9, 5));
        m.swap(5, 9);
        assert!(m.is_empty() && m.is_identity());
        assert_eq!(m.max_entries, 3);
    }
}
