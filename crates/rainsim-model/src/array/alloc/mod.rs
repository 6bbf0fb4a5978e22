//! The array write-allocation axis (DESIGN.md §7): where a new data chunk
//! goes — the device, and inside it the channel (a free die of that channel
//! takes it, the device's own dynamic die allocation). One file per scheme:
//! `static_home` (plain RAID-5), `rr`, `egs`, `dls`.
//!
//! A policy reads an [`ArrayView`] and returns a [`Choice`]; the array
//! applies it (a free slot of that device and channel, then a trim of the
//! chunk's old location once the program is done).

pub mod dls;
mod egs;
mod rr;
mod static_home;

pub use dls::Dls;
pub use egs::Egs;
pub use rr::RoundRobin;
pub use static_home::StaticHome;

use super::model::{ChannelDelays, ServiceTimes};
use super::params::{Allocation, ArrayParams};
use crate::engine::SimTime;

/// What the array shows a policy of one device.
#[derive(Debug, Clone)]
pub struct DeviceLoad {
    /// Eq. 8 channel delays, with the predicted bus and die times.
    pub delays: ChannelDelays,
    /// Bytes programmed on the device (host data, parity and GC moves), as
    /// of the array's last write allocation: refreshed before each choice
    /// (under static placement, which makes none, it stays 0).
    pub written_bytes: u64,
    /// Reads the array has outstanding on the device.
    pub reads: u32,
    /// Programs the array has outstanding on the device.
    pub writes: u32,
    /// Free chunk slots per channel.
    pub free: Vec<u32>,
}

impl DeviceLoad {
    /// Whether the device has a free slot on any channel.
    pub fn has_room(&self) -> bool {
        self.free.iter().any(|&f| f > 0)
    }
}

/// The array as a write-allocation policy sees it.
#[derive(Debug)]
pub struct ArrayView<'a> {
    /// Simulated time now.
    pub now: SimTime,
    /// Per device.
    pub devices: &'a [DeviceLoad],
    /// Physical capacity of one device, bytes (Eq. 12).
    pub capacity_bytes: u64,
    /// P/E cycles a block endures (Eq. 12).
    pub pe_limit: u32,
    /// Eq. 1–7.
    pub service: ServiceTimes,
    /// The failed device, if one is failed and not yet replaced.
    pub failed: Option<u32>,
}

/// A policy's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// Device the chunk goes to.
    pub device: u32,
    /// Channel inside it.
    pub channel: u32,
}

/// Chooses where a new data chunk goes.
pub trait ArrayWriteAllocation {
    /// The device and channel for a data chunk; `allowed[d]` says whether
    /// device `d` may take it (not the stripe's parity device, not failed,
    /// with a free slot: the array guarantees at least one). `None`: the
    /// chunk stays where it lives (its layout home), written in place.
    fn choose(&mut self, view: &ArrayView, allowed: &[bool]) -> Option<Choice>;
}

/// Builds the policy `[array]` names.
pub fn build(p: &ArrayParams, service: &ServiceTimes) -> Box<dyn ArrayWriteAllocation> {
    match p.allocation {
        Allocation::Static => Box::new(StaticHome),
        Allocation::Rr => Box::new(RoundRobin::default()),
        Allocation::Egs => {
            let w = if p.egs_write_weight > 0.0 { p.egs_write_weight } else { egs_write_weight(service) };
            Box::new(Egs::new(w, p.egs_theta))
        }
        Allocation::Dls => Box::new(Dls::default()),
    }
}

/// EGS's default write weight: T_flash_w / T_flash_r (Eq. 6–7) of one
/// request, whatever DLS's batch size N (`array.dls_batch` is a parameter
/// of DLS's model, not of its baseline).
pub fn egs_write_weight(t: &ServiceTimes) -> f64 {
    let one = t.commands_ns + t.data_ns;
    (t.flash_w_ns - t.channel_ns + one) / (t.flash_r_ns - t.channel_ns + one)
}

/// The first channel of `load` with a free slot at or after `from`, cyclically.
pub(crate) fn next_channel_with_room(load: &DeviceLoad, from: u32) -> u32 {
    let n = load.free.len() as u32;
    (0..n).map(|i| (from + i) % n).find(|&c| load.free[c as usize] > 0).unwrap_or(from % n)
}
