//! Verification mode: every chunk version carries a data token; parity holds
//! the XOR of its stripe's tokens. Reads must return the latest committed
//! version; at the end every stripe must be recoverable with any one channel
//! removed.

use crate::flash::address::{Layout, Ppn};
use crate::ftl::Ftl;
use crate::raid::stripe::StripeLayout;
pub use crate::token::{merged, token};

/// A broken invariant, with what was found.
#[derive(Debug, thiserror::Error)]
#[error("verification failed at t = {time_ns} ns: {what}")]
pub struct VerifyError {
    /// Simulated time of the check.
    pub time_ns: u64,
    /// What was wrong.
    pub what: String,
}

/// Token state: per physical page and per chunk (latest committed).
pub struct Verifier {
    page_token: Vec<u32>,
    chunk_token: Vec<u32>,
}

impl Verifier {
    /// Tokens for the preconditioned state: data chunks get fresh tokens and
    /// each written stripe's parity the XOR of them.
    pub fn new(ftl: &Ftl, stripes: &StripeLayout) -> Verifier {
        let mut v =
            Verifier { page_token: vec![0; ftl.layout.pages() as usize], chunk_token: vec![0; ftl.map.chunks()] };
        for s in 0..stripes.stripes {
            let mut parity = 0u32;
            for j in 0..stripes.width {
                let c = s * stripes.width + j;
                if stripes.is_parity(c) {
                    continue;
                }
                if let Some(p) = ftl.lookup(c) {
                    let t = token(u64::MAX - s as u64, j);
                    v.page_token[p as usize] = t;
                    v.chunk_token[c as usize] = t;
                    parity ^= t;
                }
            }
            if stripes.parity {
                let pc = stripes.parity_chunk(s);
                if let Some(p) = ftl.lookup(pc) {
                    v.page_token[p as usize] = parity;
                    v.chunk_token[pc as usize] = parity;
                }
            }
        }
        v
    }

    /// Checks a read of `chunk` at `ppn` and returns the token it reads.
    pub fn read(&self, ftl: &Ftl, chunk: u32, ppn: Ppn, now: u64) -> Result<u32, VerifyError> {
        let owner = ftl.map.owner(ppn);
        if owner != Some(chunk) {
            return Err(VerifyError {
                time_ns: now,
                what: format!("read of chunk {chunk} went to page {ppn}, which holds {owner:?}"),
            });
        }
        let got = self.page_token[ppn as usize];
        let want = self.chunk_token[chunk as usize];
        if got != want {
            return Err(VerifyError {
                time_ns: now,
                what: format!("read of chunk {chunk} returned version token {got:#x}, latest written is {want:#x}"),
            });
        }
        Ok(got)
    }

    /// Records that `chunk`'s latest version is `token`, held by no page (a
    /// write absorbed in parity while its channel is failed).
    pub fn write_lost(&mut self, chunk: u32, token: u32) {
        self.chunk_token[chunk as usize] = token;
    }

    /// Records that `ppn` now holds `token` for `chunk` (program committed).
    pub fn write(&mut self, chunk: u32, ppn: Ppn, token: u32) {
        self.page_token[ppn as usize] = token;
        self.chunk_token[chunk as usize] = token;
    }

    /// Records a committed data program of version `serial` at position `pos`:
    /// `ppn` holds `got`, what the model computed. The chunk's latest version is
    /// what the verifier computes from its own record: a whole page is
    /// `token(serial, pos)`, a page written in part is that version merged over
    /// the chunk's previous latest version (page-level read-modify-write).
    pub fn write_data(&mut self, chunk: u32, ppn: Ppn, got: u32, serial: u64, pos: u32, partial: bool) {
        let c = chunk as usize;
        self.chunk_token[c] = if partial { merged(self.chunk_token[c], serial, pos) } else { token(serial, pos) };
        self.page_token[ppn as usize] = got;
    }

    /// [`Verifier::write_data`] for a chunk whose newest version before this
    /// write was `base` (held by its copies, not by its slot).
    #[allow(clippy::too_many_arguments)]
    pub fn write_data_over(&mut self, chunk: u32, ppn: Ppn, got: u32, serial: u64, pos: u32, partial: bool, base: u32) {
        self.chunk_token[chunk as usize] = base;
        self.write_data(chunk, ppn, got, serial, pos, partial);
    }

    /// `to`'s latest version becomes `from`'s (copies starting from their
    /// chunk's version; a copy taking its chunk's slot).
    pub fn alias(&mut self, to: u32, from: u32) {
        self.chunk_token[to as usize] = self.chunk_token[from as usize];
    }

    /// Ids `a` and `b` exchange their latest versions (copies relabelled).
    pub fn swap(&mut self, a: u32, b: u32) {
        self.chunk_token.swap(a as usize, b as usize);
    }

    /// Token a read of `ppn` returns (no check).
    pub fn peek(&self, ppn: Ppn) -> u32 {
        self.page_token[ppn as usize]
    }

    /// Token of the latest committed version of `chunk`.
    pub fn latest(&self, chunk: u32) -> u32 {
        self.chunk_token[chunk as usize]
    }

    /// GC moved a page.
    pub fn moved(&mut self, old: Ppn, new: Ppn) {
        self.page_token[new as usize] = self.page_token[old as usize];
    }

    /// Page accounting of every plane of `die`.
    pub fn check_accounting(ftl: &Ftl, die: u32, now: u64) -> Result<(), VerifyError> {
        let first = ftl.layout.first_plane(die);
        for plane in first..first + ftl.layout.planes_per_die {
            let (free, valid, invalid, total) = ftl.plane_accounting(plane);
            if free + valid + invalid != total {
                return Err(VerifyError {
                    time_ns: now,
                    what: format!(
                        "plane {plane}: free {free} + valid {valid} + invalid {invalid} != total {total} pages"
                    ),
                });
            }
        }
        Ok(())
    }

    /// Every mapped chunk's page holds its latest version (catches a lost
    /// merge or move even when no read follows it).
    /// Chunks `lost` says are on no channel (a channel failed) are checked
    /// by [`Verifier::check_stripes`], through their stripes.
    pub fn check_chunks(&self, ftl: &Ftl, lost: &dyn Fn(u32) -> bool, now: u64) -> Result<(), VerifyError> {
        for (c, &want) in self.chunk_token.iter().enumerate() {
            let Some(p) = ftl.lookup(c as u32) else { continue };
            if lost(c as u32) {
                continue;
            }
            let got = self.page_token[p as usize];
            if got != want {
                return Err(VerifyError {
                    time_ns: now,
                    what: format!("chunk {c} at page {p} holds version token {got:#x}, latest written is {want:#x}"),
                });
            }
        }
        Ok(())
    }

    /// Every written stripe: chunks on distinct channels, tokens XOR to zero
    /// (so any one lost chunk equals the XOR of the others). A stripe with a
    /// `lost` chunk (a failed channel's) must give it back: the XOR of the
    /// others is its latest version; with its parity lost, its data is whole.
    pub fn check_stripes(
        &self,
        ftl: &Ftl,
        layout: &Layout,
        stripes: &StripeLayout,
        lost: &dyn Fn(u32) -> bool,
        now: u64,
    ) -> Result<u64, VerifyError> {
        if !stripes.parity {
            return Ok(0);
        }
        let mut checked = 0;
        let mut used = vec![u32::MAX; layout.channels as usize];
        for s in 0..stripes.stripes {
            let mut x = 0u32;
            let mut any = false;
            let mut missing = None;
            for j in 0..stripes.width {
                let c = s * stripes.width + j;
                if lost(c) {
                    missing = Some(c);
                    any = true;
                    continue;
                }
                let Some(p) = ftl.lookup(c) else { continue };
                any = true;
                let ch = layout.channel_of(p) as usize;
                if used[ch] == s {
                    return Err(VerifyError {
                        time_ns: now,
                        what: format!("stripe {s} has two chunks on channel {ch}: losing it loses both"),
                    });
                }
                used[ch] = s;
                x ^= self.page_token[p as usize];
            }
            if let Some(c) = missing {
                checked += 1;
                if !stripes.is_parity(c) && x != self.chunk_token[c as usize] {
                    return Err(VerifyError {
                        time_ns: now,
                        what: format!(
                            "stripe {s} cannot give back its lost chunk {c}: the XOR of the others is {x:#x}, its \
                             latest version {:#x}",
                            self.chunk_token[c as usize]
                        ),
                    });
                }
            } else if any {
                checked += 1;
                if x != 0 {
                    return Err(VerifyError {
                        time_ns: now,
                        what: format!(
                            "stripe {s} is not recoverable: parity != XOR of its data chunks (residue {x:#x})"
                        ),
                    });
                }
            }
        }
        Ok(checked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::small_ftl;

    /// Versions must get distinct tokens, or a stale read can pass unseen:
    /// 80,000 tokens (serials 1..=20,000 at 4 positions) collide at most a
    /// few times, as 31 random bits do (about 1.5 expected), and their bits
    /// are balanced (15.5 of 31 set on average).
    #[test]
    fn tokens_look_random() {
        let mut t: Vec<u32> = (1..=20_000u64).flat_map(|s| (0..4).map(move |p| token(s, p))).collect();
        let ones = t.iter().map(|x| (x >> 1).count_ones() as f64).sum::<f64>() / t.len() as f64;
        assert!((ones - 15.5).abs() < 0.2, "mean bits set {ones}");
        t.sort_unstable();
        let n = t.len();
        t.dedup();
        assert!(n - t.len() <= 10, "{} collisions", n - t.len());
        assert!(t.iter().all(|&x| x & 1 == 1), "never 0");
    }

    /// Every input bit reaches the token (a strict avalanche): flipping
    /// any one bit of the serial (its low 40) or of the position changes
    /// each of the token's 31 free bits about half the time. A mixer whose
    /// bits only move upwards leaves the low bits blind to the serial's
    /// high ones, so versions 2^26 apart could share a token.
    #[test]
    fn each_token_bit_depends_on_every_input_bit() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let inputs: Vec<(u64, u32)> =
            (0..400).map(|_| (rng.random_range(0..1u64 << 40), rng.random_range(0..64))).collect();
        let flips = (0..40).map(|b| (1u64 << b, 0)).chain((0..6).map(|b| (0, 1u32 << b)));
        for (ds, dp) in flips {
            let mut changed = [0u32; 31];
            for &(s, p) in &inputs {
                let d = (token(s, p) ^ token(s ^ ds, p ^ dp)) >> 1;
                for (bit, c) in changed.iter_mut().enumerate() {
                    *c += d >> bit & 1;
                }
            }
            // Binomial(400, 1/2): sd 10; ±60 is six of them.
            for (bit, &c) in changed.iter().enumerate() {
                assert!(
                    (140..=260).contains(&c),
                    "serial ^ {ds:#x}, pos ^ {dp}: token bit {} flipped {c} of 400 times",
                    bit + 1
                );
            }
        }
    }

    /// The accounting check looks at every plane of the die it is given and
    /// no other: a fresh FTL balances (free = total); one invalid page too
    /// many on die 0's second plane fails die 0's check, naming the plane and
    /// its counts, and not die 1's.
    #[test]
    fn accounting_fails_on_the_die_whose_plane_does_not_balance() {
        let mut ftl = small_ftl(1, 2, 2, 16);
        for die in 0..2 {
            assert!(Verifier::check_accounting(&ftl, die, 0).is_ok());
        }
        ftl.planes[1].invalid += 1;
        let e = Verifier::check_accounting(&ftl, 0, 5).expect_err("plane 1 does not balance");
        assert_eq!((e.time_ns, e.what.as_str()), (5, "plane 1: free 64 + valid 0 + invalid 1 != total 64 pages"));
        assert!(Verifier::check_accounting(&ftl, 1, 5).is_ok());
    }

    /// A stripe with a lost chunk is checked through its others: a 2+1
    /// stripe, each chunk on its own channel, gives back a lost data chunk
    /// as the XOR of the others (1 stripe checked); a data chunk whose latest
    /// version is not that XOR fails the check; a lost parity leaves the data
    /// whole, with nothing to give back.
    #[test]
    fn a_stripe_with_a_lost_chunk_must_give_it_back() {
        let stripes = StripeLayout::new(3, 3, true, 2);
        let mut ftl = small_ftl(3, 1, 1, stripes.chunks());
        let pp = stripes.parity_pos(0);
        let mut v = Verifier::new(&ftl, &stripes);
        let mut parity = 0;
        let mut pages = [0; 3];
        for pos in 0..3 {
            let ppn = ftl.allocate(stripes.channel(0, pos)).unwrap();
            ftl.commit(pos, ppn);
            pages[pos as usize] = ppn;
            if pos != pp {
                v.write(pos, ppn, token(1, pos));
                parity ^= token(1, pos);
            }
        }
        v.write(pp, pages[pp as usize], parity);
        let data = (pp + 1) % 3;
        let layout = ftl.layout.clone();
        let check = |v: &Verifier, lost: u32| v.check_stripes(&ftl, &layout, &stripes, &|c| c == lost, 9);
        assert_eq!(check(&v, data).unwrap(), 1);
        assert_eq!(check(&v, pp).unwrap(), 1);
        // The lost chunk's latest version moves on without its stripe.
        v.write(data, pages[data as usize], token(2, data));
        let e = check(&v, data).expect_err("the XOR of the others is the old version");
        assert!(e.what.starts_with(&format!("stripe 0 cannot give back its lost chunk {data}")), "{}", e.what);
    }

    /// A merged page depends on the old page it merged: different old
    /// contents give different tokens, and none equals the whole-page token;
    /// also for serials past 2^24 (a long run's), whose bits overlap the old
    /// page's in the mix.
    #[test]
    fn merged_tokens_depend_on_the_old_page() {
        let olds: Vec<u32> = (0..2_000u64).map(|s| token(s, 3)).chain([0]).collect();
        for serial in [7, 1 << 30 | 5, (1 << 56) - 1] {
            let mut m: Vec<u32> = olds.iter().map(|&o| merged(o, serial, 2)).collect();
            assert!(!m.contains(&token(serial, 2)), "serial {serial}");
            m.sort_unstable();
            m.dedup();
            assert!(m.len() >= olds.len() - 2, "serial {serial}: {} distinct of {}", m.len(), olds.len());
        }
    }
}
