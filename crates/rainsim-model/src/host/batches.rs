//! The hierarchical-batch structured queue (vios-variation-aware-scheduler
//! §3.3, Eq. 3, Fig. 3), shared by PIQ (chip batches only) and VIOS (chip
//! batches of channel batches).
//!
//! ```text
//!  chip batch 1 (A_chip) ─┬─ channel batch 1 (A_channel): r, r, …   issued first
//!                         └─ channel batch 2 (A_channel): r, …
//!  chip batch 2 (A_chip) ─── channel batch 1 …
//! ```
//!
//! Insert r: the oldest chip batch with A_chip ∩ A_r = ∅ (else a new one at
//! the end), A_chip ∪= A_r; in it, the oldest channel batch with
//! A_channel ∩ C_r = ∅ (else a new one), A_channel ∪= C_r; r joins its end.
//! Issue: the head chip batch's head channel batch, in arrival order. A
//! batch keeps its sets until it empties (requests issued from it still
//! occupy their chips). Insertion costs one set intersection per batch
//! scanned; requests are linked through a slab, and emptied batches' storage
//! is reused, so nothing is allocated per request once the queue has grown.

use super::chips::ChipSet;
use super::HeldRequest;
use super::HostScheduler;
use crate::device_state::DeviceView;
use crate::slab::Slab;
use std::collections::VecDeque;

const NIL: u32 = u32::MAX;

/// A request in a channel batch's list.
#[derive(Debug, Clone, Copy)]
struct Node {
    req: HeldRequest,
    next: u32,
}

/// Requests that may run in channel-level parallel.
#[derive(Debug, Clone, Copy)]
struct ChannelBatch {
    channels: ChipSet,
    head: u32,
    tail: u32,
}

/// Requests that may run in chip-level parallel.
#[derive(Debug, Default)]
struct ChipBatch {
    chips: ChipSet,
    /// Channel batches; those before `first` are issued.
    channel_batches: Vec<ChannelBatch>,
    first: usize,
}

/// One queue of chip batches.
#[derive(Debug, Default)]
pub struct BatchQueue {
    batches: VecDeque<ChipBatch>,
    nodes: Slab<Node>,
    /// Storage of emptied chip batches, reused.
    spare: Vec<Vec<ChannelBatch>>,
    len: usize,
    /// Whether chip batches are split into channel batches (VIOS) or not (PIQ).
    channel_level: bool,
}

/// A chip batch as a test sees it: its chips, and per channel batch not yet
/// issued its channels and request ids.
pub type BatchShape = (ChipSet, Vec<(ChipSet, Vec<u32>)>);

impl BatchQueue {
    /// An empty queue; `channel_level` splits chip batches by channel (VIOS).
    pub fn new(channel_level: bool) -> BatchQueue {
        BatchQueue { channel_level, ..Default::default() }
    }

    /// Requests queued.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether none is queued.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds `r` (its `chips` and `channels` filled in).
    pub fn push(&mut self, r: HeldRequest) {
        let id = self.nodes.insert(Node { req: r, next: NIL });
        self.len += 1;
        let i = match self.batches.iter().position(|b| b.chips.disjoint(&r.chips)) {
            Some(i) => i,
            None => {
                let mut v = self.spare.pop().unwrap_or_default();
                v.clear();
                self.batches.push_back(ChipBatch { chips: ChipSet::EMPTY, channel_batches: v, first: 0 });
                self.batches.len() - 1
            }
        };
        let b = &mut self.batches[i];
        b.chips.union_with(&r.chips);
        let channels = if self.channel_level { r.channels } else { ChipSet::EMPTY };
        let open = &mut b.channel_batches[b.first..];
        match open.iter().position(|c| c.channels.disjoint(&channels)) {
            Some(j) => {
                let c = &mut open[j];
                c.channels.union_with(&channels);
                self.nodes[c.tail].next = id;
                c.tail = id;
            }
            None => b.channel_batches.push(ChannelBatch { channels, head: id, tail: id }),
        }
    }

    /// The next request in issue order.
    pub fn pop(&mut self) -> Option<HeldRequest> {
        let b = self.batches.front_mut()?;
        let c = &mut b.channel_batches[b.first];
        let id = c.head;
        let node = self.nodes.remove(id);
        if id == c.tail {
            b.first += 1;
            if b.first == b.channel_batches.len() {
                let done = self.batches.pop_front().expect("the head batch");
                self.spare.push(done.channel_batches);
            }
        } else {
            c.head = node.next;
        }
        self.len -= 1;
        Some(node.req)
    }

    /// The batches in order (tests and diagnostics; allocates).
    pub fn shape(&self) -> Vec<BatchShape> {
        self.batches
            .iter()
            .map(|b| {
                let cbs = b.channel_batches[b.first..]
                    .iter()
                    .map(|c| {
                        let mut ids = Vec::new();
                        let mut n = c.head;
                        loop {
                            ids.push(self.nodes[n].req.id);
                            if n == c.tail {
                                break;
                            }
                            n = self.nodes[n].next;
                        }
                        (c.channels, ids)
                    })
                    .collect();
                (b.chips, cbs)
            })
            .collect()
    }
}

/// Separate read and write queues of batches, reads always issued first:
/// PIQ (`CHANNELS = false`: chip batches) and VIOS (`true`: chip batches of
/// channel batches) differ only in that level.
#[derive(Debug)]
pub struct ReadsFirst<const CHANNELS: bool> {
    reads: BatchQueue,
    writes: BatchQueue,
}

impl<const CHANNELS: bool> Default for ReadsFirst<CHANNELS> {
    fn default() -> Self {
        ReadsFirst { reads: BatchQueue::new(CHANNELS), writes: BatchQueue::new(CHANNELS) }
    }
}

impl<const CHANNELS: bool> ReadsFirst<CHANNELS> {
    /// The read and the write queue's batches (tests).
    pub fn shape(&self) -> (Vec<BatchShape>, Vec<BatchShape>) {
        (self.reads.shape(), self.writes.shape())
    }
}

impl<const CHANNELS: bool> HostScheduler for ReadsFirst<CHANNELS> {
    fn hold(&mut self, r: HeldRequest) {
        if r.req.write {
            self.writes.push(r);
        } else {
            self.reads.push(r);
        }
    }
    fn next(&mut self, _view: &DeviceView) -> Option<HeldRequest> {
        self.reads.pop().or_else(|| self.writes.pop())
    }
    fn waiting(&self) -> usize {
        self.reads.len() + self.writes.len()
    }
    fn wants_chips(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::HostReq;

    /// Request `id` waiting, a write or a read, on `chips` and `channels`.
    fn held_on(id: u32, write: bool, chips: &[u32], channels: &[u32]) -> HeldRequest {
        let req = HostReq { arrival: id as u64, offset: 0, size: 4096, write, pending: 0 };
        HeldRequest { id, req, chips: ChipSet::of(chips), channels: ChipSet::of(channels) }
    }

    fn held(id: u32, chips: &[u32]) -> HeldRequest {
        held_on(id, false, chips, chips)
    }

    /// The count and emptiness follow pushes and pops, and a request whose
    /// chips conflict with the first batch's opens a second batch, issued
    /// after the first's (PIQ: chip batches only).
    #[test]
    fn the_queue_counts_what_it_holds_and_issues_batch_by_batch() {
        let mut q = BatchQueue::new(false);
        assert!(q.is_empty() && q.pop().is_none());
        assert_eq!(q.len(), 0);
        q.push(held(1, &[0, 1]));
        q.push(held(2, &[1]));
        q.push(held(3, &[2]));
        assert!(!q.is_empty());
        assert_eq!(q.len(), 3);
        assert_eq!(q.shape().len(), 2, "request 2 conflicts with request 1 on chip 1");
        let order: Vec<u32> = std::iter::from_fn(|| q.pop()).map(|r| r.id).collect();
        assert_eq!(order, [1, 3, 2]);
        assert!(q.is_empty());
        assert_eq!(q.len(), 0);
    }

    /// PIQ and VIOS hold reads and writes in two batch queues; VIOS splits a
    /// chip batch by channel.
    #[test]
    fn reads_first_holds_two_queues_of_batches() {
        let bench = crate::testkit::Bench::new(2, 2);
        let view = bench.view();
        let ids = |shape: &[BatchShape]| -> Vec<Vec<Vec<u32>>> {
            shape.iter().map(|(_, cbs)| cbs.iter().map(|(_, ids)| ids.clone()).collect()).collect()
        };
        let mut piq = crate::host::piq::Piq::default();
        let mut vios = crate::host::vios::Vios::default();
        assert!(piq.wants_chips() && vios.wants_chips());
        for (id, write, chips, channels) in [(1, true, [0], [0]), (2, false, [1], [1]), (3, false, [2], [1])] {
            piq.hold(held_on(id, write, &chips, &channels));
            vios.hold(held_on(id, write, &chips, &channels));
        }
        assert_eq!((piq.waiting(), vios.waiting()), (3, 3));
        let (reads, writes) = piq.shape();
        assert_eq!((ids(&reads), ids(&writes)), (vec![vec![vec![2, 3]]], vec![vec![vec![1]]]));
        // Requests 2 and 3 share channel 1: one chip batch, two channel batches.
        assert_eq!(ids(&vios.shape().0), vec![vec![vec![2], vec![3]]]);
        let order: Vec<u32> = std::iter::from_fn(|| piq.next(&view)).map(|r| r.id).collect();
        assert_eq!(order, [2, 3, 1]);
        assert_eq!(piq.waiting(), 0);
    }
}
