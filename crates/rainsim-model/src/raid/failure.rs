//! A failed channel as the RAID layer sees it, and its rebuild.
//!
//! ```text
//!  healthy ──fails──▶ failed: the chunks it held are lost; a read of one is
//!                     rebuilt from its stripe; a write that would program
//!                     one is absorbed in parity (md's degraded write)
//!          ──replacement in──▶ rebuilding: lost chunks are rebuilt onto
//!                     the new channel, a stripe at a time (or written there
//!                     by the host)  ──last one──▶ rebuilt
//! ```
//!
//! Every stripe holds at most one lost chunk (one chunk per channel), so a
//! stripe write avoids it with one routine: a lost chunk that is written is
//! not read (RCW; all its partners are read when the page is written only in
//! part, to rebuild the old page it merges), lost parity is recomputed (RCW),
//! a lost chunk that is not written is left out (RMW).

use crate::flash::op::Owner;
use crate::raid::layer::{RaidAction, RaidLayer, RaidPort, ReadPlace, StripeWrite};
use crate::raid::rmw_rcw::Member;
use crate::raid::rmw_rcw::{data_mask, positions, prereads, Routine};
use crate::raid::stripe_lock::{StripeLock, NO_JOB};
use crate::raid::update::{JobKind, StripeJob, NO_CHANNEL};

/// Where the failure stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The channel is gone; nothing replaces it yet.
    Failed,
    /// A replacement is in; lost chunks are being rebuilt onto it.
    Rebuilding,
    /// Every lost chunk is back.
    Rebuilt,
}

/// What the failure cost, counted by the RAID layer.
#[derive(Debug, Clone, Copy, Default)]
pub struct FailureCounters {
    /// Chunks the channel held when it failed.
    pub lost_at_failure: u64,
    /// Host reads of lost chunks served by reconstruction.
    pub reads_reconstructed: u64,
    /// Host writes of lost chunks kept only in parity (before the replacement).
    pub writes_absorbed: u64,
    /// Parity updates that could not be written (lost parity).
    pub parity_skipped: u64,
    /// Chunks rebuilt onto the replacement by the rebuild.
    pub pages_rebuilt: u64,
    /// Lost chunks the host wrote back onto the replacement itself.
    pub rewritten_by_host: u64,
    /// Chunks that became lost after the failure (absorbed writes, skipped
    /// parity, programs that drained onto the failed channel).
    pub became_lost: u64,
    /// Lost chunks of stripes holding no data, left unwritten by a rebuild
    /// of written stripes only.
    pub skipped_empty: u64,
}

/// A failed channel, or a failed die of it.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The channel (of the die, when a die failed).
    pub channel: u32,
    /// The failed die, when only a die failed: the other dies of its channel
    /// take its writes, so nothing is absorbed in parity (except the writes
    /// the channel's scheduler binds to the die: `RaidPort::bound_to_failed_die`).
    pub die: Option<u32>,
    /// Where it stands.
    pub phase: Phase,
    /// Lost chunks (bit set over chunk ids).
    lost: Vec<u64>,
    /// Chunks lost now.
    pub lost_now: u64,
    /// Next chunk id the rebuild looks at.
    cursor: u32,
    /// Rebuild jobs running or waiting for their stripe.
    in_flight: u32,
    /// Rebuild jobs at once.
    max_in_flight: u32,
    /// Where the rebuild's reads join their queues.
    pub place: ReadPlace,
    /// The rebuild skips stripes that hold no data (`RaidPort::stripe_holds_data`).
    pub written_only: bool,
    /// Counters.
    pub counters: FailureCounters,
}

impl Failure {
    #[inline]
    fn lost(&self, c: u32) -> bool {
        self.lost[(c / 64) as usize] & (1 << (c % 64)) != 0
    }
    fn set(&mut self, c: u32, on: bool) {
        let w = &mut self.lost[(c / 64) as usize];
        let bit = 1 << (c % 64);
        if (*w & bit != 0) != on {
            *w ^= bit;
            if on {
                self.lost_now += 1;
                self.counters.became_lost += 1;
            } else {
                self.lost_now -= 1;
            }
        }
    }
}

/// Marker for "no position".
pub const NO_POS: u32 = u32::MAX;

impl RaidLayer {
    /// Whether `owner` is a read of a rebuild running in the background
    /// (it keeps that place when its page moves and it is queued again).
    pub(crate) fn background_read(&self, owner: Owner) -> bool {
        match (owner, &self.failure) {
            (Owner::PreRead(j), Some(f)) => f.place == ReadPlace::Background && self.jobs[j].kind == JobKind::Rebuild,
            _ => false,
        }
    }

    /// Channel `ch` (or only its die `die`) fails now, holding `lost`
    /// chunks. The rebuild, once a replacement is in, works on `stripes`
    /// stripes at once, its reads queued at `place`.
    pub fn fail(&mut self, ch: u32, die: Option<u32>, lost: &[u32], stripes: u32, place: ReadPlace) {
        let chunks = self.stripes.chunks();
        let mut f = Failure {
            channel: ch,
            die,
            phase: Phase::Failed,
            lost: vec![0; chunks.div_ceil(64) as usize],
            lost_now: 0,
            cursor: 0,
            in_flight: 0,
            max_in_flight: stripes.max(1),
            place,
            written_only: false,
            counters: FailureCounters { lost_at_failure: lost.len() as u64, ..Default::default() },
        };
        for &c in lost {
            f.set(c, true);
        }
        f.counters.became_lost = 0;
        self.failure = Some(f);
    }

    /// The rebuild of the failure just set skips stripes holding no data.
    pub fn rebuild_written_only(&mut self) {
        if let Some(f) = &mut self.failure {
            f.written_only = true;
        }
    }

    /// The failure, if a channel failed.
    pub fn failure(&self) -> Option<&Failure> {
        self.failure.as_ref()
    }

    /// Whether `chunk`'s data is on no channel (only its stripe can give it).
    #[inline]
    pub fn is_lost(&self, chunk: u32) -> bool {
        self.failure.as_ref().is_some_and(|f| f.lost(chunk))
    }

    /// The position of stripe `s` that cannot be read or programmed now: a
    /// lost chunk, or (before the replacement) a never-written position whose
    /// home is the failed channel, or one whose programs are bound to the
    /// failed die (its old page, if on another die, is left unread).
    pub(crate) fn lost_position(&self, s: u32, at: &[Option<Member>], port: &impl RaidPort) -> Option<u32> {
        let f = self.failure.as_ref()?;
        let w = self.stripes.width;
        (0..w).find(|&p| {
            let c = s * w + p;
            f.lost(c)
                || (f.phase == Phase::Failed && {
                    let m = at[p as usize];
                    let ch = m.map_or_else(|| self.stripes.channel(s, p), |m| m.channel);
                    ch == f.channel
                        && match f.die {
                            None => m.is_none(),
                            Some(_) => port.bound_to_failed_die(ch, c),
                        }
                })
        })
    }

    /// Whether stripe `s` holds a lost chunk (a read of another of its chunks
    /// must not be rebuilt through it).
    pub fn stripe_has_lost(&self, s: u32) -> bool {
        let w = self.stripes.width;
        self.failure.as_ref().is_some_and(|f| (s * w..(s + 1) * w).any(|c| f.lost(c)))
    }

    /// A program of `chunk` landed on `die` of `channel`: a chunk programmed
    /// on the failed unit (queued before it failed) is lost; a lost chunk
    /// programmed anywhere else (or on the replacement) is back.
    pub fn committed(&mut self, job: u32, chunk: u32, channel: u32, die: u32) {
        let by_host = self.jobs[job].kind == JobKind::Write;
        let Some(f) = &mut self.failure else { return };
        let on_failed = match f.die {
            Some(d) => die == d,
            None => channel == f.channel,
        };
        if f.phase == Phase::Failed && on_failed {
            f.set(chunk, true);
        } else if f.lost(chunk) {
            f.set(chunk, false);
            if by_host {
                f.counters.rewritten_by_host += 1;
            }
        }
    }

    /// A write job absorbed `chunk` (its data now lives only in parity), or
    /// skipped its parity: it is lost until rebuilt.
    pub(crate) fn absorbed(&mut self, chunk: u32, parity: bool) {
        let f = self.failure.as_mut().expect("absorbed only under a failure");
        f.set(chunk, true);
        if parity {
            f.counters.parity_skipped += 1;
        } else {
            f.counters.writes_absorbed += 1;
        }
    }

    /// The replacement channel is in: the rebuild starts.
    pub fn replaced(&mut self, port: &mut impl RaidPort) {
        let Some(f) = &mut self.failure else { return };
        f.phase = Phase::Rebuilding;
        for _ in 0..f.max_in_flight {
            self.rebuild_next(port);
        }
    }

    /// Starts rebuilding the next lost chunk, if any; the last one done ends
    /// the rebuild.
    fn rebuild_next(&mut self, port: &mut impl RaidPort) {
        let f = self.failure.as_mut().expect("a rebuild has a failure");
        let chunks = self.stripes.chunks() as u32;
        let w = self.stripes.width;
        let mut c = f.cursor;
        loop {
            while c < chunks && !f.lost(c) {
                c += 1;
            }
            // A stripe with no data anywhere and no job on it has nothing to
            // rebuild: its chunk is left unwritten (a job waiting or running
            // on it may be writing it, so that one is rebuilt).
            let empty = |c: u32| !self.locks.contains_key(&(c / w)) && !port.stripe_holds_data(c / w);
            if c >= chunks || !f.written_only || !empty(c) {
                break;
            }
            f.set(c, false);
            f.counters.skipped_empty += 1;
            c += 1;
        }
        if c >= chunks {
            f.cursor = chunks;
            if f.in_flight == 0 && f.phase == Phase::Rebuilding && f.lost_now == 0 {
                f.phase = Phase::Rebuilt;
                port.act(RaidAction::RebuildDone);
            }
            return;
        }
        f.cursor = c + 1;
        f.in_flight += 1;
        let (s, pos) = (self.stripes.stripe_of(c), self.stripes.position_of(c));
        self.enqueue_job(NO_JOB, s, 1 << pos, 0, JobKind::Rebuild, port);
    }

    /// A rebuild job ended (its chunk rebuilt, or found written meanwhile).
    pub(crate) fn rebuild_job_done(&mut self, rebuilt: bool, port: &mut impl RaidPort) {
        let f = self.failure.as_mut().expect("a rebuild has a failure");
        f.in_flight -= 1;
        if rebuilt {
            f.counters.pages_rebuilt += 1;
        }
        self.rebuild_next(port);
    }

    /// Starts job `id` on a stripe whose position `f` is lost: plans around
    /// it and issues the pre-reads. `counted`: the job's stripe write was
    /// already counted (planned before the failure, it is planned again).
    pub(crate) fn start_around_lost(
        &mut self,
        id: u32,
        f: u32,
        at: Vec<Option<Member>>,
        counted: bool,
        port: &mut impl RaidPort,
    ) {
        let set = self.plan_around_lost(id, f, &at);
        self.scratch_at = at;
        let j = self.jobs[id];
        if j.kind == JobKind::Write && !counted {
            let full = j.written == data_mask(self.stripes.width, self.stripes.parity_pos(j.stripe)) && j.partial == 0;
            let kind = match (set, j.routine) {
                (0, _) if full => StripeWrite::Full,
                (0, _) => StripeWrite::Fresh,
                (_, Routine::Rmw) => StripeWrite::Rmw,
                (_, Routine::Rcw) => StripeWrite::Rcw,
            };
            port.stripe_write(kind, false, positions(set));
        }
        self.jobs[id].prereads = set;
        self.issue_prereads(id, port);
    }

    /// XOR done for a job around a lost position: program what can be; a
    /// lost position before the replacement is absorbed in parity (or, for
    /// lost parity, skipped); a rebuild programs its chunk onto the replacement.
    pub(crate) fn program_around_lost(&mut self, id: u32, port: &mut impl RaidPort) {
        let j = self.jobs[id];
        let w = self.stripes.width;
        let pp = self.stripes.parity_pos(j.stripe);
        let mut n = 0;
        if j.kind == JobKind::Rebuild {
            let chunk = j.stripe * w + j.lost;
            if self.verify && j.lost != pp {
                port.act(RaidAction::CheckRebuilt { chunk, token: j.acc });
            }
            let channel = self.program_channel(&j, j.lost, port).expect("the replacement is in");
            self.jobs[id].pending = 1;
            port.act(RaidAction::Program { channel, chunk, owner: Owner::ParityProgram(id) });
            return;
        }
        let mut programs = [(0u32, 0u32, Owner::HostProgram(id)); 65];
        let mut bits = j.written | 1 << pp;
        while bits != 0 {
            let pos = bits.trailing_zeros();
            bits &= bits - 1;
            let chunk = j.stripe * w + pos;
            let owner = if pos == pp { Owner::ParityProgram(id) } else { Owner::HostProgram(id) };
            match self.program_channel(&j, pos, port) {
                Some(channel) => {
                    programs[n] = (channel, chunk, owner);
                    n += 1;
                }
                None => {
                    self.absorbed(chunk, pos == pp);
                    port.act(RaidAction::Unwritten { chunk });
                    if self.verify && pos != pp {
                        port.act(RaidAction::Absorbed { chunk, token: j.data_token(pos) });
                    }
                }
            }
        }
        // Data before parity, as the normal path issues them.
        programs[..n].sort_by_key(|&(_, _, o)| matches!(o, Owner::ParityProgram(_)));
        self.jobs[id].pending = n as u32;
        if n == 0 {
            self.end_job(id, true, port);
            return;
        }
        for &(channel, chunk, owner) in &programs[..n] {
            port.act(RaidAction::Program { channel, chunk, owner });
        }
    }

    /// Plans a job on a stripe with a lost position `f` (module docs give the
    /// rule); returns its pre-read set.
    pub(crate) fn plan_around_lost(&mut self, id: u32, f: u32, at: &[Option<Member>]) -> u64 {
        let j = self.jobs[id];
        let w = self.stripes.width;
        let pp = self.stripes.parity_pos(j.stripe);
        let exists = at.iter().enumerate().filter(|(_, m)| m.is_some()).fold(0u64, |e, (q, _)| e | 1 << q);
        // The lost member cannot be read, even where its page still exists.
        let others = exists & !(1 << f);
        let job = &mut self.jobs[id];
        job.lost = f;
        if j.kind == JobKind::Rebuild {
            // Rebuilding the lost chunk (parity too) reads every other one.
            job.routine = Routine::Rcw;
            return others;
        }
        let (rmw, rcw) = prereads(w, pp, j.written, j.partial, others);
        if j.written & (1 << f) != 0 {
            job.routine = Routine::Rcw;
            if j.partial & (1 << f) != 0 {
                others
            } else {
                rcw
            }
        } else if f == pp {
            job.routine = Routine::Rcw;
            rcw
        } else {
            job.routine = Routine::Rmw;
            rmw
        }
    }

    /// The channel a job programs its position `pos` on: the replacement for
    /// the lost position (`None` before it is in: absorbed), else where the
    /// chunk lives now or its home.
    pub(crate) fn program_channel(&self, j: &StripeJob, pos: u32, port: &impl RaidPort) -> Option<u32> {
        if pos == j.lost {
            let f = self.failure.as_ref().expect("a lost position has a failure");
            // A failed die's channel still takes programs on its other dies,
            // unless its scheduler binds this one to the failed die.
            let elsewhere =
                f.die.is_some() && !port.bound_to_failed_die(f.channel, j.stripe * self.stripes.width + pos);
            return (f.phase != Phase::Failed || elsewhere).then_some(f.channel);
        }
        // A job is planned around a lost chunk or moved (a degraded
        // update), never both: `start_job` takes the lost path first.
        debug_assert_eq!(j.moved_to, NO_CHANNEL);
        Some(self.chunk_channel(port, j.stripe, pos))
    }

    /// A host read of lost `chunk` for request `req`: rebuilt from its
    /// stripe, now or once the stripe's writer is done.
    pub fn reconstruct_read(&mut self, req: u32, chunk: u32, port: &mut impl RaidPort) {
        if let Some(f) = &mut self.failure {
            f.counters.reads_reconstructed += 1;
        }
        let s = self.stripes.stripe_of(chunk);
        let id = self.degraded_reads.insert(crate::raid::degraded_read::DegradedRead {
            req,
            chunk,
            pending: 0,
            acc: 0,
            next: NO_JOB,
        });
        let lock = self.locks.entry(s).or_insert_with(StripeLock::free);
        if lock.readable() {
            self.begin_reconstruct(id, port);
        } else if lock.rhead == NO_JOB {
            lock.rhead = id;
            lock.rtail = id;
        } else {
            let tail = lock.rtail;
            lock.rtail = id;
            self.degraded_reads[tail].next = id;
        }
    }

    /// Starts reconstruct read `id`: its stripe's other chunks as they are now.
    pub(crate) fn begin_reconstruct(&mut self, id: u32, port: &mut impl RaidPort) {
        let r = self.degraded_reads[id];
        let mut partners = std::mem::take(&mut self.scratch);
        partners.clear();
        let s = self.stripes.stripe_of(r.chunk);
        self.stripe_partners(s, r.chunk, |c| port.member(c), &mut partners);
        self.locks.entry(s).or_insert_with(StripeLock::free).readers += 1;
        self.degraded_reads[id].pending = partners.len() as u32;
        port.degraded_read(false, partners.len() as u32);
        if partners.is_empty() {
            port.act(RaidAction::Controller {
                ns: self.times.xor_ns,
                then: crate::raid::layer::RaidEvent::DegradedReadDone(id),
            });
        }
        for m in &partners {
            let owner = crate::flash::op::Owner::DegradedRead(id);
            port.act(RaidAction::Read { chunk: m.chunk, ppn: m.ppn, owner, place: ReadPlace::Tail });
        }
        self.scratch = partners;
    }
}
