//! Transforms applied to a parsed trace. [`crate::load`] runs them in this
//! order: [`filter_device`], [`sort_by_time`], [`rebase`], [`scale_time`],
//! [`map_addresses`], [`repeat`], [`truncate`].

use crate::{Request, TraceError};
use serde::{Deserialize, Serialize};

/// How trace addresses are fitted into the simulated device's capacity.
/// Both keep a request's offset within its page (page = `page_bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AddressMap {
    /// Start page modulo the capacity in pages. A request that would then run
    /// past the last page is moved back by whole pages so that it ends in the
    /// last page (at or just before the capacity), keeping its in-page offset
    /// and its page count. A request spanning more pages than the capacity is
    /// an error.
    #[default]
    Wrap,
    /// Order-preserving dense remap: every distinct page touched by the trace
    /// (over each request's byte range) is numbered by rank, so the touched
    /// pages become pages `0..n` in their original order. A request's pages
    /// are all touched, so contiguous requests stay contiguous. An error if
    /// `n` exceeds the capacity in pages.
    Compact,
}

/// Keeps only the requests of `device`; returns how many were removed. None
/// of them: an error listing the devices the requests have.
pub fn filter_device(requests: &mut Vec<Request>, device: u32) -> Result<u64, String> {
    if !requests.iter().any(|r| r.device == device) {
        let devs: std::collections::BTreeSet<u32> = requests.iter().map(|r| r.device).collect();
        let list: Vec<String> = devs.iter().map(u32::to_string).collect();
        return Err(format!("no request for device {device}; devices present: {}", list.join(", ")));
    }
    let before = requests.len();
    requests.retain(|r| r.device == device);
    Ok((before - requests.len()) as u64)
}

/// Counts adjacent pairs out of time order, then sorts stably by time (equal
/// times keep file order). Returns the count from before the sort.
pub fn sort_by_time(requests: &mut [Request]) -> u64 {
    let inversions = requests.windows(2).filter(|w| w[1].time_ns < w[0].time_ns).count() as u64;
    if inversions > 0 {
        requests.sort_by_key(|r| r.time_ns);
    }
    inversions
}

/// Shifts times so the earliest request is at 0 ns.
pub fn rebase(requests: &mut [Request]) {
    if let Some(min) = requests.iter().map(|r| r.time_ns).min() {
        for r in requests {
            r.time_ns -= min;
        }
    }
}

/// Multiplies every time by `factor` (> 0, finite), rounding to whole ns.
/// `factor < 1` compresses the trace (more load). A factor of exactly 1 is a
/// no-op; otherwise times go through `f64` (exact below 2^53 ns ≈ 104 days).
pub fn scale_time(requests: &mut [Request], factor: f64) -> Result<(), TraceError> {
    if !(factor.is_finite() && factor > 0.0) {
        return Err(TraceError::Invalid(format!("time_scale must be finite and > 0, got {factor:?}")));
    }
    if factor == 1.0 {
        return Ok(());
    }
    for r in requests {
        let t = (r.time_ns as f64 * factor).round();
        if t >= u64::MAX as f64 {
            return Err(TraceError::transform(format!(
                "time_scale {factor:?}: time {} ns overflows 64 bits",
                r.time_ns
            )));
        }
        r.time_ns = t as u64;
    }
    Ok(())
}

fn pages_of(capacity_bytes: u64, page_bytes: u32) -> Result<u64, TraceError> {
    if page_bytes == 0 {
        return Err(TraceError::Invalid("page size must be > 0 bytes".into()));
    }
    let pages = capacity_bytes / u64::from(page_bytes);
    if pages == 0 {
        return Err(TraceError::Invalid(format!(
            "capacity {capacity_bytes} bytes is smaller than one page ({page_bytes} bytes)"
        )));
    }
    Ok(pages)
}

/// First page and number of pages of a request.
fn span_pages(r: &Request, page: u64) -> (u64, u64) {
    let first = r.offset / page;
    let in_page = r.offset % page;
    (first, (in_page + u64::from(r.size)).div_ceil(page))
}

/// Applies `map` so every request lies within `capacity_bytes` (only whole
/// pages of `page_bytes` count); [`beyond_capacity`] says which it moves.
pub fn map_addresses(
    requests: &mut [Request],
    map: AddressMap,
    capacity_bytes: u64,
    page_bytes: u32,
) -> Result<(), TraceError> {
    match map {
        AddressMap::Wrap => wrap(requests, capacity_bytes, page_bytes),
        AddressMap::Compact => compact(requests, capacity_bytes, page_bytes),
    }
}

/// For each request, whether it lies (whole or in part) beyond
/// `capacity_bytes`, which [`map_addresses`] would move; empty when none
/// does (the common case: no list is built).
pub fn beyond_capacity(requests: &[Request], capacity_bytes: u64, page_bytes: u32) -> Result<Vec<bool>, TraceError> {
    let inside = pages_of(capacity_bytes, page_bytes)? * u64::from(page_bytes);
    if requests.iter().all(|r| fits(r, inside)) {
        return Ok(Vec::new());
    }
    Ok(requests.iter().map(|r| !fits(r, inside)).collect())
}

/// Whether all of `r` lies below byte `inside`.
#[inline]
fn fits(r: &Request, inside: u64) -> bool {
    r.offset.checked_add(u64::from(r.size.max(1))).is_some_and(|e| e <= inside)
}

/// [`AddressMap::Wrap`].
pub fn wrap(requests: &mut [Request], capacity_bytes: u64, page_bytes: u32) -> Result<(), TraceError> {
    let cap = pages_of(capacity_bytes, page_bytes)?;
    let page = u64::from(page_bytes);
    // A request whose pages all lie below `cap` keeps its place (its first
    // page is below `cap - n`): the common case, without a division.
    let inside = cap * page;
    for r in requests {
        if !fits(r, inside) {
            wrap_one(r, cap, page, capacity_bytes)?;
        }
    }
    Ok(())
}

/// [`wrap`] of one request: its first page taken modulo `cap`, moved back
/// so that all its pages fit.
fn wrap_one(r: &mut Request, cap: u64, page: u64, capacity_bytes: u64) -> Result<(), TraceError> {
    let (first, n) = span_pages(r, page);
    if n > cap {
        return Err(TraceError::transform(format!(
            "address map wrap: request of {} bytes at offset {} spans {n} pages of {page} bytes, \
             more than the capacity of {cap} pages ({capacity_bytes} bytes)",
            r.size, r.offset
        )));
    }
    let start = (first % cap).min(cap - n);
    r.offset = start * page + r.offset % page;
    Ok(())
}

/// [`AddressMap::Compact`].
pub fn compact(requests: &mut [Request], capacity_bytes: u64, page_bytes: u32) -> Result<(), TraceError> {
    let cap = pages_of(capacity_bytes, page_bytes)?;
    let page = u64::from(page_bytes);
    // Touched pages as a sorted union of disjoint [start, end) intervals.
    let mut iv: Vec<(u64, u64)> = requests
        .iter()
        .map(|r| {
            let (first, n) = span_pages(r, page);
            (first, first.saturating_add(n))
        })
        .collect();
    iv.sort_unstable();
    let mut merged: Vec<(u64, u64, u64)> = Vec::new(); // (start, end, rank of start)
    let mut total = 0u64;
    for (s, e) in iv {
        match merged.last_mut() {
            Some(last) if s <= last.1 => {
                if e > last.1 {
                    total += e - last.1;
                    last.1 = e;
                }
            }
            _ => {
                merged.push((s, e, total));
                total += e - s;
            }
        }
    }
    if total > cap {
        return Err(TraceError::transform(format!(
            "address map compact: the trace touches {total} distinct pages of {page} bytes, \
             more than the capacity of {cap} pages ({capacity_bytes} bytes)"
        )));
    }
    for r in requests {
        let first = r.offset / page;
        let i = merged.partition_point(|m| m.0 <= first) - 1;
        let (s, _, rank) = merged[i];
        r.offset = (rank + first - s) * page + r.offset % page;
    }
    Ok(())
}

/// Time from the first to the last request, in ns (0 for fewer than two).
/// Assumes time order.
pub fn span_ns(requests: &[Request]) -> u64 {
    match (requests.first(), requests.last()) {
        (Some(a), Some(b)) => b.time_ns.saturating_sub(a.time_ns),
        _ => 0,
    }
}

/// Replays a time-ordered trace `times` times in total (`times` ≥ 1). Copy
/// `i` (0-based) is the original shifted by `i × period` ns, where
/// `period = span + mean gap`, `mean gap = span / (n − 1)` rounded (0 for a
/// single request), and `period` is at least 1 ns. So the first request of a
/// copy follows the last of the previous copy by one mean gap. Addresses are
/// unchanged.
pub fn repeat(requests: &mut Vec<Request>, times: u32) -> Result<(), TraceError> {
    if times == 0 {
        return Err(TraceError::Invalid("repeat must be ≥ 1 (the total number of copies)".into()));
    }
    let n = requests.len();
    if times == 1 || n == 0 {
        return Ok(());
    }
    let span = span_ns(requests);
    let gaps = n as u64 - 1;
    let gap = span.saturating_add(gaps / 2).checked_div(gaps).unwrap_or(0);
    let period = (span + gap).max(1);
    let first = requests[0].time_ns;
    let last_shift = period.checked_mul(u64::from(times - 1));
    if last_shift.and_then(|s| s.checked_add(first + span)).is_none() {
        return Err(TraceError::transform(format!("repeat {times}: times overflow 64 bits")));
    }
    let extra = n
        .checked_mul(times as usize - 1)
        .ok_or_else(|| TraceError::transform(format!("repeat {times}: too many requests")))?;
    requests.try_reserve(extra).map_err(|_| {
        TraceError::transform(format!(
            "repeat {times}: {} requests do not fit in memory; lower trace.repeat or set trace.max_requests",
            n as u128 * times as u128
        ))
    })?;
    for i in 1..u64::from(times) {
        let shift = i * period;
        for k in 0..n {
            let mut r = requests[k];
            r.time_ns += shift;
            requests.push(r);
        }
    }
    Ok(())
}

/// Keeps at most the first `max` requests.
pub fn truncate(requests: &mut Vec<Request>, max: u64) {
    if (requests.len() as u64) > max {
        requests.truncate(max as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;

    fn rq(time_ns: u64, offset: u64, size: u32) -> Request {
        Request { time_ns, offset, size, device: 0, op: Op::Write }
    }

    #[test]
    fn sort_counts_adjacent_inversions_and_is_stable() {
        let mut v = vec![rq(5, 0, 1), rq(3, 1, 1), rq(3, 2, 1), rq(1, 3, 1), rq(9, 4, 1)];
        assert_eq!(sort_by_time(&mut v), 2);
        assert_eq!(v.iter().map(|r| r.offset).collect::<Vec<_>>(), [3, 1, 2, 0, 4]);
        rebase(&mut v);
        assert_eq!(v[0].time_ns, 0);
        assert_eq!(v[4].time_ns, 8);
    }

    proptest::proptest! {
        /// The division-free path for requests inside the capacity gives
        /// what the general one does, request by request, at its edges too:
        /// sizes 0 to 3, ends a few bytes either side of the last whole
        /// page's end, offsets near 2^64, pages not a power of two.
        #[test]
        fn wrap_keeps_requests_inside_in_place_as_the_general_rule_would(
            cap_pages in 1u64..40,
            page in proptest::sample::select(vec![1u32, 3, 100, 512, 4096]),
            reqs in proptest::collection::vec(
                (0u8..3, 0u64..20_000, proptest::prop_oneof![0u32..4, 0u32..9000]),
                1..40,
            ),
        ) {
            let capacity = cap_pages * u64::from(page) + u64::from(page) / 2;
            let inside = cap_pages * u64::from(page);
            for &(at, d, size) in &reqs {
                let offset = match at {
                    0 => d,
                    // The request ends within 3 bytes of `inside`, or spans it.
                    1 => (inside + d % 7).saturating_sub(3 + u64::from(size)),
                    _ => u64::MAX - d,
                };
                let (mut fast, mut slow) = ([rq(0, offset, size)], rq(0, offset, size));
                let got = wrap(&mut fast, capacity, page);
                let want = wrap_one(&mut slow, cap_pages, u64::from(page), capacity);
                proptest::prop_assert_eq!(got.is_ok(), want.is_ok());
                if got.is_ok() {
                    proptest::prop_assert_eq!(fast[0], slow, "offset {} size {}", offset, size);
                }
            }
        }
    }

    #[test]
    fn wrap_cases() {
        // 10 pages of 100 bytes.
        let mut v = vec![rq(0, 1050, 10), rq(0, 2530, 100), rq(0, 990, 20), rq(0, 50, 1000)];
        wrap(&mut v[..3], 1000, 100).unwrap();
        assert_eq!(v[0].offset, 50); // page 10 → 0
        assert_eq!(v[1].offset, 530); // page 25 → 5
        assert_eq!(v[2].offset, 890); // pages 9..10 → moved back to 8..9
        assert!(wrap(&mut v[3..], 1000, 100).is_err()); // 11 pages
        assert!(wrap(&mut v, 50, 100).is_err());
    }

    /// 1,050 bytes of pages of 100: only the first 1,000 bytes count. A
    /// request is beyond when any of its bytes is past byte 1,000 (one of
    /// size 0 counts as one byte); none beyond gives an empty list.
    #[test]
    fn beyond_capacity_marks_requests_past_the_last_whole_page() {
        let inside = [rq(0, 0, 1000), rq(0, 990, 10), rq(0, 500, 0), rq(0, 999, 1)];
        assert_eq!(beyond_capacity(&inside, 1050, 100).unwrap(), Vec::<bool>::new());
        let mixed = [rq(0, 990, 10), rq(0, 990, 11), rq(0, 1000, 0), rq(0, 0, 1), rq(0, u64::MAX - 5, 8)];
        assert_eq!(beyond_capacity(&mixed, 1050, 100).unwrap(), [false, true, true, false, true]);
        assert!(beyond_capacity(&mixed, 99, 100).is_err(), "less than a page");
    }

    #[test]
    fn compact_cases() {
        // Pages touched: {3}, {7,8}, {8}, {100}, {3}.
        let mut v = vec![rq(0, 310, 10), rq(0, 750, 100), rq(0, 820, 5), rq(0, 10_000, 100), rq(0, 300, 1)];
        compact(&mut v, 400, 100).unwrap();
        let offs: Vec<u64> = v.iter().map(|r| r.offset).collect();
        assert_eq!(offs, [10, 150, 220, 300, 0]);
        assert!(compact(&mut v, 300, 100).is_err());
    }

    #[test]
    fn repeat_shifts_by_span_plus_mean_gap() {
        let mut v = vec![rq(0, 0, 1), rq(10, 1, 1), rq(30, 2, 1)];
        repeat(&mut v, 3).unwrap();
        let t: Vec<u64> = v.iter().map(|r| r.time_ns).collect();
        assert_eq!(t, [0, 10, 30, 45, 55, 75, 90, 100, 120]);
        let mut one = vec![rq(7, 0, 1)];
        repeat(&mut one, 3).unwrap();
        assert_eq!(one.iter().map(|r| r.time_ns).collect::<Vec<_>>(), [7, 8, 9]);
        assert!(repeat(&mut one, 0).is_err());
        truncate(&mut v, 4);
        assert_eq!(v.len(), 4);
    }

    /// The mean gap is rounded to the nearest ns: 11 ns over 4 gaps is
    /// 2.75, so 3, and a copy follows 11 + 3 = 14 ns after the original.
    #[test]
    fn repeat_rounds_the_mean_gap_to_the_nearest_ns() {
        let mut v = vec![rq(0, 0, 1), rq(1, 1, 1), rq(2, 2, 1), rq(3, 3, 1), rq(11, 4, 1)];
        repeat(&mut v, 2).unwrap();
        let t: Vec<u64> = v.iter().map(|r| r.time_ns).collect();
        assert_eq!(t, [0, 1, 2, 3, 11, 14, 15, 16, 17, 25]);
    }

    /// Copies may reach u64::MAX ns exactly, not one ns past it. Two
    /// requests `s` apart give a period of 2s, so the last of 2 copies is
    /// at 3s, and the last of 3 at 5s.
    #[test]
    fn repeat_times_may_reach_u64_max_but_not_pass_it() {
        let s = u64::MAX / 3; // 3s = u64::MAX exactly
        let mut v = vec![rq(0, 0, 1), rq(s, 1, 1)];
        repeat(&mut v, 2).unwrap();
        assert_eq!(v.iter().map(|r| r.time_ns).collect::<Vec<_>>(), [0, s, 2 * s, u64::MAX]);
        let mut v = vec![rq(1, 0, 1), rq(s + 1, 1, 1)];
        let e = repeat(&mut v, 2).unwrap_err().to_string();
        assert!(e.contains("repeat 2: times overflow 64 bits"), "{e}");
        // From 0: the last copy's shift (4s) fits, its last request (5s) does not.
        let s = u64::MAX / 4;
        let mut v = vec![rq(0, 0, 1), rq(s, 1, 1)];
        assert!(repeat(&mut v, 3).is_err());
        assert_eq!(v.len(), 2, "nothing added on an error");
    }

    #[test]
    fn repeating_no_requests_gives_none() {
        let mut v: Vec<Request> = Vec::new();
        repeat(&mut v, 3).unwrap();
        assert!(v.is_empty());
    }

    #[test]
    fn time_scale_rounds_and_validates() {
        let mut v = vec![rq(0, 0, 1), rq(3, 0, 1), rq(1_000_000, 0, 1)];
        scale_time(&mut v, 0.5).unwrap();
        assert_eq!(v.iter().map(|r| r.time_ns).collect::<Vec<_>>(), [0, 2, 500_000]);
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert!(scale_time(&mut v, bad).is_err());
        }
        // A huge factor overflows and is named short, not in 301 digits.
        let e = scale_time(&mut v, 1e300).unwrap_err().to_string();
        assert!(e.contains("time_scale 1e300: time 2 ns overflows 64 bits"), "{e}");
    }
}
