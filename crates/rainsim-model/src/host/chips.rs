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
