//! Channel queues and dispatch: operations are queued on their channel
//! (reads per die, programs per channel); an idle die gets GC first when a
//! plane is at the threshold, else its scheduler's next operation, which the
//! flash interface (`flash/interface.rs`) runs with its timing.

use super::{Ev, Ssd};
use crate::engine::SimTime;
use crate::flash::op::{FlashOp, OpKind, Origin, Owner};
use crate::ftl::allocation::Lane;
use crate::metrics::observer::Observer;
use crate::sched::{ChannelScheduler, ReadPlace, Sched};
use crate::verify::Verifier;

impl<O: Observer> Ssd<O> {
    /// Queues a read of `chunk` (now at `ppn`) on its die.
    pub(crate) fn enqueue_read(&mut self, chunk: u32, ppn: u32, owner: Owner) {
        self.enqueue_read_at(chunk, ppn, owner, ReadPlace::Tail);
    }

    /// Queues a read at `place` in its die's queue: the tail, the head
    /// (degraded-mode reads, which the paper inserts at the heads of queues)
    /// or the background (a rebuild at background priority).
    pub(crate) fn enqueue_read_at(&mut self, chunk: u32, ppn: u32, owner: Owner, place: ReadPlace) {
        let die = self.layout.die_of(ppn);
        let ch = self.layout.channel_of_die(die);
        self.seq = self.seq.wrapping_add(1);
        let op = FlashOp { chunk, owner, enqueued: self.q.now(), ppn, seq: self.seq };
        let local = die - self.layout.first_die(ch);
        let c = &mut self.channels[ch as usize];
        c.arrivals.record(op.enqueued);
        match place {
            // An idle die that would pop this read next starts it at once:
            // what `try_start` does after a push, without the push and pop.
            ReadPlace::Tail
                if self.direct_starts
                    && self.flash.idle(die)
                    && c.sched.read_goes_first(local)
                    && self.ftl.die_needs_gc(die).is_none() =>
            {
                self.totals.direct_reads += 1;
                self.start_op(die, op);
            }
            ReadPlace::Tail => c.sched.push_read(local, op),
            ReadPlace::Head => c.sched.push_read_front(local, op),
            ReadPlace::Background => c.sched.push_read_background(local, op),
        }
        // Mostly a busy die on a loaded device: skip the call then.
        if self.flash.idle(die) {
            self.try_start(die);
        }
    }

    /// Queues a program of `chunk` on channel `ch`.
    pub(crate) fn enqueue_program(&mut self, ch: u32, chunk: u32, owner: Owner) {
        self.seq = self.seq.wrapping_add(1);
        let op = FlashOp { chunk, owner, enqueued: self.q.now(), ppn: u32::MAX, seq: self.seq };
        let bound = if self.repl.is_some() { self.copy_die(chunk) } else { None };
        let c = &mut self.channels[ch as usize];
        c.arrivals.record(op.enqueued);
        if bound.is_none() && self.direct_starts {
            if let Some(local) = self.program_starts_at_once(ch) {
                return self.start_program_at_once(ch, local, op);
            }
        }
        let c = &mut self.channels[ch as usize];
        match bound {
            Some(d) => c.sched.push_write_for(d, op),
            None => c.sched.push_write(op),
        }
        // The inline FIFO binds no program to a die (one test, not a match).
        if bound.is_some() || !matches!(c.sched, Sched::Fifo(_)) && c.sched.bound_die(chunk).is_some() {
            return self.offer_bound_program(ch);
        }
        self.offer_program(ch, false);
    }

    /// The channel-local die a program queued now on channel `ch` would
    /// start on at once, when that is the die the offer tries first (the
    /// rotation's next, or the channel's first) and nothing else waits for
    /// it: no program queued before, the FIFO scheduler, no read of its own,
    /// no collection due, room for programs. `None` when in doubt (then the
    /// program is queued and offered as usual).
    #[inline(always)]
    fn program_starts_at_once(&self, ch: u32) -> Option<u32> {
        let s = &self.channels[ch as usize].sched;
        if !matches!(s, Sched::Fifo(_)) || s.writes_queued() != 0 {
            return None;
        }
        let local = self.program_cursor.as_ref().map_or(0, |c| c[ch as usize]);
        let die = self.layout.first_die(ch) + local;
        let free = self.flash.idle(die)
            && s.reads_queued_for(local) == 0
            && self.ftl.die_needs_gc(die).is_none()
            && self.takes_writes(die);
        free.then_some(local)
    }

    /// Starts `op` on channel `ch`'s die `local` as the offer would have
    /// after queueing it, and moves the rotation on past that die.
    fn start_program_at_once(&mut self, ch: u32, local: u32, op: FlashOp) {
        self.totals.direct_programs += 1;
        self.start_op(self.layout.first_die(ch) + local, op);
        let next = self.rotation_after(local);
        if let Some(c) = &mut self.program_cursor {
            c[ch as usize] = next;
        }
    }

    /// The channel-local die after `local` in the rotation, without a
    /// division (the dies per channel are not a constant).
    #[inline(always)]
    fn rotation_after(&self, local: u32) -> u32 {
        if local + 1 == self.layout.dies_per_channel {
            0
        } else {
            local + 1
        }
    }

    /// Offers a program just queued on channel `ch` to its idle dies; stop at
    /// the first that takes it. With `pass_by` (a program bound to one die),
    /// the dies with nothing of their own to take are passed by: `try_start`
    /// would find nothing for them.
    #[inline(always)]
    fn offer_program(&mut self, ch: u32, pass_by: bool) {
        if self.program_cursor.is_some() {
            return self.offer_program_in_rotation(ch, pass_by);
        }
        let first = self.layout.first_die(ch);
        for die in first..first + self.layout.dies_per_channel {
            if self.flash.idle(die)
                && (!pass_by || self.may_take(die))
                && self.try_start(die)
                && self.channels[ch as usize].sched.writes_queued() == 0
            {
                break;
            }
        }
    }

    /// [`Self::offer_program`] under `ftl.allocation = "round-robin"`: the
    /// channel's dies from the one after the last to take a program.
    #[inline(never)]
    fn offer_program_in_rotation(&mut self, ch: u32, pass_by: bool) {
        let first = self.layout.first_die(ch);
        let n = self.layout.dies_per_channel;
        // A loaded channel has no idle die: one scan, not the turn's tests.
        if !self.flash.channel_has_idle_die(ch) {
            return;
        }
        let mut local = self.program_cursor.as_ref().map_or(0, |c| c[ch as usize]);
        for _ in 0..n {
            let die = first + local;
            let next = self.rotation_after(local);
            let queued = self.channels[ch as usize].sched.writes_queued();
            if self.flash.idle(die) && (!pass_by || self.may_take(die)) && self.try_start(die) {
                let left = self.channels[ch as usize].sched.writes_queued();
                if left < queued {
                    // It took a program (not only a collection or a read).
                    if let Some(c) = &mut self.program_cursor {
                        c[ch as usize] = next;
                    }
                }
                if left == 0 {
                    break;
                }
            }
            local = next;
        }
    }

    /// [`Self::offer_program`] of a program bound to one die, out of line.
    #[inline(never)]
    fn offer_bound_program(&mut self, ch: u32) {
        self.offer_program(ch, true);
    }

    /// Whether [`Self::try_start`] on idle `die` has anything to do: work
    /// queued for it or a plane at the threshold (its own first checks).
    #[inline(always)]
    pub(crate) fn has_work(&self, die: u32) -> bool {
        let ch = self.layout.channel_of_die(die);
        let s = &self.channels[ch as usize].sched;
        s.writes_queued() > 0
            || s.reads_queued_for(die - self.layout.first_die(ch)) > 0
            || self.ftl.die_needs_gc(die).is_some()
    }

    /// [`Self::has_work`] counting only the programs `die` may take (a
    /// die-bound scheduler's other dies' are not): `pop_for` finds nothing
    /// for it otherwise. Kept apart: the channel's count is the cheaper
    /// test on the hot paths, where either will do.
    #[inline]
    fn may_take(&self, die: u32) -> bool {
        let ch = self.layout.channel_of_die(die);
        let s = &self.channels[ch as usize].sched;
        let local = die - self.layout.first_die(ch);
        s.writes_queued_for(local) > 0 || s.reads_queued_for(local) > 0 || self.ftl.die_needs_gc(die).is_some()
    }

    /// Starts work on every idle die of channel `ch`.
    pub(crate) fn dispatch(&mut self, ch: u32) {
        let first = self.layout.first_die(ch);
        for die in first..first + self.layout.dies_per_channel {
            self.try_start(die);
        }
    }

    /// Starts work on `die` if it is idle: GC first when a plane is at the
    /// threshold, else the scheduler's next operation for it. Returns whether
    /// the die is busy afterwards.
    pub(crate) fn try_start(&mut self, die: u32) -> bool {
        let ch = self.layout.channel_of_die(die);
        let local = die - self.layout.first_die(ch);
        // Re-check idleness each time: a re-routed read may have started
        // work on this die recursively.
        while self.flash.idle(die) {
            if self.start_gc_if_needed(die) {
                break;
            }
            let s = &self.channels[ch as usize].sched;
            let writes = s.writes_queued() > 0;
            if !writes && s.reads_queued_for(local) == 0 {
                return false;
            }
            let writes_ok = writes && self.takes_writes(die);
            let Some(op) = self.channels[ch as usize].sched.pop_for(local, writes_ok) else { return false };
            self.start_op(die, op);
        }
        true
    }

    /// Starts `op` on idle `die` (a read whose page moved to another die is
    /// queued there instead).
    #[inline(always)]
    fn start_op(&mut self, die: u32, mut op: FlashOp) {
        let now = self.q.now();
        let ch = self.layout.channel_of_die(die);
        match op.origin().kind() {
            OpKind::Read => {
                // The page may have moved since the read was queued (overwrite
                // committed elsewhere in the channel): follow it.
                let id = if self.replicating() { self.read_id(&op) } else { op.chunk };
                let Some(ppn) = self.ftl.lookup(id) else {
                    if self.defer_unmapped_read(&op) {
                        return;
                    }
                    self.fail(crate::verify::VerifyError {
                        time_ns: now,
                        what: format!("queued read of chunk {} finds it unmapped", op.chunk),
                    });
                    return;
                };
                let home = self.layout.die_of(ppn);
                if home != die {
                    op.ppn = ppn;
                    let hch = self.layout.channel_of_die(home);
                    let local = home - self.layout.first_die(hch);
                    if self.raid.is_some() && self.raid().background_read(op.owner) {
                        self.channels[hch as usize].sched.push_read_background(local, op);
                    } else {
                        self.channels[hch as usize].sched.push_read_front(local, op);
                    }
                    self.try_start(home);
                    return;
                }
                op.ppn = ppn;
                if let Some(v) = &self.verifier {
                    if let Err(e) = v.read(&self.ftl, id, ppn, now) {
                        self.fail(e);
                        return;
                    }
                }
                let sense = if self.ldpc.is_some() { self.ldpc_sense(ch, op.origin(), ppn) } else { self.t.read };
                let sensed = self.flash.submit(die, op, now, sense);
                self.q.at(sensed, Ev::ReadSensed(die));
            }
            OpKind::Program => {
                // Its commit, a program time from now, invalidates the page
                // the chunk holds now: bring that page's records closer.
                self.ftl.prefetch_commit(op.chunk);
                self.sync_ftl_clock();
                // One test for both models (variation-aware lanes, process
                // variation), so that the plain path stays as it was.
                let (alloc, prog) = if self.ftl.plain_programs() {
                    (self.ftl.allocate(die), self.t.program)
                } else {
                    self.vary(ch, die)
                };
                let ppn = match alloc {
                    Ok(p) => p,
                    Err(e) => {
                        self.fail(e);
                        return;
                    }
                };
                op.ppn = ppn;
                let end = self.flash.submit(die, op, now, prog);
                self.q.at(end, Ev::OpDone(die));
            }
        }
    }

    /// Sensing time of a read of `ppn` starting now under the LDPC model, with
    /// its probe. Out of line, so that the dispatch loop stays as small as
    /// without the model when it is off.
    #[inline(never)]
    fn ldpc_sense(&mut self, ch: u32, origin: Origin, ppn: u32) -> SimTime {
        let Some(m) = &self.ldpc else { return self.t.read };
        let level = self.read_level(m, ppn);
        let (sense, retry) = (m.read_ns(level), m.retry_ns(level));
        self.obs.flash_read(ch, origin, level, retry);
        // The level is taken before this read counts against its block (read
        // disturb comes from the reads before it). Only this model reads the
        // count, so without it no read touches its block's record (a cache
        // miss at a random block on every read).
        self.ftl.note_read(ppn);
        sense
    }

    /// A page for a program starting on `die` and its program time, when
    /// lanes or process variation are on (with the program's probe).
    #[inline(never)]
    fn vary(&mut self, ch: u32, die: u32) -> (Result<u32, crate::ftl::OutOfSpace>, SimTime) {
        let alloc = if self.ftl.uses_lanes() { self.allocate_by_lane(die) } else { self.ftl.allocate(die) };
        let prog = match (&alloc, self.ftl.pv.is_some()) {
            (Ok(ppn), true) => self.pv_program_ns(ch, *ppn),
            _ => self.t.program,
        };
        (alloc, prog)
    }

    /// A page for a program starting on `die`, by lane (variation-aware
    /// allocation, Fig. 4): a fast block when other work still waits for the
    /// die's chip — host requests waiting for it (NR, Eq. 2) or operations
    /// queued for the die — else a slow one.
    fn allocate_by_lane(&mut self, die: u32) -> Result<u32, crate::ftl::OutOfSpace> {
        let ch = self.layout.channel_of_die(die);
        let local = die - self.layout.first_die(ch);
        let s = &self.channels[ch as usize].sched;
        let waiting = self.host.nr().get(die as usize).copied().unwrap_or(0)
            + s.reads_queued_for(local)
            + s.writes_queued_for(local);
        let lane = if waiting > 0 { Lane::Fast } else { Lane::Slow };
        self.ftl.allocate_lane(die, lane)
    }

    /// Program time of `ppn`'s block under process variation, with its probe.
    fn pv_program_ns(&mut self, ch: u32, ppn: u32) -> SimTime {
        let Some((step, ns)) = self.ftl.pv_program_ns(ppn) else { return self.t.program };
        self.obs.flash_program(ch, step, false);
        ns
    }

    /// Die time of the GC just collected under process variation: each move
    /// programs at its destination block's tPROG. Fires a probe per move.
    #[inline(never)]
    fn pv_gc_ns(&mut self, ch: u32, work: &crate::ftl::GcWork) -> SimTime {
        let per_move = self.t.gc_move(self.copyback) - self.t.program;
        let mut dur = work.erased as u64 * self.t.erase;
        for i in 0..self.ftl.moves.len() {
            let new = self.ftl.moves[i].1;
            let (step, ns) = self.ftl.pv_program_ns(new).unwrap_or((0, self.t.program));
            self.obs.flash_program(ch, step, true);
            dur += per_move + ns;
        }
        dur
    }

    /// Sensing done: the page waits for the bus, then crosses it. (Inlined
    /// into the event handler, its one caller, as `op_done` is: the call's
    /// saved registers cost more than the handler's own work.)
    #[inline(always)]
    pub(crate) fn read_sensed(&mut self, die: u32) {
        let done = self.flash.sensed(die, self.q.now());
        if let Some(op) = &self.flash.dies[die as usize].op {
            self.obs.op_will_finish(self.layout.channel_of_die(die), op.origin(), done - op.enqueued);
        }
        self.q.at(done, Ev::OpDone(die));
    }

    /// The die's operation ended: account it, hand the result on, refill.
    #[inline(always)]
    pub(crate) fn op_done(&mut self, die: u32) {
        let now = self.q.now();
        let ch = self.layout.channel_of_die(die);
        let Some((op, since)) = self.flash.complete(die) else { return };
        self.obs.die_busy(ch, since, now);
        let queued = self.channels[ch as usize].queued();
        self.obs.op_done(ch, op.origin(), queued, now - op.enqueued);
        self.op_completed(op);
        if self.has_work(die) {
            self.try_start(die);
        }
        if self.replace_pending {
            self.after_drain_step();
        }
    }

    /// Starts GC on `die` if one of its planes is below the threshold and has
    /// something to reclaim (otherwise the die keeps serving I/O).
    fn start_gc_if_needed(&mut self, die: u32) -> bool {
        // Cheap inline filter before the out-of-line collection.
        if self.ftl.die_needs_gc(die).is_none() {
            return false;
        }
        if self.is_dead(die) && self.dead_drained() {
            // A failed die collects only while programs queued before the
            // failure still need room on it (its drain); then nothing.
            return false;
        }
        let gate = self.rotation_gate(die);
        if gate == super::rotating_gc::GcGate::Defer {
            return false;
        }
        self.sync_ftl_clock();
        let collected = if self.replicating() {
            self.collect_replicating(die)
        } else {
            self.ftl.collect_die(die).map(|w| w.map(|w| (w, 0)))
        };
        let (work, reorg_ns) = match collected {
            Ok(Some(w)) => w,
            Ok(None) => return false,
            Err(e) => {
                self.fail(e);
                return true;
            }
        };
        let now = self.q.now();
        self.rotation_started(die, gate);
        if let Err(e) = self.check_gc_overlap(die, gate) {
            self.fail(e);
            return true;
        }
        if !self.copyback {
            // Without copyback every move crosses the bus twice; charge the
            // channel for it so that its other transfers wait.
            let ch = self.layout.channel_of_die(die);
            self.flash.hold_bus(ch, now, 2 * self.t.xfer * work.moved as u64);
        }
        if let Some(v) = &mut self.verifier {
            let lost = usize::from(self.fault == Some(super::Fault::GcLosesPage));
            for &(old, new) in self.ftl.moves.iter().skip(lost) {
                v.moved(old, new);
            }
            if let Err(e) = Verifier::check_accounting(&self.ftl, die, now) {
                self.fail(e);
                return true;
            }
        }
        let ch = self.layout.channel_of_die(die);
        let dur = reorg_ns
            + if self.ftl.pv.is_some() {
                self.pv_gc_ns(ch, &work)
            } else {
                work.moved as u64 * self.t.gc_move(self.copyback) + work.erased as u64 * self.t.erase
            };
        self.flash.start_gc(die, now, now + dur, work.moved, work.erased);
        let c = &mut self.channels[ch as usize];
        // The estimate a cost model would have made before this GC (DM-Eq. 7).
        let estimate = c.gc_recent.estimate_ns(&self.t);
        c.gc_recent.record(work.moved, work.erased);
        self.obs.gc_done(ch, &work, dur, estimate);
        self.q.at(now + dur, Ev::GcDone(die));
        if self.replicating() {
            self.after_replicating_gc(dur);
        }
        true
    }

    /// GC finished: the die is free again.
    pub(crate) fn gc_done(&mut self, die: u32) {
        let since = self.flash.end_gc(die);
        let ch = self.layout.channel_of_die(die);
        self.obs.die_busy(ch, since, self.q.now());
        // Deferred partners first, so that the column rotates rather than
        // returning to this die while it is still below its threshold.
        self.rotation_wake(die);
        self.try_start(die);
        if self.replace_pending {
            self.after_drain_step();
        }
    }
}
