//! Rep-RAID (Li et al., LCTES'23): an update of chunk i is replicated when
//! its update count in the current window reaches
//!
//! ```text
//!   f* = (δ·t̄_GC + α·t̄_Reorg − t̄_R) / (t_XOR + t_Soft)        (Eq. 2)
//! ```
//!
//! over a window of T* = T / f* requests (Eq. 3, T = 1024), with 2-bit
//! counters reset at each window; f* starts at 1 (every update replicates)
//! and is re-estimated after every GC (Alg. 1 line 16) and at each window.
//!
//! The paper gives no formula for its estimators; ours, per replicated chunk
//! |A| of the last completed window plus the current one:
//! - δ·t̄_GC = Σ t_GC · (moves of replication pages / all moves) / |A|, the
//!   GC time spent on old slots and copies;
//! - α·t̄_Reorg = Σ reorganisation service time / |A|;
//! - t̄_R = Σ (wait at the other copy − wait at the copy read) / |A|.
//!
//! f* is clamped to [1, 4]: 4 means nothing replicates (the counter stops at
//! 3), and |A| = 0 keeps f*. Counters carry the window's epoch beside the
//! count, so a window roll costs nothing; the epoch wraps after 16,383
//! windows, when the counters are swept once.

use super::replication::Replication;
use crate::device_state::DeviceView;
use crate::engine::SimTime;
use serde::{Deserialize, Serialize};

/// Parameters of Rep-RAID's model (`[policy.rep_raid]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RepRaidParams {
    /// Base window T in host requests (§3.2: 1024).
    pub window: u32,
    /// Initial threshold f* (§3.4: 1).
    pub initial_threshold: f64,
    /// Which copy may fill a stale slot at GC time.
    pub matching: Matching,
}

/// Which copy may fill a stale slot in a GC reorganisation (§3.3, Alg. 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Matching {
    /// A copy of any chunk on the stale slot's channel (Alg. 1 compares
    /// channels; Fig. 7(b) pairs R1 with D0): the two chunks swap slots
    /// through the stripe map (`raid/stripe_map.rs`).
    #[default]
    AnyChunk,
    /// Only the stale slot's own chunk's copy (ablation).
    SameChunk,
}

impl Default for RepRaidParams {
    fn default() -> Self {
        RepRaidParams { window: 1024, initial_threshold: 1.0, matching: Matching::AnyChunk }
    }
}

impl RepRaidParams {
    /// Whether every key is at its default (serde skip helper).
    pub fn is_default(&self) -> bool {
        *self == RepRaidParams::default()
    }
    /// Rejects values the model cannot work with.
    pub fn validate(&self) -> Result<(), String> {
        if self.window == 0 {
            return Err("policy.rep_raid.window must be at least 1 request".into());
        }
        if !(1.0..=4.0).contains(&self.initial_threshold) {
            return Err(format!(
                "policy.rep_raid.initial_threshold = {} must be between 1 and 4 (a 2-bit counter)",
                self.initial_threshold
            ));
        }
        Ok(())
    }
}

/// Sums of one window for the estimators.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct WindowSums {
    /// Chunks replicated.
    pub replicated: u64,
    /// GC time attributable to replication pages (ns).
    pub gc_ns: f64,
    /// Reorganisation service time (ns).
    pub reorg_ns: f64,
    /// Time saved by replica reads (ns).
    pub saved_ns: f64,
}

/// Eq. 2 on per-replicated-chunk estimates, clamped to [1, 4]; `None` when
/// nothing was replicated (f* stays).
pub fn threshold(s: &WindowSums, xor_plus_soft_ns: f64) -> Option<f64> {
    if s.replicated == 0 || xor_plus_soft_ns <= 0.0 {
        return None;
    }
    let a = s.replicated as f64;
    let f = (s.gc_ns / a + s.reorg_ns / a - s.saved_ns / a) / xor_plus_soft_ns;
    Some(f.clamp(1.0, 4.0))
}

/// The window length T* = T / f* (Eq. 3), at least one request.
pub fn window_len(t: u32, f: f64) -> u64 {
    ((t as f64 / f).round() as u64).max(1)
}

const EPOCHS: u16 = 1 << 14;
/// Counters in a 4 KiB page of memory.
const COUNTERS_PER_PAGE: usize = 4096 / std::mem::size_of::<u16>();

/// Rep-RAID's replication model.
pub struct RepRaid {
    window: u32,
    matching: Matching,
    f: f64,
    t_star: u64,
    requests: u64,
    window_start: u64,
    epoch: u16,
    /// Per chunk: epoch (14 bits) and count (2 bits).
    counters: Vec<u16>,
    /// One bit per 4 KiB page of memory under `counters` (the first is the
    /// page of its first byte): stored to since it was allocated. A page not
    /// stored to is all zero; the first access to it is a store (see
    /// [`Replication::replicate`]).
    written: Vec<u64>,
    last: WindowSums,
    current: WindowSums,
    xor_plus_soft_ns: f64,
    /// f* after every re-estimation: (host requests seen, f*).
    pub history: Vec<(u64, f64)>,
}

impl RepRaid {
    /// A model for `chunks` stripe chunks, with t_XOR + t_Soft from the controller.
    pub fn new(p: &RepRaidParams, chunks: u64, xor_plus_soft_ns: SimTime) -> Self {
        let f = p.initial_threshold;
        RepRaid {
            window: p.window,
            matching: p.matching,
            f,
            t_star: window_len(p.window, f),
            requests: 0,
            window_start: 0,
            epoch: 0,
            counters: vec![0; chunks as usize],
            // A table that does not start on a page boundary ends on the next page.
            written: vec![0; (chunks as usize / COUNTERS_PER_PAGE + 2).div_ceil(64)],
            last: WindowSums::default(),
            current: WindowSums::default(),
            xor_plus_soft_ns: xor_plus_soft_ns as f64,
            history: vec![(0, f)],
        }
    }

    /// The update count of `chunk` in the current window.
    pub fn count(&self, chunk: u32) -> u8 {
        let v = self.counters[chunk as usize];
        if v >> 2 == self.epoch {
            (v & 3) as u8
        } else {
            0
        }
    }

    /// The page of memory holding `chunk`'s counter, counted from the page of
    /// the table's first byte.
    fn page_of(&self, chunk: u32) -> usize {
        let base = self.counters.as_ptr() as usize;
        (base + chunk as usize * std::mem::size_of::<u16>()) / 4096 - base / 4096
    }

    /// Current window length T*.
    pub fn window_len(&self) -> u64 {
        self.t_star
    }

    fn reestimate(&mut self) {
        let both = WindowSums {
            replicated: self.last.replicated + self.current.replicated,
            gc_ns: self.last.gc_ns + self.current.gc_ns,
            reorg_ns: self.last.reorg_ns + self.current.reorg_ns,
            saved_ns: self.last.saved_ns + self.current.saved_ns,
        };
        if let Some(f) = threshold(&both, self.xor_plus_soft_ns) {
            if f != self.f {
                self.f = f;
                self.history.push((self.requests, f));
            }
            self.t_star = window_len(self.window, f);
        }
    }

    /// The request just counted opens a new window.
    fn roll(&mut self) {
        self.window_start = self.requests - 1;
        self.last = std::mem::take(&mut self.current);
        self.epoch += 1;
        if self.epoch == EPOCHS {
            // Once per 16,383 windows: no stale epoch may alias the new one.
            self.epoch = 0;
            self.counters.iter_mut().for_each(|c| *c = 0);
            self.epoch = 1;
        }
        self.reestimate();
    }
}

impl Replication for RepRaid {
    fn on_request(&mut self) {
        self.requests += 1;
        if self.requests - self.window_start > self.t_star {
            self.roll();
        }
    }
    fn prefetch(&self, chunks: std::ops::RangeInclusive<u32>) {
        // The counters (2 bytes a chunk, 64 MiB for a 128 GiB device) are
        // read at random: each a memory round trip when the write reaches
        // them, hidden when asked for as the request is read.
        let (first, last) = (*chunks.start() as usize, *chunks.end() as usize);
        if last >= self.counters.len() {
            return;
        }
        // A line's worth apart, and the last (the range need not start a line).
        let mut c = first;
        while c < last {
            crate::prefetch::line(&self.counters[c]);
            c += 32;
        }
        crate::prefetch::line(&self.counters[last]);
    }
    fn replicate(&mut self, _view: &DeviceView, chunk: u32, _bytes: u32) -> bool {
        // The table is left as the allocator gave it (untouched zero pages).
        // Read first, a page would be mapped to the kernel's shared zero page
        // and copied on the store after: a second fault, and in a process
        // running several devices (`compare`) a TLB shoot-down of every other
        // thread. So the first access to each page is a store of the zero
        // it holds.
        let page = self.page_of(chunk);
        let (word, bit) = (page / 64, 1u64 << (page % 64));
        if self.written[word] & bit == 0 {
            self.written[word] |= bit;
            // SAFETY: the index is in bounds (as `count` below checks); a
            // volatile store keeps it ahead of the load.
            let c = &mut self.counters[chunk as usize];
            unsafe { std::ptr::write_volatile(c, 0) };
        }
        let n = (self.count(chunk) + 1).min(3);
        self.counters[chunk as usize] = (self.epoch << 2) | n as u16;
        let yes = n as f64 >= self.f;
        self.current.replicated += yes as u64;
        yes
    }
    fn reorganizes(&self) -> bool {
        true
    }
    fn any_chunk(&self) -> bool {
        self.matching == Matching::AnyChunk
    }
    fn on_gc(&mut self, g: &super::replication::GcRoles) {
        if g.moved > 0 {
            self.current.gc_ns += g.dur_ns as f64 * g.moved_replication as f64 / g.moved as f64;
        }
        self.reestimate();
    }
    fn on_reorg(&mut self, ns: SimTime) {
        self.current.reorg_ns += ns as f64;
    }
    fn on_replica_read(&mut self, ns: SimTime) {
        self.current.saved_ns += ns as f64;
    }
    fn threshold(&self) -> Option<f64> {
        Some(self.f)
    }
    fn threshold_history(&self) -> Vec<(u64, f64)> {
        self.history.clone()
    }
}

#[cfg(test)]
mod tests {
    // Rep-RAID's estimators (what each GC, reorganisation and replica read adds
    // to Eq. 2), the two-window memory, the epoch wrap of the counters and the
    // parameter checks, each against numbers worked by hand.

    use super::*;
    use crate::policy::replication::GcRoles;
    use crate::testkit::Bench;

    const MS: f64 = 1e6;
    /// t_XOR + t_Soft of the tests: 1 ms, so f* reads in milliseconds.
    const XS: SimTime = 1_000_000;

    /// A model over 64 chunks with window T and initial f*.
    fn model(window: u32, f: f64) -> RepRaid {
        RepRaid::new(&RepRaidParams { window, initial_threshold: f, ..Default::default() }, 64, XS)
    }

    /// One replicated update of `chunk` in the current window (f* = 1).
    fn replicate_one(m: &mut RepRaid, chunk: u32) {
        let b = Bench::new(4, 1);
        assert!(m.replicate(&b.view(), chunk, 4096));
    }

    fn f(m: &RepRaid) -> f64 {
        m.threshold().unwrap()
    }

    /// The counters' cache hint changes nothing: a model asked to prefetch
    /// ranges (one reaching the last chunk, one past it, an empty one)
    /// answers every update as a twin never asked, with the same counts.
    #[test]
    fn prefetching_the_counters_changes_no_answer() {
        let (mut hinted, mut plain) = (model(1024, 2.0), model(1024, 2.0));
        let b = Bench::new(4, 1);
        for (k, chunk) in [3u32, 63, 3, 17, 63, 3, 0, 17].into_iter().enumerate() {
            hinted.prefetch(chunk..=chunk + 3);
            hinted.prefetch(60..=63);
            hinted.prefetch(62..=200);
            hinted.prefetch(std::ops::RangeInclusive::new(9, 8));
            let (h, p) = (hinted.replicate(&b.view(), chunk, 4096), plain.replicate(&b.view(), chunk, 4096));
            assert_eq!(h, p, "update {k} of chunk {chunk}");
            assert_eq!(hinted.count(chunk), plain.count(chunk));
        }
        assert!(plain.count(3) == 3 && plain.replicate(&b.view(), 3, 4096), "the run reached the threshold");
    }

    /// δ·t̄_GC is the GC's die time in proportion to the replication pages it
    /// moved: a 10 ms GC moving 8 pages, 6 of them replication pages, adds
    /// 7.5 ms; over 2 replicated chunks, f* = 3.75 / 1 ms.
    #[test]
    fn a_gc_adds_its_time_in_proportion_to_the_replication_pages_it_moved() {
        let mut m = model(1024, 1.0);
        replicate_one(&mut m, 1);
        replicate_one(&mut m, 2);
        m.on_gc(&GcRoles { dur_ns: 10_000_000, moved: 8, moved_replication: 6 });
        assert!((f(&m) - 3.75).abs() < 1e-12, "f* = {}", f(&m));
        assert_eq!(m.window_len(), 273, "T* = 1024 / 3.75 = 273.07");
        assert_eq!(m.threshold_history(), vec![(0, 1.0), (0, 3.75)]);
        // A GC that moved nothing adds no time (and no 0/0); the estimate is
        // unchanged and no new history point is written.
        m.on_gc(&GcRoles { dur_ns: 10_000_000, moved: 0, moved_replication: 0 });
        assert_eq!(f(&m), 3.75);
        assert_eq!(m.history.len(), 2, "history holds changes only");
    }

    /// α·t̄_Reorg adds, t̄_R subtracts, each per replicated chunk: 2 chunks,
    /// 5 ms of reorganisation, 1 ms saved and no GC give (2.5 − 0.5) / 1 ms = 2.
    #[test]
    fn reorganisation_time_adds_and_replica_read_savings_subtract() {
        let mut m = model(1024, 1.0);
        replicate_one(&mut m, 1);
        replicate_one(&mut m, 2);
        m.on_reorg(5_000_000);
        m.on_replica_read(1_000_000);
        m.on_gc(&GcRoles { dur_ns: 4_000_000, moved: 4, moved_replication: 0 });
        assert!((f(&m) - 2.0).abs() < 1e-12, "f* = {}", f(&m));
        assert_eq!(m.window_len(), 512);
    }

    /// The estimate covers the last completed window and the current one: a
    /// cost from window 1 still counts in window 2 and is gone in window 3.
    #[test]
    fn the_estimate_forgets_a_window_two_rolls_later() {
        let mut m = model(2, 1.0);
        m.on_request();
        replicate_one(&mut m, 1);
        m.on_reorg(3_000_000);
        m.on_gc(&GcRoles::default());
        assert_eq!(f(&m), 3.0, "3 ms over one chunk");
        assert_eq!(m.window_len(), 1, "T* = round(2 / 3) = 1");
        // Request 2 opens window 2 (2 − 0 > T* = 1): window 1 becomes the last.
        m.on_request();
        assert_eq!(m.count(1), 0, "a new window");
        let b = Bench::new(4, 1);
        let yes: Vec<bool> = (0..3).map(|_| m.replicate(&b.view(), 2, 4096)).collect();
        assert_eq!(yes, [false, false, true], "f* = 3: the third update replicates");
        m.on_gc(&GcRoles::default());
        assert_eq!(f(&m), 1.5, "3 ms over the two windows' two chunks");
        assert_eq!(m.window_len(), 1, "round(2 / 1.5) = 1");
        // Request 3 opens window 3: window 1 drops out, window 2 alone (one
        // chunk, no cost) gives 0, clamped to 1.
        m.on_request();
        assert_eq!(f(&m), 1.0);
        assert_eq!(m.threshold_history(), vec![(0, 1.0), (1, 3.0), (2, 1.5), (3, 1.0)]);
    }

    /// A window of T* requests: the (T* + 1)-th request opens the next one.
    #[test]
    fn a_window_holds_exactly_t_star_requests() {
        let mut m = model(3, 1.0);
        for _ in 0..3 {
            m.on_request();
        }
        replicate_one(&mut m, 9);
        assert_eq!(m.count(9), 1, "still the first window after 3 requests");
        m.on_request();
        assert_eq!(m.count(9), 0, "the 4th request rolled");
        replicate_one(&mut m, 9);
        for _ in 0..2 {
            m.on_request();
        }
        assert_eq!(m.count(9), 1, "requests 4-6 form the second window");
        m.on_request();
        assert_eq!(m.count(9), 0);
    }

    /// The counters' 14-bit epoch wraps after 16,383 windows: the sweep then
    /// clears every counter, so a count from 16,383 windows ago cannot come
    /// back, and counting goes on in the new epoch.
    #[test]
    fn counters_from_16383_windows_ago_do_not_come_back_after_the_epoch_wraps() {
        // T = 1, f* = 1: every request after the first opens a window.
        let mut m = model(1, 1.0);
        m.on_request();
        m.on_request();
        replicate_one(&mut m, 5);
        replicate_one(&mut m, 5);
        assert_eq!(m.count(5), 2);
        // Epoch 1 now; 16,383 more windows bring the epoch back to 1.
        for _ in 0..16_383 {
            m.on_request();
        }
        assert_eq!(m.epoch, 1, "wrapped to 1");
        assert_eq!(m.count(5), 0, "the sweep cleared the old epoch's count");
        replicate_one(&mut m, 5);
        assert_eq!(m.count(5), 1);
        // Counters of the last epoch before the wrap are swept too.
        let mut m = model(1, 1.0);
        m.on_request();
        for _ in 0..16_383 {
            m.on_request();
        }
        assert_eq!(m.epoch, EPOCHS - 1);
        replicate_one(&mut m, 7);
        m.on_request();
        assert_eq!((m.epoch, m.count(7)), (1, 0));
        assert!(m.counters.iter().all(|&c| c == 0));
    }

    /// The first store to each page of the counters (the zero it holds) never
    /// clears a count: random updates over 130 pages, across word and page
    /// boundaries and through window rolls, against counts kept in a map.
    #[test]
    fn counts_survive_the_first_store_to_each_page() {
        use rand::{RngExt, SeedableRng};
        let chunks = 130 * COUNTERS_PER_PAGE as u64 + 5;
        let mut m =
            RepRaid::new(&RepRaidParams { window: 500, initial_threshold: 4.0, ..Default::default() }, chunks, XS);
        let b = Bench::new(4, 1);
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let mut want = std::collections::HashMap::new();
        // Chunks at page and word edges first (the table need not start on a
        // page boundary), then anywhere.
        let first_on = |p: usize| (0..chunks).find(|&c| m.page_of(c as u32) == p).expect("the table spans the page");
        let (p1, p64) = (first_on(1), first_on(64));
        let edges = [0, p1 - 1, p1, p64 - 1, p64, chunks - 1];
        for i in 0..3_000u64 {
            m.on_request();
            if m.requests - m.window_start == 1 && i > 0 {
                want.clear();
            }
            let c = if i < 40 { edges[i as usize % edges.len()] } else { rng.random_range(0..chunks) } as u32;
            m.replicate(&b.view(), c, 4096);
            let n = want.entry(c).or_insert(0u8);
            *n = (*n + 1).min(3);
            let probe = edges[rng.random_range(0..edges.len())] as u32;
            assert_eq!(m.count(c), want[&c], "update {i}, chunk {c}");
            assert_eq!(m.count(probe), want.get(&probe).copied().unwrap_or(0), "update {i}, chunk {probe}");
        }
        assert!(m.window_start > 0, "the test crossed a window roll");
    }

    /// T* is at least one request, however large f* (T = 1, f* = 4: 0.25 → 1).
    #[test]
    fn the_window_is_at_least_one_request() {
        assert_eq!(window_len(1, 4.0), 1);
        assert_eq!(window_len(3, 2.0), 2, "1.5 rounds up");
        assert_eq!(window_len(5, 4.0), 1, "1.25 rounds down");
    }

    /// With no XOR or software time Eq. 2 has no denominator: f* stays.
    #[test]
    fn no_estimate_without_xor_or_software_time() {
        let s = WindowSums { replicated: 1, gc_ns: MS, ..Default::default() };
        assert_eq!(threshold(&s, 0.0), None);
        assert_eq!(threshold(&s, 1.0 * MS), Some(1.0));
        assert_eq!(threshold(&s, -1.0), None);
        assert_eq!(threshold(&s, 0.2 * MS), Some(4.0), "5, clamped");
    }

    #[test]
    fn parameters_outside_the_model_are_rejected() {
        let ok = RepRaidParams::default();
        assert!(ok.is_default() && ok.validate().is_ok());
        let zero = RepRaidParams { window: 0, ..Default::default() };
        assert!(!zero.is_default());
        assert!(zero.validate().unwrap_err().contains("window must be at least 1"));
        for t in [0.99, 4.01, f64::NAN] {
            let p = RepRaidParams { initial_threshold: t, ..Default::default() };
            assert!(p.validate().unwrap_err().contains("between 1 and 4"), "{t}");
        }
        for t in [1.0, 4.0] {
            assert!(RepRaidParams { initial_threshold: t, ..Default::default() }.validate().is_ok());
        }
        let same = RepRaidParams { matching: Matching::SameChunk, ..Default::default() };
        assert!(!same.is_default());
        assert!(model(4, 1.0).reorganizes() && model(4, 1.0).any_chunk());
        let m = RepRaid::new(&same, 4, XS);
        assert!(!m.any_chunk());
    }
}
