//! The standard collector: latency histograms per class, per-channel counters,
//! flash operation counts by origin and RAID decisions.

pub use super::latency_stats::{LatencyStats, HIST_MAX_NS};
use super::observer::{FaultEvent, Observer, StripeWrite};
use super::request_log::RequestLog;
use crate::engine::SimTime;
use crate::flash::op::Origin;
use crate::ftl::GcWork;
use rainsim_trace::stats::counted;
use rainsim_trace::Op;

/// Counters of one channel.
#[derive(Debug, Clone, Default)]
pub struct ChannelCounters {
    /// Completed flash operations by origin.
    pub ops: [u64; Origin::COUNT],
    /// Sum of the channel's queue length sampled at each of its completions.
    pub blocked_sum: u64,
    /// Sum of die busy time in ns (I/O and GC).
    pub busy_ns: u64,
    /// Garbage collections.
    pub gc_count: u64,
    /// GC page moves (copyback reads + programs each count once here).
    pub pages_moved: u64,
    /// Wear-levelling page moves (part of `pages_moved`).
    pub wl_moved: u64,
    /// Erases.
    pub erases: u64,
    /// Total GC die time in ns.
    pub gc_ns: u64,
    /// Sum of the DM-Eq. 7 estimates made before each GC, in ns.
    pub gc_estimate_ns: f64,
    /// Host read sub-request latencies on this channel.
    pub read_lat: LatencyStats,
}

impl ChannelCounters {
    /// All completed operations.
    pub fn total_ops(&self) -> u64 {
        self.ops.iter().sum()
    }
}

/// RAID decision counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct RaidCounters {
    /// Full-stripe writes.
    pub full: u64,
    /// RMW partial-stripe writes.
    pub rmw: u64,
    /// RCW partial-stripe writes.
    pub rcw: u64,
    /// Partial-stripe writes whose routine differs from fewest pre-reads.
    pub adjusted: u64,
    /// Of those, the ones that chose RMW (the rest chose RCW).
    pub adjusted_rmw: u64,
    /// Page writes without parity.
    pub plain: u64,
    /// Writes to stripes holding no data yet.
    pub fresh: u64,
    /// Pre-reads issued.
    pub prereads: u64,
    /// Reads rebuilt by the cost model (degraded reads).
    pub degraded_reads: u64,
    /// Reads rebuilt because their die was in GC.
    pub gc_tolerant_reads: u64,
    /// Chunk reads issued by both kinds of rebuild.
    pub rebuild_reads: u64,
    /// Updates moved outside their stripe (degraded updates).
    pub degraded_updates: u64,
    /// Controller XORs (parity and rebuilds).
    pub xors: u64,
}

/// Flash reads by LDPC level (only with the model on).
#[derive(Debug, Clone, Default)]
pub struct LdpcCounters {
    /// Reads (host, pre-read, degraded) started at each level, level 0 first.
    pub reads: Vec<u64>,
    /// Sum of their sensing time beyond tR (read retries), ns.
    pub retry_ns: u128,
}

/// Gathers everything the report needs.
#[derive(Debug, Clone)]
pub struct Collector {
    /// Reads, writes (all of them: [`Collector::latency_all`]).
    pub latency: [LatencyStats; 2],
    /// Per channel.
    pub channels: Vec<ChannelCounters>,
    /// RAID decisions.
    pub raid: RaidCounters,
    /// Flash reads by LDPC level.
    pub ldpc: LdpcCounters,
    /// Programs by ISPP grid step (process variation): host and parity
    /// programs, then GC moves.
    pub pv_programs: [Vec<u64>; 2],
    /// Host reads of never-written pages.
    pub unmapped_reads: u64,
    /// Host read requests all of whose pages were never written.
    pub unmapped_read_requests: u64,
    /// GCs held back by rotating GC.
    pub gc_deferred: u64,
    /// GCs rotating GC started beside a partner's GC (plane at its reserve).
    pub gc_forced_overlaps: u64,
    /// Requests held back by the queue-depth cap.
    pub held: u64,
    /// Bytes read and written by the host.
    pub bytes: [u64; 2],
    /// Earliest arrival and latest completion.
    pub first_arrival: Option<SimTime>,
    /// Latest completion.
    pub last_completion: SimTime,
    /// Earliest start of any die activity.
    pub first_activity: Option<SimTime>,
    /// Latest end of any die activity.
    pub last_activity: SimTime,
    /// The per-request log, when asked for ([`Collector::with_request_log`]).
    pub requests: Option<RequestLog>,
    /// Read and write latency before, during and after a channel failure
    /// (empty until one happens).
    pub fault_phases: Vec<[LatencyStats; 2]>,
    /// The phase requests complete in now.
    pub fault_phase: usize,
    /// What replication did.
    pub replication: super::replication_report::ReplicationCounters,
}

/// The report's note when a latency passed [`HIST_MAX_NS`] (`max_ns`: the
/// longest latency recorded).
pub fn saturation_note(max_ns: u64) -> Option<String> {
    (max_ns > HIST_MAX_NS).then(|| {
        format!(
            "a latency of {:.0} s passed the histograms' 2^45 ns (9.8 h) bound: percentiles and the CDF count \
             such latencies at 9.8 h; mean and max are exact",
            max_ns as f64 / 1e9
        )
    })
}

/// The note for host reads of never-written pages: they take no flash time,
/// so they pull the read latencies down.
pub fn unmapped_note(c: &Collector) -> Option<String> {
    (c.unmapped_reads > 0).then(|| {
        let reads = c.latency[0].count();
        format!(
            "{} (served as zeros, no flash access); {} of the {} ({:.1} %) read only such pages and count in the \
             read latency with no flash time; precondition.map_trace = \"reads\" maps what a trace reads before \
             writing it, as SSDsim does",
            counted(c.unmapped_reads, "page read hit a never-written page", "page reads hit never-written pages"),
            c.unmapped_read_requests,
            counted(reads, "read request", "read requests"),
            if reads == 0 { 0.0 } else { 100.0 * c.unmapped_read_requests as f64 / reads as f64 }
        )
    })
}

impl Collector {
    /// Latency of all requests, reads and writes together.
    pub fn latency_all(&self) -> LatencyStats {
        LatencyStats::merged(&self.latency[0], &self.latency[1])
    }

    /// A collector for `channels` channels.
    pub fn new(channels: u32) -> Collector {
        Collector {
            latency: Default::default(),
            channels: vec![ChannelCounters::default(); channels as usize],
            raid: RaidCounters::default(),
            ldpc: LdpcCounters::default(),
            pv_programs: Default::default(),
            unmapped_reads: 0,
            unmapped_read_requests: 0,
            gc_deferred: 0,
            gc_forced_overlaps: 0,
            held: 0,
            bytes: [0; 2],
            first_arrival: None,
            last_completion: 0,
            first_activity: None,
            last_activity: 0,
            requests: None,
            fault_phases: Vec::new(),
            fault_phase: 0,
            replication: Default::default(),
        }
    }

    /// A collector that also keeps the per-request log.
    pub fn with_request_log(channels: u32) -> Collector {
        Collector { requests: Some(RequestLog::new(channels)), ..Collector::new(channels) }
    }

    /// Operations of one origin over all channels.
    pub fn ops(&self, o: Origin) -> u64 {
        self.channels.iter().map(|c| c.ops[o as usize]).sum()
    }

    /// Simulated span: first arrival to last completion.
    pub fn span_ns(&self) -> u64 {
        self.last_completion.saturating_sub(self.first_arrival.unwrap_or(0))
    }

    /// Span of device activity: the simulated span widened to any die work
    /// before the first arrival or after the last completion (e.g. GC).
    pub fn active_span_ns(&self) -> u64 {
        let start = match (self.first_arrival, self.first_activity) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(0),
        };
        self.last_completion.max(self.last_activity).saturating_sub(start)
    }
}

impl Observer for Collector {
    fn replication(&mut self, e: super::observer::ReplicationProbe) {
        self.replication.record(e);
    }
    fn request_done(&mut self, slot: u32, op: Op, arrival: SimTime, done: SimTime, bytes: u32) {
        let lat = done - arrival;
        let class = if op == Op::Read { 0 } else { 1 };
        self.latency[class].record(lat);
        if !self.fault_phases.is_empty() {
            self.fault_phases[self.fault_phase][class].record(lat);
        }
        self.bytes[class] += bytes as u64;
        self.first_arrival = Some(self.first_arrival.map_or(arrival, |a| a.min(arrival)));
        self.last_completion = self.last_completion.max(done);
        if let Some(log) = &mut self.requests {
            log.done(slot, op, arrival, done, bytes);
        }
    }
    #[inline]
    fn wants_request_ops(&self) -> bool {
        self.requests.is_some()
    }
    fn request_op(&mut self, slot: u32, channel: u32, rebuilt: bool) {
        if let Some(log) = &mut self.requests {
            log.op(slot, channel, rebuilt);
        }
    }
    fn op_done(&mut self, channel: u32, origin: Origin, queued: u32, latency: SimTime) {
        let c = &mut self.channels[channel as usize];
        c.ops[origin as usize] += 1;
        c.blocked_sum += queued as u64;
        // Flash reads that serve host reads: direct ones, and the chunk reads
        // of rebuilt (degraded) ones, which land on the partners' channels.
        if matches!(origin, Origin::HostRead | Origin::DegradedRead) {
            c.read_lat.record(latency);
        }
    }
    #[inline]
    fn op_will_finish(&self, channel: u32, origin: Origin, latency: SimTime) {
        // The histogram's count is the one line of `op_done` out of cache
        // (eight of them, 300 KB each): ask for it while the read crosses the bus.
        if matches!(origin, Origin::HostRead | Origin::DegradedRead) {
            if let Some(c) = self.channels.get(channel as usize) {
                c.read_lat.prefetch(latency);
            }
        }
    }
    fn flash_read(&mut self, _channel: u32, _origin: Origin, level: u8, retry_ns: SimTime) {
        let l = level as usize;
        if l >= self.ldpc.reads.len() {
            self.ldpc.reads.resize(l + 1, 0);
        }
        self.ldpc.reads[l] += 1;
        self.ldpc.retry_ns += retry_ns as u128;
    }
    fn flash_program(&mut self, _channel: u32, dvp_step: u8, gc: bool) {
        let v = &mut self.pv_programs[gc as usize];
        let s = dvp_step as usize;
        if s >= v.len() {
            v.resize(s + 1, 0);
        }
        v[s] += 1;
    }
    fn die_busy(&mut self, channel: u32, start: SimTime, end: SimTime) {
        self.channels[channel as usize].busy_ns += end - start;
        self.first_activity = Some(self.first_activity.map_or(start, |a| a.min(start)));
        self.last_activity = self.last_activity.max(end);
    }
    fn gc_done(&mut self, channel: u32, work: &GcWork, duration: SimTime, estimate_ns: f64) {
        let c = &mut self.channels[channel as usize];
        c.gc_count += 1;
        c.gc_estimate_ns += estimate_ns;
        c.pages_moved += work.moved as u64;
        c.wl_moved += work.wl_moved as u64;
        c.erases += work.erased as u64;
        c.gc_ns += duration;
    }
    fn stripe_write(&mut self, kind: StripeWrite, adjusted: bool, prereads: u32) {
        match kind {
            StripeWrite::Full => self.raid.full += 1,
            StripeWrite::Rmw => self.raid.rmw += 1,
            StripeWrite::Rcw => self.raid.rcw += 1,
            StripeWrite::Plain => self.raid.plain += 1,
            StripeWrite::Fresh => self.raid.fresh += 1,
        }
        self.raid.adjusted += adjusted as u64;
        self.raid.adjusted_rmw += (adjusted && kind == StripeWrite::Rmw) as u64;
        self.raid.prereads += prereads as u64;
    }
    fn degraded_read(&mut self, gc_tolerant: bool, reads: u32) {
        if gc_tolerant {
            self.raid.gc_tolerant_reads += 1;
        } else {
            self.raid.degraded_reads += 1;
        }
        self.raid.rebuild_reads += reads as u64;
    }
    fn degraded_update(&mut self, prereads: u32) {
        self.raid.degraded_updates += 1;
        self.raid.prereads += prereads as u64;
    }
    fn xor(&mut self) {
        self.raid.xors += 1;
    }
    fn unmapped_read_request(&mut self) {
        self.unmapped_read_requests += 1;
    }
    fn unmapped_read(&mut self) {
        self.unmapped_reads += 1;
    }
    fn gc_deferred(&mut self, _channel: u32) {
        self.gc_deferred += 1;
    }
    fn gc_forced_overlap(&mut self, _channel: u32) {
        self.gc_forced_overlaps += 1;
    }
    fn host_held(&mut self) {
        self.held += 1;
    }
    fn fault(&mut self, event: FaultEvent, _now: SimTime) {
        match event {
            FaultEvent::Failed if self.fault_phases.is_empty() => {
                // Everything completed so far completed before the failure.
                let before = [self.latency[0].clone(), self.latency[1].clone()];
                self.fault_phases = vec![before, Default::default(), Default::default()];
                self.fault_phase = 1;
            }
            FaultEvent::Rebuilt => self.fault_phase = 2,
            _ => {}
        }
    }
}

#[cfg(test)]
#[path = "collector_tests.rs"]
mod tests;
