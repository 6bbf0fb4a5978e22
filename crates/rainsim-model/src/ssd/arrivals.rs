//! Where a device's requests come from: read one ahead from a source (a
//! slice held in memory or a stream), each checked as it is read.

use super::{SimError, Ssd};
use crate::metrics::observer::Observer;
use rainsim_trace::Request;

/// The request read ahead, and what the checks need of the earlier ones.
#[derive(Debug, Default)]
pub(crate) struct Arrivals {
    /// The next request to arrive (its arrival event is queued).
    pub(crate) next: Option<Request>,
    /// Requests read so far.
    read: usize,
    /// Arrival time of the last one.
    last_ns: u64,
    /// The device's capacity in bytes.
    capacity: u64,
}

/// A held trace's requests in order, each read with a cache hint for the
/// one `AHEAD` places later: the replay reads one request between many
/// other memory accesses, too sparsely for the CPU's own prefetcher to
/// follow the array (its load was 3 % of a 1M-request run's time).
pub(crate) struct Held<'a> {
    rest: &'a [Request],
}

/// 16 requests of 32 bytes: 8 cache lines ahead.
const AHEAD: usize = 16;

impl<'a> Held<'a> {
    /// The requests of `requests`, first to last.
    pub(crate) fn new(requests: &'a [Request]) -> Held<'a> {
        Held { rest: requests }
    }
}

impl Iterator for Held<'_> {
    type Item = Request;
    #[inline]
    fn next(&mut self) -> Option<Request> {
        let (r, rest) = self.rest.split_first()?;
        if let Some(later) = rest.get(AHEAD) {
            crate::prefetch::line(later);
        }
        self.rest = rest;
        Some(*r)
    }
}

/// Far below u64::MAX, so that no latency sum can wrap.
const LATEST_ARRIVAL_NS: u64 = 1 << 62;

impl Arrivals {
    /// Before the first request, on a device of `capacity` bytes.
    pub(crate) fn new(capacity: u64) -> Arrivals {
        Arrivals { capacity, ..Default::default() }
    }
}

impl<O: Observer> Ssd<O> {
    /// Checks `requests` before a replay: each fits the device, arrives in
    /// time, is not empty, and they are sorted by time. A slice is checked
    /// whole, so the first error of each kind is the one named.
    pub fn check_requests(&self, requests: &[Request]) -> Result<(), SimError> {
        let cap = self.capacity_bytes();
        if let Some((index, r)) =
            requests.iter().enumerate().find(|(_, r)| r.offset.saturating_add(r.size as u64) > cap)
        {
            return Err(SimError::OutOfRange { index, offset: r.offset, size: r.size, capacity: cap });
        }
        if let Some((index, r)) = requests.iter().enumerate().find(|(_, r)| r.time_ns > LATEST_ARRIVAL_NS) {
            return Err(SimError::TooLate { index, time_ns: r.time_ns });
        }
        if let Some(index) = requests.iter().position(|r| r.size == 0) {
            return Err(SimError::Input(format!("request {index} has size 0")));
        }
        if let Some(index) = requests.windows(2).position(|w| w[1].time_ns < w[0].time_ns) {
            return Err(unsorted(index));
        }
        Ok(())
    }

    /// Reads the next request from `requests`, checks it as
    /// [`Ssd::check_requests`] would, and keeps it as the next arrival.
    pub(super) fn pull(&mut self, requests: &mut dyn Iterator<Item = Request>) -> Result<Option<Request>, SimError> {
        let Some(r) = requests.next() else { return Ok(None) };
        let a = &mut self.arrivals;
        let (index, cap) = (a.read, a.capacity);
        if r.offset.saturating_add(r.size as u64) > cap {
            return Err(SimError::OutOfRange { index, offset: r.offset, size: r.size, capacity: cap });
        }
        if r.time_ns > LATEST_ARRIVAL_NS {
            return Err(SimError::TooLate { index, time_ns: r.time_ns });
        }
        if r.size == 0 {
            return Err(SimError::Input(format!("request {index} has size 0")));
        }
        // The first request passes: nothing arrives before 0.
        if r.time_ns < a.last_ns {
            return Err(unsorted(index - 1));
        }
        (a.read, a.last_ns, a.next) = (index + 1, r.time_ns, Some(r));
        self.prefetch_stripes(&r);
        Ok(Some(r))
    }

    /// Prefetches the mapping slots of the stripes `r` touches (`prefetch.rs`):
    /// its arrival, after the events before it, looks them all up.
    #[inline]
    fn prefetch_stripes(&self, r: &Request) {
        let w = self.stripes.width;
        // A stripe's chunk ids are consecutive (`raid/stripe.rs`).
        let (first, _) = self.stripes.split_lpn(self.layout.page_of_byte(r.offset));
        let (last, _) = self.stripes.split_lpn(self.layout.page_of_byte(r.offset + r.size as u64 - 1));
        self.ftl.map.prefetch(first * w, last * w + w - 1);
        if self.replicating() {
            self.policies.replication.prefetch(first * w..=last * w + w - 1);
        }
    }
}

fn unsorted(index: usize) -> SimError {
    SimError::Input(format!("request {} arrives before request {index}: requests must be sorted by time", index + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rainsim_trace::Op;

    /// A held trace yields each request once, in order, then nothing, for
    /// traces shorter and longer than the prefetch distance.
    #[test]
    fn held_requests_come_in_order_once() {
        for n in [0u64, 1, AHEAD as u64, AHEAD as u64 + 1, 100] {
            let reqs: Vec<Request> = (0..n)
                .map(|i| Request { time_ns: i * 10, offset: i * 4096, size: 4096, device: 0, op: Op::Read })
                .collect();
            let mut held = Held::new(&reqs);
            let got: Vec<Request> = held.by_ref().collect();
            assert_eq!(got, reqs, "{n} requests");
            assert_eq!(held.next(), None, "{n} requests: nothing after the last");
        }
    }
}
