//! A device of the array fails, a fresh one replaces it and the RAID layer
//! rebuilds every unit it held onto the replacement (md's recovery onto a
//! spare): `array.fail_device`, `array.fail_at_ns`, `array.replace_after_ns`,
//! `array.rebuild_stripes`.
//!
//! The replacement goes in `replace_after_ns` after the failure, once every
//! request the failed device had in flight has completed (nothing new
//! reaches it after the failure). It takes the failed device's slot: the
//! events the old device still had queued (a collection running) are
//! dropped by the slot's generation, and its counters stay with it for the
//! report (`failure.failed_device`). The rebuild (`raid/failure.rs`, as for
//! a failed channel) reads every other unit of a lost unit's page row, XORs
//! and programs it onto the replacement, `rebuild_stripes` rows at once in
//! row order — every row, as md does, or with `array.rebuild = "written"`
//! only rows some surviving device holds data of; a host write of a lost
//! unit after the replacement programs it there, and the rebuild skips it.

use super::{Array, ArrayEv, Core};
use crate::config::Config;
use crate::engine::SimTime;
use crate::metrics::collector::{Collector, LatencyStats};
use crate::ssd::Ssd;

/// What the array keeps of a failure.
pub(crate) struct FailureState {
    /// The device that failed.
    pub device: u32,
    /// When it failed.
    pub failed_at: SimTime,
    /// The replacement is due and waits for the failed device to drain.
    pub replace_due: bool,
    /// When the replacement went in.
    pub replaced_at: Option<SimTime>,
    /// When the rebuild ended.
    pub rebuilt_at: Option<SimTime>,
    /// Latency of the requests completed before the failure, during it
    /// (until the rebuild ends) and after, reads and writes.
    pub phases: [[LatencyStats; 2]; 3],
    /// The failed device once replaced, with what the array sent it.
    pub retired: Option<Retired>,
}

/// The failed device after its replacement took its slot.
pub(crate) struct Retired {
    pub ssd: Box<Ssd<Collector>>,
    /// Reads, data programs, parity programs the array sent it.
    pub ops: [u64; 3],
    /// Bytes the array programmed on it.
    pub bytes: u64,
}

impl FailureState {
    /// The phase a request completing now counts in: during, or after the rebuild.
    fn phase(&self) -> usize {
        if self.rebuilt_at.is_some() {
            2
        } else {
            1
        }
    }
}

/// The replacement's configuration: the array's device, fresh (no
/// preconditioning, no warm-up), with a seed of its own.
pub(crate) fn replacement_config(cfg: &Config, a: &super::params::ArrayParams) -> Config {
    let d = a.fail_device.unwrap_or(0);
    let mut c = super::device_config(cfg, d);
    c.seed = cfg.seed.wrapping_add(a.devices as u64 + d as u64);
    // Fresh: nothing valid or invalid (the keys' defaults age a device).
    c.precondition = crate::config::Precondition { valid: 0.0, invalid: 0.0, ..Default::default() };
    c.warmup = Default::default();
    c
}

impl Array {
    /// Device `d` fails now: its units are lost, reads of them are rebuilt
    /// from their rows and writes to them kept in parity, until a
    /// replacement is in (when `array.replace_after_ns` asks for one).
    pub fn fail_device(&mut self, d: u32) {
        let w = self.core.stripes.width;
        let lost: Vec<u32> = (0..self.core.stripes.chunks() as u32)
            .filter(|&c| self.core.map.get(c).is_some_and(|(dev, _)| dev == d))
            .collect();
        let rows = self.params.rebuild_stripes.unwrap_or(super::params::DEFAULT_REBUILD_STRIPES);
        self.raid.fail(d, None, &lost, rows, crate::raid::layer::ReadPlace::Tail);
        if self.params.rebuild == Some(super::params::RebuildScope::Written) {
            self.raid.rebuild_written_only();
        }
        debug_assert!(lost.iter().all(|c| c / w < self.core.stripes.stripes));
        let now = self.core.now;
        let c = &self.core.counters;
        self.core.failure = Some(Box::new(FailureState {
            device: d,
            failed_at: now,
            replace_due: false,
            replaced_at: None,
            rebuilt_at: None,
            phases: [[c.latency[0].clone(), c.latency[1].clone()], Default::default(), Default::default()],
            retired: None,
        }));
        if let Some(after) = self.params.replace_after_ns {
            self.core.q.at(now + after, ArrayEv::Replace);
        }
    }

    /// The failed device once its replacement took its slot.
    #[doc(hidden)]
    pub fn retired_device(&self) -> Option<&Ssd<Collector>> {
        self.core.failure.as_ref()?.retired.as_ref().map(|r| &*r.ssd)
    }

    /// The replacement is due: it goes in now, or once the failed device
    /// has completed what it had in flight.
    pub(super) fn replace_due(&mut self) {
        if let Some(f) = &mut self.core.failure {
            f.replace_due = true;
        }
        self.replace_if_drained();
    }

    /// Puts the replacement in if it is due and the failed device is idle.
    pub(super) fn replace_if_drained(&mut self) {
        let Some(f) = &self.core.failure else { return };
        let d = f.device as usize;
        let load = &self.core.loads[d];
        if !f.replace_due || f.replaced_at.is_some() || load.reads + load.writes > 0 {
            return;
        }
        if let Err(e) = self.replace(d) {
            self.core.fail(e);
        }
    }

    fn replace(&mut self, d: usize) -> Result<(), crate::ssd::SimError> {
        let cfg = self.replacement.as_deref().expect("a replacement is configured");
        let setup = crate::setup::DeviceSetup::resolve(cfg)?;
        let verify = self.core.tokens.is_some();
        let mut ssd = Ssd::build(setup, Collector::new(cfg.geometry.channels), verify, &[])?;
        ssd.use_outbox();
        let now = self.core.now;
        ssd.q.advance_to(now);
        ssd.begin(&mut std::iter::empty(), 0)?;
        let old = std::mem::replace(&mut self.core.devices[d], ssd);
        let c = &mut self.core.counters;
        let retired = Retired {
            ssd: Box::new(old),
            ops: std::mem::take(&mut c.device_ops[d]),
            bytes: std::mem::take(&mut c.device_bytes[d]),
        };
        self.core.generation[d] = self.core.generation[d].wrapping_add(1);
        let f = self.core.failure.as_mut().expect("replacing a failed device");
        f.replaced_at = Some(now);
        f.retired = Some(retired);
        self.core.touched.push(d as u32);
        self.raid.replaced(&mut self.core);
        Ok(())
    }
}

impl Core {
    /// The device that has failed and not been replaced yet: nothing reaches it.
    #[inline]
    pub(crate) fn failed(&self) -> Option<u32> {
        self.failure.as_ref().filter(|f| f.replaced_at.is_none()).map(|f| f.device)
    }

    /// The rebuild wrote its last unit: the array is whole again.
    pub(crate) fn rebuilt(&mut self) {
        let now = self.now;
        if let Some(f) = &mut self.failure {
            f.rebuilt_at = Some(now);
        }
    }

    /// Records a completed request's latency in its failure phase.
    #[inline]
    pub(crate) fn record_phase(&mut self, write: bool, latency: SimTime) {
        if let Some(f) = &mut self.failure {
            let p = f.phase();
            f.phases[p][write as usize].record(latency);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raid::array_params::ArrayParams;

    /// The replacement is the array's device, fresh: nothing valid or
    /// invalid (the precondition keys' defaults would age it), no warm-up,
    /// a seed past every member's.
    #[test]
    fn the_replacement_is_fresh_with_a_seed_of_its_own() {
        let mut cfg = Config { seed: 10, ..Default::default() };
        cfg.warmup.device_writes = 0.5;
        let a = ArrayParams { devices: 5, fail_device: Some(2), ..Default::default() };
        let c = replacement_config(&cfg, &a);
        assert_eq!((c.precondition.valid, c.precondition.invalid), (0.0, 0.0));
        assert_eq!(c.warmup.device_writes, 0.0);
        assert_eq!(c.seed, 10 + 5 + 2, "members have seeds 10 to 14");
        assert!(c.array.is_none());
    }
}
