//! The queuing-cost model of degraded-mode scheduling (Sha et al., TODAES
//! 2022, §3.2, Eq. 1–7), shared by the degraded read and update policies.
//!
//! With n_r, n_w the reads and programs queued on a channel, f its recent
//! arrival rate, t_rd and t_wr unloaded read and program times, j the other
//! stripe channels and x the idlest channel outside the stripe:
//!
//! ```text
//! T_wait = n_r·t_rd + n_w·t_wr + c·t_gc  (+ the rest of a GC running on the target's die)  Eq. 1
//! read:    T_A  = T_wait·(1 + t_rd·f)                 T_B  = t_xor + Σ_j t_rd,j·n_j          Eq. 3, 4
//! update:  T'_A = T_wait·(1 + t_wr·f) + t_wr          T'_B = T_B + t_wr·n_x + t_wr           Eq. 5, 6
//! t_gc = (t_R + t_PROG)·(average page moves of the channel's last GCs) + t_E                 Eq. 7
//! ```
//!
//! Choices the paper leaves open (README "Degraded-mode scheduling"):
//! - queue lengths are per channel, as in the paper's SSDsim;
//! - t_rd in the T_wait sum is the nominal read; the read being routed and the
//!   partner reads use their own page's read time (LDPC retries included);
//! - c counts the GCs expected on the target's die (the unit a GC blocks here)
//!   before its queue drains: a plane already below the threshold collects
//!   once, and the channel's queued programs, spread evenly over its planes,
//!   trigger one more per block's worth of reclaimed pages beyond the plane's
//!   headroom;
//! - f_i is the window's arrivals over the time from its oldest to now;
//! - Algorithm 1 (lines 4 and 11) adds one t_gc to every T_A; we follow Eq. 1,
//!   where c may be 0 (with c = 1 always, T_A would exceed T_B for nearly every
//!   request, contrary to the paper's Table 4 counts).

use super::{DeviceView, Member};
use crate::sched::ChannelScheduler;

/// Reads and programs queued on channel `ch`.
pub fn queued(view: &DeviceView, ch: u32) -> (u32, u32) {
    let s = &view.channels[ch as usize].sched;
    (s.reads_queued(), s.writes_queued())
}

/// Nominal unloaded read (sensing + transfer) and program (transfer + tPROG) times.
pub fn nominal(view: &DeviceView) -> (f64, f64) {
    ((view.t.read + view.t.xfer) as f64, (view.t.xfer + view.t.program) as f64)
}

/// c of Eq. 1: GCs expected on `die` while the channel's queued programs drain.
pub fn expected_gcs(view: &DeviceView, die: u32, queued_writes: u32) -> f64 {
    let ftl = view.ftl;
    let l = view.layout;
    let ppb = l.pages_per_block as f64;
    let ch = l.channel_of_die(die);
    let moves = view.channels[ch as usize].gc_recent.avg_moves();
    let reclaim = (ppb - moves).max(1.0);
    let planes_in_channel = (l.dies_per_channel * l.planes_per_die) as f64;
    let per_plane = queued_writes as f64 / planes_in_channel;
    let first = l.first_plane(die);
    let mut c = 0.0;
    for p in first..first + l.planes_per_die {
        let plane = &ftl.planes[p as usize];
        let free = plane.free.len() as f64;
        let trigger = ftl.gc_trigger_blocks as f64;
        if free < trigger {
            c += 1.0 + (per_plane / reclaim).floor();
            continue;
        }
        let active_left =
            plane.active.map_or(0.0, |b| ppb - ftl.blocks[(l.first_block(p) + b) as usize].written as f64);
        let headroom = active_left + (free - trigger) * ppb;
        if per_plane > headroom {
            c += 1.0 + ((per_plane - headroom) / reclaim).floor();
        }
    }
    c
}

/// T_wait of Eq. 1 for the target's channel and die, with its queue lengths.
pub fn wait_ns(view: &DeviceView, target: &Member) -> f64 {
    let (n_r, n_w) = queued(view, target.channel);
    let (t_rd, t_wr) = nominal(view);
    let t_gc = view.channels[target.channel as usize].gc_recent.estimate_ns(view.t);
    let c = expected_gcs(view, target.die, n_w);
    let running = view.dies[target.die as usize].gc_remaining(view.now) as f64;
    n_r as f64 * t_rd + n_w as f64 * t_wr + c * t_gc + running
}

/// Recent arrival rate f_i of channel `ch`, per nanosecond.
pub fn rate(view: &DeviceView, ch: u32) -> f64 {
    view.channels[ch as usize].arrivals.rate_per_ns(view.now)
}

/// Σ_j t_rd,j · n_j: the delay reads inserted at the partners' queues cause.
pub fn partner_delay_ns(view: &DeviceView, partners: &[Member]) -> f64 {
    partners
        .iter()
        .map(|m| {
            let (r, w) = queued(view, m.channel);
            view.read_ns(m.ppn) as f64 * (r + w) as f64
        })
        .sum()
}

/// The longest GC still running on a partner's die, ns (not in the paper's
/// T_B; added when `policy.degraded.partner_gc` is on).
pub fn partner_gc_ns(view: &DeviceView, partners: &[Member]) -> f64 {
    partners.iter().map(|m| view.dies[m.die as usize].gc_remaining(view.now)).max().unwrap_or(0) as f64
}

/// (T_A, T_B) of Eq. 3 and 4 for a read of `target`.
pub fn read_costs(view: &DeviceView, target: &Member, partners: &[Member]) -> (f64, f64) {
    let t_a = wait_ns(view, target) * (1.0 + view.read_ns(target.ppn) as f64 * rate(view, target.channel));
    let t_b = view.timing.xor_ns as f64 + partner_delay_ns(view, partners);
    (t_a, t_b)
}

/// The idlest channel of `outside` (fewest queued operations). Ties go to the
/// first such channel at or after `from`, cyclically: on a quiet device most
/// queues are empty, and a fixed tie-break would pile every moved chunk on the
/// lowest-numbered channels.
pub fn idlest(view: &DeviceView, outside: impl IntoIterator<Item = u32>, from: u32) -> Option<u32> {
    let m = view.layout.channels;
    outside.into_iter().min_by_key(|&ch| (view.channels[ch as usize].queued(), (ch + m - from % m) % m))
}

/// Erased blocks ready on channel `ch` (all its planes).
pub fn free_blocks(view: &DeviceView, ch: u32) -> usize {
    let l = view.layout;
    let first = l.first_plane(l.first_die(ch));
    let planes = l.dies_per_channel * l.planes_per_die;
    view.ftl.planes[first as usize..(first + planes) as usize].iter().map(|p| p.free.len()).sum()
}

/// (T'_A, T'_B) of Eq. 5 and 6 for an update of `target` with the new
/// version going to channel `x`.
pub fn update_costs(view: &DeviceView, target: &Member, partners: &[Member], x: u32) -> (f64, f64) {
    let (_, t_wr) = nominal(view);
    let t_a = wait_ns(view, target) * (1.0 + t_wr * rate(view, target.channel)) + t_wr;
    let n_x = view.channels[x as usize].queued() as f64;
    let t_b = view.timing.xor_ns as f64 + partner_delay_ns(view, partners) + t_wr * n_x + t_wr;
    (t_a, t_b)
}
