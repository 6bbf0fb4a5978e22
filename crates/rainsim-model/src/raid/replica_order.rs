//! The replica table's order of versions: the keys (since, chunk) of its
//! entries, oldest first, as a sorted deque whose removed keys stay as
//! tombstones until they reach an end or outnumber the rest.
//!
//! A new entry's version is nearly always the newest (jobs start about in
//! the order their serials were given), so an insertion is an append; the
//! entries that leave are the oldest, converted back into their stripes, so
//! a removal finds its key by galloping from the front. A search tree paid
//! a descent of ~600 instructions for each, and a binary search over the
//! whole deque a cache miss a probe.

use std::collections::VecDeque;

/// Keys in ascending order, with tombstones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Order {
    keys: VecDeque<Key>,
    /// Tombstones among `keys`.
    dead: usize,
    /// Keys ever taken off the front (an index kept from before moves back
    /// by as many).
    popped: u64,
    /// Changes that move keys other than off the front (an insertion before
    /// the end, a sweep, a removal at the back): an index kept from before
    /// one is void.
    moves: u64,
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

/// A place in the order: before key `key`, and at index `at` while the
/// order's `moves` are still `moves` (then found without a search).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    pub key: (u64, u32),
    moves: u64,
    popped: u64,
    at: usize,
}

impl Mark {
    /// The start of the order.
    pub const START: Mark = Mark::at_key((0, 0));

    /// Before `key`, found by a search.
    pub const fn at_key(key: (u64, u32)) -> Mark {
        Mark { key, moves: u64::MAX, popped: 0, at: 0 }
    }
}

impl Order {
    /// Adds `(since, chunk)`, which is not present.
    pub fn insert(&mut self, since: u64, chunk: u32) {
        let k = (since, chunk);
        let i = match self.keys.back() {
            Some(last) if last.of() < k => self.keys.len(),
            None => 0,
            Some(_) => self.search_back(k),
        };
        match self.keys.get_mut(i) {
            Some(e) if e.of() == k => {
                debug_assert!(!e.alive, "{k:?} is in the order twice");
                e.alive = true;
                self.dead -= 1;
            }
            None => self.keys.push_back(Key { since, chunk, alive: true }),
            Some(_) => {
                self.keys.insert(i, Key { since, chunk, alive: true });
                self.moves += 1;
            }
        }
    }

    /// Removes `(since, chunk)`, which is present.
    pub fn remove(&mut self, since: u64, chunk: u32) {
        let k = (since, chunk);
        let i = self.search_front(k);
        let e = self.keys.get_mut(i).filter(|e| e.of() == k && e.alive).expect("the entry is in the order");
        e.alive = false;
        self.dead += 1;
        while self.keys.front().is_some_and(|e| !e.alive) {
            self.keys.pop_front();
            self.dead -= 1;
            self.popped += 1;
        }
        if self.keys.back().is_some_and(|e| !e.alive) {
            self.moves += 1;
            while self.keys.back().is_some_and(|e| !e.alive) {
                self.keys.pop_back();
                self.dead -= 1;
            }
        }
        if self.dead > 64 && 2 * self.dead > self.keys.len() {
            self.keys.retain(|e| e.alive);
            self.dead = 0;
            self.moves += 1;
        }
    }

    /// The chunks, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.keys.iter().filter(|e| e.alive).map(|e| e.chunk)
    }

    /// Index of `mark` now.
    pub fn index_of(&self, mark: Mark) -> usize {
        if mark.moves == self.moves {
            let gone = (self.popped - mark.popped) as usize;
            mark.at.saturating_sub(gone).min(self.keys.len())
        } else {
            self.search_front(mark.key)
        }
    }

    /// The first live key at index `from` or after whose chunk passes
    /// `pred`, with its index.
    pub fn find_from(&self, from: usize, mut pred: impl FnMut(u32) -> bool) -> Option<(usize, (u64, u32))> {
        let rest = self.keys.range(from..).enumerate();
        rest.filter(|(_, e)| e.alive && pred(e.chunk)).map(|(i, e)| (from + i, e.of())).next()
    }

    /// A mark before the key `found` ([`Self::find_from`]), or at the end.
    pub fn mark(&self, found: Option<(usize, (u64, u32))>) -> Mark {
        let (at, key) = found.unwrap_or((self.keys.len(), (u64::MAX, u32::MAX)));
        Mark { key, moves: self.moves, popped: self.popped, at }
    }

    /// Index of the first key not below `k`, galloping from the front.
    fn search_front(&self, k: (u64, u32)) -> usize {
        let n = self.keys.len();
        let mut hi = 1;
        while hi < n && self.keys[hi].of() < k {
            hi *= 2;
        }
        self.bisect(k, hi / 2, hi.min(n))
    }

    /// Index of the first key not below `k`, galloping from the back.
    fn search_back(&self, k: (u64, u32)) -> usize {
        let n = self.keys.len();
        let mut back = 1;
        while back < n && self.keys[n - 1 - back].of() >= k {
            back *= 2;
        }
        self.bisect(k, n - back.min(n), n - back / 2)
    }

    /// Index of the first key not below `k` in `lo..hi` (every key before
    /// `lo` is below it, every key from `hi` on is not).
    fn bisect(&self, k: (u64, u32), mut lo: usize, mut hi: usize) -> usize {
        while lo < hi {
            let m = (lo + hi) / 2;
            if self.keys[m].of() < k {
                lo = m + 1;
            } else {
                hi = m;
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::{Mark, Order};

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

    /// An order of keys `(s, s)` for `s` in `0..n`.
    fn order_of(n: u64) -> Order {
        let mut o = Order::default();
        for s in 0..n {
            o.insert(s, s as u32);
        }
        o
    }

    /// A key removed from the middle stays as a tombstone; inserted again,
    /// it comes back to life in place instead of joining beside it.
    #[test]
    fn a_key_inserted_again_revives_its_tombstone() {
        let mut o = order_of(10);
        o.remove(5, 5);
        assert_eq!((o.keys.len(), o.dead), (10, 1));
        o.insert(5, 5);
        assert_eq!((o.keys.len(), o.dead), (10, 0));
        assert_eq!(o.iter().collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
    }

    /// Tombstones never stay at either end: removing the newest keys pops
    /// them and every tombstone they uncover, as removing the oldest does.
    #[test]
    fn the_ends_are_always_live_keys() {
        let mut o = order_of(10);
        o.remove(7, 7);
        o.remove(8, 8);
        assert_eq!((o.keys.len(), o.dead), (10, 2));
        o.remove(9, 9);
        assert_eq!((o.keys.len(), o.dead, o.popped), (7, 0, 0), "9 popped, then the tombstones of 8 and 7");
        o.remove(1, 1);
        o.remove(0, 0);
        assert_eq!((o.keys.len(), o.dead, o.popped), (5, 0, 2));
        assert_eq!(o.iter().collect::<Vec<_>>(), vec![2, 3, 4, 5, 6]);
    }

    /// A removal names a live key; one that is absent, or already removed,
    /// is a caller's error and stops the run instead of removing another.
    #[test]
    #[should_panic(expected = "the entry is in the order")]
    fn removing_an_absent_key_is_refused() {
        let mut o = order_of(10);
        o.remove(4, 5);
    }

    #[test]
    #[should_panic(expected = "the entry is in the order")]
    fn removing_a_key_twice_is_refused() {
        let mut o = order_of(10);
        o.remove(4, 4);
        o.remove(4, 4);
    }

    /// The sweep runs exactly when the tombstones are more than 64 and
    /// more than the live keys: with 100 keys at the 65th removal from the
    /// middle (the 64 binds), with 200 at the 101st (the half binds).
    #[test]
    fn the_sweep_runs_at_its_bounds_exactly() {
        for (n, at) in [(100u64, 65usize), (200, 101)] {
            let mut o = order_of(n);
            for (i, s) in (1..n - 1).enumerate() {
                o.remove(s, s as u32);
                let removed = i + 1;
                if removed < at {
                    assert_eq!(
                        (o.keys.len(), o.dead),
                        (n as usize, removed),
                        "{n} keys, {removed} removed: no sweep yet"
                    );
                } else {
                    assert_eq!((o.keys.len(), o.dead), (n as usize - at, 0), "{n} keys: the sweep at {at}");
                    break;
                }
            }
        }
    }

    /// `find_from` passes over tombstones and chunks its predicate refuses,
    /// and gives the index of the key it finds.
    #[test]
    fn find_from_gives_the_first_live_key_that_passes() {
        let mut o = order_of(10);
        o.remove(3, 3);
        assert_eq!(o.find_from(2, |c| c != 2), Some((4, (4, 4))));
        assert_eq!(o.find_from(0, |c| c > 7), Some((8, (8, 8))));
        assert_eq!(o.find_from(9, |c| c < 9), None);
    }

    /// A mark kept across a sweep (which moves every key after a
    /// tombstone) finds its key by a search, not at its old index.
    #[test]
    fn a_mark_kept_across_a_sweep_finds_its_key() {
        let mut o = order_of(200);
        let mark = o.mark(o.find_from(0, |c| c == 150));
        for s in 1..=101 {
            o.remove(s, s as u32);
        }
        assert_eq!(o.dead, 0, "swept");
        let i = o.index_of(mark);
        assert_eq!((i, o.keys[i].of()), (49, (150, 150)));
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

    proptest::proptest! {
        /// Both gallops give the index a binary search over the whole order
        /// gives, for keys present, absent, before the first and after the last.
        #[test]
        fn gallops_find_what_a_binary_search_finds(
            sinces in proptest::collection::btree_set(0u64..2000, 0..300),
            probes in proptest::collection::vec(0u64..2100, 1..40),
        ) {
            let mut o = Order::default();
            for &s in &sinces {
                o.insert(s, 7);
            }
            for p in probes {
                for k in [(p, 0), (p, 7), (p, 9)] {
                    let want = o.keys.partition_point(|e| e.of() < k);
                    proptest::prop_assert_eq!(o.search_front(k), want, "front {:?}", k);
                    proptest::prop_assert_eq!(o.search_back(k), want, "back {:?}", k);
                }
            }
        }

        /// Wherever it was taken, and whatever happened since (keys off
        /// either end, from the middle, older keys inserted, sweeps), a
        /// mark at a key gives the index a search for its key gives, when
        /// its owner moves it back to a key inserted before it as the
        /// replica table does (`ReplicaTable::unsettle`): its own key may
        /// have left, and a key appended then may be below it.
        #[test]
        fn a_mark_gives_the_index_a_search_gives(ops in proptest::collection::vec((0u8..6, 0u64..400), 1..300)) {
            fn unsettle(marks: &mut [Mark], s: u64) {
                for m in marks.iter_mut().filter(|m| (s, 0) < m.key) {
                    *m = Mark::at_key((s, 0));
                }
            }
            let mut o = Order::default();
            let mut live: Vec<u64> = Vec::new();
            let mut serial = 0u64;
            let mut marks = Vec::new();
            for (what, x) in ops {
                match what {
                    0 | 1 => {
                        serial += 1;
                        let s = 10 * serial;
                        o.insert(s, 0);
                        live.push(s);
                        unsettle(&mut marks, s);
                    }
                    2 => {
                        // An older version, not on the tens.
                        let s = x * 7 + 1;
                        if s % 10 != 0 && !live.contains(&s) {
                            o.insert(s, 0);
                            live.push(s);
                            live.sort_unstable();
                            unsettle(&mut marks, s);
                        }
                    }
                    3 | 4 if !live.is_empty() => {
                        let s = if what == 3 { live[0] } else { live[x as usize % live.len()] };
                        o.remove(s, 0);
                        live.retain(|&v| v != s);
                    }
                    _ => {
                        let from = (x as usize).min(o.keys.len());
                        if let Some(found) = o.find_from(from, |_| true) {
                            marks.push(o.mark(Some(found)));
                        }
                    }
                }
                for m in &marks {
                    proptest::prop_assert_eq!(o.index_of(*m), o.search_front(m.key), "mark at {:?}", m.key);
                }
            }
        }

        /// A mark taken at a key finds that key's index again after keys
        /// leave the front, are appended, or are inserted and swept (the
        /// last two through a search by key).
        #[test]
        fn a_mark_finds_its_key_again(ops in proptest::collection::vec((0u8..4, 0u64..30), 1..200)) {
            let mut o = Order::default();
            let mut serial = 1000u64;
            for s in 0..100 {
                o.insert(s * 10, 0);
            }
            let mut live: Vec<u64> = (0..100).map(|s| s * 10).collect();
            let target = 500u64;
            let at = o.search_front((target, 0));
            let mark = o.mark(Some((at, (target, 0))));
            for (what, x) in ops {
                match what {
                    0 => {
                        serial += 1;
                        o.insert(serial * 10, 0);
                        live.push(serial * 10);
                    }
                    1 => {
                        // An older version, inserted before the end: after
                        // the target, or before it (which moves it).
                        let s = if x % 2 == 0 { target + 1 + x } else { target - 1 - x };
                        if !live.contains(&s) {
                            o.insert(s, 0);
                            live.push(s);
                            live.sort_unstable();
                        }
                    }
                    _ => {
                        // A removal other than the target's.
                        let s = live[x as usize % live.len()];
                        if s != target {
                            o.remove(s, 0);
                            live.retain(|&v| v != s);
                        }
                    }
                }
                let i = o.index_of(mark);
                proptest::prop_assert_eq!(o.keys[i].of(), (target, 0));
            }
        }
    }
}
