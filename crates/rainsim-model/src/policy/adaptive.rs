//! Adaptive selection of the parity-update routine (adaptive-parity-update,
//! §III-B, Eq. 3–9, Algorithm 1): RMW or RCW, whichever the cost model says
//! finishes the pre-reads sooner while delaying queued writes least.
//!
//! ```text
//!  plan (pre-read sets of RMW and RCW) ─┐
//!  queues R_i, W_i; GC per chip ────────┼─▶ T_RMW, T_RCW ─▶ the smaller one
//!  t_R of each pre-read page ───────────┘
//! ```
//!
//! For routine X with channel set Θ_X (the channels of the pages X pre-reads):
//! - T_GC = (t_R + t_W) · Cntr_move / Cntr_ER + t_E                   (Eq. 3)
//!   from the chip's cumulative GC page moves and erases, for a chip now
//!   collecting; T_GC,i = 0 when no GC runs there;
//! - T_X,Update = max_{i ∈ Θ_X} { t_R · (R_i + 1) + T_GC,i }        (Eq. 4–5)
//!   (the pre-read joins the tail of the read queue, so the slowest of them
//!   sets the pace of the XOR);
//! - T_X,Delay = t_R · Σ_{i ∈ Θ_X} W_i                               (Eq. 6–7)
//!   (each queued write waits one more read, reads having priority);
//! - T_X = T_X,Update + T_X,Delay                                     (Eq. 8–9).
//!
//! RCW is chosen when T_RMW > T_RCW, RMW when T_RMW < T_RCW.
//!
//! Choices the paper leaves open (README "Parity update: BPU and adaptive"):
//! - Θ_X comes from the pre-read sets the model plans: RMW reads the old data
//!   being written and the old parity, RCW the other data chunks (plus pages
//!   written only in part); never-written chunks are zeros and are not read.
//!   Eq. 1–2 (Θ_RMW ∪ Θ_RCW = Θ, disjoint) hold for whole-page updates of a
//!   fully written stripe; otherwise the sets are what is really read.
//! - The writes of the new data and parity are left out, as the paper says
//!   (both routines issue them on the same channels). The parity channel is
//!   in Θ_RMW because RMW pre-reads the old parity there (Fig. 5, CH5).
//! - t_R is the unloaded read time (sensing, LDPC retries, transfer) of the
//!   page that pre-read fetches, and prices the reads queued ahead of it too
//!   (Eq. 4 has one t_R per channel); in Eq. 3, t_R and t_W are the nominal
//!   sensing and program times (copyback moves cross no bus).
//! - `scope = "channel"` (default, the paper's model): R_i counts the reads
//!   queued on the channel, and T_GC,i is the largest Eq. 3 estimate among
//!   the channel's chips now collecting. `scope = "die"` (this simulator's
//!   blocking unit): R_i counts the reads queued for the die holding the page,
//!   and T_GC,i is its own Eq. 3 estimate if it is collecting, else 0. W_i is
//!   always the channel's write queue, since programs wait per channel until a
//!   die takes them.
//! - Counters are kept per die; the presets have one die per chip, so per die
//!   is per chip. A running GC's T_GC,i is the whole Eq. 3 estimate (the
//!   paper's controller knows no end time), not the time it has left.
//! - Two pre-reads of one plan on the same queue would wait for each other:
//!   the k-th costs t_R · (R_i + k) and each adds its t_R · W_i to the delay.
//!   A stripe's chunks always sit on distinct channels today (degraded updates
//!   included), so this is handled only for generality.
//! - A tie goes to the fewest-pre-reads choice, so "adjusted" counts only
//!   strict preferences of the model; `tie_to_rmw = true` follows Algorithm 1
//!   line 19 literally (RMW unless T_RMW > T_RCW).
//! - The model assumes pre-reads are served before queued writes
//!   (`policy.read_priority = true`, the default); the device notes a run
//!   that turns it off.
//! - The decision's own controller time (`decision_ns`; 5.7 µs on the
//!   paper's ARM core) is charged by the model before the pre-reads.

use super::{DeviceView, Member, ParityUpdate, Routine, UpdatePlan};
use crate::engine::SimTime;
use crate::sched::ChannelScheduler;
use serde::{Deserialize, Serialize};

/// Which queue R_i and T_GC,i describe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum QueueScope {
    /// The pre-read's channel (the paper's model).
    #[default]
    Channel,
    /// The die holding the pre-read page.
    Die,
}

/// Parameters of the adaptive cost model (`[policy.adaptive]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct AdaptiveParams {
    /// Whether R_i and T_GC,i are per channel or per die.
    pub scope: QueueScope,
    /// On equal costs choose RMW (Algorithm 1 as written) instead of the
    /// routine with fewer pre-reads.
    pub tie_to_rmw: bool,
    /// Controller time of one decision, charged before the update's pre-reads
    /// (the paper measured 5.7 µs per update on its ARM core, §IV-C).
    pub decision_ns: u64,
}

/// The two parts of one routine's cost, in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RoutineCost {
    /// Time until its slowest pre-read is done (Eq. 4 or 5).
    pub update_ns: SimTime,
    /// Delay its pre-reads add to the queued writes (Eq. 6 or 7).
    pub delay_ns: SimTime,
}

impl RoutineCost {
    /// T_RMW or T_RCW (Eq. 8 or 9).
    pub fn total(&self) -> SimTime {
        self.update_ns.saturating_add(self.delay_ns)
    }
}

/// Costs of both routines for one plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Costs {
    /// T_RMW.
    pub rmw: RoutineCost,
    /// T_RCW.
    pub rcw: RoutineCost,
}

/// The adaptive parity-update policy.
pub struct Adaptive {
    params: AdaptiveParams,
}

impl Adaptive {
    /// With the given parameters.
    pub fn new(params: AdaptiveParams) -> Self {
        Adaptive { params }
    }

    /// T_RMW and T_RCW for `plan` in the device state `view`.
    pub fn costs(&self, view: &DeviceView, plan: &UpdatePlan) -> Costs {
        Costs { rmw: self.routine_cost(view, plan.at, plan.rmw), rcw: self.routine_cost(view, plan.at, plan.rcw) }
    }

    /// The cost of pre-reading the positions in `set`.
    fn routine_cost(&self, view: &DeviceView, at: &[Option<Member>], set: u64) -> RoutineCost {
        let mut cost = RoutineCost::default();
        let mut bits = set;
        while bits != 0 {
            let pos = bits.trailing_zeros();
            bits &= bits - 1;
            let Some(m) = at[pos as usize] else { continue };
            // Earlier pre-reads of this plan on the same queue are ahead of this one.
            let same = |q: &Option<Member>| q.is_some_and(|q| self.same_queue(&q, &m));
            let ahead = at[..pos as usize].iter().enumerate().filter(|(j, q)| set & 1 << j != 0 && same(q)).count();
            let (reads, writes) = self.queued(view, &m);
            let read_ns = view.read_ns(m.ppn);
            let wait = read_ns.saturating_mul(reads as u64 + ahead as u64 + 1);
            let update = wait.saturating_add(self.gc_ns(view, &m));
            cost.update_ns = cost.update_ns.max(update);
            cost.delay_ns = cost.delay_ns.saturating_add(read_ns.saturating_mul(writes as u64));
        }
        cost
    }

    fn same_queue(&self, a: &Member, b: &Member) -> bool {
        match self.params.scope {
            QueueScope::Channel => a.channel == b.channel,
            QueueScope::Die => a.die == b.die,
        }
    }

    /// (R_i, W_i) for a pre-read of `m`.
    fn queued(&self, view: &DeviceView, m: &Member) -> (u32, u32) {
        let s = &view.channels[m.channel as usize].sched;
        let reads = match self.params.scope {
            QueueScope::Channel => s.reads_queued(),
            QueueScope::Die => s.reads_queued_for(m.die - view.layout.first_die(m.channel)),
        };
        (reads, s.writes_queued())
    }

    /// T_GC,i for a pre-read of `m`.
    fn gc_ns(&self, view: &DeviceView, m: &Member) -> SimTime {
        match self.params.scope {
            QueueScope::Die => gc_estimate_ns(view, m.die),
            QueueScope::Channel => {
                let first = view.layout.first_die(m.channel);
                (first..first + view.layout.dies_per_channel).map(|d| gc_estimate_ns(view, d)).max().unwrap_or(0)
            }
        }
    }
}

/// Eq. 3 for `die` if it is collecting now, else 0: (t_R + t_W) · moves /
/// erases + t_E from its cumulative counters (rounded down to whole ns).
pub fn gc_estimate_ns(view: &DeviceView, die: u32) -> SimTime {
    let d = &view.dies[die as usize];
    if d.gc_until.is_none() {
        return 0;
    }
    let per_erase = if d.gc_erases == 0 {
        0
    } else {
        let moves = (view.t.read + view.t.program) as u128 * d.gc_moves as u128 / d.gc_erases as u128;
        moves.min(SimTime::MAX as u128) as SimTime
    };
    per_erase.saturating_add(view.t.erase)
}

impl ParityUpdate for Adaptive {
    fn decision_ns(&self) -> u64 {
        self.params.decision_ns
    }
    fn choose(&mut self, view: &DeviceView, plan: &UpdatePlan) -> Routine {
        let c = self.costs(view, plan);
        let (rmw, rcw) = (c.rmw.total(), c.rcw.total());
        if rmw < rcw {
            Routine::Rmw
        } else if rmw > rcw {
            Routine::Rcw
        } else if self.params.tie_to_rmw {
            Routine::Rmw
        } else {
            plan.fewest()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raid::rmw_rcw::plan_stripe_write;
    use crate::testkit::{bits, Bench};

    /// Two dies per channel: die scope sees only the page's die and its GC.
    #[test]
    fn die_scope_counts_only_the_pages_die() {
        let mut b = Bench::new(6, 2);
        let t_r = b.t.read + b.t.xfer;
        // Every position on die 0 of its channel; channel 5's other die (11)
        // has 6 queued reads and is collecting; die 10 has 1 queued read.
        let at = b.stripe_on_dies(&[0, 2, 4, 6, 8, 10]);
        b.queue_reads(11, 6);
        b.queue_reads(10, 1);
        b.gc(11, 30, 3);
        let plan = plan_stripe_write(5, 0, bits(&[0]), 0, &at);
        let view = b.view();
        let die = Adaptive::new(AdaptiveParams { scope: QueueScope::Die, ..Default::default() });
        let c = die.costs(&view, &plan);
        assert_eq!(c.rmw, RoutineCost { update_ns: t_r * 2, delay_ns: 0 });
        assert_eq!(c.rcw, RoutineCost { update_ns: t_r, delay_ns: 0 });
        // Channel scope: 7 reads on channel 5 and die 11's GC,
        // (45 µs + 700 µs) · 30 / 3 + 3.5 ms = 10.95 ms.
        let ch = Adaptive::new(AdaptiveParams::default());
        let c = ch.costs(&view, &plan);
        assert_eq!(c.rmw.update_ns, t_r * 8 + 10_950_000);
        assert_eq!(gc_estimate_ns(&view, 11), 10_950_000);
        assert_eq!(gc_estimate_ns(&view, 10), 0, "die 10 is not collecting");
    }

    /// Idle queues make equal costs: the fewest-pre-reads choice, or RMW
    /// with `tie_to_rmw`.
    #[test]
    fn ties_go_to_fewest_prereads_or_to_rmw() {
        let b = Bench::new(6, 1);
        let at = b.stripe_on_dies(&[0, 1, 2, 3, 4, 5]);
        let view = b.view();
        // Three chunks: RMW reads 4, RCW 2; both cost one read.
        let plan = plan_stripe_write(5, 0, bits(&[0, 1, 2]), 0, &at);
        let mut p = Adaptive::new(AdaptiveParams::default());
        assert_eq!(p.costs(&view, &plan).rmw.total(), p.costs(&view, &plan).rcw.total());
        assert_eq!(p.choose(&view, &plan), Routine::Rcw);
        let mut literal = Adaptive::new(AdaptiveParams { tie_to_rmw: true, ..Default::default() });
        assert_eq!(literal.choose(&view, &plan), Routine::Rmw);
    }

    /// The decision compares T_RMW and T_RCW whole (Eq. 8–9): RMW's
    /// pre-reads are the quicker (idle channels 0 and 5 against two reads
    /// queued on channel 1), but five programs wait behind them on channel
    /// 0, so RCW, which delays none, is cheaper.
    #[test]
    fn the_choice_weighs_the_delay_to_queued_writes_too() {
        let mut b = Bench::new(6, 1);
        let at = b.stripe_on_dies(&[0, 1, 2, 3, 4, 5]);
        b.queue_reads(1, 2);
        b.queue_writes(0, 5);
        let t_r = b.t.read + b.t.xfer;
        let plan = plan_stripe_write(5, 0, bits(&[0]), 0, &at);
        let mut p = Adaptive::new(AdaptiveParams::default());
        let view = b.view();
        let c = p.costs(&view, &plan);
        assert_eq!(c.rmw, RoutineCost { update_ns: t_r, delay_ns: 5 * t_r });
        assert_eq!(c.rcw, RoutineCost { update_ns: 3 * t_r, delay_ns: 0 });
        assert_eq!(p.choose(&view, &plan), Routine::Rcw, "6 t_R against 3 t_R");
    }

    /// Two positions on one channel (a chunk moved there): the second
    /// pre-read waits behind the first.
    #[test]
    fn two_prereads_on_one_channel_queue_behind_each_other() {
        let mut b = Bench::new(6, 1);
        // Position 1 moved to channel 0, where position 0 lives too.
        let at = b.stripe_on_dies(&[0, 0, 2, 3, 4, 5]);
        b.queue_reads(0, 3);
        b.queue_writes(0, 2);
        let t_r = b.t.read + b.t.xfer;
        let plan = plan_stripe_write(5, 0, bits(&[0, 1]), 0, &at);
        let c = Adaptive::new(AdaptiveParams::default()).costs(&b.view(), &plan);
        // RMW reads d0, d1 (both on channel 0) and P: d1 waits for 3 reads and d0.
        assert_eq!(c.rmw, RoutineCost { update_ns: t_r * 5, delay_ns: t_r * 2 * 2 });
    }

    /// A position on the same channel that the routine does not pre-read is
    /// not ahead of the one it does: writing d1 alone, RMW reads d1 (behind
    /// the channel's 3 queued reads only, not d0) and P; RCW reads d0, which
    /// d1's write does not hold back either.
    #[test]
    fn a_position_the_routine_skips_is_not_ahead_on_its_channel() {
        let mut b = Bench::new(6, 1);
        let at = b.stripe_on_dies(&[0, 0, 2, 3, 4, 5]);
        b.queue_reads(0, 3);
        let t_r = b.t.read + b.t.xfer;
        let plan = plan_stripe_write(5, 0, bits(&[1]), 0, &at);
        let c = Adaptive::new(AdaptiveParams::default()).costs(&b.view(), &plan);
        assert_eq!(c.rmw, RoutineCost { update_ns: t_r * 4, delay_ns: 0 });
        assert_eq!(c.rcw, RoutineCost { update_ns: t_r * 4, delay_ns: 0 });
        // d0, d1 and d2 on channel 0, d1 and d2 written: RMW's d2 waits for
        // the 3 queued reads and d1, not d0 (RCW reads d0 alone there).
        let at = b.stripe_on_dies(&[0, 0, 0, 3, 4, 5]);
        let plan = plan_stripe_write(5, 0, bits(&[1, 2]), 0, &at);
        let c = Adaptive::new(AdaptiveParams::default()).costs(&b.view(), &plan);
        assert_eq!(c.rmw.update_ns, t_r * 5);
        assert_eq!(c.rcw.update_ns, t_r * 4);
    }
}
