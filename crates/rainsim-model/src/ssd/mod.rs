//! One SSD: the owner of every component and the event loop that drives them.
//!
//! ```text
//!  trace ──Arrival──▶ host (split into pages) ──▶ RAID (stripe jobs: pre-read → XOR → program)
//!                                                      │
//!            channel queues (scheduler) ◀──────────────┘
//!                 │  dispatch to idle dies
//!            die: read (tR → bus) / program (bus → tPROG) / GC ──OpDone──▶ completions
//! ```
//!
//! **Invariants:** a die runs one operation (or one GC) at a time; a channel
//! bus carries one transfer at a time; at most one write job per stripe is in
//! flight (later ones wait), so parity always matches the data it was built from.

mod admit;
mod arrivals;
pub(crate) use arrivals::Held;
mod build;
mod completion;
#[cfg(test)]
mod copy_die_tests;
mod direct;
mod dispatch;
mod error;
mod external;
mod failure;
mod gc_overlap;
mod raid_port;
#[cfg(test)]
mod reach_tests;
mod reorg;
#[cfg(test)]
mod reorg_tests;
#[cfg(test)]
mod replica_read_tests;
mod replication;
mod report;
mod rotating_gc;
mod stall;
#[cfg(test)]
mod time_limit_tests;

use crate::config::{ConfigError, Timing};
use crate::controller::Controller;
use crate::device_state::ChannelState;
use crate::engine::{EventQueue, SimTime};
pub use crate::fault::Fault;
use crate::flash::address::Layout;
use crate::flash::interface::FlashInterface;
use crate::flash::ldpc::LdpcModel;
use crate::flash::timing::FlashTiming;
use crate::ftl::precondition::PreconditionReport;
use crate::ftl::Ftl;
use crate::host::chips::ChipMap;
use crate::host::HostInterface;
pub use crate::metrics::fault_report::SecondFailure;
use crate::metrics::observer::Observer;
use crate::policy::Policies;
use crate::raid::layer::{RaidEvent, RaidLayer};
use crate::raid::rmw_rcw::Member;
use crate::raid::stripe::StripeLayout;
use crate::sched::ChannelScheduler;
use crate::setup::ControllerTimes;
use crate::verify::{Verifier, VerifyError};
pub use error::SimError;
use rainsim_trace::Request;
pub use replication::ReplicationCounts;

/// A read-only view for policies, borrowing only the fields it shows (so the
/// policy objects can be borrowed mutably beside it).
macro_rules! device_view {
    ($s:expr) => {
        device_view!($s, $s.host.nr())
    };
    ($s:expr, $nr:expr) => {
        $crate::device_state::DeviceView {
            now: $s.q.now(),
            channels: &$s.channels,
            dies: $s.flash.dies(),
            timing: &$s.latencies,
            t: &$s.t,
            ftl: &$s.ftl,
            ldpc: $s.ldpc.as_ref(),
            layout: &$s.layout,
            stripes: &$s.stripes,
            nr: $nr,
        }
    };
}
pub(crate) use device_view;

/// Events of the device model.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ev {
    /// The next trace request arrives.
    Arrival,
    /// A held request may enter the device (a slot under the queue depth freed).
    Start(u32),
    /// A host request has passed the controller's per-request overhead.
    Admit(u32),
    /// A die finished sensing a page; the transfer may start.
    ReadSensed(u32),
    /// A die finished its operation.
    OpDone(u32),
    /// A die finished garbage collection.
    GcDone(u32),
    /// A controller timer of the RAID layer.
    Raid(RaidEvent),
    /// A step of an injected failure (a handful a run, off the hot path).
    Fault(FaultEv),
    /// The host has been idle since this many requests were admitted, the
    /// count's low 32 bits (FusionRAID converts replicas back then). Low
    /// bits keep every event 8 bytes (see below); a timer would be mistaken
    /// for a current one only after exactly a multiple of 2^32 admissions
    /// within its idle period.
    Idle(u32),
    /// A request handed in by [`Ssd::submit`] arrives.
    External(u32),
}

/// The steps of an injected failure ([`Ev::Fault`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FaultEv {
    /// The configured channel or die failure happens.
    Fails,
    /// The configured second channel failure happens.
    SecondFails,
    /// The failed channel's replacement is due.
    Replace,
    /// Host reads that found their chunk unmapped as they started (a write
    /// of it went into parity after they were queued) go to its stripe.
    Reread,
}

// The queue returns `Option<(SimTime, Ev)>` as two 8-byte words, each
// written and read whole. A wider event was written in pieces and read back
// in one 16-byte load, which the CPU cannot forward from the smaller stores:
// a stall on every event.
const _: () = assert!(std::mem::size_of::<Ev>() == 8);

/// Events scheduled between two progress calls (about 3,700 requests of the
/// default workload): counted in events, not completions, because a request
/// of many pages (a large array chunk) may take millions of events, and the
/// progress call is where an interrupt stops the run.
pub const PROGRESS_EVENTS: u64 = 1 << 15;

/// Counters the run loop keeps for its own bookkeeping.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunTotals {
    /// Requests that entered the device.
    pub admitted: u64,
    /// Requests that completed.
    pub completed: u64,
    /// Stripes checked recoverable at the end (verify mode).
    pub stripes_verified: u64,
    /// Flash reads and programs started without passing through their queue
    /// (an idle die that would take them next; none after
    /// [`Ssd::queue_every_operation`]).
    pub direct_reads: u64,
    /// See [`RunTotals::direct_reads`].
    pub direct_programs: u64,
}

/// One simulated SSD, reporting to observer `O`.
pub struct Ssd<O: Observer> {
    /// The observer receiving probes.
    pub obs: O,
    /// Latencies as configured (what the policies' cost models read).
    pub(crate) latencies: Timing,
    /// Controller times charged during the run.
    pub(crate) times: ControllerTimes,
    /// GC moves pages by copyback.
    pub(crate) copyback: bool,
    /// `ftl.allocation = "round-robin"`: per channel, the die (index within
    /// the channel) a program just queued is offered to first.
    pub(crate) program_cursor: Option<Vec<u32>>,
    /// An operation for an idle die that would take it next starts without
    /// passing through its queue (off: every one is queued and popped, the
    /// reference the shortcut is tested against).
    pub(crate) direct_starts: bool,
    pub(crate) layout: Layout,
    pub(crate) stripes: StripeLayout,
    pub(crate) t: FlashTiming,
    /// LDPC read-retry model; `None` when off (every read senses for tR).
    pub(crate) ldpc: Option<LdpcModel>,
    /// FTL state (public for inspection in tests).
    pub ftl: Ftl,
    pub(crate) q: EventQueue<Ev>,
    pub(crate) channels: Vec<ChannelState>,
    /// Dies and channel buses executing operations.
    pub(crate) flash: FlashInterface,
    pub(crate) policies: Policies,
    /// The host interface: request slots and the requests waiting for them.
    pub(crate) host: HostInterface,
    /// The RAID layer: stripe jobs, degraded reads, stripe locks.
    pub(crate) raid: Option<Box<RaidLayer>>,
    /// Reusable buffer of stripe members for read-routing queries.
    pub(crate) scratch: Vec<Member>,
    /// Controller time of the policies' per-request decision.
    pub(crate) decision_ns: SimTime,
    /// Things the user should know about this run (printed once, reported).
    pub notes: Vec<String>,
    pub(crate) verifier: Option<Verifier>,
    /// What preconditioning built.
    pub prep: PreconditionReport,
    /// What the warm-up did, when it ran.
    pub warmup: Option<crate::warmup::WarmupReport>,
    /// CPU seconds the warm-up took.
    pub warmup_cpu_s: f64,
    /// Once set, the run stops at its next progress call ([`SimError::Interrupted`]).
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    pub(crate) rotating: Option<rotating_gc::RotatingGc>,
    pub(crate) gc_overlap: Option<gc_overlap::GcOverlapCheck>,
    pub(crate) fault: Option<Fault>,
    /// `[fault]`: the channel failure to inject.
    pub(crate) fault_params: crate::config::FaultParams,
    /// The failed dies (first, count: a channel's, or one) until their
    /// replacement is in.
    pub(crate) dead: Option<(u32, u32)>,
    /// The replacement waits for the failed channel to drain.
    pub(crate) replace_pending: bool,
    pub(crate) fault_times: failure::FaultTimes,
    /// The run stopped early (data lost to a second failure).
    pub(crate) stopped: bool,
    /// Replication state (`None` without a replication scheme).
    pub(crate) repl: Option<replication::ReplState>,
    /// Replicated chunks (with a replication scheme).
    pub(crate) replicas: Option<crate::raid::replica::ReplicaTable>,
    controller: Controller,
    pub(crate) seq: u32,
    /// The next request to arrive, read ahead from the source.
    arrivals: arrivals::Arrivals,
    pub(crate) totals: RunTotals,
    pub(crate) error: Option<SimError>,
    /// Requests handed in by an array, when the device is a member of one.
    pub(crate) external: Option<Box<external::External>>,
}

impl<O: Observer> Ssd<O> {
    /// Host-visible capacity in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.stripes.logical_pages() * self.layout.page_bytes as u64
    }

    /// Stripe geometry.
    pub fn stripe_layout(&self) -> &StripeLayout {
        &self.stripes
    }

    /// Address arithmetic.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Flash timing in use.
    pub fn timing(&self) -> &FlashTiming {
        &self.t
    }

    /// The LDPC read-retry model, when on.
    pub fn ldpc(&self) -> Option<&LdpcModel> {
        self.ldpc.as_ref()
    }

    /// GC records in channel `ch`'s history (the one policies estimate from).
    #[doc(hidden)]
    pub fn gc_history_len(&self, ch: u32) -> usize {
        self.channels[ch as usize].gc_recent.len()
    }

    /// Table 1's conflicts, when the host counts them.
    pub fn host_conflicts(&self) -> Option<crate::host::chips::ConflictCounts> {
        self.host.conflicts()
    }

    /// Totals of the last run.
    pub fn totals(&self) -> RunTotals {
        self.totals
    }

    /// Queues every flash operation and pops it again, even one that an
    /// idle die would take at once: the same reports, more work. Dispatch
    /// starts such operations directly; this is the path they are checked
    /// against.
    pub fn queue_every_operation(&mut self) {
        self.direct_starts = false;
    }

    /// Injects a fault that verification must catch (tests only).
    #[doc(hidden)]
    pub fn inject_fault(&mut self, f: Fault) {
        self.fault = Some(f);
        self.with_raid(|r, _| r.set_fault(Some(f)));
    }

    /// The verifier's data tokens, in verify mode (tests only).
    #[doc(hidden)]
    pub fn verifier(&self) -> Option<&Verifier> {
        self.verifier.as_ref()
    }

    /// LDPC level of `ppn` if it were read now (from its block's wear, data
    /// age and reads so far). Out of line, so that the read paths stay as
    /// small as without the model when it is off.
    #[inline(never)]
    pub(crate) fn read_level(&self, m: &LdpcModel, ppn: u32) -> u8 {
        m.level_of(&self.ftl.blocks[self.layout.block_of(ppn) as usize].wear(), self.q.now())
    }

    /// Tells the FTL the LDPC age clock, so that blocks it opens now are
    /// stamped with it (a no-op with the model off).
    #[inline]
    pub(crate) fn sync_ftl_clock(&mut self) {
        if let Some(m) = &self.ldpc {
            self.ftl.set_clock_s(m.clock_s(self.q.now()));
        }
    }

    /// Where chunk `chunk` lives now, if it was ever written.
    #[inline]
    pub(crate) fn member(&self, chunk: u32) -> Option<Member> {
        let ppn = self.ftl.lookup(chunk)?;
        let die = self.layout.die_of(ppn);
        let channel = self.layout.channel_of_die(die);
        Some(Member { chunk, ppn, die, channel })
    }

    /// The channel and the die within it (counted from the channel's first)
    /// holding logical page `lpn`; `None` while it is unwritten. An array's
    /// delay model predicts a read's wait on the die its data is on.
    pub fn die_of_page(&self, lpn: u64) -> Option<(u32, u32)> {
        let (_, chunk) = self.stripes.chunk_of_lpn(lpn);
        let m = self.member(self.slot_of(chunk))?;
        Some((m.channel, m.die - self.layout.first_die(m.channel)))
    }

    /// Replaces the read-routing policy (tests drive routes by hand).
    #[doc(hidden)]
    pub fn set_read_routing(&mut self, r: Box<dyn crate::policy::ReadRouting>) {
        self.policies.read = r;
    }

    /// Replaces the host scheduler (tests order waiting requests by hand).
    #[doc(hidden)]
    pub fn set_host_scheduler(&mut self, s: Box<dyn crate::host::HostScheduler>) {
        let track = self.host.conflicts().is_some();
        self.host = HostInterface::new(self.host.queue_depth(), s).with_chips(ChipMap::new(&self.layout), track);
    }

    /// Replaces the update-placement policy (tests drive placements by hand).
    #[doc(hidden)]
    pub fn set_update_placement(&mut self, p: Box<dyn crate::policy::UpdatePlacement>) {
        self.policies.place = p;
    }

    pub(crate) fn controller_delay(&mut self, ns: SimTime) -> SimTime {
        let now = self.q.now();
        self.controller.run(now, ns)
    }

    /// Replays `requests` (sorted by time) to completion. `progress` is called
    /// with the number of completed requests every [`PROGRESS_EVENTS`]
    /// events (a few thousand requests; events, not completions, so that a
    /// caller may stop a run whose requests are slow to complete).
    pub fn run(&mut self, requests: &[Request], progress: &mut dyn FnMut(u64)) -> Result<RunTotals, SimError> {
        self.check_requests(requests)?;
        self.run_stream(&mut arrivals::Held::new(requests), requests.len(), progress)
    }

    /// [`Ssd::run`] of `total` requests read from `requests` one at a time,
    /// as the replay reaches them (a workload need not be held in memory).
    pub fn run_stream(
        &mut self,
        requests: &mut dyn Iterator<Item = Request>,
        total: usize,
        progress: &mut dyn FnMut(u64),
    ) -> Result<RunTotals, SimError> {
        self.begin(requests, total)?;
        let mut checked = PROGRESS_EVENTS;
        while self.step(requests)? {
            if self.q.scheduled() >= checked {
                checked = self.q.scheduled() + PROGRESS_EVENTS;
                progress(self.totals.completed);
                if self.stop.as_ref().is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed)) {
                    return Err(SimError::Interrupted { completed: self.totals.completed });
                }
            }
        }
        progress(self.totals.completed);
        self.finish()
    }

    /// Schedules the start of the replay of `total` requests read from
    /// `requests` (the first arrival, and GC on dies an aged device leaves at
    /// their threshold). Each request is checked as it is read
    /// ([`Ssd::check_requests`] checks a slice at once, before).
    pub fn begin(&mut self, requests: &mut dyn Iterator<Item = Request>, total: usize) -> Result<(), SimError> {
        self.arrivals = arrivals::Arrivals::new(self.capacity_bytes());
        self.set_total_requests(total);
        // An aged device may start at its GC threshold: let idle dies collect now.
        for ch in 0..self.layout.channels {
            self.dispatch(ch);
        }
        if let Some(r) = self.pull(requests)? {
            self.q.at(r.time_ns, Ev::Arrival);
        }
        self.schedule_faults();
        self.error.take().map_or(Ok(()), Err)
    }

    /// Time of the device's next event, if any (for a loop over several devices).
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.q.peek_time()
    }

    /// Runs the device's next event; `false` when none was left. `requests`
    /// is the source given to [`Ssd::begin`].
    #[inline(always)]
    pub fn step(&mut self, requests: &mut dyn Iterator<Item = Request>) -> Result<bool, SimError> {
        let Some((_, ev)) = self.q.pop() else { return Ok(false) };
        self.handle(ev, requests)?;
        Ok(true)
    }

    /// Runs event `ev` of a device whose events an array keeps in its own
    /// queue (the device's queue in outbox mode: [`Ssd::drain_events`]), at
    /// `at`, no earlier than the device's last event.
    #[inline]
    pub(crate) fn step_at(&mut self, at: SimTime, ev: Ev) -> Result<(), SimError> {
        self.q.advance_to(at);
        self.handle(ev, &mut std::iter::empty())
    }

    /// From now on the device's events are collected for its array's queue
    /// ([`Ssd::drain_events`]) instead of queued here.
    pub(crate) fn use_outbox(&mut self) {
        self.q.use_outbox();
    }

    /// Hands `f` the events the device scheduled since the last call, in order.
    #[inline]
    pub(crate) fn drain_events(&mut self, f: impl FnMut(SimTime, Ev)) {
        self.q.drain_outbox(f)
    }

    /// Runs event `ev`, now.
    #[inline(always)]
    fn handle(&mut self, ev: Ev, requests: &mut dyn Iterator<Item = Request>) -> Result<(), SimError> {
        if self.run_event(ev, requests) {
            Ok(())
        } else {
            Err(self.failure())
        }
    }

    /// Runs `ev`; false when it failed (`self.error`) or a scheduled time
    /// passed the limit. A flag rather than a `Result`, so that the common
    /// path moves no error value. Inlined into the step: as a call it saved
    /// and restored six registers an event (docs/performance.md).
    #[inline(always)]
    fn run_event(&mut self, ev: Ev, requests: &mut dyn Iterator<Item = Request>) -> bool {
        match ev {
            Ev::Arrival => {
                let r = self.arrivals.next.take().expect("an arrival event has its request");
                match self.pull(requests) {
                    Ok(Some(n)) => self.q.at(n.time_ns, Ev::Arrival),
                    Ok(None) => {}
                    Err(e) => {
                        self.error = Some(e);
                        return false;
                    }
                }
                self.arrive(&r);
            }
            Ev::Start(req) => self.enter(req),
            Ev::Admit(req) => self.admit(req),
            Ev::ReadSensed(die) => self.read_sensed(die),
            Ev::OpDone(die) => self.op_done(die),
            Ev::GcDone(die) => self.gc_done(die),
            Ev::Raid(e) => self.with_raid(|r, s| r.on_event(e, s)),
            Ev::Fault(f) => self.fault_event(f),
            Ev::Idle(stamp) => self.idle(stamp),
            Ev::External(id) => self.external_arrives(id),
        }
        self.error.is_none() && self.q.overrun() <= crate::engine::TIME_LIMIT_NS
    }

    /// What stopped the run: the event's error, else the time limit.
    #[cold]
    #[inline(never)]
    fn failure(&mut self) -> SimError {
        match self.error.take() {
            Some(e) => e,
            None => self.time_error(),
        }
    }

    /// The error naming the cause once a scheduled time passes
    /// [`TIME_LIMIT_NS`](crate::engine::TIME_LIMIT_NS).
    #[cold]
    #[inline(never)]
    fn time_error(&self) -> SimError {
        let latest = self.q.overrun();
        let what = if latest == SimTime::MAX { "wrapped".to_string() } else { format!("reached {latest} ns") };
        ConfigError(format!(
            "simulated time {what}, beyond the 2^63 ns (292 years) the simulator supports, after {} completed \
             requests: operation latencies ([timing], ldpc) times the queued work exceed it; lower the [timing] \
             keys or trace.time_scale / trace.repeat",
            self.totals.completed
        ))
        .into()
    }

    /// After the last event: the end-of-run checks; the run's totals.
    pub fn finish(&mut self) -> Result<RunTotals, SimError> {
        self.finish_checks()?;
        Ok(self.totals)
    }

    fn finish_checks(&mut self) -> Result<(), SimError> {
        let now = self.q.now();
        if self.stopped {
            // A second failure lost data: the run ended there, by design.
            return Ok(());
        }
        if self.totals.completed != self.totals.admitted || self.host.outstanding() != 0 || self.host.waiting() != 0 {
            let queued = |ch: u32| self.channels[ch as usize].sched.writes_queued();
            if let Some((channel, waiting)) = stall::full_channel(&self.layout, queued, |d| self.takes_writes(d)) {
                let first = self.layout.first_die(channel);
                let failed_die = (first..first + self.layout.dies_per_channel).any(|d| self.is_dead(d));
                let replicated = self.replicas.as_ref().map_or(0, |t| t.len());
                let cause = if failed_die {
                    "its failed die's chunks went to its other dies, which they outgrew; put a replacement in \
                     (fault.rebuild, fault.replace_after_ns), raise geometry.over_provisioning or lower \
                     precondition.valid"
                        .to_string()
                } else if replicated > 0 {
                    let high = self.repl.as_ref().map_or(0, |r| r.high_water);
                    let most = self.replicas.as_ref().map_or(0, |t| t.capacity());
                    stall::replicated_cause(replicated as u64, high.into(), most as u64)
                } else if self.stripes.parity {
                    "the placement of updates concentrated data there; lower precondition.valid, raise \
                     geometry.over_provisioning or use another update placement"
                        .to_string()
                } else {
                    "its share of the logical space outgrew it; lower precondition.valid or raise \
                     geometry.over_provisioning"
                        .to_string()
                };
                return Err(SimError::ChannelFull { channel, waiting, cause });
            }
            let bound = |ch: u32, local: u32| self.channels[ch as usize].sched.writes_queued_for(local);
            if let Some((die, waiting)) = stall::full_die(&self.layout, bound, |d| self.takes_writes(d)) {
                return Err(SimError::DieFull { die, channel: self.layout.channel_of_die(die), waiting });
            }
            return Err(VerifyError {
                time_ns: now,
                what: stall::ran_dry(
                    self.totals.admitted,
                    self.totals.completed,
                    self.host.outstanding() as u64,
                    self.host.waiting() as u64,
                ),
            }
            .into());
        }
        if let Some(v) = &self.verifier {
            let raid = self.raid.as_deref().expect("the RAID layer is not re-entered");
            let lost = |c: u32| raid.is_lost(c);
            v.check_chunks(&self.ftl, &lost, now)?;
            self.totals.stripes_verified = v.check_stripes(&self.ftl, &self.layout, &self.stripes, &lost, now)?;
        }
        self.check_replicas()?;
        Ok(())
    }

    pub(crate) fn fail(&mut self, e: impl Into<SimError>) {
        if self.error.is_none() {
            self.error = Some(e.into());
        }
    }
}
