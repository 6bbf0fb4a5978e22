//! Before time 0: the stripes a trace needs mapped (`precondition.map_trace`)
//! and the optional warm-up, a timing-free replay of host writes through the
//! real FTL and GC.
//!
//! The warm-up writes each host page to its chunk and each touched stripe's
//! parity once per request, on the channel the chunk lives on (the stripe
//! channel placement), taking the channel's dies in turn (or the stripe's
//! die column, with rotating GC); a die collects
//! garbage before it takes a page whenever a plane is below the trigger, as
//! in the timed model. Nothing is read (pre-reads cost time, not space), so
//! read-disturb counts stay as preconditioning left them.

use crate::ftl::precondition::params::MapTrace;
use crate::ftl::precondition::Needed;
use crate::ftl::{Ftl, GcWork, OutOfSpace};
use crate::raid::stripe::StripeLayout;
use rainsim_trace::{Op, Request};
use serde::{Deserialize, Serialize};

/// What the warm-up did (the report's `warmup` section).
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct WarmupReport {
    /// What drove it: "trace" or "synthetic".
    pub workload: String,
    /// Host writes asked for, in multiples of the host-visible capacity.
    pub device_writes: f64,
    /// Host page writes replayed.
    pub host_pages: u64,
    /// Parity page writes.
    pub parity_pages: u64,
    /// Garbage collections.
    pub gc_count: u64,
    /// Valid pages moved by GC (wear levelling included).
    pub pages_moved: u64,
    /// Blocks erased.
    pub erases: u64,
    /// Pages moved per GC over the last tenth of the warm-up's GCs.
    pub moves_per_gc_last_tenth: f64,
    /// All programs / host page programs.
    pub waf: f64,
}

/// The stripes that must hold data at time 0 for `requests`.
pub fn needed_stripes(stripes: &StripeLayout, page_bytes: u32, mode: MapTrace, requests: &[Request]) -> Needed {
    let mut out = Needed { stripes: Vec::new(), pages: 0 };
    if mode == MapTrace::None || requests.is_empty() {
        return out;
    }
    let pb = page_bytes as u64;
    let lpns = stripes.logical_pages();
    let mut written = vec![0u64; lpns.div_ceil(64) as usize];
    let mut needed = vec![0u64; lpns.div_ceil(64) as usize];
    let mut stripe_set = vec![0u64; (stripes.stripes as u64).div_ceil(64) as usize];
    let bit = |v: &[u64], i: u64| v[(i / 64) as usize] >> (i % 64) & 1 == 1;
    for r in requests {
        let first = r.offset / pb;
        let last = ((r.offset + r.size.max(1) as u64 - 1) / pb).min(lpns.saturating_sub(1));
        for lpn in first..=last {
            let need = match (mode, r.op) {
                (MapTrace::Footprint, _) => true,
                (_, Op::Read) => !bit(&written, lpn),
                (_, Op::Write) => {
                    written[(lpn / 64) as usize] |= 1 << (lpn % 64);
                    false
                }
            };
            if need && !bit(&needed, lpn) {
                needed[(lpn / 64) as usize] |= 1 << (lpn % 64);
                out.pages += 1;
                let (s, _) = stripes.chunk_of_lpn(lpn);
                stripe_set[(s / 64) as usize] |= 1 << (s % 64);
            }
        }
    }
    // Word by word: the set is sparse and the device may hold tens of
    // millions of stripes.
    for (w, &bits) in stripe_set.iter().enumerate() {
        out.stripes.extend(crate::raid::replica_job::ones(bits).map(|b| w as u32 * 64 + b));
    }
    out
}

/// Writes the pages of `writes` (offset, size), cycling, until `target` host
/// pages are written; `on_gc(channel, work)` hears every collection.
pub fn replay(
    ftl: &mut Ftl,
    stripes: &StripeLayout,
    writes: &[(u64, u32)],
    page_bytes: u32,
    target: u64,
    on_gc: &mut dyn FnMut(u32, &GcWork),
) -> Result<WarmupReport, OutOfSpace> {
    let mut w = Writer { ftl, cursor: vec![0; stripes.channels as usize], rep: WarmupReport::default() };
    let mut moves_per_gc = Vec::new();
    let pb = page_bytes as u64;
    let dps = stripes.data_per_stripe() as u64;
    let mut i = 0usize;
    while w.rep.host_pages < target && !writes.is_empty() {
        let (offset, size) = writes[i % writes.len()];
        i += 1;
        let first = offset / pb;
        let last = (offset + size as u64 - 1) / pb;
        let mut lpn = first;
        while lpn <= last {
            let s = (lpn / dps) as u32;
            let end = ((s as u64 + 1) * dps - 1).min(last);
            for l in lpn..=end {
                let (_, chunk) = stripes.chunk_of_lpn(l);
                w.write(stripes, chunk, on_gc, &mut moves_per_gc)?;
                w.rep.host_pages += 1;
            }
            if stripes.parity {
                w.write(stripes, stripes.parity_chunk(s), on_gc, &mut moves_per_gc)?;
                w.rep.parity_pages += 1;
            }
            lpn = end + 1;
        }
    }
    let mut rep = w.rep;
    let tenth = &moves_per_gc[moves_per_gc.len() - moves_per_gc.len() / 10..];
    rep.moves_per_gc_last_tenth =
        if tenth.is_empty() { 0.0 } else { tenth.iter().map(|&m| m as f64).sum::<f64>() / tenth.len() as f64 };
    rep.waf = if rep.host_pages == 0 {
        0.0
    } else {
        (rep.host_pages + rep.parity_pages + rep.pages_moved) as f64 / rep.host_pages as f64
    };
    Ok(rep)
}

struct Writer<'a> {
    ftl: &'a mut Ftl,
    /// Next die to try, per channel (channel-local index).
    cursor: Vec<u32>,
    rep: WarmupReport,
}

impl Writer<'_> {
    /// Programs `chunk` on a die of the channel it lives on (or its home).
    fn write(
        &mut self,
        stripes: &StripeLayout,
        chunk: u32,
        on_gc: &mut dyn FnMut(u32, &GcWork),
        moves: &mut Vec<u32>,
    ) -> Result<(), OutOfSpace> {
        let lay = &self.ftl.layout;
        let ch = match self.ftl.lookup(chunk) {
            Some(ppn) => lay.channel_of(ppn),
            None => stripes.home_channel(chunk),
        };
        let (first, dpc) = (lay.first_die(ch), lay.dies_per_channel);
        let ppd = lay.planes_per_die;
        // A stripe bound to a die column (rotating GC) may use only that die.
        let column = stripes.column(stripes.stripe_of(chunk));
        let tries = if column.is_some() { 1 } else { dpc };
        for attempt in 0..tries {
            let local = column.unwrap_or((self.cursor[ch as usize] + attempt) % dpc);
            let die = first + local;
            // A die collects before it takes a page, as it would when idle;
            // the bound stops a plane whose victims are full from spinning.
            for _ in 0..2 * ppd {
                if self.ftl.die_needs_gc(die).is_none() {
                    break;
                }
                let Some(work) = self.ftl.collect_die(die)? else { break };
                self.rep.gc_count += 1;
                self.rep.pages_moved += work.moved as u64;
                self.rep.erases += work.erased as u64;
                moves.push(work.moved);
                on_gc(ch, &work);
            }
            if self.ftl.die_takes_writes(die) {
                let ppn = self.ftl.allocate(die)?;
                self.ftl.commit(chunk, ppn);
                self.cursor[ch as usize] = (local + 1) % dpc;
                return Ok(());
            }
        }
        Err(OutOfSpace { die: first })
    }
}

/// Optional warm-up: a timing-free replay of writes through the FTL and GC
/// before the run; statistics then start at zero, the histories policies
/// read (GC durations) do not.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Warmup {
    /// Host writes to replay, in multiples of the host-visible capacity; 0 = off.
    pub device_writes: f64,
    /// What drives it: the run's own trace (its writes, repeated) or the
    /// `[workload]` synthetic workload (its writes, another seed).
    pub workload: WarmupWorkload,
}

impl Default for Warmup {
    fn default() -> Self {
        Warmup { device_writes: 0.0, workload: WarmupWorkload::Trace }
    }
}

/// Source of the warm-up's writes.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WarmupWorkload {
    /// The writes of the replayed requests, cycled.
    Trace,
    /// The writes of the `[workload]` synthetic workload.
    Synthetic,
}

impl WarmupWorkload {
    /// The seed of the synthetic warm-up's writes: another stream than the
    /// run's own synthetic requests, whatever the seed (an XOR with a
    /// non-zero constant moves every seed).
    pub fn synthetic_seed(seed: u64) -> u64 {
        seed ^ 0x7761_726d
    }
}

#[cfg(test)]
mod tests {
    use super::{needed_stripes, replay, WarmupWorkload};
    use crate::ftl::precondition::params::MapTrace;
    use crate::raid::stripe::StripeLayout;
    use rainsim_trace::{Op, Request};

    #[test]
    fn needed_stripes_across_words_in_order() {
        // 3 data chunks + parity a stripe, 1 KiB pages: stripe s holds
        // pages 3s..3s+2. Stripes 0, 63, 64, 127 and 200 straddle words of
        // the stripe set; a read after a write of its page needs nothing.
        let l = StripeLayout::new(4, 4, true, 256);
        let r = |t: u64, page: u64, pages: u32, op| Request {
            time_ns: t,
            offset: page * 1024,
            size: pages * 1024,
            device: 0,
            op,
        };
        let reqs = [
            r(0, 600, 2, Op::Read),  // pages 600, 601: stripe 200
            r(1, 189, 6, Op::Read),  // pages 189..194: stripes 63, 64
            r(2, 381, 1, Op::Write), // page 381 (stripe 127) written first
            r(3, 381, 3, Op::Read),  // pages 381..383: 382, 383 needed, stripe 127
            r(4, 0, 1, Op::Read),    // stripe 0
            r(5, 600, 1, Op::Read),  // needed already
        ];
        let n = needed_stripes(&l, 1024, MapTrace::Reads, &reqs);
        assert_eq!(n.stripes, vec![0, 63, 64, 127, 200]);
        assert_eq!(n.pages, 2 + 6 + 2 + 1);
        let f = needed_stripes(&l, 1024, MapTrace::Footprint, &reqs);
        assert_eq!(f.stripes, vec![0, 63, 64, 127, 200]);
        assert_eq!(f.pages, 2 + 6 + 3 + 1);
        assert!(needed_stripes(&l, 1024, MapTrace::None, &reqs).stripes.is_empty());
    }

    /// 4 channels of 2 dies (8 blocks of 8 pages a die), RAID-5 stripes of
    /// 3 data chunks and parity, 4 KiB pages.
    fn device(stripes: u32) -> (crate::ftl::Ftl, StripeLayout) {
        (crate::testkit::small_ftl(4, 2, 1, stripes as u64 * 4), StripeLayout::new(4, 4, true, stripes))
    }

    /// Programs the blocks of `ftl` have taken since they were fresh.
    fn programs(ftl: &crate::ftl::Ftl) -> u64 {
        let ppb = ftl.layout.pages_per_block as u64;
        ftl.blocks.iter().map(|b| b.erases as u64 * ppb + b.written as u64).sum()
    }

    #[test]
    fn replay_writes_whole_requests_with_their_stripes_parity_until_the_target() {
        const P: u64 = 4096;
        let (mut ftl, l) = device(16);
        let mut gcs = 0;
        // Pages 0..2 (stripe 0's data), then page 3 alone (stripe 1) and
        // pages 5..6 (stripe 1 to 2): per cycle 6 host pages and 4 parity.
        let writes = [(0, 3 * P as u32), (3 * P, P as u32), (5 * P, 2 * P as u32)];
        let rep = replay(&mut ftl, &l, &writes, P as u32, 7, &mut |_, _| gcs += 1).unwrap();
        // A request is written whole: 7 pages asked, the second cycle's first
        // request ends at 9.
        assert_eq!((rep.host_pages, rep.parity_pages), (9, 1 + 1 + 2 + 1));
        assert_eq!((rep.gc_count, rep.pages_moved, rep.erases, gcs), (0, 0, 0, 0));
        assert_eq!(rep.waf, (9.0 + 5.0) / 9.0);
        assert_eq!(rep.moves_per_gc_last_tenth, 0.0);
        assert_eq!(programs(&ftl), 14);
        // Every chunk on its home channel, and each channel's dies take its
        // programs in turn: replayed by hand, the n-th program on a channel
        // goes to its die n mod 2, and a chunk sits where its last went.
        let mut on_channel = [0u32; 4];
        let mut last_die = std::collections::BTreeMap::new();
        let mut program = |chunk: u32| {
            let ch = l.home_channel(chunk);
            last_die.insert(chunk, ftl.layout.first_die(ch) + on_channel[ch as usize] % 2);
            on_channel[ch as usize] += 1;
        };
        for (offset, size) in writes.iter().chain(&writes[..1]) {
            let (first, last) = (offset / P, (offset + *size as u64 - 1) / P);
            let mut stripe = None;
            for lpn in first..=last {
                let (s, chunk) = l.chunk_of_lpn(lpn);
                if stripe.is_some_and(|t| t != s) {
                    program(l.parity_chunk(stripe.unwrap()));
                }
                stripe = Some(s);
                program(chunk);
            }
            program(l.parity_chunk(stripe.unwrap()));
        }
        // Stripe 0 whole, stripe 1 pages 3 and 5, stripe 2 page 6; each parity.
        assert_eq!(last_die.len(), 4 + 3 + 2);
        for (&chunk, &die) in &last_die {
            let ppn = ftl.lookup(chunk).expect("written");
            assert_eq!(ftl.layout.die_of(ppn), die, "chunk {chunk}");
        }
        assert!(on_channel.iter().any(|&n| n >= 3), "some die written twice: {on_channel:?}");
        // An exact target stops at it: one cycle is 6 host pages.
        let (mut ftl, l) = device(16);
        let rep = replay(&mut ftl, &l, &writes, P as u32, 6, &mut |_, _| ()).unwrap();
        assert_eq!((rep.host_pages, rep.parity_pages), (6, 4));
        // Nothing to replay, or a target of 0: nothing written.
        let rep = replay(&mut ftl, &l, &[], P as u32, 100, &mut |_, _| ()).unwrap();
        assert_eq!((rep.host_pages, rep.waf), (0, 0.0));
        let rep = replay(&mut ftl, &l, &writes, P as u32, 0, &mut |_, _| ()).unwrap();
        assert_eq!(rep.host_pages, 0);
        // Without parity, no parity pages.
        let mut plain = crate::testkit::small_ftl(4, 2, 1, 64);
        let rep =
            replay(&mut plain, &StripeLayout::new(4, 1, false, 64), &writes, P as u32, 6, &mut |_, _| ()).unwrap();
        assert_eq!((rep.host_pages, rep.parity_pages, rep.waf), (6, 0, 1.0));
    }

    #[test]
    fn replay_collects_garbage_and_counts_every_program() {
        const P: u64 = 4096;
        // 96 stripes (288 data pages, 384 chunks) on 4 × 2 × 64 = 512
        // pages, rewritten in a scattered order: the dies fill and collect
        // many times over, moving valid pages.
        let (mut ftl, l) = device(96);
        let writes: Vec<(u64, u32)> = (0..288).map(|i| ((i * 7 % 288) * P, P as u32)).collect();
        let (mut heard, mut heard_moved, mut heard_erased) = (0u64, 0u64, 0u64);
        let mut moves = Vec::new();
        let rep = replay(&mut ftl, &l, &writes, P as u32, 3_000, &mut |ch, w| {
            assert!(ch < 4);
            heard += 1;
            moves.push(w.moved as f64);
            heard_moved += w.moved as u64;
            heard_erased += w.erased as u64;
        })
        .unwrap();
        assert_eq!(rep.host_pages, 3_000);
        // One page a request: each its stripe's parity.
        assert_eq!(rep.parity_pages, 3_000);
        assert!(rep.gc_count > 10, "{rep:?}");
        assert_eq!((rep.gc_count, rep.pages_moved, rep.erases), (heard, heard_moved, heard_erased));
        // The last tenth of the GCs (rounded down), averaged.
        let tenth = &moves[moves.len() - moves.len() / 10..];
        assert!(tenth.len() >= 2 && tenth.len() < moves.len());
        assert_eq!(rep.moves_per_gc_last_tenth, tenth.iter().sum::<f64>() / tenth.len() as f64);
        assert!(rep.moves_per_gc_last_tenth > 0.0);
        // Conservation: every program the blocks took is a host page, a
        // parity page or a move.
        assert_eq!(programs(&ftl), rep.host_pages + rep.parity_pages + rep.pages_moved);
        assert_eq!(rep.waf, (3_000.0 + 3_000.0 + rep.pages_moved as f64) / 3_000.0);
        // Every chunk is mapped exactly once, and the blocks' valid counts
        // say so.
        let valid: u64 = ftl.blocks.iter().map(|b| b.valid as u64).sum();
        assert_eq!(valid, 384);
        assert!((0..384).all(|c| ftl.lookup(c).is_some()));
    }

    /// A die whose victims are nearly full gains no free block by
    /// collecting (each victim's pages take a block for each it frees): the
    /// write's die collects twice per plane, no more, then takes the page;
    /// it never spins. One die of one and of two planes.
    #[test]
    fn a_die_of_nearly_full_victims_collects_twice_a_plane_then_stops() {
        const P: u32 = 4096;
        for ppd in [1u32, 2] {
            let mut ftl = crate::testkit::small_ftl(1, 1, ppd, 512);
            let ppb = ftl.layout.pages_per_block;
            // Pages left in plane p's open block (none without one).
            let room = |f: &crate::ftl::Ftl, p: u32| {
                f.planes[p as usize]
                    .active
                    .map_or(0, |b| ppb - f.blocks[(f.layout.first_block(p) + b) as usize].written as u32)
            };
            // Distinct chunks (none is chunk 0, the replayed page) until every
            // plane is below the trigger with one page left in its open block;
            // then every eighth chunk unmapped: victims of 6 or 7 valid pages
            // of 8.
            let mut chunk = 1;
            while (0..ppd).any(|p| !ftl.needs_gc(p) || room(&ftl, p) != 1) {
                let ppn = ftl.allocate(0).unwrap();
                ftl.commit(chunk, ppn);
                chunk += 1;
            }
            for c in (1..chunk).step_by(8) {
                ftl.trim(c);
            }
            let mut heard = Vec::new();
            let rep = replay(&mut ftl, &StripeLayout::new(1, 1, false, 512), &[(0, P)], P, 1, &mut |_, w| {
                heard.push((w.moved, w.erased))
            });
            assert_eq!(heard.len() as u32, 2 * ppd, "{ppd} planes a die: {heard:?}");
            assert!(heard.iter().all(|&(moved, erased)| (6..8).contains(&moved) && erased == 1), "{heard:?}");
            assert!(ftl.die_needs_gc(0).is_some(), "still below the trigger: the bound stopped it");
            // The page is written all the same (the plane keeps a reserve).
            assert_eq!(rep.expect("room for the page").host_pages, 1);
            assert!(ftl.lookup(0).is_some());
        }
    }

    #[test]
    fn the_synthetic_warm_up_never_replays_the_runs_own_stream() {
        for seed in [0, 1, 42, 0x7761_726d, u64::MAX] {
            assert_ne!(WarmupWorkload::synthetic_seed(seed), seed, "seed {seed}");
        }
    }
}
