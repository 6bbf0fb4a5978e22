//! The replica table (rep-raid Fig. 4): a replicated chunk's newest version
//! lives as two copies on two channels, outside parity, while its stripe slot
//! keeps the old version (semi-invalid: the parity still covers it).
//!
//! The slot stays the chunk's own mapping entry, so every stripe routine
//! (RMW, RCW, degraded reads of its partners) sees what the parity covers.
//! The copies are mapped under *copy ids* above the stripe chunks: pair k
//! owns ids `base + 2k` (copy A) and `base + 2k + 1` (copy B). A copy id
//! follows its page through GC moves like any chunk, so the table never
//! holds a physical page that GC could invalidate; the paper's
//! (PPN, RA → OPPN, RPPN) is (slot, pair → copy A, copy B).

use super::replica_order::{Mark, Order};
use rustc_hash::FxHashMap;
use std::cell::Cell;

/// A replicated chunk's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replica {
    /// Its pair of copy ids (`base + 2·pair`, `+ 1`).
    pub pair: u32,
    /// Version serial of its first replication (conversion takes the oldest first).
    pub since: u64,
    /// A copy given up without replacement (dropped by a GC reorganisation).
    pub gone: [bool; 2],
    /// A conversion back into the stripe is under way. Set through
    /// [`ReplicaTable::get_mut`]; cleared only by
    /// [`ReplicaTable::stop_converting`], which [`ReplicaTable::oldest`]
    /// relies on.
    pub converting: bool,
    /// Neither copy is on the slot's channel (the chunk took another
    /// chunk's slot in an any-chunk reorganisation): a conversion programs
    /// the slot instead of handing it copy A.
    pub misplaced: bool,
}

/// Which copy of a replicated chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copy {
    /// On the chunk's home channel (its slot's): the one that can take the slot.
    A = 0,
    /// The mirror elsewhere.
    B = 1,
}

/// The table of replicated chunks, with its copy-id space.
#[derive(Debug, Clone)]
pub struct ReplicaTable {
    base: u32,
    entries: FxHashMap<u32, Replica>,
    /// Chunk of each pair (`u32::MAX`: free).
    pair_chunk: Vec<u32>,
    free: Vec<u32>,
    /// (since, chunk) of every entry, oldest first.
    order: Order,
    /// Every entry before it is being converted: where [`Self::oldest`]
    /// resumes, instead of passing the conversions under way (thousands when
    /// the table sits at its high-water mark) on every call.
    settled: Cell<Mark>,
    /// Most entries held at once.
    pub max_entries: usize,
    /// Stripes the RAID layer holds locked (a job runs or waits, or degraded
    /// reads): a GC reorganisation takes only a free stripe.
    pub locked: rustc_hash::FxHashSet<u32>,
}

impl ReplicaTable {
    /// A table for up to `pairs` replicated chunks, whose copy ids start at
    /// `base` (the number of stripe chunks).
    pub fn new(base: u32, pairs: u32) -> Self {
        ReplicaTable {
            base,
            entries: FxHashMap::default(),
            pair_chunk: vec![u32::MAX; pairs as usize],
            free: (0..pairs).rev().collect(),
            order: Order::default(),
            settled: Cell::new(Mark::START),
            max_entries: 0,
            locked: Default::default(),
        }
    }

    /// Copy ids the mapping must hold besides the stripe chunks.
    pub fn ids(pairs: u32) -> u64 {
        2 * pairs as u64
    }

    /// First copy id.
    #[inline]
    pub fn base(&self) -> u32 {
        self.base
    }

    /// Whether `id` is a copy id (not a stripe chunk).
    #[inline]
    pub fn is_copy(&self, id: u32) -> bool {
        id >= self.base
    }

    /// Entry of `chunk`, if replicated.
    #[inline]
    pub fn get(&self, chunk: u32) -> Option<&Replica> {
        if self.entries.is_empty() {
            return None;
        }
        self.entries.get(&chunk)
    }

    /// Mutable entry of `chunk`.
    pub fn get_mut(&mut self, chunk: u32) -> Option<&mut Replica> {
        self.entries.get_mut(&chunk)
    }

    /// Copy id of `which` copy of pair `pair`.
    #[inline]
    pub fn copy_id(&self, pair: u32, which: Copy) -> u32 {
        self.base + 2 * pair + which as u32
    }

    /// The chunk and copy a copy id stands for (`None` if its pair is free).
    pub fn owner_of(&self, id: u32) -> Option<(u32, Copy)> {
        let k = (id - self.base) / 2;
        let c = *self.pair_chunk.get(k as usize)?;
        let which = if (id - self.base).is_multiple_of(2) { Copy::A } else { Copy::B };
        (c != u32::MAX).then_some((c, which))
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no chunk is replicated.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether every pair is taken.
    pub fn full(&self) -> bool {
        self.free.is_empty()
    }

    /// Capacity in entries.
    pub fn capacity(&self) -> usize {
        self.pair_chunk.len()
    }

    /// Enters `chunk` with a fresh pair (first replication, version `since`).
    /// `None` when the table is full.
    pub fn insert(&mut self, chunk: u32, since: u64) -> Option<Replica> {
        debug_assert!(!self.entries.contains_key(&chunk));
        let pair = self.free.pop()?;
        self.pair_chunk[pair as usize] = chunk;
        let e = Replica { pair, since, gone: [false; 2], converting: false, misplaced: false };
        self.entries.insert(chunk, e);
        self.enter_order(since, chunk);
        self.max_entries = self.max_entries.max(self.entries.len());
        Some(e)
    }

    /// Removes `chunk`'s entry and frees its pair.
    pub fn remove(&mut self, chunk: u32) -> Option<Replica> {
        let e = self.entries.remove(&chunk)?;
        self.pair_chunk[e.pair as usize] = u32::MAX;
        self.free.push(e.pair);
        self.order.remove(e.since, chunk);
        Some(e)
    }

    /// Swaps the entries of replicated slots `a` and `b` (an any-chunk
    /// reorganisation swaps their logical owners: `raid/stripe_map.rs`).
    pub fn swap_slots(&mut self, a: u32, b: u32) {
        if a == b {
            return;
        }
        let ea = self.entries.remove(&a).expect("a is replicated");
        let eb = self.entries.remove(&b).expect("b is replicated");
        self.order.remove(ea.since, a);
        self.order.remove(eb.since, b);
        self.pair_chunk[eb.pair as usize] = a;
        self.pair_chunk[ea.pair as usize] = b;
        self.enter_order(eb.since, a);
        self.enter_order(ea.since, b);
        self.entries.insert(a, eb);
        self.entries.insert(b, ea);
    }

    /// Puts `(since, chunk)` in the order; an entry not being converted
    /// before the settled mark moves the mark back to it.
    fn enter_order(&mut self, since: u64, chunk: u32) {
        self.order.insert(since, chunk);
        self.unsettle((since, chunk));
    }

    fn unsettle(&self, k: (u64, u32)) {
        if k < self.settled.get().key {
            self.settled.set(Mark::at_key(k));
        }
    }

    /// `chunk`'s conversion did not happen: it is an ordinary entry again.
    pub fn stop_converting(&mut self, chunk: u32) {
        if let Some(e) = self.entries.get_mut(&chunk) {
            e.converting = false;
            let k = (e.since, chunk);
            self.unsettle(k);
        }
    }

    /// Oldest replicated chunk not being converted.
    pub fn oldest(&self) -> Option<u32> {
        let from = self.order.index_of(self.settled.get());
        let found = self.order.find_from(from, |c| !self.entries[&c].converting);
        // Everything before the one found is being converted.
        self.settled.set(self.order.mark(found));
        let chunk = found.map(|(_, (_, c))| c);
        debug_assert!(
            self.len() > 4096 || chunk == self.order.iter().find(|c| !self.entries[c].converting),
            "a conversion was undone without stop_converting"
        );
        chunk
    }

    /// Replicated chunks in id order (deterministic; for checks and reports).
    pub fn chunks_sorted(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.entries.keys().copied().collect();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs are handed out, named and returned: copy ids sit above the
    /// stripe chunks, the oldest entry is the first replicated, and a full
    /// table refuses a new chunk.
    #[test]
    fn pairs_and_ids() {
        let mut t = ReplicaTable::new(100, 2);
        let a = t.insert(7, 5).unwrap();
        let b = t.insert(3, 9).unwrap();
        assert_ne!(a.pair, b.pair);
        assert!(t.insert(8, 10).is_none(), "two pairs only");
        assert_eq!(t.copy_id(a.pair, Copy::A), 100 + 2 * a.pair);
        assert_eq!(t.owner_of(100 + 2 * b.pair + 1), Some((3, Copy::B)));
        assert_eq!(t.oldest(), Some(7));
        t.get_mut(7).unwrap().converting = true;
        assert_eq!(t.oldest(), Some(3));
        t.remove(7);
        assert_eq!(t.owner_of(100 + 2 * a.pair), None);
        assert_eq!(t.max_entries, 2);
        assert!(t.insert(8, 10).is_some());
        assert_eq!(t.chunks_sorted(), vec![3, 8]);
    }

    /// A table as a device builds it (copy ids far above the pairs): both
    /// copy ids of every pair name their chunk and which copy they are,
    /// the ids are base..base + 2·pairs, each once, and the counts, the
    /// sorted listing and the oldest entry (by version, skipping
    /// conversions) follow the entries.
    #[test]
    fn every_copy_id_names_its_chunk_and_copy() {
        let mut t = ReplicaTable::new(1000, 5);
        assert_eq!(ReplicaTable::ids(5), 10);
        assert_eq!((t.base(), t.capacity(), t.len(), t.is_empty(), t.full()), (1000, 5, 0, true, false));
        let chunks = [40, 7, 913, 0, 512];
        for (i, &c) in chunks.iter().enumerate() {
            t.insert(c, 100 - i as u64).unwrap();
        }
        assert_eq!((t.len(), t.is_empty(), t.full()), (5, false, true));
        let mut ids = Vec::new();
        for &c in &chunks {
            let pair = t.get(c).unwrap().pair;
            for k in [Copy::A, Copy::B] {
                let id = t.copy_id(pair, k);
                assert!(t.is_copy(id) && !t.is_copy(c));
                assert_eq!(t.owner_of(id), Some((c, k)), "copy id {id}");
                ids.push(id);
            }
        }
        ids.sort_unstable();
        assert_eq!(ids, (1000..1010).collect::<Vec<u32>>());
        assert_eq!(t.chunks_sorted(), vec![0, 7, 40, 512, 913]);
        // Versions 100, 99, 98, 97, 96 in insertion order: 512's is the oldest.
        assert_eq!(t.oldest(), Some(512));
        t.get_mut(512).unwrap().converting = true;
        t.get_mut(0).unwrap().converting = true;
        assert_eq!(t.oldest(), Some(913));
        for c in chunks {
            t.get_mut(c).unwrap().converting = true;
        }
        assert_eq!(t.oldest(), None);
    }

    proptest::proptest! {
        /// `oldest` resuming past the conversions under way names the chunk a
        /// full scan names, under entries made, converted, given back
        /// (`stop_converting`), removed and swapped in any order.
        #[test]
        fn oldest_is_the_first_entry_not_converting(ops in proptest::collection::vec((0u8..12, 0u64..40, 0u32..24), 1..300)) {
            let mut t = ReplicaTable::new(1000, 16);
            let mut serial = 100u64;
            for (what, back, chunk) in ops {
                let live = t.chunks_sorted();
                let pick = (!live.is_empty()).then(|| live[(back as usize + chunk as usize) % live.len()]);
                match (what, pick) {
                    (0..=3, _) => {
                        serial += 1;
                        let since = if what < 3 { serial } else { serial - back };
                        if t.get(chunk).is_none() {
                            t.insert(chunk, since);
                        }
                    }
                    (4..=6, Some(c)) => t.get_mut(c).unwrap().converting = true,
                    (7, Some(c)) => t.stop_converting(c),
                    (8, Some(c)) => {
                        t.remove(c);
                    }
                    (9, Some(c)) => {
                        let d = live[back as usize % live.len()];
                        t.swap_slots(c, d);
                    }
                    (10 | 11, _) => {
                        let full = t.order.iter().find(|c| !t.entries[c].converting);
                        proptest::prop_assert_eq!(t.oldest(), full);
                        if let (11, Some(c)) = (what, full) {
                            // As a conversion would: the one found starts converting.
                            t.get_mut(c).unwrap().converting = true;
                        }
                    }
                    _ => {}
                }
            }
            let full = t.order.iter().find(|c| !t.entries[c].converting);
            proptest::prop_assert_eq!(t.oldest(), full);
        }
    }
}
