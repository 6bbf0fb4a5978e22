//! The event engine: a time-ordered queue of closed-enum events.
//!
//! Events at the same instant run in the order they were scheduled (FIFO by a
//! sequence number), which makes every run deterministic; a group of devices
//! sharing one queue (an array) ranks each device's events, so that at one
//! instant the lower rank runs first. The engine knows nothing about flash.

use std::cell::Cell;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Simulated time in nanoseconds.
pub type SimTime = u64;

/// CPU time of this process in seconds (user and system, every thread), to
/// the nanosecond where the OS keeps it; else from /proc/self/stat in 10 ms
/// ticks, else 0.
pub fn cpu_seconds() -> f64 {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes one timespec through a valid pointer.
        if unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) } == 0 {
            return seconds(ts.tv_sec as f64, ts.tv_nsec as f64);
        }
    }
    std::fs::read_to_string("/proc/self/stat").map_or(0.0, |stat| stat_cpu_seconds(&stat))
}

/// A `timespec`'s seconds and nanoseconds as seconds.
fn seconds(sec: f64, nsec: f64) -> f64 {
    sec + nsec * 1e-9
}

/// User plus system time in a `/proc/PID/stat` line, in seconds (its
/// ticks are the kernel's USER_HZ, 100 on Linux); 0 if the line lacks them.
fn stat_cpu_seconds(stat: &str) -> f64 {
    // The command name, in parentheses, may hold blanks and ')': the fields
    // are counted from the last ')'.
    let Some((_, rest)) = stat.rsplit_once(')') else { return 0.0 };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 (utime, stime) are at 11 and 12 after the ')'.
    (ticks(11) + ticks(12)) / 100.0
}

/// The latest simulated time a run may reach: 2^63 ns (292 years). Why no
/// time computation can wrap a u64: every time the device computes is a
/// time already scheduled (or `now`) plus one operation's duration, and the
/// configuration bounds every duration (`config::MAX_TIMING_NS` per key, a
/// page transfer at most 1 MiB at 1 MB/s, LDPC retries at most 1 s), so one
/// step adds far less than 2^62 ns. Arrivals are at most 2^62 ns (the trace
/// readers and `Ssd::begin` refuse later ones). The run loop (`run.rs`)
/// stops with an error as soon as any scheduled time passes this limit, so
/// every operand stays below 2^63 + 2^62 < 2^64. A time scheduled before
/// `now` can only be the result of a wrap; it is recorded too.
pub const TIME_LIMIT_NS: SimTime = 1 << 63;

/// `key` = time in the high 64 bits, scheduling sequence in the low 64: one
/// integer comparison orders by time, then FIFO.
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// Width of a wheel slot: 2^SLOT_BITS ns (4.096 µs).
const SLOT_BITS: u32 = 12;
/// Slots on the wheel (a power of two): the wheel covers the next
/// 2^(SLOT_BITS + WHEEL_BITS) ns ≈ 16.8 ms; later events wait in a heap.
const WHEEL_BITS: u32 = 12;
const SLOTS: usize = 1 << WHEEL_BITS;
/// Words of the busy bitmap; one summary word has a bit per word.
const WORDS: usize = SLOTS / 64;
const _: () = assert!(WORDS == 64, "the summary is one u64");

/// `head_key` when the earliest pending event is not known (no key is 0:
/// sequence numbers start at 1), so one comparison in `at` sees both.
const UNKNOWN: u128 = 0;
/// `head_at.0` of an event in the far heap.
const FAR: u32 = u32::MAX;
/// No node: the end of a slot's list.
const NIL: u32 = u32::MAX;

/// A wheel event: its key as two words (8-byte aligned: a node of a
/// 16-byte event takes 40 bytes, not 48), its neighbours in its slot's list
/// (in key order), the event itself (stale while the node is free).
#[derive(Clone, Copy)]
struct Node<E> {
    time: u64,
    seq: u64,
    prev: u32,
    next: u32,
    event: E,
}

impl<E> Node<E> {
    #[inline(always)]
    fn key(&self) -> u128 {
        (self.time as u128) << 64 | self.seq as u128
    }
}

/// A deterministic discrete-event queue.
///
/// Near events sit on a timing wheel of 4 µs slots (a bitmap finds the next
/// busy slot); events further than the wheel's span wait in a binary heap.
/// Every event on the wheel lies in the span starting at the current slot,
/// so a circular scan from it meets slots in time order. `pop` returns the
/// smaller of the two candidates, so no event ever migrates. A slot is a
/// list kept in key order, threaded through one pool of nodes (freed nodes
/// are reused first): a new event, usually the latest of its slot, goes in
/// from the tail, and the slot's earliest is its first node. The wheel is
/// 32 KiB of list ends and the events in flight share a few cache lines,
/// so several devices' queues stay in cache. The earliest event, once
/// found, is remembered until it is popped or an earlier one is scheduled:
/// a run loop that peeks every device before stepping one finds it once.
pub struct EventQueue<E: Copy> {
    /// First and last node of each slot's list (`NIL`: empty). Arrays of
    /// the wheel's size, so that a slot index (masked) needs no bounds check.
    heads: Box<[u32; SLOTS]>,
    tails: Box<[u32; SLOTS]>,
    nodes: Vec<Node<E>>,
    /// First free node (`NIL`: none), linked by `next`.
    free: u32,
    /// One bit per slot: non-empty.
    busy: Box<[u64; WORDS]>,
    /// One bit per word of `busy`: non-zero.
    summary: u64,
    /// Key of the earliest pending event once a peek found it (else
    /// `UNKNOWN`), and where it is: its wheel slot or `FAR`.
    head_key: Cell<u128>,
    head_at: Cell<u32>,
    /// Absolute slot number (time >> SLOT_BITS) of `now`.
    cur: u64,
    on_wheel: usize,
    far: BinaryHeap<Entry<E>>,
    seq: u64,
    now: SimTime,
    /// The latest time scheduled at or past [`TIME_LIMIT_NS`] (0: none yet;
    /// `SimTime::MAX` after a wrap).
    overrun: SimTime,
    /// Outbox mode (a member of a group whose events share one queue):
    /// events scheduled go here, in order, for the group to move over.
    outbox: Option<Vec<(SimTime, E)>>,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heads: Box::new([NIL; SLOTS]),
            tails: Box::new([NIL; SLOTS]),
            nodes: Vec::new(),
            free: NIL,
            busy: Box::new([0; WORDS]),
            summary: 0,
            head_key: Cell::new(UNKNOWN),
            head_at: Cell::new(0),
            cur: 0,
            on_wheel: 0,
            far: BinaryHeap::new(),
            seq: 0,
            now: 0,
            overrun: 0,
            outbox: None,
        }
    }
}

impl<E: Copy> EventQueue<E> {
    /// Events scheduled so far (every event the run will have run, once it
    /// has run them): a clock of work done, for progress.
    #[inline]
    pub fn scheduled(&self) -> u64 {
        self.seq
    }

    /// Current simulated time (the time of the last popped event).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at absolute time `at` (never before now).
    // Inlined into every caller: a call saved and restored as many
    // registers as the common path of the insertion itself takes.
    #[inline(always)]
    pub fn at(&mut self, at: SimTime, event: E) {
        let at = self.note_time(at);
        if self.outbox.is_some() {
            return self.push_outbox(at, event);
        }
        self.schedule(at, 0, event);
    }

    #[inline(never)]
    fn push_outbox(&mut self, at: SimTime, event: E) {
        self.outbox.as_mut().expect("outbox mode").push((at, event));
    }

    /// Schedules `event` at `at` in rank `rank`: among events of one time,
    /// lower ranks pop first, and within a rank the earlier scheduled ([`Self::at`]
    /// schedules in rank 0). A group of devices sharing one queue ranks
    /// each device's events by its index, so that a step of the group is
    /// the step of one loop over their own queues (lowest index first).
    #[inline]
    pub fn at_ranked(&mut self, at: SimTime, rank: u16, event: E) {
        let at = self.note_time(at);
        self.schedule(at, rank, event);
    }

    /// Returns `at`, never before now. A time at or past [`TIME_LIMIT_NS`],
    /// or before now (only a wrapped addition gives one), is recorded for the
    /// run loop ([`Self::overrun`]); the common case is two comparisons.
    #[inline(always)]
    fn note_time(&mut self, at: SimTime) -> SimTime {
        debug_assert!(at >= self.now, "event scheduled in the past");
        if at >= TIME_LIMIT_NS || at < self.now {
            return self.note_overrun(at);
        }
        at
    }

    #[cold]
    #[inline(never)]
    fn note_overrun(&mut self, at: SimTime) -> SimTime {
        self.overrun = if at < self.now { SimTime::MAX } else { self.overrun.max(at) };
        at.max(self.now)
    }

    /// Turns outbox mode on: from now on [`Self::at`] only collects events,
    /// for [`Self::drain_outbox`]; the queue itself stays empty.
    pub fn use_outbox(&mut self) {
        debug_assert!(self.is_empty(), "events already queued would be stranded");
        self.outbox.get_or_insert_with(Vec::new);
    }

    /// Hands `f` the events collected in outbox mode since the last call, in
    /// the order they were scheduled, and forgets them. (By index, then a
    /// clear: a `Drain` per call cost an array a tenth of its loop.)
    #[inline]
    pub fn drain_outbox(&mut self, mut f: impl FnMut(SimTime, E)) {
        let out = self.outbox.as_mut().expect("outbox mode");
        for &(t, e) in out.iter() {
            f(t, e);
        }
        out.clear();
    }

    /// Puts `event` at time `at` (not before now) on the wheel or the far heap.
    #[inline(always)]
    fn schedule(&mut self, at: SimTime, rank: u16, event: E) {
        self.seq += 1;
        debug_assert!(self.seq < 1 << 48, "sequence numbers leave 16 bits for the rank");
        let seq = (rank as u64) << 48 | self.seq;
        let slot = at >> SLOT_BITS;
        if slot - self.cur >= SLOTS as u64 {
            return self.schedule_far(at, seq, event);
        }
        let i = (slot as usize) & (SLOTS - 1);
        self.link(i, at, seq, event);
        // A known head stays (the first of its slot, or the heap's top)
        // unless this event is earlier.
        let key = ((at as u128) << 64) | seq as u128;
        if key < self.head_key.get() {
            self.head_key.set(key);
            self.head_at.set(i as u32);
        }
    }

    /// [`Self::schedule`] beyond the wheel's span: on the far heap.
    #[cold]
    #[inline(never)]
    fn schedule_far(&mut self, at: SimTime, seq: u64, event: E) {
        let key = ((at as u128) << 64) | seq as u128;
        self.far.push(Entry { key, event });
        if key < self.head_key.get() {
            self.head_key.set(key);
            self.head_at.set(FAR);
        }
    }

    /// Puts an event at `time` with sequence `seq` (its rank in the high
    /// bits) into slot `i`'s list after the last node with a smaller key.
    /// The common cases, an empty slot and a key after the tail's, take no
    /// search; the rest search from the tail (`insert_before`).
    #[inline(always)]
    fn link(&mut self, i: usize, time: SimTime, seq: u64, event: E) {
        let tail = self.tails[i];
        self.on_wheel += 1;
        if tail == NIL {
            let n = self.put(Node { time, seq, prev: NIL, next: NIL, event });
            self.heads[i] = n;
            self.tails[i] = n;
            self.busy[i / 64] |= 1 << (i % 64);
            self.summary |= 1 << (i / 64);
            return;
        }
        let t = &self.nodes[tail as usize];
        if t.time < time || (t.time == time && t.seq < seq) {
            let n = self.put(Node { time, seq, prev: tail, next: NIL, event });
            self.nodes[tail as usize].next = n;
            self.tails[i] = n;
        } else {
            self.insert_before(i, Node { time, seq, prev: NIL, next: NIL, event });
        }
    }

    /// Stores `node` in a free node (reused first) and returns its index.
    /// Field by field: a node built on the stack and copied whole is read
    /// back in wider loads than its fields were written with, which stalls
    /// (no store forwarding) on every event.
    #[inline(always)]
    fn put(&mut self, node: Node<E>) -> u32 {
        match self.free {
            NIL => self.grow(node),
            n => {
                let slot = &mut self.nodes[n as usize];
                self.free = slot.next;
                slot.time = node.time;
                slot.seq = node.seq;
                slot.prev = node.prev;
                slot.next = node.next;
                slot.event = node.event;
                n
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, node: Node<E>) -> u32 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// Links `node` into non-empty slot `i` after the last node with a
    /// smaller key, which is not the tail (searched from the tail).
    #[inline(never)]
    fn insert_before(&mut self, i: usize, mut node: Node<E>) {
        let mut prev = self.tails[i];
        while prev != NIL && {
            let p = &self.nodes[prev as usize];
            p.time > node.time || (p.time == node.time && p.seq > node.seq)
        } {
            prev = self.nodes[prev as usize].prev;
        }
        let next = if prev == NIL { self.heads[i] } else { self.nodes[prev as usize].next };
        (node.prev, node.next) = (prev, next);
        let n = self.put(node);
        match prev {
            NIL => self.heads[i] = n,
            p => self.nodes[p as usize].next = n,
        }
        // `next` is a node: the new one is not the tail.
        self.nodes[next as usize].prev = n;
    }

    /// The first busy wheel slot at or after the current one, circularly.
    #[inline]
    fn next_busy(&self) -> Option<usize> {
        if self.on_wheel == 0 {
            return None;
        }
        let start = (self.cur as usize) & (SLOTS - 1);
        let (w0, b0) = (start / 64, start % 64);
        let first = self.busy[w0] & (!0u64 << b0);
        if first != 0 {
            return Some(w0 * 64 + first.trailing_zeros() as usize);
        }
        // The words after w0, then the ones before it, then w0's slots
        // before the current one (a full turn of the wheel).
        let after = if w0 + 1 < WORDS { self.summary & (!0u64 << (w0 + 1)) } else { 0 };
        let before = self.summary & ((1u64 << w0) - 1);
        let w = if after != 0 {
            after.trailing_zeros() as usize
        } else if before != 0 {
            before.trailing_zeros() as usize
        } else {
            w0
        };
        let bits = self.busy[w];
        (bits != 0).then(|| w * 64 + bits.trailing_zeros() as usize)
    }

    /// The earliest event on the wheel: its key and slot.
    #[inline(always)]
    fn earliest_on_wheel(&self) -> Option<(u128, u32)> {
        self.next_busy().map(|i| (self.nodes[self.heads[i] as usize].key(), i as u32))
    }

    /// The earliest pending event: its key and where it is.
    #[inline(always)]
    fn find_head(&self) -> Option<(u128, u32)> {
        let wheel = self.earliest_on_wheel();
        let far = self.far.peek().map(|e| (e.key, FAR));
        match (wheel, far) {
            (Some(w), Some(f)) => Some(if w.0 < f.0 { w } else { f }),
            (w, f) => w.or(f),
        }
    }

    /// Advances time to `t` without popping an event, for a caller that acts
    /// on the queue's owner at `t` from outside; no pending event may be
    /// earlier than `t`.
    pub fn advance_to(&mut self, t: SimTime) {
        debug_assert!(t >= self.now && self.peek_time().is_none_or(|p| p >= t), "time runs forward");
        self.now = t;
        self.cur = t >> SLOT_BITS;
    }

    /// Sets the clock of an empty queue back to `t`: events that were popped
    /// and dropped unhandled (a failure due after a run's last request) do
    /// not move its owner's time, and the next run may schedule from `t`.
    pub fn rewind_empty(&mut self, t: SimTime) {
        debug_assert!(self.is_empty(), "only an empty queue's clock goes back");
        self.now = t;
        self.cur = t >> SLOT_BITS;
        self.head_key.set(UNKNOWN);
    }

    /// Removes the earliest event and advances time to it.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let known = self.head_key.get();
        let slot = if known != UNKNOWN {
            self.head_key.set(UNKNOWN);
            self.head_at.get()
        } else {
            self.find_head()?.1
        };
        let (key, event) = if slot == FAR {
            let e = self.far.pop().expect("the earliest event is on the heap");
            (e.key, e.event)
        } else {
            let i = slot as usize;
            let n = self.heads[i];
            let node = &mut self.nodes[n as usize];
            let (key, next, event) = (node.key(), node.next, node.event);
            node.next = self.free;
            self.free = n;
            self.heads[i] = next;
            if next == NIL {
                self.tails[i] = NIL;
                self.busy[i / 64] &= !(1 << (i % 64));
                if self.busy[i / 64] == 0 {
                    self.summary &= !(1 << (i / 64));
                }
            } else {
                let n = &mut self.nodes[next as usize];
                n.prev = NIL;
                // The slot's next node is the wheel's earliest now; it is the
                // queue's unless the far heap holds an earlier one (then the
                // next pop searches, as it would anyway).
                if self.far.is_empty() {
                    self.head_key.set(n.key());
                    self.head_at.set(slot);
                }
            }
            self.on_wheel -= 1;
            (key, event)
        };
        debug_assert!(known == UNKNOWN || known == key);
        self.now = (key >> 64) as SimTime;
        self.cur = self.now >> SLOT_BITS;
        Some((self.now, event))
    }

    /// Time of the earliest pending event, without removing it (remembered
    /// for the next peek and pop).
    #[inline]
    pub fn peek_time(&self) -> Option<SimTime> {
        let mut key = self.head_key.get();
        if key == UNKNOWN {
            let (k, at) = self.find_head()?;
            self.head_key.set(k);
            self.head_at.set(at);
            key = k;
        }
        Some((key >> 64) as SimTime)
    }

    /// 0 while every time scheduled lies below [`TIME_LIMIT_NS`]; else the
    /// latest one scheduled at or past it, or `SimTime::MAX` if a time
    /// computation wrapped (an event was scheduled before now). The run loop
    /// stops once this passes the limit.
    pub fn overrun(&self) -> SimTime {
        self.overrun
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.on_wheel + self.far.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
