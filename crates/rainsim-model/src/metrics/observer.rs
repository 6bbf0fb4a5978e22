//! Probes the model fires at meaningful points. Collectors implement
//! [`Observer`]; the model never computes a report itself.

use crate::engine::SimTime;
use crate::flash::op::Origin;
use crate::ftl::GcWork;
pub use crate::raid::layer::{ReplicationProbe, StripeWrite};
use rainsim_trace::Op;

/// A step of a channel failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultEvent {
    /// The channel failed.
    Failed,
    /// Its replacement went in; the rebuild started.
    Replaced,
    /// The rebuild ended.
    Rebuilt,
    /// A second channel failed.
    SecondFailed,
}

/// Receiver of model probes. Every method has an empty default.
#[allow(unused_variables)]
pub trait Observer {
    /// The host request in slot `slot` (its id at the host interface, reused
    /// once it completes) completed (latency = `done − arrival`).
    fn request_done(&mut self, slot: u32, op: Op, arrival: SimTime, done: SimTime, bytes: u32) {}
    /// Whether this observer takes [`Observer::request_op`] (the per-request
    /// log). While it says no, the model does not work out which request an
    /// operation served: an observer without the log pays one predictable
    /// branch per flash operation.
    fn wants_request_ops(&self) -> bool {
        false
    }
    /// A flash operation done for the host request in slot `slot` (as in
    /// [`Observer::request_done`], which follows its last one) ran on
    /// `channel`; `rebuilt` when it served a reconstruction: a partner read
    /// of a degraded or GC-tolerant read, or any operation of a degraded update.
    /// Fired only while [`Observer::wants_request_ops`] says yes.
    fn request_op(&mut self, slot: u32, channel: u32, rebuilt: bool) {}
    /// A flash operation finished on `channel`; `queued` is the number of
    /// operations still waiting in that channel's queues; `latency` counts
    /// from its enqueue.
    fn op_done(&mut self, channel: u32, origin: Origin, queued: u32, latency: SimTime) {}
    /// A hint: an operation on `channel` will report [`Observer::op_done`]
    /// with this `origin` and `latency` (a read, once it is sensed and its
    /// transfer reserved). An observer may bring what it will touch then
    /// into the cache; it must not record anything.
    #[inline]
    fn op_will_finish(&self, channel: u32, origin: Origin, latency: SimTime) {}
    /// A flash read of `origin` on `channel` starts sensing at LDPC `level`,
    /// spending `retry_ns` on read retries beyond tR (fired only with the LDPC
    /// model on; GC copyback moves are not flash reads here).
    fn flash_read(&mut self, channel: u32, origin: Origin, level: u8, retry_ns: SimTime) {}
    /// A page of `channel` is programmed into a block at ISPP grid step
    /// `dvp_step` (0 = slowest); `gc` for a GC move (fired only with process
    /// variation on).
    fn flash_program(&mut self, channel: u32, dvp_step: u8, gc: bool) {}
    /// A die of `channel` was busy from `start` to `end` (I/O or GC).
    fn die_busy(&mut self, channel: u32, start: SimTime, end: SimTime) {}
    /// A garbage collection started on `channel`; `estimate_ns` is what DM-Eq. 7
    /// predicted for it from the channel's previous GCs.
    fn gc_done(&mut self, channel: u32, work: &GcWork, duration: SimTime, estimate_ns: f64) {}
    /// Rotating GC held back a GC due on a die of `channel` (fired once per
    /// GC, at its first deferral).
    fn gc_deferred(&mut self, channel: u32) {}
    /// Rotating GC let a GC start on a die of `channel` while a stripe
    /// partner's die was collecting, because a plane had reached its reserve.
    fn gc_forced_overlap(&mut self, channel: u32) {}
    /// A stripe write was planned; `adjusted` when the policy's routine differs
    /// from the fewest-pre-reads choice; `prereads` pre-reads were issued.
    fn stripe_write(&mut self, kind: StripeWrite, adjusted: bool, prereads: u32) {}
    /// A host read is rebuilt from `reads` partner chunks (a degraded read);
    /// `gc_tolerant` when because its die was in GC.
    fn degraded_read(&mut self, gc_tolerant: bool, reads: u32) {}
    /// A single-chunk update went to a channel outside its stripe, with
    /// `prereads` reads to rebuild the old chunk.
    fn degraded_update(&mut self, prereads: u32) {}
    /// The controller computed an XOR (parity or rebuild).
    fn xor(&mut self) {}
    /// A host read hit a never-written page (served as zeros, no flash access).
    fn unmapped_read(&mut self) {}
    /// A host read request found every page it reads never written: it
    /// completes with no flash access.
    fn unmapped_read_request(&mut self) {}
    /// A step of a channel failure happened at `now`.
    fn fault(&mut self, event: FaultEvent, now: SimTime) {}
    /// A request waited for the host queue-depth cap.
    fn host_held(&mut self) {}
    /// Something happened to replicas (replication schemes only).
    fn replication(&mut self, e: ReplicationProbe) {}
}

/// An observer that records nothing.
pub struct NullObserver;
impl Observer for NullObserver {}
