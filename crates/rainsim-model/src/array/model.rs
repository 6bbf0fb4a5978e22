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
//!  SSD_life   = (capacity·P/E − W_total) / W_daily   (Eq. 12, days)
//! ```
//!
//! Choices the paper leaves open: a batch's end is predicted when it is
//! issued (Alg. 1 updates the state "asynchronously" at assignment) from a
//! per-channel bus and per-die busy-until time; a batch leaves its channel's
//! sum when the device reports it done; `W_daily` is the device's bytes
//! programmed (host, parity and GC moves) over the simulated days so far, and
//! a device that has written nothing has infinite life.

use crate::engine::SimTime;

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
    /// Σ delay_i of the channel's outstanding batches, ns.
    pub delay_ns: Vec<f64>,
    /// Predicted time the channel's bus is free.
    bus_free: Vec<f64>,
    /// Predicted time each die is free, channel-major.
    die_free: Vec<f64>,
    dies: usize,
}

impl ChannelDelays {
    /// An idle device of `channels` channels of `dies` dies each.
    pub fn new(channels: u32, dies: u32) -> Self {
        let (c, d) = (channels as usize, dies.max(1) as usize);
        ChannelDelays { delay_ns: vec![0.0; c], bus_free: vec![0.0; c], die_free: vec![0.0; c * d], dies: d }
    }

    /// A batch arrives on `channel` at `now`: its predicted start is when
    /// the bus and its die allow; it waits `start − now` (Eq. 9), which
    /// joins the channel's sum (Eq. 8) and is returned, to be removed by
    /// [`ChannelDelays::done`] when the batch ends. Its die is `die` (a
    /// read's: where its data is, Alg. 1 line 15), else the channel's first
    /// free one (a program, taken by whichever die is free).
    pub fn issue(&mut self, channel: u32, die: Option<u32>, now: SimTime, write: bool, t: &ServiceTimes) -> f64 {
        let c = channel as usize;
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
        self.delay_ns[c] += delay;
        delay
    }

    /// A batch of `channel` that waited `delay` ended.
    pub fn done(&mut self, channel: u32, delay: f64) {
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
