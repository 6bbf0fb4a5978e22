//! The event engine: a time-ordered queue of closed-enum events.
//!
//! Events at the same instant run in the order they were scheduled (FIFO by a
//! sequence number), which makes every run deterministic. The engine knows
//! nothing about flash.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Simulated time in nanoseconds.
pub type SimTime = u64;

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

/// A deterministic discrete-event queue.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: SimTime,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), seq: 0, now: 0 }
    }
}

impl<E> EventQueue<E> {
    /// Current simulated time (the time of the last popped event).
    pub fn now(&self) -> SimTime {
        self.now
    }

    /// Schedules `event` at absolute time `at` (never before now).
    pub fn at(&mut self, at: SimTime, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.seq += 1;
        let time = at.max(self.now);
        self.heap.push(Entry { key: ((time as u128) << 64) | self.seq as u128, event });
    }

    /// Schedules `event` after `delay` nanoseconds.
    pub fn after(&mut self, delay: SimTime, event: E) {
        self.at(self.now + delay, event);
    }

    /// Removes the earliest event and advances time to it.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        self.now = (e.key >> 64) as SimTime;
        Some((self.now, e.event))
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_schedule_order() {
        let mut q = EventQueue::default();
        q.at(10, 'a');
        q.at(5, 'b');
        q.at(10, 'c');
        q.at(5, 'd');
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(5, 'b'), (5, 'd'), (10, 'a'), (10, 'c')]);
        assert_eq!(q.now(), 10);
    }

    #[test]
    fn matches_a_sort_by_time_then_insertion_on_random_interleavings() {
        // Push and pop in a pseudo-random pattern; every pop must return the
        // smallest (time, insertion index) among the pending events.
        let mut q = EventQueue::default();
        let mut pending: Vec<(u64, u32)> = Vec::new();
        let mut x = 12345u64;
        for id in 0..5000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let t = q.now() + (x >> 54); // 0..1023 ahead, many ties
            q.at(t, id);
            pending.push((t, id));
            if x.is_multiple_of(3) {
                let (t, id) = q.pop().unwrap();
                let min = *pending.iter().min().unwrap();
                assert_eq!((t, id), min);
                pending.retain(|&p| p != min);
            }
        }
        while let Some(e) = q.pop() {
            let min = *pending.iter().min().unwrap();
            assert_eq!(e, min);
            pending.retain(|&p| p != min);
        }
        assert!(pending.is_empty());
    }
}
