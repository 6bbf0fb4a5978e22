//! Selecting and combining requests for `rainsim trace convert|slice|merge`.
//!
//! [`prepare`] runs, in this order: device filter, stable sort by time,
//! rebase (the first request at 0 ns), time window, count window, address
//! map. Times in the result count from the window start: from `start` of a
//! time window, else from the first request kept by the count window.

use crate::reader::Records;
use crate::transform::{self, AddressMap};
use crate::{Request, TraceError};

/// Which part of a trace to keep. The default keeps everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Window {
    /// Keep requests from this time on (ns after the first request).
    pub start_ns: u64,
    /// Keep requests before `start_ns + duration_ns`; `None` = to the end.
    pub duration_ns: Option<u64>,
    /// Then drop this many requests.
    pub skip: u64,
    /// Then keep at most this many; `None` = all.
    pub count: Option<u64>,
}

/// How addresses are fitted into a device before writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mapping {
    /// Wrap or compact.
    pub map: AddressMap,
    /// Capacity, bytes.
    pub capacity_bytes: u64,
    /// Page size, bytes.
    pub page_bytes: u32,
}

/// Device filter, time order, window and address map (see the module docs)
/// on the records of `path`. An empty result is an error naming the file.
pub fn prepare(
    path: &str,
    records: Records,
    device: Option<u32>,
    window: &Window,
    mapping: Option<Mapping>,
) -> Result<Vec<Request>, TraceError> {
    let empty = |msg: String| TraceError::Empty { path: path.to_string(), msg };
    let mut rs = records.requests;
    if rs.is_empty() {
        return Err(empty("no request in the file".into()));
    }
    if let Some(d) = device {
        transform::filter_device(&mut rs, d).map_err(empty)?;
    }
    transform::sort_by_time(&mut rs);
    transform::rebase(&mut rs);
    let end = window.duration_ns.map(|d| window.start_ns.saturating_add(d));
    rs.retain(|r| r.time_ns >= window.start_ns && end.is_none_or(|e| r.time_ns < e));
    let mut origin = window.start_ns;
    let skip = usize::try_from(window.skip).unwrap_or(usize::MAX).min(rs.len());
    rs.drain(..skip);
    if let Some(n) = window.count {
        transform::truncate(&mut rs, n);
    }
    // A time window's start is the origin; without one, the first request
    // kept (at 0 ns unless the count window dropped some).
    let timed = window.start_ns > 0 || window.duration_ns.is_some();
    if !timed {
        origin = rs.first().map_or(origin, |r| r.time_ns);
    }
    if rs.is_empty() {
        return Err(empty("no request in the window".into()));
    }
    for r in &mut rs {
        r.time_ns -= origin;
    }
    if let Some(m) = mapping {
        transform::map_addresses(&mut rs, m.map, m.capacity_bytes, m.page_bytes)
            .map_err(|e| TraceError::Transform { path: Some(path.to_string()), msg: e.to_string() })?;
    }
    Ok(rs)
}

/// Merges request lists by time. Each list is first sorted stably by time;
/// equal times keep input order (all of list 0 before list 1, ...) and then
/// file order. Times are the inputs' own (not rebased per list); the result
/// is rebased so its first request is at 0 ns.
pub fn merge(lists: Vec<Vec<Request>>) -> Vec<Request> {
    let mut all: Vec<Request> = lists.into_iter().flatten().collect();
    all.sort_by_key(|r| r.time_ns); // stable: input order, then file order
    transform::rebase(&mut all);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Op};

    fn rq(t: u64, offset: u64, device: u32) -> Request {
        Request { time_ns: t, offset, size: 512, device, op: Op::Write }
    }

    fn recs(requests: Vec<Request>) -> Records {
        Records {
            requests,
            format: Format::Msr,
            time_unit: None,
            compression: crate::Compression::None,
            records: 0,
            no_direction: 0,
            skipped: Default::default(),
            file_bytes: 0,
            sha256: String::new(),
            detection: None,
            stopped_at_line: None,
        }
    }

    #[test]
    fn windows_by_time_and_count() {
        // Unsorted input, two devices, times from 1000.
        let input = vec![rq(1030, 3, 0), rq(1000, 0, 0), rq(1010, 1, 1), rq(1020, 2, 0), rq(1050, 5, 0)];
        let w = Window { start_ns: 10, duration_ns: Some(30), ..Default::default() };
        let got = prepare("f", recs(input.clone()), None, &w, None).unwrap();
        assert_eq!(got, [rq(0, 1, 1), rq(10, 2, 0), rq(20, 3, 0)]);
        let got = prepare("f", recs(input.clone()), Some(0), &w, None).unwrap();
        assert_eq!(got, [rq(10, 2, 0), rq(20, 3, 0)]);
        let w = Window { skip: 1, count: Some(2), ..Default::default() };
        assert_eq!(prepare("f", recs(input.clone()), None, &w, None).unwrap(), [rq(0, 1, 1), rq(10, 2, 0)]);
        // With a time window too, its start stays the origin (a count once moved it).
        let w = Window { start_ns: 5, skip: 1, ..Default::default() };
        assert_eq!(
            prepare("f", recs(input.clone()), None, &w, None).unwrap(),
            [rq(15, 2, 0), rq(25, 3, 0), rq(45, 5, 0)]
        );
        let w = Window { start_ns: 100, ..Default::default() };
        let e = prepare("f", recs(input), None, &w, None).unwrap_err().to_string();
        assert!(e.contains("f: no request in the window"), "{e}");
    }

    #[test]
    fn a_time_window_excludes_its_end_and_a_lone_skip_moves_the_origin() {
        // Rebased times 0, 10, 20, 30, 50.
        let input = vec![rq(1030, 3, 0), rq(1000, 0, 0), rq(1010, 1, 1), rq(1020, 2, 0), rq(1050, 5, 0)];
        let run = |w: Window| prepare("f", recs(input.clone()), None, &w, None).unwrap();
        // [10, 30) ns: the request at 30 ns is past the window.
        let w = Window { start_ns: 10, duration_ns: Some(20), ..Default::default() };
        assert_eq!(run(w), [rq(0, 1, 1), rq(10, 2, 0)]);
        // No time window: the first request kept is at 0 ns, with or without a count.
        assert_eq!(run(Window { skip: 2, ..Default::default() }), [rq(0, 2, 0), rq(10, 3, 0), rq(30, 5, 0)]);
        // A duration alone is a time window from 0 ns, which stays the origin.
        let w = Window { duration_ns: Some(40), skip: 1, ..Default::default() };
        assert_eq!(run(w), [rq(10, 1, 1), rq(20, 2, 0), rq(30, 3, 0)]);
    }

    #[test]
    fn merge_is_by_time_and_stable() {
        let a = vec![rq(105, 1, 0), rq(100, 0, 0), rq(110, 2, 0)];
        let b = vec![rq(100, 10, 1), rq(107, 11, 1), rq(110, 12, 1)];
        let got = merge(vec![a, b]);
        let offs: Vec<u64> = got.iter().map(|r| r.offset).collect();
        assert_eq!(offs, [0, 10, 1, 11, 2, 12]);
        assert_eq!(got.iter().map(|r| r.time_ns).collect::<Vec<_>>(), [0, 0, 5, 7, 10, 10]);
    }
}
