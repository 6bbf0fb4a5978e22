//! The DLS paper's cost models (next-wave-spec.md §3.a): per-request service
//! times (Eq. 1–7), channel and device delay (Eq. 8–10, 15) and remaining
//! life (Eq. 12).
//!
//! ```text
//!  T_commands = 7·T_bus                         (Eq. 2: 00h, 5 address cycles, 30h)
//!  T_data     = S_page·T_bus                    (Eq. 3)
//!  T_channel  = N·(T_commands + T_data)         (Eq. 1; Eq. 4 + Eq. 5 for reads)
//!  T_flash_w  = T_channel + T_PROG              (Eq. 6)
//!  T_flash_r  = T_channel + T_R                 (Eq. 7)
//!  delay_i    = T_end − T_arrive − T_time       (Eq. 9: the batch's wait)
//!  channel_delay = Σ delay_i over its batches   (Eq. 8)
//!  SSD_delay  = max over channels (Eq. 10), SSD_min_delay = min (Eq. 15)
//!  SSD_use_life = capacity·P/E / (W_daily·365)        (Eq. 11, years)
//!  SSD_life   = (capacity·P/E − W_total) / W_daily   (Eq. 12, days)
//! ```
//!
//! Choices the paper leaves open: a batch's end is predicted when it is
//! issued (Alg. 1 updates the state "asynchronously" at assignment) from a
//! per-channel bus and per-die busy-until time; which batches Eq. 8 sums is
//! `array.delay_scope`: by default the outstanding ones (a batch leaves its
//! channel's sum when the device reports it done), else every batch so far
//! or those issued in the last `array.delay_window_ns`; `W_daily` is the device's bytes
//! programmed (host, parity and GC moves) over the simulated days so far, and
//! a device that has written nothing has infinite life.

use super::params::DelayScope;
use crate::engine::SimTime;
use std::collections::VecDeque;

/// Service times of Eq. 1–7, in ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServiceTimes {
    /// T_bus: one byte on the bus.
    pub bus_ns: f64,
    /// T_commands (Eq. 2).
    pub commands_ns: f64,
    /// T_data (Eq. 3).
    pub data_ns: f64,
    /// T_channel_w = N·(T_commands + T_data) (Eq. 1), also a read's bus time (Eq. 4 + 5).
    pub channel_ns: f64,
    /// T_flash_w (Eq. 6).
    pub flash_w_ns: f64,
    /// T_flash_r (Eq. 7).
    pub flash_r_ns: f64,
}

impl ServiceTimes {
    /// The times for a bus of `mb_s` MB/s (bytes per µs), pages of
    /// `page_bytes`, `batch` requests at once (N), tR and tPROG.
    pub fn new(mb_s: u64, page_bytes: u32, batch: u32, read_ns: SimTime, program_ns: SimTime) -> Self {
        let bus_ns = 1000.0 / mb_s as f64;
        let commands_ns = 7.0 * bus_ns;
        let data_ns = page_bytes as f64 * bus_ns;
        let channel_ns = batch as f64 * (commands_ns + data_ns);
        ServiceTimes {
            bus_ns,
            commands_ns,
            data_ns,
            channel_ns,
            flash_w_ns: channel_ns + program_ns as f64,
            flash_r_ns: channel_ns + read_ns as f64,
        }
    }
}

/// Per-channel delay state of one device (Eq. 8–10, 15), fed with the
/// batches the array issues to it.
#[derive(Debug, Clone)]
pub struct ChannelDelays {
    /// Σ delay_i of the channel's batches in scope, ns.
    pub delay_ns: Vec<f64>,
    /// Predicted time the channel's bus is free.
    bus_free: Vec<f64>,
    /// Predicted time each die is free, channel-major.
    die_free: Vec<f64>,
    dies: usize,
    scope: DelayScope,
    window_ns: SimTime,
    /// Under a window: each channel's batches in it, (issued at, delay),
    /// oldest first.
    recent: Vec<VecDeque<(SimTime, f64)>>,
}

impl ChannelDelays {
    /// An idle device of `channels` channels of `dies` dies each, summing
    /// its outstanding batches.
    pub fn new(channels: u32, dies: u32) -> Self {
        let (c, d) = (channels as usize, dies.max(1) as usize);
        ChannelDelays {
            delay_ns: vec![0.0; c],
            bus_free: vec![0.0; c],
            die_free: vec![0.0; c * d],
            dies: d,
            scope: DelayScope::Outstanding,
            window_ns: 0,
            recent: Vec::new(),
        }
    }

    /// Dies a channel has in the model.
    pub fn dies(&self) -> usize {
        self.dies
    }

    /// The state summing the batches `scope` names (`window_ns`: the
    /// window of [`DelayScope::Window`]).
    pub fn with_scope(mut self, scope: DelayScope, window_ns: SimTime) -> Self {
        self.scope = scope;
        self.window_ns = window_ns;
        self.recent = if scope == DelayScope::Window { vec![VecDeque::new(); self.delay_ns.len()] } else { Vec::new() };
        self
    }

    /// Drops from the sums the batches issued a window or more before `now`
    /// (under [`DelayScope::Window`]; otherwise nothing to do).
    pub fn advance(&mut self, now: SimTime) {
        for c in 0..self.recent.len() {
            self.expire(c, now);
        }
    }

    fn expire(&mut self, c: usize, now: SimTime) {
        let q = &mut self.recent[c];
        while q.front().is_some_and(|&(at, _)| at.saturating_add(self.window_ns) <= now) {
            let (_, delay) = q.pop_front().expect("a front");
            self.delay_ns[c] -= delay;
        }
        // Exactly zero once empty: no rounding left over from the subtractions.
        if q.is_empty() {
            self.delay_ns[c] = 0.0;
        }
    }

    /// A batch arrives on `channel` at `now`: its predicted start is when
    /// the bus and its die allow; it waits `start − now` (Eq. 9), which
    /// joins the channel's sum (Eq. 8) and is returned, to be removed by
    /// [`ChannelDelays::done`] when the batch ends. Its die is `die` (a
    /// read's: where its data is, Alg. 1 line 15), else the channel's first
    /// free one (a program, taken by whichever die is free).
    pub fn issue(&mut self, channel: u32, die: Option<u32>, now: SimTime, write: bool, t: &ServiceTimes) -> f64 {
        let c = channel as usize;
        let issued = now;
        let now = now as f64;
        let dies = &mut self.die_free[c * self.dies..(c + 1) * self.dies];
        let (d, &free) = match die.filter(|&d| (d as usize) < dies.len()) {
            Some(d) => (d as usize, &dies[d as usize]),
            None => dies.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1)).expect("a channel has at least one die"),
        };
        let start = now.max(self.bus_free[c]).max(free);
        self.bus_free[c] = start + t.channel_ns;
        dies[d] = start + if write { t.flash_w_ns } else { t.flash_r_ns };
        let delay = start - now;
        if self.scope == DelayScope::Window {
            self.expire(c, issued);
            self.recent[c].push_back((issued, delay));
        }
        self.delay_ns[c] += delay;
        delay
    }

    /// A batch of `channel` that waited `delay` ended: it leaves the sum of
    /// the outstanding batches (the other scopes keep it).
    pub fn done(&mut self, channel: u32, delay: f64) {
        if self.scope != DelayScope::Outstanding {
            return;
        }
        let d = &mut self.delay_ns[channel as usize];
        *d = (*d - delay).max(0.0);
    }

    /// SSD_delay: the worst channel (Eq. 10).
    pub fn ssd_delay(&self) -> f64 {
        self.delay_ns.iter().copied().fold(0.0, f64::max)
    }

    /// SSD_min_delay: the best channel (Eq. 15).
    pub fn ssd_min_delay(&self) -> f64 {
        self.delay_ns.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

/// Remaining life in days by Eq. 12: `capacity_bytes`·`pe_limit` minus the
/// bytes written so far, over the daily write rate (bytes written over the
/// `elapsed_ns` simulated so far). Infinite when nothing was written yet.
pub fn life_days(capacity_bytes: u64, pe_limit: u32, written_bytes: u64, elapsed_ns: SimTime) -> f64 {
    if written_bytes == 0 || elapsed_ns == 0 {
        return f64::INFINITY;
    }
    let days = elapsed_ns as f64 / 86_400e9;
    let daily = written_bytes as f64 / days;
    (capacity_bytes as f64 * pe_limit as f64 - written_bytes as f64) / daily
}

/// Years of use by Eq. 11: `capacity_bytes`·`pe_limit` over the daily write
/// rate (as in [`life_days`]), over 365. It counts the life already used,
/// where Eq. 12 counts what is left: 365 × Eq. 11 − Eq. 12 is the time
/// elapsed, in days. Infinite when nothing was written yet.
pub fn use_life_years(capacity_bytes: u64, pe_limit: u32, written_bytes: u64, elapsed_ns: SimTime) -> f64 {
    if written_bytes == 0 || elapsed_ns == 0 {
        return f64::INFINITY;
    }
    let daily = written_bytes as f64 / (elapsed_ns as f64 / 86_400e9);
    capacity_bytes as f64 * pe_limit as f64 / (daily * 365.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DLS's setup: 50 MB/s (20 ns a byte), 2 KiB pages, N = 1, tR 20 µs,
    /// tPROG 200 µs: a page's bus time is 7·20 + 2048·20 = 41,100 ns and a
    /// program 241,100 ns.
    fn times() -> ServiceTimes {
        let t = ServiceTimes::new(50, 2048, 1, 20_000, 200_000);
        assert_eq!((t.channel_ns, t.flash_w_ns), (41_100.0, 241_100.0));
        t
    }

    /// Three programs issued at once to a channel of one die: the first
    /// starts at once, the second when the die is free (241,100 ns), the
    /// third at 482,200 ns. Returns their delays.
    fn three_programs(d: &mut ChannelDelays) -> [f64; 3] {
        let t = times();
        [0, 1, 2].map(|_| d.issue(0, None, 0, true, &t))
    }

    /// Each channel has its own dies: a program on channel 0's die 1 does
    /// not hold back a read of channel 1's die 1, and a die past the
    /// channel's count is taken as none given (the earliest free die).
    #[test]
    fn dies_belong_to_their_channel() {
        let t = times();
        let mut d = ChannelDelays::new(2, 2);
        assert_eq!(d.issue(0, Some(1), 0, true, &t), 0.0);
        assert_eq!(d.issue(1, Some(1), 0, false, &t), 0.0, "channel 1's die 1 is free");
        assert_eq!(d.issue(0, Some(1), 0, false, &t), 241_100.0, "channel 0's die 1 is not");
        // Channel 1: die 1 busy until 61,100 (its read), die 0 free, the bus
        // free at 41,100.
        assert_eq!(d.issue(1, Some(2), 0, false, &t), 41_100.0, "die 2 does not exist: die 0, after the bus");
    }

    #[test]
    fn outstanding_batches_leave_the_sum_when_done() {
        let mut d = ChannelDelays::new(1, 1);
        assert_eq!(three_programs(&mut d), [0.0, 241_100.0, 482_200.0]);
        assert_eq!(d.delay_ns[0], 723_300.0);
        d.done(0, 241_100.0);
        assert_eq!(d.delay_ns[0], 482_200.0);
        d.done(0, 482_200.0);
        d.done(0, 0.0);
        assert_eq!((d.ssd_delay(), d.ssd_min_delay()), (0.0, 0.0));
    }

    /// Under the outstanding scope only completion removes a batch: the
    /// array's `advance` before each choice leaves the sums alone, whatever
    /// window is configured.
    #[test]
    fn outstanding_batches_do_not_expire() {
        let mut d = ChannelDelays::new(1, 1).with_scope(DelayScope::Outstanding, 10);
        three_programs(&mut d);
        d.advance(u64::MAX / 2);
        assert_eq!(d.delay_ns[0], 723_300.0);
        d.done(0, 241_100.0);
        assert_eq!(d.delay_ns[0], 482_200.0);
    }

    #[test]
    fn cumulative_batches_stay_in_the_sum() {
        let mut d = ChannelDelays::new(1, 1).with_scope(DelayScope::Cumulative, 0);
        three_programs(&mut d);
        d.done(0, 241_100.0);
        d.advance(u64::MAX / 2);
        assert_eq!(d.delay_ns[0], 723_300.0);
        // A fourth at 1 ms: the die is free at 723,300 ns, the bus too.
        assert_eq!(d.issue(0, None, 1_000_000, true, &times()), 0.0);
        assert_eq!(d.delay_ns[0], 723_300.0);
    }

    /// A batch counts while `now` < its issue + the window, then leaves the
    /// sum whether or not it is done; an emptied sum is exactly zero.
    #[test]
    fn a_window_keeps_the_batches_issued_within_it() {
        let w = 100_000;
        let mut d = ChannelDelays::new(2, 1).with_scope(DelayScope::Window, w);
        three_programs(&mut d);
        d.done(0, 241_100.0);
        d.advance(w - 1);
        assert_eq!(d.delay_ns, [723_300.0, 0.0]);
        // Issued at 60 µs: the bus is free at 523,300 ns (the third's
        // transfer), the die at 723,300 ns (the third's program).
        let late = d.issue(0, None, 60_000, true, &times());
        assert_eq!(late, 723_300.0 - 60_000.0);
        d.advance(w);
        assert_eq!(d.delay_ns[0], late, "the three at 0 left, the one at 60 µs stays");
        d.advance(60_000 + w);
        assert_eq!(d.delay_ns, [0.0, 0.0]);
    }

    /// Eq. 11 and Eq. 12 by hand: 1 GiB of capacity, 3,000 P/E cycles,
    /// 1 GiB written in one day is 3,000 GiB of life at 1 GiB a day: 3,000
    /// days (8.2 years) of use, 2,999 days left.
    #[test]
    fn eq11_counts_the_life_used_where_eq12_counts_what_is_left() {
        let (gib, day) = (1u64 << 30, 86_400_000_000_000u64);
        assert_eq!(use_life_years(gib, 3000, gib, day), 3000.0 / 365.0);
        assert_eq!(life_days(gib, 3000, gib, day), 2999.0);
        for (written, elapsed) in [(gib / 3, day / 7), (5 * gib, 3 * day), (12_345, 987_654_321)] {
            let days = elapsed as f64 / day as f64;
            let used = 365.0 * use_life_years(gib, 3000, written, elapsed) - life_days(gib, 3000, written, elapsed);
            assert!((used - days).abs() <= 1e-9 * days.max(1.0) * 3000.0, "{used} against {days}");
        }
        // Nothing written, or no time yet to take a rate over: no estimate.
        assert!(use_life_years(gib, 3000, 0, day).is_infinite());
        assert!(use_life_years(gib, 3000, gib, 0).is_infinite());
        assert_eq!((life_days(gib, 3000, 0, day), life_days(gib, 3000, gib, 0)), (f64::INFINITY, f64::INFINITY));
    }
}
