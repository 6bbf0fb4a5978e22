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

use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// A replicated chunk's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replica {
    /// Its pair of copy ids (`base + 2·pair`, `+ 1`).
    pub pair: u32,
    /// Version serial of its first replication (conversion takes the oldest first).
    pub since: u64,
    /// A copy given up without replacement (dropped by a GC reorganisation).
    pub gone: [bool; 2],
    /// A conversion back into the stripe is under way.
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
        self.order.insert(since, chunk);
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
        self.order.insert(eb.since, a);
        self.order.insert(ea.since, b);
        self.entries.insert(a, eb);
        self.entries.insert(b, ea);
    }

    /// Oldest replicated chunk not being converted.
    pub fn oldest(&self) -> Option<u32> {
        self.order.iter().find(|c| !self.entries[c].converting)
    }

    /// Replicated chunks in id order (deterministic; for checks and reports).
    pub fn chunks_sorted(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self.entries.keys().copied().collect();
        v.sort_unstable();
        v
    }
}

/// Keys (since, chunk) in ascending order, as a sorted deque whose removed
/// keys stay as tombstones until they reach an end or outnumber the rest.
/// A new entry's version is nearly always the newest (jobs start about in
/// the order their serials were given), so an insertion is an append and
/// the oldest entries leave from the front: a search tree paid a descent
/// of ~600 instructions for each.
#[derive(Debug, Clone, Default)]
struct Order {
    keys: VecDeque<Key>,
    /// Tombstones among `keys`.
    dead: usize,
}

#[derive(Debug, Clone, Copy)]
struct Key {
    since: u64,
    chunk: u32,
    alive: bool,
}

impl Key {
    fn of(&self) -> (u64, u32) {
        (self.since, self.chunk)
    }
}

impl Order {
    /// Index of the first key not below `k`.
    fn position(&self, k: (u64, u32)) -> usize {
        self.keys.partition_point(|e| e.of() < k)
    }

    /// Adds `(since, chunk)`, which is not present.
    fn insert(&mut self, since: u64, chunk: u32) {
        let k = (since, chunk);
        let i = match self.keys.back() {
            Some(last) if last.of() < k => self.keys.len(),
            None => 0,
            Some(_) => self.position(k),
        };
        match self.keys.get_mut(i) {
            Some(e) if e.of() == k => {
                debug_assert!(!e.alive, "{k:?} is in the order twice");
                e.alive = true;
                self.dead -= 1;
            }
            _ => self.keys.insert(i, Key { since, chunk, alive: true }),
        }
    }

    /// Removes `(since, chunk)`, which is present.
    fn remove(&mut self, since: u64, chunk: u32) {
        let k = (since, chunk);
        let i = match self.keys.front() {
            Some(first) if first.of() == k => 0,
            _ => self.position(k),
        };
        let e = self.keys.get_mut(i).filter(|e| e.of() == k && e.alive).expect("the entry is in the order");
        e.alive = false;
        self.dead += 1;
        while self.keys.front().is_some_and(|e| !e.alive) {
            self.keys.pop_front();
            self.dead -= 1;
        }
        while self.keys.back().is_some_and(|e| !e.alive) {
            self.keys.pop_back();
            self.dead -= 1;
        }
        if self.dead > 64 && 2 * self.dead > self.keys.len() {
            self.keys.retain(|e| e.alive);
            self.dead = 0;
        }
    }

    /// The chunks, oldest first.
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.keys.iter().filter(|e| e.alive).map(|e| e.chunk)
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

    /// Tombstones left in the middle are swept once they outnumber the
    /// live keys (and are more than 64), so the deque stays within twice
    /// the table; the survivors keep their order.
    #[test]
    fn tombstones_in_the_middle_are_swept() {
        let mut o = Order::default();
        for s in 0..300 {
            o.insert(s, s as u32);
        }
        // Keep the ends, remove most of the middle (every key not ≡ 0 mod 4).
        for s in (1..299).filter(|s| s % 4 != 0) {
            o.remove(s, s as u32);
            assert!(
                o.keys.len() <= 2 * (o.keys.len() - o.dead) + 64,
                "{} keys for {} live",
                o.keys.len(),
                o.keys.len() - o.dead
            );
        }
        assert!(o.keys.len() < 300 - 64, "no sweep ran ({} keys, {} tombstones)", o.keys.len(), o.dead);
        let want: Vec<u32> = (0..300).filter(|s| s % 4 == 0 || *s == 299).collect();
        assert_eq!(o.iter().collect::<Vec<_>>(), want);
    }

    proptest::proptest! {
        /// The order against a search tree of the same keys: any mix of
        /// insertions (mostly the newest, some older), removals (mostly the
        /// oldest, some from the middle) and re-insertions of removed keys
        /// lists the same chunks in the same order.
        #[test]
        fn order_lists_what_a_search_tree_would(ops in proptest::collection::vec((0u8..10, 0u64..50, 0u32..8), 1..400)) {
            let mut order = Order::default();
            let mut tree = std::collections::BTreeSet::new();
            let mut serial = 0u64;
            for (what, back, chunk) in ops {
                match what {
                    0..=5 => {
                        serial += 1;
                        // Usually the newest version; sometimes one up to 50 older.
                        let since = if what < 4 { serial } else { serial.saturating_sub(back) };
                        if tree.insert((since, chunk)) {
                            order.insert(since, chunk);
                        }
                    }
                    _ => {
                        // The oldest, or one picked by `back` among the rest.
                        let k = if what < 8 { tree.iter().next().copied() } else { tree.iter().nth(back as usize % tree.len().max(1)).copied() };
                        if let Some(k) = k {
                            tree.remove(&k);
                            order.remove(k.0, k.1);
                        }
                    }
                }
                let listed: Vec<u32> = order.iter().collect();
                let want: Vec<u32> = tree.iter().map(|&(_, c)| c).collect();
                proptest::prop_assert_eq!(listed, want);
                proptest::prop_assert_eq!(order.keys.len() - order.dead, tree.len());
            }
        }
    }
}
