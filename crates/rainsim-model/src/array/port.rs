//! The array is the RAID layer's port: a stripe member is a device (the
//! layer's "channel") and a slot on it (its "page"); a read becomes a device
//! read of the unit's slot, a program a device write — of a data unit to
//! where the write allocation says, of parity in place. (A unit is a page
//! under static placement, else a chunk: [`super::params::ArrayParams::unit_bytes`].)

use super::alloc::{next_channel_with_room, ArrayView, Choice};
use super::params::Allocation;
use super::Core;
use crate::flash::op::Owner;
use crate::raid::layer::{RaidAction, RaidPort, StripeWrite};
use crate::raid::rmw_rcw::{ChunkUpdate, Member, Routine, UpdatePlan};

impl RaidPort for Core {
    #[inline]
    fn member(&self, chunk: u32) -> Option<Member> {
        let (device, slot) = self.map.get(chunk)?;
        Some(Member { chunk, ppn: slot, die: device, channel: device })
    }
    fn routine(&mut self, plan: &UpdatePlan) -> Routine {
        plan.fewest()
    }
    fn wants_updates(&self) -> bool {
        false
    }
    fn place(&mut self, _: &ChunkUpdate) -> Option<u32> {
        None
    }
    fn act(&mut self, a: RaidAction) {
        match a {
            RaidAction::Read { chunk, ppn, owner, .. } => {
                let (device, slot) = self.map.get(chunk).expect("a chunk read has a location");
                debug_assert_eq!(slot, ppn);
                let bytes = self.unit_bytes;
                self.issue(owner, chunk, device, slot, (slot as u64 * bytes, bytes as u32), false);
            }
            RaidAction::Program { channel, chunk, owner } => self.program(channel, chunk, owner),
            RaidAction::Controller { ns, then } => {
                let at = self.controller.run(self.now, ns);
                self.q.at(at, super::ArrayEv::Raid(then));
            }
            RaidAction::UnitDone(req) => self.unit_done(req),
            RaidAction::CheckRebuilt { chunk, token } => {
                let want = self.tokens.as_ref().map_or(token, |t| t[chunk as usize]);
                if token != want {
                    let now = self.now;
                    self.fail(crate::verify::VerifyError {
                        time_ns: now,
                        what: format!("array degraded read of chunk {chunk} rebuilt {token:#x}, latest is {want:#x}"),
                    });
                }
            }
            RaidAction::Absorbed { chunk, token } => {
                if let Some(t) = &mut self.tokens {
                    t[chunk as usize] = token;
                }
            }
            // Its old member is on the failed device.
            RaidAction::Unwritten { .. } => {}
            RaidAction::RebuildDone => self.rebuilt(),
            other => self.unsupported(other),
        }
    }
    fn stripe_write(&mut self, kind: StripeWrite, _adjusted: bool, prereads: u32) {
        let i = match kind {
            StripeWrite::Full => 0,
            StripeWrite::Rmw => 1,
            StripeWrite::Rcw => 2,
            StripeWrite::Fresh | StripeWrite::Plain => 3,
        };
        self.counters.stripe_writes[i] += 1;
        self.counters.prereads += prereads as u64;
    }
    fn degraded_read(&mut self, _gc_tolerant: bool, _reads: u32) {
        self.counters.degraded_reads += 1;
    }
    fn degraded_update(&mut self, _prereads: u32) {}
    fn xor(&mut self) {
        self.counters.xors += 1;
    }
    fn stripe_holds_data(&self, s: u32) -> bool {
        // A row holds data when any unit of it is mapped on its device (a
        // unit is one page under static placement, the only one that fails).
        let w = self.stripes.width;
        (s * w..(s + 1) * w).any(|c| {
            self.map.get(c).is_some_and(|(d, slot)| {
                let dev = &self.devices[d as usize];
                self.failed() != Some(d) && dev.ftl.lookup(dev.stripe_layout().chunk_of_lpn(slot as u64).1).is_some()
            })
        })
    }
}

impl Core {
    /// A program of `chunk` the layer sends to device `device` (where the
    /// chunk lives): parity and static placement write in place; a data
    /// chunk under free placement goes where the allocation chooses, to a
    /// free slot of that device and channel.
    fn program(&mut self, device: u32, chunk: u32, owner: Owner) {
        let (home, slot) = self.map.get(chunk).expect("every chunk has a location");
        debug_assert_eq!(home, device);
        let (mut device, mut slot) = (home, slot);
        if self.allocation != Allocation::Static && matches!(owner, Owner::HostProgram(_)) {
            if let Some((d, s)) = self.allocate(chunk) {
                (device, slot) = (d, s);
            }
        }
        let d = device as usize;
        if self.failed() == Some(device) {
            // A job planned before the device failed: the unit is lost, its
            // data lives on in parity (the layer marks it at commit), and
            // nothing reaches the failed device.
            let tag = self.ops.insert(super::DevOp { owner, chunk, device, slot, channel: 0, delay: 0.0, write: true });
            self.loads[d].writes += 1;
            self.dropped.push(tag);
            self.counters.programs_dropped += 1;
            return;
        }
        let kind = if matches!(owner, Owner::ParityProgram(_)) { 2 } else { 1 };
        self.counters.device_ops[d][kind] += 1;
        let bytes = self.unit_bytes;
        self.counters.device_bytes[d] += bytes;
        self.issue(owner, chunk, device, slot, (slot as u64 * bytes, bytes as u32), true);
    }

    /// Asks the write allocation for a device and channel for data chunk
    /// `chunk` and takes a free slot there (`None`: no device may take it;
    /// the chunk is written in place).
    fn allocate(&mut self, chunk: u32) -> Option<(u32, u32)> {
        let s = self.stripes.stripe_of(chunk);
        let parity_device = if self.stripes.parity { self.stripes.parity_pos(s) } else { u32::MAX };
        let allowed: Vec<bool> = (0..self.devices.len() as u32)
            .map(|d| d != parity_device && self.failed() != Some(d) && self.loads[d as usize].has_room())
            .collect();
        if !allowed.contains(&true) {
            return None;
        }
        self.refresh_written();
        for load in &mut self.loads {
            load.delays.advance(self.now);
        }
        let view = ArrayView {
            now: self.now,
            devices: &self.loads,
            capacity_bytes: self.device_bytes,
            pe_limit: self.pe_limit,
            service: self.service,
            failed: self.failed(),
        };
        let Choice { device, channel } = self.alloc.choose(&view, &allowed)?;
        if !allowed.get(device as usize).copied().unwrap_or(false) {
            self.fail(crate::ssd::SimError::Unsupported(format!(
                "write allocation chose device {device}, which may not take chunk {chunk}"
            )));
            return None;
        }
        let load = &self.loads[device as usize];
        let channel = next_channel_with_room(load, channel);
        let slot = self.map.take(device, channel)?;
        self.loads[device as usize].free.copy_from_slice(self.map.free(device));
        Some((device, slot))
    }

    /// Bytes programmed per device: what the array wrote plus what the
    /// device added itself (GC moves, its own parity). The policies read
    /// `written_bytes` only through `allocate`, which refreshes it first.
    fn refresh_written(&mut self) {
        let page = self.page_bytes as u64;
        for (d, dev) in self.devices.iter().enumerate() {
            let extra: u64 = dev
                .obs
                .channels
                .iter()
                .map(|c| c.pages_moved + c.ops[crate::flash::op::Origin::ParityProgram as usize])
                .sum();
            self.loads[d].written_bytes = self.counters.device_bytes[d] + extra * page;
        }
    }
}

#[cfg(test)]
#[path = "port_tests.rs"]
mod tests;
