//! The per-request log (`rainsim run --request-log`): one row per completed
//! host request with its arrival, class, size, latency, the channels its
//! flash operations ran on and whether a reconstruction served it.
//!
//! Gathered beside the model like every statistic: the [`Collector`] holds
//! one when asked (`Collector::with_request_log`) and fills it from the
//! `request_op` and `request_done` probes. While a request is in flight its
//! channel set is a bit set of `⌈channels / 64⌉` words in a table indexed by
//! its slot at the host interface; slots are reused, so the table grows to
//! the most requests in flight at once and no request allocates.
//!
//! [`Collector`]: super::collector::Collector

use crate::engine::SimTime;
use rainsim_trace::Op;

/// One row per completed request, in completion order, as columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestLog {
    /// Arrival (trace time) in ns.
    pub arrival_ns: Vec<u64>,
    /// Latency (completion − arrival) in ns.
    pub latency_ns: Vec<u64>,
    /// Request size in bytes.
    pub size: Vec<u32>,
    /// A write (else a read).
    pub write: Vec<bool>,
    /// Served, at least in part, by a reconstruction: a page rebuilt from its
    /// stripe (a degraded or GC-tolerant read) or an update placed degraded.
    pub degraded: Vec<bool>,
    /// Row `i`'s channels are `channels[offsets[i]..offsets[i + 1]]`.
    pub offsets: Vec<u64>,
    /// Channel numbers of every row, each row's ascending and distinct.
    pub channels: Vec<u16>,
    /// Words of a channel bit set.
    words: usize,
    /// In-flight channel sets, `words` per slot.
    open: Vec<u64>,
    /// In-flight reconstruction flags, one per slot.
    open_degraded: Vec<bool>,
}

impl RequestLog {
    /// An empty log for a device of `channels` channels.
    pub fn new(channels: u32) -> RequestLog {
        RequestLog { words: (channels as usize).div_ceil(64).max(1), offsets: vec![0], ..Default::default() }
    }

    /// Completed requests logged.
    pub fn len(&self) -> usize {
        self.arrival_ns.len()
    }

    /// Whether no request was logged.
    pub fn is_empty(&self) -> bool {
        self.arrival_ns.is_empty()
    }

    /// Channels of row `i`.
    pub fn channels_of(&self, i: usize) -> &[u16] {
        &self.channels[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// An operation of the request in `slot` ran on `channel`.
    #[inline]
    pub fn op(&mut self, slot: u32, channel: u32, rebuilt: bool) {
        let s = slot as usize;
        if s >= self.open_degraded.len() {
            self.open.resize((s + 1) * self.words, 0);
            self.open_degraded.resize(s + 1, false);
        }
        self.open[s * self.words + channel as usize / 64] |= 1 << (channel % 64);
        self.open_degraded[s] |= rebuilt;
    }

    /// The request in `slot` completed: its row, and its slot cleared.
    pub fn done(&mut self, slot: u32, op: Op, arrival: SimTime, done: SimTime, bytes: u32) {
        self.arrival_ns.push(arrival);
        self.latency_ns.push(done - arrival);
        self.size.push(bytes);
        self.write.push(op == Op::Write);
        let s = slot as usize;
        let mut degraded = false;
        if s < self.open_degraded.len() {
            degraded = std::mem::take(&mut self.open_degraded[s]);
            for (w, word) in self.open[s * self.words..(s + 1) * self.words].iter_mut().enumerate() {
                let mut bits = std::mem::take(word);
                while bits != 0 {
                    self.channels.push((w * 64) as u16 + bits.trailing_zeros() as u16);
                    bits &= bits - 1;
                }
            }
        }
        self.degraded.push(degraded);
        self.offsets.push(self.channels.len() as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Channel sets beyond 64 channels, slot reuse, and the flag.
    #[test]
    fn rows_keep_channel_sets_of_any_width_and_slots_are_reused() {
        let mut log = RequestLog::new(130);
        assert!(log.is_empty());
        log.op(3, 129, false);
        log.op(3, 0, false);
        log.op(3, 64, true);
        log.op(3, 0, false);
        log.op(1, 7, false);
        log.done(3, Op::Read, 10, 25, 4096);
        log.done(1, Op::Write, 12, 40, 8192);
        log.op(3, 5, false); // slot 3 reused: starts empty and unflagged
        log.done(3, Op::Read, 30, 31, 512);
        log.done(0, Op::Read, 50, 50, 4096); // no flash operation (an unmapped read)
        assert_eq!(log.len(), 4);
        assert_eq!(log.channels_of(0), &[0, 64, 129]);
        assert_eq!(log.channels_of(1), &[7]);
        assert_eq!(log.channels_of(2), &[5]);
        assert!(log.channels_of(3).is_empty());
        assert_eq!(log.degraded, vec![true, false, false, false]);
        assert_eq!(log.write, vec![false, true, false, false]);
        assert_eq!(log.latency_ns, vec![15, 28, 1, 0]);
        assert_eq!(log.arrival_ns, vec![10, 12, 30, 50]);
        assert_eq!(log.size, vec![4096, 8192, 512, 4096]);
        assert!(!log.is_empty());
        // A slot just past the table (4 slots so far) with no operation: an
        // empty row, the table untouched.
        log.done(4, Op::Read, 60, 61, 512);
        assert!(log.channels_of(4).is_empty() && !log.degraded[4]);
    }
}
