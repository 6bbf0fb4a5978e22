//! DLS, delay- and life-aware write allocation (the DLS paper, Alg. 1 and
//! Fig. 3; next-wave-spec.md §3.a steps 2–5, with its fixes):
//!
//! ```text
//!  D_i = SSD_delay (Eq. 10)   L_i = SSD_life (Eq. 12)   avg_d, avg_l over the array's S devices
//!  K = { i : D_i ≤ avg_d  and  L_i ≥ avg_l }        (delay against average delay, life against
//!                                                    average life: Eq. 13–14, not Fig. 3's swapped labels)
//!  K = ∅  ⇒  K = { i : L_i ≥ avg_l }                 ("no SSD qualifies": life decides)
//!  some L_i = ∞ (a device unwritten) ⇒ the life test keeps the unwritten devices only
//!  s = argmin_{i ∈ K} SSD_min_delay_i (Eq. 15), ties to the lowest index
//!  c = argmin channel_delay in s (Eq. 8); its first free die takes the program
//! ```
//!
//! The averages are over every device of the array (Eq. 13–14 divide by
//! S), the stripe's parity device and full devices included; only a failed
//! device, which has no delay or life to speak of, is left out. The
//! candidates are the devices allowed to take the chunk.
//!
//! Comparisons are non-strict (an idle array of equal devices has
//! candidates) with a relative tolerance of 1e-9, so that an average of equal
//! values never excludes them. Equal channel delays go to the channels in
//! rotation (the paper leaves ties open; always the first would pile an idle
//! device's writes on one channel).

use super::super::model::life_days;
use super::{ArrayView, ArrayWriteAllocation, Choice};

/// Delay- and life-aware allocation.
#[derive(Debug, Default)]
pub struct Dls {
    next_channel: Vec<u32>,
}

/// One device's state as the selection rule reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeviceState {
    /// SSD_delay, ns (Eq. 10).
    pub delay: f64,
    /// SSD_min_delay, ns (Eq. 15).
    pub min_delay: f64,
    /// SSD_life, days (Eq. 12; infinite when unwritten).
    pub life: f64,
}

fn at_most(x: f64, avg: f64) -> bool {
    x <= avg + 1e-9 * avg.abs().max(1.0)
}

/// The selection rule: the device a write goes to among `allowed` ones
/// (`None` when none is allowed), the averages taken over the devices
/// `counted` (the array's, a failed one left out).
pub fn select_device(states: &[DeviceState], allowed: &[bool], counted: &[bool]) -> Option<usize> {
    let ids: Vec<usize> = (0..states.len()).filter(|&i| allowed[i]).collect();
    if ids.is_empty() {
        return None;
    }
    let all: Vec<usize> = (0..states.len()).filter(|&i| counted[i] || allowed[i]).collect();
    let n = all.len() as f64;
    let avg_d = all.iter().map(|&i| states[i].delay).sum::<f64>() / n;
    let unwritten = all.iter().any(|&i| states[i].life.is_infinite());
    let avg_l = if unwritten { f64::INFINITY } else { all.iter().map(|&i| states[i].life).sum::<f64>() / n };
    let life_ok = |i: usize| if unwritten { states[i].life.is_infinite() } else { at_most(avg_l, states[i].life) };
    let mut k: Vec<usize> = ids.iter().copied().filter(|&i| at_most(states[i].delay, avg_d) && life_ok(i)).collect();
    if k.is_empty() {
        k = ids.iter().copied().filter(|&i| life_ok(i)).collect();
    }
    if k.is_empty() {
        k = ids;
    }
    k.into_iter().min_by(|&a, &b| states[a].min_delay.total_cmp(&states[b].min_delay).then(a.cmp(&b)))
}

impl ArrayWriteAllocation for Dls {
    fn choose(&mut self, view: &ArrayView, allowed: &[bool]) -> Option<Choice> {
        let states: Vec<DeviceState> = view
            .devices
            .iter()
            .map(|d| DeviceState {
                delay: d.delays.ssd_delay(),
                min_delay: d.delays.ssd_min_delay(),
                life: life_days(view.capacity_bytes, view.pe_limit, d.written_bytes, view.now),
            })
            .collect();
        let counted: Vec<bool> = (0..states.len()).map(|d| view.failed != Some(d as u32)).collect();
        let device = select_device(&states, allowed, &counted)?;
        self.next_channel.resize(allowed.len(), 0);
        let load = &view.devices[device];
        let n = load.free.len() as u32;
        let from = self.next_channel[device];
        let channel = (0..n)
            .map(|i| (from + i) % n)
            .filter(|&c| load.free[c as usize] > 0)
            .min_by(|&a, &b| load.delays.delay_ns[a as usize].total_cmp(&load.delays.delay_ns[b as usize]))
            .unwrap_or(from % n);
        self.next_channel[device] = (channel + 1) % n;
        Some(Choice { device: device as u32, channel })
    }
}
