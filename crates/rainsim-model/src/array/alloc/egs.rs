//! EGS (Lu, Wu, Li, ISPA/IUCC 2017; baselines.md §5, next-wave-spec.md §3.b),
//! reconstructed from its abstract: reads and writes are weighted by their
//! access time (w_r = 1, w_w = t_write / t_read). Its "equal windows" per
//! device are read as balancing that weighted load: a write goes to the
//! device with the least weighted outstanding load (no window admission is
//! modelled), among those whose bytes written stay within mean × (1 + θ)
//! (its extra strategy against unbalanced wear). Inside the device,
//! channels take writes in rotation.

use super::{next_channel_with_room, ArrayView, ArrayWriteAllocation, Choice};

/// Weighted equal windows.
#[derive(Debug)]
pub struct Egs {
    write_weight: f64,
    theta: f64,
    next_channel: Vec<u32>,
}

impl Egs {
    /// EGS with w_w = `write_weight` and wear slack θ = `theta`.
    pub fn new(write_weight: f64, theta: f64) -> Self {
        Egs { write_weight, theta, next_channel: Vec::new() }
    }
}

impl ArrayWriteAllocation for Egs {
    fn choose(&mut self, view: &ArrayView, allowed: &[bool]) -> Option<Choice> {
        let ids: Vec<usize> = (0..allowed.len()).filter(|&d| allowed[d]).collect();
        if ids.is_empty() {
            return None;
        }
        let mean = ids.iter().map(|&d| view.devices[d].written_bytes as f64).sum::<f64>() / ids.len() as f64;
        let within = |d: &usize| view.devices[*d].written_bytes as f64 <= mean * (1.0 + self.theta);
        let load = |d: usize| view.devices[d].reads as f64 + self.write_weight * view.devices[d].writes as f64;
        let pool: Vec<usize> = if ids.iter().any(within) { ids.iter().copied().filter(within).collect() } else { ids };
        let device = pool
            .into_iter()
            .min_by(|&a, &b| load(a).total_cmp(&load(b)).then(a.cmp(&b)))
            .expect("the pool is not empty");
        self.next_channel.resize(allowed.len(), 0);
        let dl = &view.devices[device];
        let channel = next_channel_with_room(dl, self.next_channel[device]);
        self.next_channel[device] = (channel + 1) % dl.free.len() as u32;
        Some(Choice { device: device as u32, channel })
    }
}
