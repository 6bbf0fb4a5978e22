//! The RAID nouns of a stripe write and its two parity-update routines:
//! where a stripe's chunks live ([`Member`]), RMW and RCW ([`Routine`]), and
//! the pre-read set of each ([`UpdatePlan`]), which the parity-update policy
//! chooses between.
//!
//! Pre-read sets, with W = positions written, E = positions ever written,
//! P = positions written only in part (page-level read-modify-write), p = parity:
//! - full stripe (W = all data positions, P = ∅): none;
//! - RMW: (W ∩ E) ∪ ({p} ∩ E) — old data being replaced and old parity;
//! - RCW: ((data ∖ W) ∩ E) ∪ (P ∩ E) — the rest of the stripe, plus old pages
//!   that are only partly overwritten (they must be merged).
//!
//! - degraded update (a placement policy moved the one chunk written to a
//!   channel outside the stripe): every other written chunk, parity included —
//!   the old chunk is rebuilt from them instead of read from its busy channel.
//!

use crate::raid::stripe::ChunkId;

/// Where one existing chunk of a stripe lives now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// Chunk id.
    pub chunk: ChunkId,
    /// Its current physical page.
    pub ppn: u32,
    /// Die holding that page.
    pub die: u32,
    /// Channel of that die.
    pub channel: u32,
}

/// A single-chunk update of a written stripe, as the placement policy sees it.
#[derive(Debug, Clone, Copy)]
pub struct ChunkUpdate<'a> {
    /// The chunk being overwritten, where its old version lives.
    pub target: Member,
    /// The stripe's other written chunks, parity included.
    pub partners: &'a [Member],
    /// Channels free of the stripe: none of its chunks lives there and no
    /// unwritten position of it has its home there.
    pub outside: &'a [u32],
}

/// Parity update routine for a partial-stripe write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Routine {
    /// Read-modify-write: pre-read the old chunks being written and the old parity.
    Rmw,
    /// Reconstruct-write: pre-read the data chunks not being written.
    Rcw,
}

/// A partial-stripe write as the parity-update policy sees it.
#[derive(Debug, Clone, Copy)]
pub struct UpdatePlan<'a> {
    /// Stripe number.
    pub stripe: u32,
    /// Positions RMW must pre-read (bit j = position j).
    pub rmw: u64,
    /// Positions RCW must pre-read.
    pub rcw: u64,
    /// Positions being written.
    pub written: u64,
    /// Where each position lives now (`None`: never written), by position.
    pub at: &'a [Option<Member>],
}

impl UpdatePlan<'_> {
    /// The routine with fewer pre-reads; a tie goes to RCW, as Linux md's
    /// `handle_stripe_dirtying` does (RMW only if rmw < rcw).
    pub fn fewest(&self) -> Routine {
        if positions(self.rmw) < positions(self.rcw) {
            Routine::Rmw
        } else {
            Routine::Rcw
        }
    }
}

/// How many positions `mask` holds (`count_ones`). Baseline x86-64 has no
/// popcount instruction and the library's bit count takes a dozen; a stripe
/// job counts its sets several times, so stripes of up to 8 positions (every
/// stripe of the papers) take a table.
#[inline(always)]
pub fn positions(mask: u64) -> u32 {
    const ONES: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = (i as u32).count_ones() as u8;
            i += 1;
        }
        t
    };
    match ONES.get(mask as usize) {
        Some(&n) => n as u32,
        None => mask.count_ones(),
    }
}

/// Bit mask of the data positions of a stripe of `width` with parity at `parity_pos`.
pub fn data_mask(width: u32, parity_pos: u32) -> u64 {
    let all = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    all & !(1u64 << parity_pos)
}

/// The pre-read sets of both routines for a stripe write (module docs give the
/// rule). A full-stripe write has both sets empty.
pub fn plan_stripe_write<'a>(
    parity_pos: u32,
    stripe: u32,
    written: u64,
    partial: u64,
    at: &'a [Option<Member>],
) -> UpdatePlan<'a> {
    let exists = at.iter().enumerate().filter(|(_, m)| m.is_some()).fold(0u64, |e, (j, _)| e | 1 << j);
    let (rmw, rcw) = prereads(at.len() as u32, parity_pos, written, partial, exists);
    UpdatePlan { stripe, rmw, rcw, written, at }
}

/// The (RMW, RCW) pre-read sets of a write of `written` (`partial` of them in
/// part) to a stripe of `width` whose positions `exists` hold data: RMW reads
/// the old written chunks and the parity, RCW the data not written and the
/// pages written in part; only positions that exist are read, and a
/// full-stripe write reads nothing.
pub fn prereads(width: u32, parity_pos: u32, written: u64, partial: u64, exists: u64) -> (u64, u64) {
    let data = data_mask(width, parity_pos);
    // Written pages are data pages and pages written in part are written:
    // the sets below are then unions of disjoint sets.
    debug_assert!(written & !data == 0 && partial & !written == 0, "written {written:#b}, partial {partial:#b}");
    if written == data && partial == 0 {
        return (0, 0);
    }
    ((written | 1u64 << parity_pos) & exists, ((data & !written) | partial) & exists)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[u32]) -> u64 {
        v.iter().map(|&b| 1u64 << b).sum()
    }

    /// Six positions, those in `mask` written (on channel = position).
    fn at(mask: u64) -> Vec<Option<Member>> {
        (0..6u32).map(|j| (mask & 1 << j != 0).then_some(Member { chunk: j, ppn: j, die: j, channel: j })).collect()
    }

    /// A 5+1 stripe with parity at position 5, every chunk already written.
    #[test]
    fn rmw_and_rcw_sets_for_a_5_plus_1_stripe() {
        let all = at(bits(&[0, 1, 2, 3, 4, 5]));
        let some = at(bits(&[3, 5]));
        // One chunk (d0): RMW reads d0 + P (2), RCW reads d1..d4 (4).
        let p = plan_stripe_write(5, 0, bits(&[0]), 0, &all);
        assert_eq!((p.rmw, p.rcw), (bits(&[0, 5]), bits(&[1, 2, 3, 4])));
        assert_eq!(p.fewest(), Routine::Rmw);
        // Three chunks: RMW 4, RCW 2.
        let p = plan_stripe_write(5, 0, bits(&[0, 1, 2]), 0, &all);
        assert_eq!((p.rmw, p.rcw), (bits(&[0, 1, 2, 5]), bits(&[3, 4])));
        assert_eq!(p.fewest(), Routine::Rcw);
        // Two chunks: 3 vs 3, a tie goes to RCW (Linux md).
        let p = plan_stripe_write(5, 0, bits(&[1, 2]), 0, &all);
        assert_eq!((p.rmw.count_ones(), p.rcw.count_ones()), (3, 3));
        assert_eq!(p.fewest(), Routine::Rcw);
        // Half of d0: RCW must also read old d0 to merge the page.
        let p = plan_stripe_write(5, 0, bits(&[0]), bits(&[0]), &all);
        assert_eq!((p.rmw, p.rcw), (bits(&[0, 5]), bits(&[0, 1, 2, 3, 4])));
        // Full stripe: nothing to read.
        let p = plan_stripe_write(5, 0, bits(&[0, 1, 2, 3, 4]), 0, &all);
        assert_eq!((p.rmw, p.rcw), (0, 0));
        // Never-written chunks are zeros: no pre-read. Only d3 and P exist.
        let p = plan_stripe_write(5, 0, bits(&[0]), 0, &some);
        assert_eq!((p.rmw, p.rcw), (bits(&[5]), bits(&[3])));
        // Parity in the middle (position 2): data positions skip it.
        let p = plan_stripe_write(2, 0, bits(&[0, 1]), 0, &all);
        assert_eq!((p.rmw, p.rcw), (bits(&[0, 1, 2]), bits(&[3, 4, 5])));
    }

    /// `positions` is `count_ones`: every mask of up to 12 bits and random
    /// wider ones.
    #[test]
    fn positions_counts_the_bits() {
        for m in 0..4096u64 {
            assert_eq!(positions(m), m.count_ones(), "{m:#b}");
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            assert_eq!(positions(x), x.count_ones(), "{x:#b}");
            assert_eq!(positions(x >> 50), (x >> 50).count_ones());
        }
    }
}
