//! A channel (or die) failure at the device: when it fails (its chunks become
//! lost to the RAID layer, its dies stop collecting and taking programs), when
//! its replacement goes in (once what was queued on it has drained: fresh
//! dies, the rebuild starts), a second failure, and what the report says.

use super::{Ev, FaultEv, Ssd};
use crate::engine::SimTime;
use crate::metrics::fault_report::SecondFailure;
use crate::metrics::observer::{FaultEvent, Observer};
use crate::raid::failure::Phase;
use crate::sched::ChannelScheduler;
use rainsim_trace::stats::counted;

/// When the failure's steps happened, and a second failure's outcome.
#[derive(Debug, Clone, Default)]
pub(crate) struct FaultTimes {
    /// The failures are scheduled (once in a device's life: a later run of
    /// the same device must not fail it again).
    pub scheduled: bool,
    pub failed_at: Option<SimTime>,
    pub replaced_at: Option<SimTime>,
    pub rebuilt_at: Option<SimTime>,
    pub second: Option<SecondFailure>,
    /// Host reads (request slot, chunk) that found their chunk unmapped as
    /// they started, to be served from its stripe ([`FaultEv::Reread`]).
    pub rereads: Vec<(u32, u32)>,
}

impl<O: Observer> Ssd<O> {
    /// Schedules the configured failures (called when the replay begins).
    #[cold]
    #[inline(never)]
    pub(crate) fn schedule_faults(&mut self) {
        let f = self.fault_params.clone();
        if f.active() && !self.fault_times.scheduled {
            self.fault_times.scheduled = true;
            self.q.at(f.at_ns, Ev::Fault(FaultEv::Fails));
            if f.second_channel.is_some() {
                self.q.at(f.second_at_ns, Ev::Fault(FaultEv::SecondFails));
            }
        }
    }

    /// A step of the injected failure.
    #[cold]
    #[inline(never)]
    pub(crate) fn fault_event(&mut self, f: FaultEv) {
        match f {
            FaultEv::Fails => self.channel_fails(0),
            FaultEv::SecondFails => self.channel_fails(1),
            FaultEv::Replace => self.replace(),
            FaultEv::Reread => self.reread_lost(),
        }
    }

    /// Failure `which` (0: the first, 1: the second) happens now.
    #[cold]
    #[inline(never)]
    pub(crate) fn channel_fails(&mut self, which: u8) {
        let now = self.q.now();
        let f = self.fault_params.clone();
        if which == 1 {
            self.second_failure(f.second_channel.expect("scheduled"), now);
            return;
        }
        let (first, n) = match (f.channel, f.die) {
            (Some(ch), _) => (self.layout.first_die(ch), self.layout.dies_per_channel),
            (_, Some(d)) => (d, 1),
            _ => unreachable!("scheduled"),
        };
        let ch = self.layout.channel_of_die(first);
        let lost = self.ftl.chunks_on_dies(first, n);
        let place = f.rebuild_priority.read_place();
        self.with_raid(|r, _| r.fail(ch, f.die, &lost, f.rebuild_stripes, place));
        self.dead = Some((first, n));
        self.fault_times.failed_at = Some(now);
        self.obs.fault(FaultEvent::Failed, now);
        if f.rebuild {
            self.q.at(now + f.replace_after_ns, Ev::Fault(FaultEv::Replace));
        }
    }

    /// The replacement is due: it goes in once the failed channel has
    /// drained (its queued operations complete), then the rebuild starts.
    #[cold]
    #[inline(never)]
    pub(crate) fn replace(&mut self) {
        let Some((first, n)) = self.dead else { return };
        if !self.drained(first, n) {
            self.replace_pending = true;
            return;
        }
        self.replace_pending = false;
        debug_assert!(
            {
                let ch = self.layout.channel_of_die(first);
                let local = first - self.layout.first_die(ch);
                (local..local + n).all(|d| self.channels[ch as usize].sched.reads_queued_for(d) == 0)
            },
            "reads queued for idle failed dies"
        );
        self.ftl.replace_dies(first, n);
        self.dead = None;
        let now = self.q.now();
        self.fault_times.replaced_at = Some(now);
        self.obs.fault(FaultEvent::Replaced, now);
        if self.gc_overlap.is_some() {
            self.gc_overlap = Some(super::gc_overlap::GcOverlapCheck::new(&self.ftl, &self.stripes));
        }
        self.with_raid(|r, s| r.replaced(s));
        if self.raid().failure().is_some_and(|f| f.phase == Phase::Rebuilt) {
            self.rebuild_done();
        }
    }

    /// After an operation or a GC ends anywhere (a queued read may also
    /// leave for another die) while a replacement waits for the failed dies
    /// to drain (the callers check that it waits): it may go in now.
    #[cold]
    #[inline(never)]
    pub(crate) fn after_drain_step(&mut self) {
        debug_assert!(self.replace_pending);
        if self.dead_drained() {
            self.replace();
        }
    }

    /// Whether `die` is a failed one (its replacement not in yet).
    #[inline]
    pub(crate) fn is_dead(&self, die: u32) -> bool {
        self.dead.is_some_and(|(first, n)| die.wrapping_sub(first) < n)
    }

    /// Whether `die` is a failed die whose channel lives on: its programs go
    /// to the channel's other dies. (A failed channel is sent no programs;
    /// those queued before it failed drain. So do those bound to a failed
    /// die, which no other die may take: new ones are absorbed in parity.)
    #[inline]
    pub(crate) fn refuses_writes(&self, die: u32) -> bool {
        self.dead.is_some_and(|(first, n)| {
            n < self.layout.dies_per_channel && die.wrapping_sub(first) < n && !self.binds_programs(first)
        })
    }

    /// Whether the scheduler of `die`'s channel binds programs to dies.
    fn binds_programs(&self, die: u32) -> bool {
        self.channels[self.layout.channel_of_die(die) as usize].sched.bound_die(0).is_some()
    }

    /// A write of `chunk` went into parity alone: its old page is stale and
    /// goes, on a living die (its member bound to a failed die) or on the
    /// failed unit, whose queued reads drain: one of them must not return the
    /// old version ([`Self::reread_lost`] serves it from the stripe instead).
    pub(crate) fn drop_stale(&mut self, chunk: u32) {
        if self.ftl.lookup(chunk).is_some() {
            self.ftl.trim(chunk);
        }
    }

    /// A queued read starting now finds its chunk unmapped. A host read of a
    /// chunk whose latest version lives only in parity (written while lost,
    /// after the read was queued) is served from its stripe, as a read
    /// arriving now would be: at once, through the queue, since the RAID
    /// layer may be the caller. `false` for any other read: an error.
    pub(crate) fn defer_unmapped_read(&mut self, op: &crate::flash::op::FlashOp) -> bool {
        let crate::flash::op::Owner::HostRead(req) = op.owner else { return false };
        if self.fault_times.failed_at.is_none() {
            return false;
        }
        if self.fault_times.rereads.is_empty() {
            self.q.at(self.q.now(), Ev::Fault(FaultEv::Reread));
        }
        self.fault_times.rereads.push((req, op.chunk));
        true
    }

    /// [`FaultEv::Reread`]: each deferred read's chunk, still
    /// lost, is rebuilt from its stripe; one mapped again meanwhile (rebuilt,
    /// or written by the host) is read where it is now.
    #[cold]
    #[inline(never)]
    pub(crate) fn reread_lost(&mut self) {
        for (req, chunk) in std::mem::take(&mut self.fault_times.rereads) {
            if self.raid().is_lost(chunk) {
                self.with_raid(|r, s| r.reconstruct_read(req, chunk, s));
            } else if let Some(ppn) = self.ftl.lookup(chunk) {
                self.enqueue_read(chunk, ppn, crate::flash::op::Owner::HostRead(req));
            } else {
                let now = self.q.now();
                self.fail(crate::verify::VerifyError {
                    time_ns: now,
                    what: format!("queued read of chunk {chunk} finds it unmapped, and its chunk is not lost"),
                });
            }
        }
    }

    /// Whether a program of `chunk` on channel `ch` may go only to a failed
    /// die (a die of another channel is out of reach: its local index
    /// wraps past every die of `ch`).
    pub(crate) fn bound_to_dead_die(&self, ch: u32, chunk: u32) -> bool {
        self.dead.is_some_and(|(first, n)| {
            let local = first.wrapping_sub(self.layout.first_die(ch));
            self.channels[ch as usize].sched.bound_die(chunk).is_some_and(|d| d.wrapping_sub(local) < n)
        })
    }

    /// Whether `die` may take a program now: it has room and is not a
    /// failed die of a living channel (dispatch asks; a stalled run asks it
    /// of every die to name a full channel).
    #[inline]
    pub(crate) fn takes_writes(&self, die: u32) -> bool {
        self.ftl.die_takes_writes(die) && !self.refuses_writes(die)
    }

    /// Whether the failed dies have drained (cold: asked only of a dead die
    /// that wants to collect).
    #[cold]
    pub(crate) fn dead_drained(&self) -> bool {
        self.dead.is_some_and(|(first, n)| self.drained(first, n))
    }

    /// Dies `first..first + n` are idle and no program waits for them (a
    /// failed channel's queued programs drain on it; a failed die's
    /// channel-wide program queue is served by its other dies). Reads queued
    /// for them do not count: they leave for their stripes' partners when
    /// they start, and an idle die has none at an event's end.
    fn drained(&self, first: u32, n: u32) -> bool {
        let ch = self.layout.channel_of_die(first);
        let s = &self.channels[ch as usize].sched;
        let local = first - self.layout.first_die(ch);
        let waiting = if n == self.layout.dies_per_channel {
            s.writes_queued() > 0
        } else {
            self.binds_programs(first) && (local..local + n).any(|d| s.writes_queued_for(d) > 0)
        };
        !waiting && (first..first + n).all(|d| self.flash.idle(d))
    }

    /// The rebuild ended.
    pub(crate) fn rebuild_done(&mut self) {
        if self.fault_times.rebuilt_at.is_none() {
            let now = self.q.now();
            self.fault_times.rebuilt_at = Some(now);
            self.obs.fault(FaultEvent::Rebuilt, now);
        }
    }

    /// Channel `ch` fails while the first failure's chunks are still lost:
    /// every stripe with a lost chunk and a chunk on `ch` has lost two, which
    /// RAID-5 cannot rebuild. The run stops there with the loss reported.
    fn second_failure(&mut self, ch: u32, now: SimTime) {
        let still_lost = self.raid().failure().is_some_and(|f| f.lost_now > 0);
        let f_channel = self.raid().failure().map_or(0, |f| f.channel);
        let mut lost = Vec::new();
        let mut stripes = 0;
        if still_lost {
            let w = self.stripes.width;
            for s in 0..self.stripes.stripes {
                let dead = (s * w..(s + 1) * w).find(|&c| self.raid().is_lost(c));
                let Some(dead) = dead else { continue };
                let on_ch =
                    (s * w..(s + 1) * w).find(|&c| c != dead && self.member(c).is_some_and(|m| m.channel == ch));
                if let Some(other) = on_ch {
                    stripes += 1;
                    for c in [dead, other] {
                        if !self.stripes.is_parity(c) {
                            lost.push(c);
                        }
                    }
                }
            }
        }
        lost.sort_unstable();
        // Before the rebuild ended: data lost where a stripe held a chunk on
        // each channel; none where no stripe did (stripe groups apart), but
        // two failed channels at once are not modelled: the run stops either way.
        let outcome = match (still_lost, stripes) {
            (false, _) => "rebuilt_first",
            (true, 0) => "no_shared_stripe",
            (true, _) => "data_loss",
        };
        self.fault_times.second = Some(SecondFailure {
            channel: ch,
            at_ns: now,
            outcome: outcome.into(),
            chunks_lost: lost.len() as u64,
            stripes_lost: stripes,
            first_chunks: lost.iter().take(20).copied().collect(),
        });
        self.obs.fault(FaultEvent::SecondFailed, now);
        if still_lost {
            let first = self.fault_params.channel.unwrap_or(f_channel);
            self.notes.push(if stripes == 0 {
                format!(
                    "channel {ch} failed at {now} ns, before the rebuild of channel {first} ended; no stripe has a \
                     chunk on both, so nothing is lost, but two failed channels at once are not modelled: the run \
                     stopped there"
                )
            } else {
                format!(
                    "channel {ch} failed at {now} ns, before the rebuild of channel {first} ended: {} for good; the \
                     run stopped there",
                    lost_chunks(lost.len() as u64, stripes)
                )
            });
            self.stopped = true;
            // Nothing more happens: the run ends with the events it has run.
            while self.q.pop().is_some() {}
        }
    }
}

impl Ssd<crate::metrics::collector::Collector> {
    /// The report's `fault` section (`None` when no channel failed).
    pub fn fault_report(&self) -> Option<crate::metrics::fault_report::FaultReport> {
        use crate::metrics::fault_report::{FaultReport, PhaseReport};
        let failed_at = self.fault_times.failed_at?;
        let f = self.raid().failure()?;
        let c = f.counters;
        let phases = &self.obs.fault_phases;
        let phase = |i: usize| PhaseReport::of(&phases[i]);
        Some(FaultReport {
            channel: f.channel,
            die: f.die,
            failed_at_ns: failed_at,
            replaced_at_ns: self.fault_times.replaced_at,
            rebuilt_at_ns: self.fault_times.rebuilt_at,
            chunks_lost_at_failure: c.lost_at_failure,
            chunks_lost_after_failure: c.became_lost,
            chunks_lost_at_end: f.lost_now,
            reads_reconstructed: c.reads_reconstructed,
            writes_absorbed: c.writes_absorbed,
            parity_skipped: c.parity_skipped,
            pages_rebuilt: c.pages_rebuilt,
            rewritten_by_host: c.rewritten_by_host,
            before: phase(0),
            during: phase(1),
            after: phase(2),
            second: self.fault_times.second.clone(),
        })
    }
}

/// "3 chunks of 2 stripes are lost", agreeing with the counts ("1 chunk of
/// 1 stripe is lost": a stripe's parity chunk is not counted).
fn lost_chunks(chunks: u64, stripes: u64) -> String {
    let are = if chunks == 1 { "is" } else { "are" };
    format!("{} of {} {are} lost", counted(chunks, "chunk", "chunks"), counted(stripes, "stripe", "stripes"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn lost_chunks_agree_with_their_counts() {
        assert_eq!(super::lost_chunks(1, 1), "1 chunk of 1 stripe is lost");
        assert_eq!(super::lost_chunks(3, 2), "3 chunks of 2 stripes are lost");
    }
}
