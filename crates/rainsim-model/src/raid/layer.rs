//! The RAID layer as a component: it owns the stripe jobs, degraded reads and
//! stripe locks, receives events (a request's pages, a flash completion, a
//! controller timer) and answers with [`RaidAction`]s that the device applies:
//! read these pages, program these, run the controller, a request unit is done.
//!
//! Everything crosses [`RaidPort`]: what it asks below (where a chunk lives,
//! the policies' decisions), the actions, the probes. So the layer imports
//! neither the device nor the policies nor the metrics, and a test drives it
//! alone with a port that records the actions.

use crate::engine::SimTime;
use crate::fault::Fault;
use crate::flash::op::Owner;
use crate::raid::degraded_read::DegradedRead;
use crate::raid::rmw_rcw::{ChunkUpdate, Member, Routine, UpdatePlan};
use crate::raid::stripe::StripeLayout;
use crate::raid::stripe_lock::StripeLock;
use crate::raid::update::StripeJob;
use crate::slab::Slab;
use rustc_hash::FxHashMap;

/// How a stripe write was carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StripeWrite {
    /// Every data chunk written: no pre-read.
    Full,
    /// Read-modify-write.
    Rmw,
    /// Reconstruct-write.
    Rcw,
    /// No parity (RAID off): a page write, with a merge read if partial.
    Plain,
    /// Part of a stripe that holds no data yet: nothing to pre-read.
    Fresh,
}

/// The RAID layer's port to the device below it: what it asks (where a
/// chunk lives, the policies' decisions), the actions it hands down (applied
/// at once, in the order given) and the probes it fires.
pub trait RaidPort {
    /// Where chunk `chunk` lives now, if it was ever written.
    fn member(&self, chunk: u32) -> Option<Member>;
    /// The parity-update policy's routine for a planned stripe write.
    fn routine(&mut self, plan: &UpdatePlan) -> Routine;
    /// Whether the update-placement policy places single-chunk updates.
    fn wants_updates(&self) -> bool;
    /// The update-placement policy's channel for a single-chunk update
    /// (`None`: update in place).
    fn place(&mut self, u: &ChunkUpdate) -> Option<u32>;
    /// Carries out `a`.
    fn act(&mut self, a: RaidAction);
    /// Probe: a stripe write was planned; `adjusted` when the policy's routine
    /// differs from the fewest-pre-reads choice; `prereads` pre-reads issued.
    fn stripe_write(&mut self, kind: StripeWrite, adjusted: bool, prereads: u32);
    /// Probe: a host read is rebuilt from `reads` partner chunks.
    fn degraded_read(&mut self, gc_tolerant: bool, reads: u32);
    /// Probe: a single-chunk update went to a channel outside its stripe.
    fn degraded_update(&mut self, prereads: u32);
    /// Probe: the controller computed an XOR (parity or rebuild).
    fn xor(&mut self);
    /// The replication policy's channels for the two copies of `chunk`,
    /// whose stripe slot is on `home` (copy A must stay on `home`: it is the
    /// copy that can take the slot back).
    fn copy_channels(&mut self, _chunk: u32, home: u32) -> [u32; 2] {
        [home, home]
    }
    /// Probe: something happened to replicas.
    fn replication(&mut self, _e: ReplicationProbe) {}
    /// The replica table, when a replication scheme runs (the device keeps
    /// it, since its reads and GC consult it while the layer is at work).
    fn replicas(&mut self) -> Option<&mut crate::raid::replica::ReplicaTable> {
        None
    }
    /// Whether a program of `chunk` on `channel` may go only to a failed die
    /// (the channel's scheduler binds it there): the member cannot be
    /// written, as under a channel failure.
    fn bound_to_failed_die(&self, _channel: u32, _chunk: u32) -> bool {
        false
    }
    /// Whether stripe `s` holds data on a member that has not failed (a
    /// rebuild of written stripes only skips the others).
    fn stripe_holds_data(&self, _s: u32) -> bool {
        true
    }
}

/// What the RAID layer did with replicas (probes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicationProbe {
    /// A chunk was written as two copies; `new` when it was not replicated before.
    Replicated {
        /// First replication of the chunk (a table entry was added).
        new: bool,
    },
    /// A replica write found the table full and became a stripe write.
    TableFull,
    /// A replicated chunk returned into its stripe.
    Converted,
    /// A host read was served by a copy.
    ReplicaRead,
    /// A GC reorganised a stripe (rep-raid Fig. 7): case (a) a semi-valid
    /// page found a copy whose mirror sits on the stale slot's channel; case
    /// (b) a copy and the stale slot it replaces were in the same victim.
    Reorganized {
        /// Case (b).
        case_b: bool,
        /// The copy was another chunk's: the two chunks swapped slots.
        swapped: bool,
    },
    /// A conversion started: `reason` 0 idle, 1 high-water mark, 2 all the
    /// stripe's data replicated (CR5M).
    ConvertStarted {
        /// Why.
        reason: u8,
    },
    /// The pages one GC moved, by role.
    GcMoves {
        /// Ordinary pages of stripes without replicas.
        valid: u32,
        /// Current slots of stripes holding a replicated chunk.
        semi_valid: u32,
        /// Old slots of replicated chunks.
        semi_invalid: u32,
        /// Copies.
        replica: u32,
    },
    /// Controller-and-flash time of one finished reorganisation (ns).
    ReorgTime(u64),
    /// A conversion job on `stripe` ended (the device times
    /// reorganisations and chains idle conversions on it).
    ConversionEnded {
        /// The stripe.
        stripe: u32,
        /// Its pre-reads.
        reads: u32,
        /// Its programs (parity, and slots rewritten with a copy's data).
        programs: u32,
        /// Its controller time (XOR and stripe software time).
        controller_ns: u64,
    },
}

/// A controller timer of the RAID layer: the event it gets back when the
/// controller time it asked for has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaidEvent {
    /// The parity-update routine of stripe job `id` is decided.
    Planned(u32),
    /// The XOR of stripe job `id` is done.
    XorDone(u32),
    /// The XOR of degraded read `id` is done.
    DegradedReadDone(u32),
}

/// Where a read joins its die's queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ReadPlace {
    /// At the tail, behind the die's queued reads.
    Tail,
    /// At the head, ahead of them (degraded-mode reads, a rebuild at high priority).
    Head,
    /// In the background: the die takes it only when no other read and no
    /// program it may take waits for it (a rebuild at background priority).
    Background,
}

/// What the device does for the RAID layer, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RaidAction {
    /// Queue a read of `chunk` (now at `ppn`) at `place` in its die's queue.
    Read {
        /// Chunk read.
        chunk: u32,
        /// Its page now.
        ppn: u32,
        /// Whom the completion goes to.
        owner: Owner,
        /// Where it joins the queue (the head: degraded-mode reads).
        place: ReadPlace,
    },
    /// Queue a program of `chunk` on `channel`.
    Program {
        /// Channel written.
        channel: u32,
        /// Chunk written.
        chunk: u32,
        /// Whom the completion goes to.
        owner: Owner,
    },
    /// Run `ns` on the controller, then deliver `then`.
    Controller {
        /// Controller time.
        ns: SimTime,
        /// The event to deliver afterwards.
        then: RaidEvent,
    },
    /// One unit of host request `req` is done.
    UnitDone(u32),
    /// Verify mode: a degraded read rebuilt `token` for `chunk`; it must be
    /// the chunk's latest version.
    CheckRebuilt {
        /// Chunk rebuilt.
        chunk: u32,
        /// XOR of its partners' tokens.
        token: u32,
    },
    /// A policy asked for something the model cannot do.
    Unsupported(String),
    /// Verify mode: a write of lost `chunk` was absorbed in parity; its
    /// latest version is now `token` (no page holds it).
    Absorbed {
        /// The chunk.
        chunk: u32,
        /// Its new version.
        token: u32,
    },
    /// A write of `chunk` (data or parity) could not be programmed and is
    /// lost until rebuilt: a page it still has on a living die is stale.
    Unwritten {
        /// The chunk.
        chunk: u32,
    },
    /// The rebuild ended: no chunk is lost any more.
    RebuildDone,
    /// Verify mode: copies `a` and `b` of `chunk` start from its slot's
    /// version (its first replication).
    AliasCopies {
        /// The chunk.
        chunk: u32,
        /// Its copy ids.
        a: u32,
        /// Its copy ids.
        b: u32,
    },
    /// Copies `a` and `b` are given up (a conversion programmed their data
    /// into the slot).
    DropCopies {
        /// A copy id.
        a: u32,
        /// The other.
        b: u32,
    },
    /// Copy `keep` of `chunk` takes its stripe slot (the old slot page and
    /// copy `drop`, if still mapped, become invalid).
    Promote {
        /// The chunk.
        chunk: u32,
        /// Copy id that becomes the slot.
        keep: u32,
        /// Copy id given up.
        drop: u32,
    },
}

/// What a finished program commits: whether the mapping takes it, and (in
/// verify mode) the token the page now holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commit {
    /// The mapping keeps the old page (a test fault).
    pub stale: bool,
    /// The token written, in verify mode.
    pub token: Option<Token>,
}

/// The token a program writes (verify mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    /// A parity page: the XOR of its stripe's data.
    Parity(u32),
    /// A data page: its token, with what the verifier needs to expect it.
    Data {
        /// Token written.
        token: u32,
        /// Version serial.
        serial: u64,
        /// Position in the stripe.
        pos: u32,
        /// Written only in part (merged over the old page).
        partial: bool,
    },
}

/// Controller times the RAID layer charges.
#[derive(Debug, Clone, Copy, Default)]
pub struct RaidTimes {
    /// One XOR (parity or rebuild).
    pub xor_ns: SimTime,
    /// Software time per stripe job.
    pub stripe_overhead_ns: SimTime,
    /// The parity-update policy's decision time per routine.
    pub decision_ns: SimTime,
}

/// The RAID layer's state.
pub struct RaidLayer {
    pub(crate) stripes: StripeLayout,
    pub(crate) times: RaidTimes,
    /// Compute data tokens (verify mode).
    pub(crate) verify: bool,
    pub(crate) fault: Option<Fault>,
    pub(crate) jobs: Slab<StripeJob>,
    pub(crate) degraded_reads: Slab<DegradedRead>,
    /// Stripes with a write job or degraded reads in flight.
    pub(crate) locks: FxHashMap<u32, StripeLock>,
    /// Version serial of the last job.
    pub(crate) serial: u64,
    /// Reusable buffers (per-position members, partners, channels).
    pub(crate) scratch_at: Vec<Option<Member>>,
    pub(crate) scratch: Vec<Member>,
    pub(crate) scratch_channels: Vec<u32>,
    /// A failed channel, if one failed.
    pub(crate) failure: Option<crate::raid::failure::Failure>,
}

impl RaidLayer {
    /// An idle layer over `stripes`.
    pub fn new(stripes: StripeLayout, times: RaidTimes) -> Self {
        RaidLayer {
            stripes,
            times,
            verify: false,
            fault: None,
            jobs: Slab::default(),
            degraded_reads: Slab::default(),
            locks: FxHashMap::default(),
            serial: 0,
            scratch_at: Vec::new(),
            scratch: Vec::new(),
            scratch_channels: Vec::new(),
            failure: None,
        }
    }

    /// Turns data tokens on (verify mode).
    pub fn set_verify(&mut self, on: bool) {
        self.verify = on;
    }

    /// Injects a test fault.
    pub fn set_fault(&mut self, f: Option<Fault>) {
        self.fault = f;
    }

    /// A controller timer fired.
    pub fn on_event(&mut self, e: RaidEvent, port: &mut impl RaidPort) {
        match e {
            RaidEvent::Planned(job) => self.planned(job, port),
            RaidEvent::XorDone(job) => self.xor_done(job, port),
            RaidEvent::DegradedReadDone(id) => self.degraded_read_done(id, port),
        }
    }

    /// The host request an operation of this layer works for, and whether it
    /// is part of a reconstruction (a degraded read or a degraded update);
    /// `None` for the rebuild's own operations.
    pub fn request_of(&self, owner: Owner) -> Option<(u32, bool)> {
        match owner {
            Owner::HostRead(req) | Owner::ReplicaReadA(req) | Owner::ReplicaReadB(req) | Owner::PageProgram(req) => {
                Some((req, false))
            }
            // Direct one-page operations hold no host slot (and no log asks).
            Owner::MemberRead(_) | Owner::MemberProgram(_) => None,
            Owner::DegradedRead(id) => Some((self.degraded_reads[id].req, true)),
            Owner::PreRead(job) | Owner::HostProgram(job) | Owner::ReplicaProgram(job) | Owner::ParityProgram(job) => {
                let j = &self.jobs[job];
                let rebuilt = j.moved_to != crate::raid::update::NO_CHANNEL || j.lost != crate::raid::failure::NO_POS;
                use crate::raid::update::JobKind;
                matches!(j.kind, JobKind::Write | JobKind::Replica).then_some((j.req, rebuilt))
            }
        }
    }

    /// Whether stripe job `id` is a conversion.
    pub fn is_conversion(&self, id: u32) -> bool {
        self.jobs[id].kind == crate::raid::update::JobKind::Convert
    }

    /// Whether a degraded read of stripe `s` may start now.
    pub fn readable(&self, s: u32) -> bool {
        self.locks.get(&s).is_none_or(|l| l.readable())
    }

    /// The channel a chunk of stripe `s` at position `pos` is written to by a
    /// normal update: where it lives now, or its layout home if never written.
    #[inline]
    pub(crate) fn chunk_channel(&self, port: &impl RaidPort, s: u32, pos: u32) -> u32 {
        let chunk = s * self.stripes.width + pos;
        match port.member(chunk) {
            Some(m) => m.channel,
            None => self.stripes.home_channel(chunk),
        }
    }
}
