//! Which chips a host request touches and what waits for each chip
//! (vios-variation-aware-scheduler §3.2): the chip set A_r of Eq. 1, its
//! channel set, the global chip-state vector NR of Eq. 2, and the conflict
//! count of Table 1.
//!
//! ```text
//!  A_r = { μ | μ = (page index of each page of r) mod ChipNum }      (Eq. 1)
//!  chip μ: channel μ mod C, chip ⌊μ / C⌋ of that channel (channel-level parallelism first)
//!  NR_μ += 1 when r waits at the host, −= 1 when it is issued        (Eq. 2)
//! ```
//!
//! A "chip" here is rainsim's die (the unit that runs one operation at a
//! time; the paper's chips have one die in use, §2.1). Sets are bit words, so
//! an intersection is a few ANDs; chips beyond [`ChipSet::BITS`] share bits
//! (a conservative over-estimate of conflicts), the NR vector stays exact.

use crate::flash::address::Layout;

/// A set of chips (or channels) as bits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChipSet([u64; 4]);

impl ChipSet {
    /// Distinct members a set can hold.
    pub const BITS: u32 = 256;

    /// The empty set.
    pub const EMPTY: ChipSet = ChipSet([0; 4]);

    /// Adds `i` (folded into [`Self::BITS`]).
    #[inline]
    pub fn insert(&mut self, i: u32) {
        let i = i % Self::BITS;
        self.0[(i / 64) as usize] |= 1 << (i % 64);
    }

    /// Whether `i` is in the set.
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        let i = i % Self::BITS;
        self.0[(i / 64) as usize] & (1 << (i % 64)) != 0
    }

    /// Whether the sets share no member (A_conflict = ∅, Eq. 3).
    #[inline]
    pub fn disjoint(&self, o: &ChipSet) -> bool {
        (self.0[0] & o.0[0]) | (self.0[1] & o.0[1]) | (self.0[2] & o.0[2]) | (self.0[3] & o.0[3]) == 0
    }

    /// Adds every member of `o`.
    #[inline]
    pub fn union_with(&mut self, o: &ChipSet) {
        for (a, b) in self.0.iter_mut().zip(o.0) {
            *a |= b;
        }
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// The members, ascending.
    pub fn members(&self) -> impl Iterator<Item = u32> + '_ {
        (0..Self::BITS).filter(|&i| self.contains(i))
    }

    /// The set of `items`.
    pub fn of(items: &[u32]) -> ChipSet {
        let mut s = ChipSet::EMPTY;
        for &i in items {
            s.insert(i);
        }
        s
    }
}

/// The static channel-first mapping of Eq. 1 for one device.
#[derive(Debug, Clone)]
pub struct ChipMap {
    /// Bytes per page.
    pub page_bytes: u64,
    /// Channels C.
    pub channels: u32,
    /// Chips (dies) per channel.
    pub per_channel: u32,
}

impl ChipMap {
    /// The mapping of `layout`'s device.
    pub fn new(layout: &Layout) -> ChipMap {
        ChipMap {
            page_bytes: layout.page_bytes as u64,
            channels: layout.channels,
            per_channel: layout.dies_per_channel,
        }
    }

    /// ChipNum.
    pub fn chips(&self) -> u32 {
        self.channels * self.per_channel
    }

    /// Chip μ of logical page `lpn` (Eq. 1).
    #[inline]
    pub fn chip_of_lpn(&self, lpn: u64) -> u32 {
        (lpn % self.chips() as u64) as u32
    }

    /// The device's global die index of chip μ (channel μ mod C, chip ⌊μ/C⌋ in it).
    #[inline]
    pub fn die_of_chip(&self, mu: u32) -> u32 {
        (mu % self.channels) * self.per_channel + mu / self.channels
    }

    /// The global dies of the chips of `size` bytes at `offset`, each once.
    #[inline]
    pub fn dies(&self, offset: u64, size: u32) -> impl Iterator<Item = usize> + '_ {
        let first = offset / self.page_bytes;
        let last = (offset + size.max(1) as u64 - 1) / self.page_bytes;
        let pages = (last - first + 1).min(self.chips() as u64);
        (first..first + pages).map(|lpn| self.die_of_chip(self.chip_of_lpn(lpn)) as usize)
    }

    /// A_r and its channel set for `size` bytes at `offset` (at most one
    /// pass over the chips, however long the request).
    pub fn sets(&self, offset: u64, size: u32) -> (ChipSet, ChipSet) {
        let first = offset / self.page_bytes;
        let last = (offset + size.max(1) as u64 - 1) / self.page_bytes;
        let pages = (last - first + 1).min(self.chips() as u64);
        let (mut chips, mut channels) = (ChipSet::EMPTY, ChipSet::EMPTY);
        for lpn in first..first + pages {
            let mu = self.chip_of_lpn(lpn);
            chips.insert(mu);
            channels.insert(mu % self.channels);
        }
        (chips, channels)
    }
}

/// Conflicts of Table 1: requests that found, on arrival, a request waiting
/// for or being served by one of their chips.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConflictCounts {
    /// Reads that arrived.
    pub reads: u64,
    /// Writes that arrived.
    pub writes: u64,
    /// Reads in conflict.
    pub read_conflicts: u64,
    /// Writes in conflict.
    pub write_conflicts: u64,
}

impl ConflictCounts {
    /// Table 1's ratio: (read + write conflicts) / requests (0 without requests).
    pub fn ratio(&self) -> f64 {
        let n = self.reads + self.writes;
        if n == 0 {
            0.0
        } else {
            (self.read_conflicts + self.write_conflicts) as f64 / n as f64
        }
    }
}

/// Per chip, the requests waiting at the host (NR, Eq. 2) and those issued
/// and unfinished; and the conflict counts.
#[derive(Debug, Clone)]
pub struct ChipState {
    /// The mapping.
    pub map: ChipMap,
    /// NR by global die index.
    nr: Vec<u32>,
    /// Issued, unfinished requests by global die index.
    issued: Vec<u32>,
    /// Conflicts so far.
    pub conflicts: ConflictCounts,
}

impl ChipState {
    /// Nothing waiting on `map`'s chips.
    pub fn new(map: ChipMap) -> ChipState {
        let n = map.chips() as usize;
        ChipState { map, nr: vec![0; n], issued: vec![0; n], conflicts: ConflictCounts::default() }
    }

    /// NR by global die index.
    pub fn nr(&self) -> &[u32] {
        &self.nr
    }

    /// Issued, unfinished requests by global die index.
    pub fn issued(&self) -> &[u32] {
        &self.issued
    }

    /// A request arrives: counts it (and whether it conflicts), then it
    /// waits (`held`: NR += 1) or is issued at once.
    pub fn arrive(&mut self, offset: u64, size: u32, write: bool, held: bool) {
        let conflict = self.map.dies(offset, size).any(|d| self.nr[d] > 0 || self.issued[d] > 0);
        let c = &mut self.conflicts;
        if write {
            c.writes += 1;
            c.write_conflicts += conflict as u64;
        } else {
            c.reads += 1;
            c.read_conflicts += conflict as u64;
        }
        for d in self.map.dies(offset, size) {
            if held {
                self.nr[d] += 1;
            } else {
                self.issued[d] += 1;
            }
        }
    }

    /// A waiting request is issued: NR −= 1 on its chips.
    pub fn issue(&mut self, offset: u64, size: u32) {
        for d in self.map.dies(offset, size) {
            self.nr[d] -= 1;
            self.issued[d] += 1;
        }
    }

    /// An issued request completed.
    pub fn complete(&mut self, offset: u64, size: u32) {
        for d in self.map.dies(offset, size) {
            self.issued[d] -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// A chip set behaves as a set of its members folded into 256 bits:
        /// membership, the members listed, emptiness, disjointness and union
        /// against `BTreeSet`.
        #[test]
        fn a_chip_set_is_the_set_of_its_folded_members(
            a in proptest::collection::vec(0u32..700, 0..12),
            b in proptest::collection::vec(0u32..700, 0..12),
            probe in 0u32..700,
        ) {
            let fold = |v: &[u32]| v.iter().map(|&i| i % ChipSet::BITS).collect::<BTreeSet<u32>>();
            let (sa, sb) = (ChipSet::of(&a), ChipSet::of(&b));
            let (ma, mb) = (fold(&a), fold(&b));
            prop_assert_eq!(sa.contains(probe), ma.contains(&(probe % ChipSet::BITS)));
            prop_assert_eq!(sa.members().collect::<Vec<_>>(), ma.iter().copied().collect::<Vec<_>>());
            prop_assert_eq!(sa.is_empty(), ma.is_empty());
            prop_assert_eq!(sa.disjoint(&sb), ma.is_disjoint(&mb));
            let mut u = sa;
            u.union_with(&sb);
            prop_assert_eq!(u.members().collect::<BTreeSet<_>>(), &ma | &mb);
        }
    }

    /// Each of the four words holds its own 64 members; a set meeting
    /// another at the same bit of two words is not disjoint from it (the
    /// words' intersections are OR-ed, not XOR-ed).
    #[test]
    fn members_in_every_word_are_told_apart() {
        for (i, j) in [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)] {
            let s = ChipSet::of(&[64 * i + 5, 64 * j + 5]);
            assert!(!s.disjoint(&s) && !s.disjoint(&ChipSet::of(&[64 * j + 5])), "words {i} and {j}");
        }
        for i in [0, 63, 64, 127, 128, 191, 192, 255] {
            let s = ChipSet::of(&[i]);
            assert_eq!(s.members().collect::<Vec<_>>(), vec![i]);
            for j in [0, 63, 64, 127, 128, 191, 192, 255] {
                assert_eq!(s.contains(j), i == j, "{i} {j}");
                assert_eq!(s.disjoint(&ChipSet::of(&[j])), i != j, "{i} {j}");
            }
        }
    }

    /// Eq. 1 on 4 channels of 2 chips, by hand: chip μ = lpn mod 8 lies on
    /// channel μ mod 4, chip ⌊μ/4⌋ there (global die 2·(μ mod 4) + ⌊μ/4⌋).
    fn map() -> ChipMap {
        ChipMap { page_bytes: 4096, channels: 4, per_channel: 2 }
    }

    #[test]
    fn eq1_maps_pages_to_chips_channel_first() {
        let m = map();
        assert_eq!(m.chips(), 8);
        let dies: Vec<u32> = (0..8).map(|mu| m.die_of_chip(mu)).collect();
        assert_eq!(dies, [0, 2, 4, 6, 1, 3, 5, 7]);
        assert_eq!((m.chip_of_lpn(13), m.chip_of_lpn(16)), (5, 0));
        // Pages 6, 7 and 8 (one byte into page 6 to one byte into page 8).
        let (off, size) = (6 * 4096 + 1, 2 * 4096 + 1);
        assert_eq!(m.dies(off, size).collect::<Vec<_>>(), [5, 7, 0]);
        let (chips, channels) = m.sets(off, size);
        assert_eq!(chips.members().collect::<Vec<_>>(), [0, 6, 7]);
        assert_eq!(channels.members().collect::<Vec<_>>(), [0, 2, 3]);
        // A request ending on a page boundary does not reach the next page.
        let (chips, channels) = m.sets(4096, 2 * 4096);
        assert_eq!(
            (chips.members().collect::<Vec<_>>(), channels.members().collect::<Vec<_>>()),
            (vec![1, 2], vec![1, 2])
        );
        assert_eq!(m.dies(4096, 2 * 4096).collect::<Vec<_>>(), [2, 4]);
        // A request of 20 pages touches each chip once; one of 0 bytes, its page.
        assert_eq!(m.dies(4096, 20 * 4096).collect::<BTreeSet<_>>(), (0..8).collect());
        assert_eq!(m.dies(4096, 20 * 4096).count(), 8);
        assert_eq!(m.dies(3 * 4096, 0).collect::<Vec<_>>(), [6]);
    }

    /// NR rises while a request waits and moves to issued when it goes; an
    /// arrival conflicts when one of its chips has either.
    #[test]
    fn chip_state_counts_waiting_issued_and_conflicts() {
        let mut s = ChipState::new(map());
        s.arrive(0, 4096, true, true); // chip 0 (die 0), held
        assert_eq!((s.nr()[0], s.issued()[0]), (1, 0));
        s.arrive(4096, 4096, false, false); // chip 1 (die 2): no conflict
        s.arrive(8 * 4096, 4096, false, false); // chip 0 again: waits behind the first
        assert_eq!(s.conflicts, ConflictCounts { reads: 2, writes: 1, read_conflicts: 1, write_conflicts: 0 });
        assert_eq!((s.nr()[0], s.issued()[0], s.issued()[2]), (1, 1, 1));
        s.issue(0, 4096);
        assert_eq!((s.nr()[0], s.issued()[0]), (0, 2));
        s.complete(0, 4096);
        s.complete(8 * 4096, 4096);
        s.complete(4096, 4096);
        assert!(s.nr().iter().chain(s.issued()).all(|&n| n == 0));
        assert!((s.conflicts.ratio() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(ConflictCounts::default().ratio(), 0.0);
        let c = ConflictCounts { reads: 3, writes: 1, read_conflicts: 1, write_conflicts: 1 };
        assert_eq!(c.ratio(), 0.5);
    }
}
