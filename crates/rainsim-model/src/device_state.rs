//! What the device's channels and dies are doing: channel and die state, the
//! recent arrivals and GCs the cost models read, and [`DeviceView`], the
//! read-only snapshot every policy decides from. Below the device and the
//! policies alike, so neither imports the other for it.

use crate::engine::SimTime;
use crate::flash::address::Layout;
pub use crate::flash::interface::DieState;
use crate::flash::ldpc::LdpcModel;
use crate::flash::timing::{FlashTiming, Timing};
use crate::ftl::Ftl;
use crate::raid::stripe::StripeLayout;
use crate::sched::{ChannelScheduler, Sched};

/// Read-only snapshot of the device handed to policies.
pub struct DeviceView<'a> {
    /// Current time.
    pub now: SimTime,
    /// Channel states (bus, queue lengths).
    pub channels: &'a [ChannelState],
    /// Die states (busy, GC) by global die index.
    pub dies: &'a [DieState],
    /// Latencies as configured.
    pub timing: &'a Timing,
    /// Per-operation times derived from them (bus transfer included).
    pub t: &'a FlashTiming,
    /// FTL state (free space, block wear), read-only.
    pub ftl: &'a Ftl,
    /// The read-retry model, when on.
    pub ldpc: Option<&'a LdpcModel>,
    /// Address arithmetic.
    pub layout: &'a Layout,
    /// Stripe geometry.
    pub stripes: &'a StripeLayout,
    /// The chip-state vector NR (vios Eq. 2) by global die index: host
    /// requests waiting for each die's chip; empty when the host does not
    /// track chips (`host::chips`).
    pub nr: &'a [u32],
}

impl DeviceView<'_> {
    /// Time to read page `ppn` off its die unloaded: sensing with the page's
    /// read retries (LDPC), then the transfer. Computed on demand, since it
    /// costs an RBER evaluation with the model on.
    pub fn read_ns(&self, ppn: u32) -> SimTime {
        let sense = match self.ldpc {
            None => self.t.read,
            Some(m) => m.read_ns(m.level_of(&self.ftl.blocks[self.layout.block_of(ppn) as usize].wear(), self.now)),
        };
        sense + self.t.xfer
    }
}

/// One channel: its queues and the history its cost models read (its bus is
/// the flash interface's).
pub struct ChannelState {
    /// Queued operations and their service order.
    pub sched: Sched,
    /// Enqueue times of the channel's most recent operations.
    pub arrivals: ArrivalWindow,
    /// Work of the channel's most recent garbage collections.
    pub gc_recent: GcHistory,
}

impl ChannelState {
    /// Operations waiting in the channel's queues.
    #[inline]
    pub fn queued(&self) -> u32 {
        self.sched.reads_queued() + self.sched.writes_queued()
    }
}

/// A ring of the last `capacity` enqueue times of a channel, giving its recent
/// arrival rate.
#[derive(Debug, Clone, Default)]
pub struct ArrivalWindow {
    times: Vec<SimTime>,
    next: usize,
    capacity: usize,
}

impl ArrivalWindow {
    /// A window over the last `capacity` arrivals (0 = no history kept).
    pub fn new(capacity: usize) -> Self {
        ArrivalWindow { times: Vec::with_capacity(capacity), next: 0, capacity }
    }

    /// Records an arrival at `t`.
    #[inline]
    pub fn record(&mut self, t: SimTime) {
        if self.capacity == 0 {
            return;
        }
        if self.times.len() < self.capacity {
            self.times.push(t);
        } else {
            self.times[self.next] = t;
        }
        // No division on this hot path.
        self.next += 1;
        if self.next == self.capacity {
            self.next = 0;
        }
    }

    /// Arrivals per nanosecond: the arrivals held, over the time from the
    /// oldest of them to `now` (so an idle channel's rate decays). 0 with
    /// fewer than two arrivals.
    pub fn rate_per_ns(&self, now: SimTime) -> f64 {
        if self.times.len() < 2 {
            return 0.0;
        }
        let oldest = if self.times.len() < self.capacity { self.times[0] } else { self.times[self.next] };
        let span = now.saturating_sub(oldest);
        if span == 0 {
            return 0.0;
        }
        self.times.len() as f64 / span as f64
    }
}

/// Page moves and erases of a channel's most recent GCs (DM-Eq. 7).
#[derive(Debug, Clone, Default)]
pub struct GcHistory {
    work: Vec<(u32, u32)>,
    next: usize,
    capacity: usize,
}

impl GcHistory {
    /// History of the last `capacity` GCs.
    pub fn new(capacity: usize) -> Self {
        GcHistory { work: Vec::with_capacity(capacity), next: 0, capacity }
    }

    /// Records a GC that moved `moved` pages and erased `erased` blocks.
    pub fn record(&mut self, moved: u32, erased: u32) {
        if self.capacity == 0 {
            return;
        }
        if self.work.len() < self.capacity {
            self.work.push((moved, erased));
        } else {
            self.work[self.next] = (moved, erased);
        }
        self.next = (self.next + 1) % self.capacity;
    }

    /// GCs recorded (at most the capacity).
    pub fn len(&self) -> usize {
        self.work.len()
    }

    /// Whether no GC has been recorded.
    pub fn is_empty(&self) -> bool {
        self.work.is_empty()
    }

    /// Average page moves per recorded GC.
    pub fn avg_moves(&self) -> f64 {
        if self.work.is_empty() {
            return 0.0;
        }
        self.work.iter().map(|w| w.0 as f64).sum::<f64>() / self.work.len() as f64
    }

    /// DM-Eq. 7: t_gc = (t_read + t_write) · avg page moves + t_erase · avg
    /// erases, over the recorded GCs. Before any GC, one erase with no moves.
    /// (A GC here may erase more than one block; the paper's has one.)
    pub fn estimate_ns(&self, t: &FlashTiming) -> f64 {
        if self.work.is_empty() {
            return t.erase as f64;
        }
        let n = self.work.len() as f64;
        let erases = self.work.iter().map(|w| w.1 as f64).sum::<f64>() / n;
        (t.read + t.program) as f64 * self.avg_moves() + t.erase as f64 * erases
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrival_rate_over_the_window() {
        let mut w = ArrivalWindow::new(4);
        assert_eq!(w.rate_per_ns(100), 0.0);
        for t in [0, 10, 20, 30, 40, 50] {
            w.record(t);
        }
        // Holds 20, 30, 40, 50: 4 arrivals over [20, 60].
        assert!((w.rate_per_ns(60) - 4.0 / 40.0).abs() < 1e-12);
        // Idle time lowers the rate.
        assert!((w.rate_per_ns(420) - 4.0 / 400.0).abs() < 1e-12);
    }

    #[test]
    fn gc_estimate_is_eq7_over_the_last_gcs() {
        let t = FlashTiming { read: 45_000, program: 700_000, erase: 3_500_000, xfer: 20_680, command: 200 };
        let mut h = GcHistory::new(2);
        assert_eq!(h.estimate_ns(&t), 3_500_000.0);
        h.record(100, 1);
        h.record(4, 1);
        h.record(6, 1); // pushes out the 100
        assert_eq!(h.len(), 2);
        assert_eq!(h.estimate_ns(&t), 745_000.0 * 5.0 + 3_500_000.0);
    }
}
