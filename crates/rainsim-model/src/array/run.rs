//! The array's run loop: requests in (open loop at their trace times, or
//! closed loop with `queue_depth` in flight), split into chunk reads and
//! stripe jobs, device completions back to their owners.

use super::{Array, ArrayEv, ArrayReq, Core, DevOp};
use crate::engine::SimTime;
use crate::flash::op::{FlashOp, Owner};
use crate::raid::layer::{RaidAction, Token};
use crate::ssd::SimError;
use crate::verify::VerifyError;
use rainsim_trace::stats::counted;
use rainsim_trace::{Op, Request};

impl Array {
    /// Replays `requests` (sorted by time) to completion; `progress` gets the
    /// completed count every [`crate::ssd::PROGRESS_EVENTS`] events, after
    /// which a stop flag set ([`Array::set_stop`]) ends the run.
    pub fn run(&mut self, requests: &[Request], progress: &mut dyn FnMut(u64)) -> Result<(), SimError> {
        self.check(requests)?;
        self.issued = 0;
        self.next = 0;
        let base = self.completed;
        for d in &mut self.core.devices {
            d.begin(&mut std::iter::empty(), 0)?;
        }
        if let (Some(_), None) = (self.params.fail_device, &self.core.failure) {
            let at = self.params.fail_at_ns.unwrap_or(0).max(self.core.now);
            self.core.q.at(at, ArrayEv::DeviceFails);
        }
        match (self.closed(), requests.first()) {
            (_, None) => {}
            (false, Some(r)) => self.schedule_arrival(r.time_ns),
            (true, Some(_)) => {
                for _ in 0..(self.params.queue_depth as usize).min(requests.len()) {
                    self.schedule_arrival(self.core.now);
                }
            }
        }
        let mut done = Vec::new();
        let mut checked = crate::ssd::PROGRESS_EVENTS;
        // What the devices scheduled at the start goes to the queue first.
        self.core.touched.extend(0..self.core.devices.len() as u32);
        loop {
            // Completions of the touched devices go back up; handling them may
            // touch more devices, whose completions follow in turn.
            // Programs dropped at a failed device complete now, the same way.
            let mut k = 0;
            while k < self.core.touched.len() || !self.core.dropped.is_empty() {
                if k == self.core.touched.len() {
                    let now = self.core.now;
                    for tag in std::mem::take(&mut self.core.dropped) {
                        self.device_done(tag, now);
                    }
                    continue;
                }
                let d = self.core.touched[k] as usize;
                self.core.devices[d].take_done(&mut done);
                for &(tag, t) in &done {
                    self.device_done(tag, t);
                }
                done.clear();
                k += 1;
            }
            self.core.take_events();
            if let Some(e) = self.core.error.take() {
                return Err(e);
            }
            self.refill(requests.len());
            let Some((t, ev)) = self.core.q.pop() else { break };
            match ev {
                // Set to fail after the run's last request (a device whole, or
                // a member's own `[fault]`): it does not, and the clock does
                // not run on to it.
                ArrayEv::DeviceFails
                | ArrayEv::Device(
                    _,
                    crate::ssd::Ev::Fault(crate::ssd::FaultEv::Fails | crate::ssd::FaultEv::SecondFails),
                ) if self.completed - base == requests.len() as u64 => continue,
                // An event of a device that has been replaced since.
                ArrayEv::Device(tag, _) if tag >> 16 != self.core.generation[(tag & 0xffff) as usize] as u32 => {
                    continue
                }
                _ => {}
            }
            self.core.now = t;
            match ev {
                ArrayEv::Arrival => self.arrive(requests),
                ArrayEv::Raid(e) => self.raid.on_event(e, &mut self.core),
                ArrayEv::DeviceFails => self.fail_device(self.params.fail_device.expect("scheduled")),
                ArrayEv::Replace => self.replace_due(),
                ArrayEv::Device(tag, e) => {
                    let d = tag & 0xffff;
                    if let Err(e) = self.core.devices[d as usize].step_at(t, e) {
                        return Err(self.member_error(d, e));
                    }
                    self.core.touched.push(d);
                }
            }
            if self.core.q.scheduled() >= checked {
                checked = self.core.q.scheduled() + crate::ssd::PROGRESS_EVENTS;
                progress(self.completed);
                if self.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
                    return Err(SimError::Interrupted { completed: self.completed - base });
                }
            }
        }
        progress(self.completed);
        // A failure dropped above moved the queue's clock past the array's.
        self.core.q.rewind_empty(self.core.now);
        for d in 0..self.core.devices.len() {
            if let Err(e) = self.core.devices[d].finish() {
                return Err(self.member_error(d as u32, e));
            }
        }
        if self.completed - base != requests.len() as u64 {
            return Err(VerifyError {
                time_ns: self.core.now,
                what: ran_dry(requests.len() as u64, self.completed - base),
            }
            .into());
        }
        self.verify_stripes()
    }

    fn check(&self, requests: &[Request]) -> Result<(), SimError> {
        let cap = self.capacity_bytes();
        if let Some((index, r)) =
            requests.iter().enumerate().find(|(_, r)| r.offset.saturating_add(r.size as u64) > cap)
        {
            return Err(SimError::OutOfRange { index, offset: r.offset, size: r.size, capacity: cap });
        }
        if let Some((index, r)) = requests.iter().enumerate().find(|(_, r)| r.time_ns > 1 << 62) {
            return Err(SimError::TooLate { index, time_ns: r.time_ns });
        }
        if let Some(r) = requests.first().filter(|r| !self.closed() && r.time_ns < self.core.now) {
            return Err(SimError::Input(format!(
                "request 0 arrives at {} ns, before the array's clock ({} ns, where its previous run ended): a later \
                 run's requests must not arrive earlier",
                r.time_ns, self.core.now
            )));
        }
        if let Some(index) = requests.iter().position(|r| r.size == 0) {
            return Err(SimError::Input(format!("request {index} has size 0")));
        }
        if let Some(index) = requests.windows(2).position(|w| w[1].time_ns < w[0].time_ns) {
            return Err(SimError::Input(format!(
                "request {} arrives before request {index}: requests must be sorted by time",
                index + 1
            )));
        }
        Ok(())
    }

    fn schedule_arrival(&mut self, at: SimTime) {
        self.issued += 1;
        self.core.q.at(at, ArrayEv::Arrival);
    }

    /// The next request enters the array now and is split.
    fn arrive(&mut self, requests: &[Request]) {
        let now = self.core.now;
        let r = requests[self.next];
        self.next += 1;
        if !self.closed() {
            if let Some(n) = requests.get(self.next) {
                self.schedule_arrival(n.time_ns);
            }
        }
        let c = &mut self.core.counters;
        c.first_issue.get_or_insert(now);
        let write = r.op == Op::Write;
        let id = self.core.reqs.insert(ArrayReq { arrival: now, pending: 1, write });
        let (cb, ub) = (self.core.chunk_bytes, self.core.unit_bytes);
        let rows = cb / ub;
        let end = r.offset + r.size as u64;
        let dps = self.core.stripes.data_per_stripe() as u64;
        if write {
            // One stripe job per unit row of each array stripe touched, with
            // the data units the request writes in it (whole or in part).
            for s in r.offset / cb / dps..=(end - 1) / cb / dps {
                // Within one chunk of the stripe only its own rows are
                // touched (a small write into a large chunk: a row or two).
                let (lo, hi) = (r.offset.max(s * dps * cb), end.min((s + 1) * dps * cb));
                let touched =
                    if lo / cb == (hi - 1) / cb { (lo % cb) / ub..=((hi - 1) % cb) / ub } else { 0..=rows - 1 };
                for o in touched {
                    let row = (s * rows + o) as u32;
                    let (mut written, mut partial) = (0u64, 0u64);
                    for i in 0..dps {
                        let lo = (s * dps + i) * cb + o * ub;
                        if lo + ub <= r.offset || lo >= end {
                            continue;
                        }
                        let pos = self.core.stripes.data_pos(row, i as u32);
                        written |= 1 << pos;
                        if lo < r.offset || lo + ub > end {
                            partial |= 1 << pos;
                        }
                    }
                    if written != 0 {
                        self.core.reqs[id].pending += 1;
                        self.raid.submit_job(id, row, written, partial, &mut self.core);
                    }
                }
            }
        } else {
            // One device read per chunk: its rows are consecutive slots of
            // one device (md reads a chunk past its stripe cache), unless a
            // unit of it is lost.
            for c in r.offset / cb..=(end - 1) / cb {
                let (lo, hi) = ((c * cb).max(r.offset), ((c + 1) * cb).min(end));
                let (s, i) = (c / dps, (c % dps) as u32);
                let (first, last) = ((lo - c * cb) / ub, (hi - 1 - c * cb) / ub);
                let unit = |l: &crate::raid::stripe::StripeLayout, o: u64| {
                    let row = (s * rows + o) as u32;
                    row * l.width + l.data_pos(row, i)
                };
                if (first..=last).any(|o| self.raid.is_lost(unit(&self.core.stripes, o))) {
                    for o in first..=last {
                        let (a, b) = (lo.max(c * cb + o * ub), hi.min(c * cb + (o + 1) * ub));
                        let u = unit(&self.core.stripes, o);
                        self.read_part(id, u, a - c * cb - o * ub, (b - a) as u32);
                    }
                } else {
                    let u = unit(&self.core.stripes, first);
                    self.read_part(id, u, lo - c * cb - first * ub, (hi - lo) as u32);
                }
            }
        }
        self.core.unit_done(id);
    }

    /// Reads `size` bytes of request `id` from `at` bytes into unit `unit`
    /// on (they may run on through the unit's successors on its device), or
    /// rebuilds the unit from its stripe when it is lost.
    fn read_part(&mut self, id: u32, unit: u32, at: u64, size: u32) {
        self.core.reqs[id].pending += 1;
        if self.raid.is_lost(unit) {
            self.raid.reconstruct_read(id, unit, &mut self.core);
            return;
        }
        let (device, slot) = self.core.map.get(unit).expect("every unit has a location");
        let dev = slot as u64 * self.core.unit_bytes + at;
        self.core.issue(Owner::HostRead(id), unit, device, slot, (dev, size), false);
    }

    /// A device request completed at `t`: its owner hears of it.
    fn device_done(&mut self, tag: u32, t: SimTime) {
        debug_assert_eq!(t, self.core.now);
        let op = self.core.ops.remove(tag);
        let load = &mut self.core.loads[op.device as usize];
        if self.core.allocation == super::params::Allocation::Dls {
            load.delays.done(op.channel, op.delay);
        }
        if op.write {
            load.writes -= 1;
        } else {
            load.reads -= 1;
        }
        if !op.write && self.core.allocation != super::params::Allocation::Static {
            self.core.read_done_at(op.device, op.slot);
        }
        let flash = FlashOp { chunk: op.chunk, owner: op.owner, enqueued: 0, ppn: op.slot, seq: 0 };
        let token = self.core.tokens.as_ref().map(|t| t[op.chunk as usize]);
        let failed = self.core.failed() == Some(op.device);
        match op.owner {
            Owner::HostRead(req) => self.core.unit_done(req),
            Owner::PreRead(job) => self.raid.preread_done(job, flash, token, &mut self.core),
            Owner::DegradedRead(id) => self.raid.partner_read_done(id, token, &mut self.core),
            Owner::HostProgram(job) | Owner::ParityProgram(job) => self.program_done(job, op, flash),
            // The array's RAID layer keeps no replicas (its port has none).
            Owner::ReplicaReadA(_)
            | Owner::ReplicaReadB(_)
            | Owner::ReplicaProgram(_)
            | Owner::PageProgram(_)
            | Owner::MemberRead(_)
            | Owner::MemberProgram(_) => {
                unreachable!("{:?} in an array", op.owner)
            }
        }
        if failed {
            // The failed device's last request done (and its owner told: a
            // program that landed there marks its unit lost again) lets a
            // due replacement in.
            self.replace_if_drained();
        }
    }

    /// Counts the requests completed by the last event; in closed loop each
    /// one lets the next request in now.
    fn refill(&mut self, total: usize) {
        let before = self.completed;
        self.completed = self.core.counters.completed();
        if self.closed() {
            for _ in before..self.completed {
                if self.issued < total {
                    self.schedule_arrival(self.core.now);
                }
            }
        }
    }

    /// A program of job `job` is done: the mapping takes it (the old slot is
    /// trimmed and freed), then the RAID layer hears of it.
    fn program_done(&mut self, job: u32, op: DevOp, flash: FlashOp) {
        let c = self.raid.commit_of(job, &flash, None);
        if !c.stale {
            if let Some((dev, slot)) = self.core.map.set(op.chunk, op.device, op.slot) {
                self.core.counters.moves += 1;
                let key = (dev as u64) << 32 | slot as u64;
                if self.core.reads_at.contains_key(&key) {
                    self.core.deferred_trims.insert(key);
                    self.core.counters.deferred_trims += 1;
                } else {
                    self.core.trim(dev, slot);
                }
            }
        }
        if let (Some(tokens), Some(t)) = (&mut self.core.tokens, c.token) {
            tokens[op.chunk as usize] = match t {
                Token::Parity(x) => x,
                Token::Data { token, .. } => token,
            };
        }
        if self.raid.failure().is_some() {
            self.raid.committed(job, op.chunk, op.device, op.device);
        }
        self.raid.program_done(job, &mut self.core);
    }

    /// Verify mode: every stripe's tokens XOR to zero (parity matches its
    /// data, a lost data unit counting with its latest token, which parity
    /// keeps) unless its parity is lost, and no stripe has two chunks on one
    /// device.
    fn verify_stripes(&self) -> Result<(), SimError> {
        let Some(tokens) = &self.core.tokens else { return Ok(()) };
        let now = self.core.now;
        let w = self.core.stripes.width as usize;
        let rows = (self.core.chunk_bytes / self.core.unit_bytes) as usize;
        for (s, chunk) in tokens.chunks(w).enumerate() {
            // Without parity there is nothing to match.
            let unchecked = !self.core.stripes.parity || self.raid.is_lost(self.core.stripes.parity_chunk(s as u32));
            if !unchecked && chunk.iter().fold(0, |x, t| x ^ t) != 0 {
                let row = if rows > 1 { format!(", page row {}", s % rows) } else { String::new() };
                return Err(VerifyError {
                    time_ns: now,
                    what: format!("array stripe {}{row}: parity does not match its data", s / rows),
                }
                .into());
            }
        }
        let co = self.co_resident_stripes();
        if co > 0 {
            return Err(VerifyError { time_ns: now, what: co_resident(co) }.into());
        }
        Ok(())
    }

    /// Error `e` of device `d`, naming the device (and whether it is the
    /// replacement of a failed one: fresh, not preconditioned).
    #[cold]
    fn member_error(&self, d: u32, e: SimError) -> SimError {
        let replaced = self.core.failure.as_ref().is_some_and(|f| f.device == d && f.replaced_at.is_some());
        let what =
            if replaced { " (the replacement put in for the failed one: fresh, not preconditioned)" } else { "" };
        SimError::Member { device: d, what, error: Box::new(e) }
    }
}

impl Core {
    /// Hands device `device` a request of `range` = (byte offset, size) for
    /// `owner`, on chunk `chunk` at `slot`.
    pub(crate) fn issue(&mut self, owner: Owner, chunk: u32, device: u32, slot: u32, range: (u64, u32), write: bool) {
        let now = self.now;
        let load = &mut self.loads[device as usize];
        // Only DLS reads the delay model (and so the slot's channel); other
        // schemes charge channel 0 no delay.
        let (channel, delay) = if self.allocation == super::params::Allocation::Dls {
            let channel = self.map.channel(slot);
            // A read waits on the die its page is on (when the device put it
            // on the slot's channel; a member with RAID inside may not).
            let page = range.0 / self.page_bytes as u64;
            let die = if write { None } else { self.devices[device as usize].die_of_page(page) };
            let die = die.filter(|&(ch, _)| ch == channel).map(|(_, d)| d);
            (channel, load.delays.issue(channel, die, now, write, &self.service))
        } else {
            (0, 0.0)
        };
        if write {
            load.writes += 1;
        } else {
            load.reads += 1;
            self.counters.device_ops[device as usize][0] += 1;
        }
        if !write && self.allocation != super::params::Allocation::Static {
            *self.reads_at.entry((device as u64) << 32 | slot as u64).or_insert(0) += 1;
        }
        let tag = self.ops.insert(DevOp { owner, chunk, device, slot, channel, delay, write });
        let op = if write { Op::Write } else { Op::Read };
        let r = || Request { time_ns: now, offset: range.0, size: range.1, device: 0, op };
        if let Some(rec) = &mut self.record {
            rec[device as usize].push(r());
        }
        let dev = &mut self.devices[device as usize];
        let page = self.page_bytes as u64;
        if range.0 / page == (range.0 + range.1 as u64 - 1) / page {
            // Within one page of the device.
            dev.page_now(now, (range.0 / page) as u32, range.1, write, tag);
        } else {
            dev.arrive_now(now, r(), tag);
        }
        self.touched.push(device);
    }

    /// Moves the events the touched devices scheduled into the array's
    /// queue, each device's in its own rank (its index + 1: after the
    /// array's own at equal times, devices by index).
    fn take_events(&mut self) {
        for i in 0..self.touched.len() {
            let d = self.touched[i];
            // The slot's generation in the high bits: see `rebuild.rs`.
            let tag = d | (self.generation[d as usize] as u32) << 16;
            let (q, now) = (&mut self.q, self.now);
            self.devices[d as usize].drain_events(|t, e| {
                debug_assert!(t >= now, "device {d} scheduled an event at {t} ns, before the array's {now} ns");
                q.at_ranked(t, d as u16 + 1, ArrayEv::Device(tag, e));
            });
        }
        self.touched.clear();
    }

    /// A read of `slot` on `device` finished: a trim that waited for it runs.
    fn read_done_at(&mut self, device: u32, slot: u32) {
        let key = (device as u64) << 32 | slot as u64;
        let n = self.reads_at.get_mut(&key).expect("counted at issue");
        *n -= 1;
        if *n == 0 {
            self.reads_at.remove(&key);
            if self.deferred_trims.remove(&key) {
                self.trim(device, slot);
            }
        }
    }

    /// Trims the slot a chunk moved away from and gives it back.
    fn trim(&mut self, device: u32, slot: u32) {
        if self.failed() != Some(device) {
            let pages = self.unit_bytes / self.page_bytes as u64;
            // The trim happens now (a collection it starts starts now), not
            // at the device's last event.
            self.devices[device as usize].q.advance_to(self.now);
            for p in 0..pages {
                if !self.devices[device as usize].trim(slot as u64 * pages + p) {
                    self.counters.trims_kept += 1;
                }
            }
            // A trim may start a collection on an idle die.
            self.touched.push(device);
        }
        self.map.release(device, slot);
        self.loads[device as usize].free.copy_from_slice(self.map.free(device));
    }

    /// One unit of array request `id` is done; the last completes it.
    pub(crate) fn unit_done(&mut self, id: u32) {
        let r = &mut self.reqs[id];
        r.pending -= 1;
        if r.pending > 0 {
            return;
        }
        let r = self.reqs.remove(id);
        let now = self.now;
        let lat = now - r.arrival;
        self.counters.latency[r.write as usize].record(lat);
        self.record_phase(r.write, lat);
        self.counters.last_completion = now;
    }

    /// Records a failure of the run (the first one wins).
    pub(crate) fn fail(&mut self, e: impl Into<SimError>) {
        if self.error.is_none() {
            self.error = Some(e.into());
        }
    }

    /// A RAID action the array cannot carry out.
    pub(crate) fn unsupported(&mut self, a: RaidAction) {
        self.fail(SimError::Unsupported(format!("array RAID layer: {a:?}")));
    }
}

/// The run ended with array requests unfinished.
fn ran_dry(issued: u64, completed: u64) -> String {
    let issued = counted(issued, "array request", "array requests");
    format!("{issued} issued but {completed} completed when the event queues ran dry")
}

/// `co` stripes keep two chunks on one device.
fn co_resident(co: u64) -> String {
    let n = counted(co, "array stripe holds", "array stripes hold");
    format!("{n} two chunks on one device: not single-failure tolerant")
}

#[cfg(test)]
#[path = "issue_tests.rs"]
mod issue_tests;

#[cfg(test)]
mod tests {
    /// Counts of one take the singular.
    #[test]
    fn verify_errors_agree_with_their_counts() {
        assert_eq!(super::ran_dry(1, 0), "1 array request issued but 0 completed when the event queues ran dry");
        assert_eq!(super::ran_dry(5, 3), "5 array requests issued but 3 completed when the event queues ran dry");
        assert!(super::co_resident(1).starts_with("1 array stripe holds two chunks on one device:"));
        assert!(super::co_resident(4).starts_with("4 array stripes hold two chunks on one device:"));
    }

    /// Verify mode passes a layout at home and refuses one where stripes
    /// keep two chunks on one device (a placement bug under `static`),
    /// counting them.
    #[test]
    fn verify_refuses_a_stripe_with_two_chunks_on_one_device() {
        use crate::array::{params::Allocation, test_config::tiny_array, Array};
        let mut a = Array::new(&tiny_array(3, Allocation::Static), true).unwrap();
        assert!(a.verify_stripes().is_ok(), "every chunk at home");
        // Chunks 1 (stripe 0, device 1, slot 0) and 3 (stripe 1, device 0,
        // slot 1) swap places: each stripe then keeps two chunks on one device.
        assert_eq!((a.core.map.get(1), a.core.map.get(3)), (Some((1, 0)), Some((0, 1))));
        a.core.map.set(1, 0, 1);
        a.core.map.set(3, 1, 0);
        let e = a.verify_stripes().expect_err("stripes 0 and 1 co-resident").to_string();
        assert!(e.contains("2 array stripes hold two chunks on one device: not single-failure tolerant"), "{e}");
    }
}
