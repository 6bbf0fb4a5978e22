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

    #[test]
    fn a_partly_filled_window_counts_from_its_first_arrival() {
        let mut w = ArrivalWindow::new(8);
        w.record(100);
        // One arrival is no rate.
        assert_eq!(w.rate_per_ns(200), 0.0);
        w.record(150);
        // Two arrivals over [100, 300]: the oldest is the first recorded.
        assert_eq!(w.rate_per_ns(300), 2.0 / 200.0);
        w.record(160);
        assert_eq!(w.rate_per_ns(500), 3.0 / 400.0);
        // No time since the oldest: no rate rather than a division by 0.
        let mut z = ArrivalWindow::new(4);
        z.record(70);
        z.record(70);
        assert_eq!(z.rate_per_ns(70), 0.0);
    }

    #[test]
    fn a_full_window_forgets_its_oldest_arrival_in_turn() {
        // Exactly full: the oldest is the first again (the ring's cursor has
        // come round to it).
        let mut w = ArrivalWindow::new(3);
        for t in [10, 20, 30] {
            w.record(t);
        }
        assert_eq!(w.rate_per_ns(40), 3.0 / 30.0);
        // Each later arrival replaces the oldest: after 40 and 50 the window
        // holds 30, 40, 50.
        w.record(40);
        assert_eq!(w.rate_per_ns(60), 3.0 / 40.0);
        w.record(50);
        assert_eq!(w.rate_per_ns(60), 3.0 / 30.0);
        // Twice round the ring.
        for t in [60, 70, 80, 90] {
            w.record(t);
        }
        assert_eq!(w.rate_per_ns(100), 3.0 / 30.0);
    }

    #[test]
    fn a_window_of_no_arrivals_keeps_none() {
        let mut w = ArrivalWindow::new(0);
        for t in [1, 2, 3] {
            w.record(t);
        }
        assert_eq!(w.rate_per_ns(10), 0.0);
        assert!(w.times.is_empty());
    }

    #[test]
    fn gc_history_averages_the_gcs_it_holds() {
        let t = FlashTiming { read: 50_000, program: 600_000, erase: 3_000_000, xfer: 20_000, command: 200 };
        let mut h = GcHistory::new(3);
        assert!(h.is_empty());
        assert_eq!((h.len(), h.avg_moves()), (0, 0.0));
        h.record(10, 1);
        assert!(!h.is_empty());
        assert_eq!((h.len(), h.avg_moves()), (1, 10.0));
        h.record(20, 3);
        assert_eq!((h.len(), h.avg_moves()), (2, 15.0));
        // Eq. 7: (t_read + t_write) · 15 moves + t_erase · 2 erases.
        assert_eq!(h.estimate_ns(&t), 650_000.0 * 15.0 + 3_000_000.0 * 2.0);
        // The ring replaces its oldest in turn: after 30, 40 and 50 it holds
        // 30, 40, 50 (10 and 20 out, in that order).
        h.record(30, 1);
        h.record(40, 2);
        assert_eq!((h.len(), h.avg_moves()), (3, 30.0));
        h.record(50, 3);
        assert_eq!((h.len(), h.avg_moves()), (3, 40.0));
        assert_eq!(h.estimate_ns(&t), 650_000.0 * 40.0 + 3_000_000.0 * 2.0);
        // A history of no GCs keeps none.
        let mut none = GcHistory::new(0);
        none.record(5, 1);
        assert!(none.is_empty());
        assert_eq!(none.estimate_ns(&t), 3_000_000.0);
    }
}
