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
    fn replicate(&mut self, _view: &DeviceView, chunk: u32, _bytes: u32) -> bool {
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
#[path = "rep_raid_tests.rs"]
mod tests;
