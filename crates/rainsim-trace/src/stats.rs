//! Trace statistics, in the columns trace tables of SSD papers use
//! (request count, write ratio, average request size, update ratio,
//! inter-arrival time CDF).

use crate::{Op, Request};
use rustc_hash::FxHashSet;
use serde::Serialize;
use std::fmt;

/// Inter-arrival times (gaps between consecutive requests, in trace order), ns.
/// Percentiles are nearest-rank; all 0 for fewer than two requests.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct InterArrival {
    /// Mean gap, ns.
    pub mean_ns: f64,
    /// 20th percentile, ns.
    pub p20_ns: u64,
    /// 40th percentile, ns.
    pub p40_ns: u64,
    /// Median, ns.
    pub p50_ns: u64,
    /// 60th percentile, ns.
    pub p60_ns: u64,
    /// 80th percentile, ns.
    pub p80_ns: u64,
    /// 90th percentile, ns.
    pub p90_ns: u64,
    /// 99th percentile, ns.
    pub p99_ns: u64,
    /// Largest gap, ns.
    pub max_ns: u64,
}

/// Summary of a request sequence. Ratios are fractions in [0, 1]; sizes in
/// bytes; averages are 0 when there is nothing to average.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct TraceStats {
    /// Number of requests.
    pub requests: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// writes / requests.
    pub write_ratio: f64,
    /// Mean request size, bytes.
    pub avg_size_bytes: f64,
    /// Mean read size, bytes.
    pub avg_read_size: f64,
    /// Mean write size, bytes.
    pub avg_write_size: f64,
    /// Total bytes read.
    pub bytes_read: u64,
    /// Total bytes written.
    pub bytes_written: u64,
    /// Fraction of write requests that touch at least one page (of
    /// `page_bytes`, on the same device) already written by an earlier
    /// request of the trace.
    pub update_ratio: f64,
    /// Page size used for `update_ratio`, bytes.
    pub page_bytes: u32,
    /// Last minus first arrival time, ns.
    pub span_ns: u64,
    /// Inter-arrival time distribution.
    pub inter_arrival: InterArrival,
    /// Distinct device numbers, ascending.
    pub devices: Vec<u32>,
}

/// Computes [`TraceStats`] of `requests` (expected in time order), with
/// pages of `page_bytes` (> 0) for the update ratio.
pub fn stats(requests: &[Request], page_bytes: u32) -> TraceStats {
    let page = u64::from(page_bytes.max(1));
    let mut s = TraceStats { requests: requests.len() as u64, page_bytes, ..Default::default() };
    let mut written: FxHashSet<(u32, u64)> = FxHashSet::default();
    let mut updates = 0u64;
    let mut devices: FxHashSet<u32> = FxHashSet::default();
    for r in requests {
        let first = r.offset / page;
        let last = (r.offset + u64::from(r.size).max(1) - 1) / page;
        match r.op {
            Op::Read => {
                s.reads += 1;
                s.bytes_read += u64::from(r.size);
            }
            Op::Write => {
                s.writes += 1;
                s.bytes_written += u64::from(r.size);
                let mut hit = false;
                for p in first..=last {
                    hit |= !written.insert((r.device, p));
                }
                updates += u64::from(hit);
            }
        }
        devices.insert(r.device);
    }
    s.devices = devices.into_iter().collect();
    s.devices.sort_unstable();
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    s.write_ratio = ratio(s.writes, s.requests);
    s.avg_size_bytes = ratio(s.bytes_read + s.bytes_written, s.requests);
    s.avg_read_size = ratio(s.bytes_read, s.reads);
    s.avg_write_size = ratio(s.bytes_written, s.writes);
    s.update_ratio = ratio(updates, s.writes);
    s.span_ns = crate::transform::span_ns(requests);

    let mut gaps: Vec<u64> = requests.windows(2).map(|w| w[1].time_ns.saturating_sub(w[0].time_ns)).collect();
    if !gaps.is_empty() {
        gaps.sort_unstable();
        let n = gaps.len();
        let pct = |p: usize| gaps[((p * n).div_ceil(100)).clamp(1, n) - 1];
        s.inter_arrival = InterArrival {
            mean_ns: gaps.iter().map(|&g| g as f64).sum::<f64>() / n as f64,
            p20_ns: pct(20),
            p40_ns: pct(40),
            p50_ns: pct(50),
            p60_ns: pct(60),
            p80_ns: pct(80),
            p90_ns: pct(90),
            p99_ns: pct(99),
            max_ns: gaps[n - 1],
        };
    }
    s
}

/// A duration in ns, with a unit that keeps 3–4 significant digits.
pub fn fmt_ns(ns: f64) -> String {
    fmt_unit(ns, 1000.0, &[("ns", 0), ("µs", 2), ("ms", 2), ("s", 2)])
}

/// A byte count with a binary unit.
pub fn fmt_bytes(b: f64) -> String {
    fmt_unit(b, 1024.0, &[("B", 0), ("KiB", 2), ("MiB", 2), ("GiB", 2)])
}

/// `v` in the first of `units` (each `base` times the one before, printed
/// with its decimals) that would not round up to `base`, else in the last:
/// 999,999 ns is 1.00 ms, not 1000.00 µs.
pub fn fmt_unit(v: f64, base: f64, units: &[(&str, usize)]) -> String {
    let mut scale = 1.0;
    for (i, &(name, decimals)) in units.iter().enumerate() {
        // Below base less half its last decimal, it rounds to less than base.
        let bound = (base - 0.5 / 10f64.powi(decimals as i32)) * scale;
        if v < bound || i + 1 == units.len() {
            return format!("{:.*} {name}", decimals, v / scale);
        }
        scale *= base;
    }
    String::new()
}

/// `n` and the words that agree with it: `one` after 1, `many` after any
/// other count ("1 page read hits", "2 page reads hit", "0 page reads hit").
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl fmt::Display for TraceStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ia = &self.inter_arrival;
        writeln!(
            f,
            "{:>10} {:>9} {:>11} {:>8} | inter-arrival CDF: {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            "Req #", "Wr Ratio", "Avg Req SZ", "Upd R", "p20", "p40", "p50", "p60", "p80", "p90", "p99", "max", "mean"
        )?;
        let pct = |x: f64| match x * 100.0 {
            p if p > 0.0 && p < 0.1 => format!("{p:.3} %"),
            p => format!("{p:.1} %"),
        };
        let t = |ns: u64| fmt_ns(ns as f64);
        writeln!(
            f,
            "{:>10} {:>9} {:>11} {:>8} | {:>18} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
            self.requests,
            pct(self.write_ratio),
            fmt_bytes(self.avg_size_bytes),
            pct(self.update_ratio),
            "",
            t(ia.p20_ns),
            t(ia.p40_ns),
            t(ia.p50_ns),
            t(ia.p60_ns),
            t(ia.p80_ns),
            t(ia.p90_ns),
            t(ia.p99_ns),
            t(ia.max_ns),
            fmt_ns(ia.mean_ns)
        )?;
        let devs: Vec<String> = self.devices.iter().map(u32::to_string).collect();
        write!(
            f,
            "reads {} (avg {}, total {}); writes {} (avg {}, total {}); span {}; devices {}; Upd R at {}-byte pages",
            self.reads,
            fmt_bytes(self.avg_read_size),
            fmt_bytes(self.bytes_read as f64),
            self.writes,
            fmt_bytes(self.avg_write_size),
            fmt_bytes(self.bytes_written as f64),
            fmt_ns(self.span_ns as f64),
            if devs.is_empty() { "-".to_string() } else { devs.join(",") },
            self.page_bytes
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let reqs: Vec<Request> =
            (0..=10u64).map(|i| Request { time_ns: i * i, offset: 0, size: 1, device: 0, op: Op::Read }).collect();
        // gaps 1,3,5,...,19
        let s = stats(&reqs, 4096);
        assert_eq!(s.inter_arrival.p20_ns, 3);
        assert_eq!(s.inter_arrival.p50_ns, 9);
        assert_eq!(s.inter_arrival.p99_ns, 19);
        assert_eq!(s.inter_arrival.max_ns, 19);
        assert_eq!(s.inter_arrival.mean_ns, 10.0);
        assert_eq!(s.span_ns, 100);
        let text = s.to_string();
        assert!(text.contains("Req #") && text.contains("Upd R"), "{text}");
        assert_eq!(stats(&[], 4096).requests, 0);
    }

    /// The page size is printed beside the update ratio, which means
    /// nothing without it.
    #[test]
    fn stats_keep_the_page_size_of_the_update_ratio() {
        // Writes at bytes 0 and 4096: two 4 KiB pages, one 8 KiB page.
        let w = |time_ns, offset| Request { time_ns, offset, size: 4096, device: 0, op: Op::Write };
        let rs = [w(0, 0), w(10, 4096)];
        let s = stats(&rs, 4096);
        assert_eq!((s.update_ratio, s.page_bytes), (0.0, 4096));
        let s = stats(&rs, 8192);
        assert_eq!((s.update_ratio, s.page_bytes), (0.5, 8192));
        assert!(s.to_string().ends_with("Upd R at 8192-byte pages"), "{s}");
    }

    /// A unit changes where the smaller one would round up to 1000.
    #[test]
    fn durations_change_unit_at_each_thousand() {
        let cases = [
            (0.0, "0 ns"),
            (999.0, "999 ns"),
            (999.4, "999 ns"),
            (999.5, "1.00 µs"),
            (999_994.0, "999.99 µs"),
            (999_995.0, "1.00 ms"),
            (999_999.0, "1.00 ms"),
            (999_994_000.0, "999.99 ms"),
            (999_995_000.0, "1.00 s"),
            (1e3, "1.00 µs"),
            (1_500.0, "1.50 µs"),
            (1e6, "1.00 ms"),
            (2_500_000.0, "2.50 ms"),
            (1e9, "1.00 s"),
            (3e9, "3.00 s"),
        ];
        for (ns, want) in cases {
            assert_eq!(fmt_ns(ns), want, "{ns}");
        }
    }

    /// A unit changes where the smaller one would round up to 1024.
    #[test]
    fn byte_counts_change_unit_at_each_1024() {
        const MIB: f64 = 1024.0 * 1024.0;
        let cases = [
            (0.0, "0 B"),
            (1023.0, "1023 B"),
            (1023.4, "1023 B"),
            (1023.5, "1.00 KiB"),
            (1023.99 * 1024.0, "1023.99 KiB"),
            (1023.995 * 1024.0, "1.00 MiB"),
            (1023.99 * MIB, "1023.99 MiB"),
            (1023.995 * MIB, "1.00 GiB"),
            (1024.0, "1.00 KiB"),
            (1536.0, "1.50 KiB"),
            (MIB, "1.00 MiB"),
            (3.0 * MIB, "3.00 MiB"),
            (1024.0 * MIB, "1.00 GiB"),
            (5.0 * 1024.0 * MIB, "5.00 GiB"),
        ];
        for (b, want) in cases {
            assert_eq!(fmt_bytes(b), want, "{b}");
        }
    }

    #[test]
    fn a_count_of_one_takes_the_singular() {
        let c = |n| counted(n, "page read hits", "page reads hit");
        assert_eq!(
            [c(0), c(1), c(2), c(11)],
            ["0 page reads hit", "1 page read hits", "2 page reads hit", "11 page reads hit"]
        );
    }

    /// The printed table: ratios as percentages, with three decimals only
    /// for a ratio too small to show with one (0.05 % would print 0.1 %).
    #[test]
    fn the_table_prints_each_value_in_its_unit() {
        let mut s = TraceStats {
            requests: 4000,
            reads: 2000,
            writes: 2000,
            write_ratio: 0.5,
            avg_size_bytes: 2050.0,
            avg_read_size: 1100.0,
            avg_write_size: 3000.0,
            bytes_read: 2_200_000,
            bytes_written: 6_000_000,
            update_ratio: 0.0005,
            page_bytes: 4096,
            span_ns: 2_500_000_000,
            inter_arrival: InterArrival {
                mean_ns: 123_456.0,
                p20_ns: 500,
                p40_ns: 999,
                p50_ns: 1_000,
                p60_ns: 1_500,
                p80_ns: 1_000_000,
                p90_ns: 2_500_000,
                p99_ns: 1_000_000_000,
                max_ns: 3_000_000_000,
            },
            devices: vec![0, 3],
        };
        // The column layout, filled with hand-computed strings.
        let row = |cells: [&str; 4], ia: [&str; 9]| {
            format!(
                "{:>10} {:>9} {:>11} {:>8} | {:>18} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
                cells[0],
                cells[1],
                cells[2],
                cells[3],
                "",
                ia[0],
                ia[1],
                ia[2],
                ia[3],
                ia[4],
                ia[5],
                ia[6],
                ia[7],
                ia[8]
            )
        };
        let text = s.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        let ia = ["500 ns", "999 ns", "1.00 µs", "1.50 µs", "1.00 ms", "2.50 ms", "1.00 s", "3.00 s", "123.46 µs"];
        assert_eq!(lines[1], row(["4000", "50.0 %", "2.00 KiB", "0.050 %"], ia));
        assert_eq!(
            lines[2],
            "reads 2000 (avg 1.07 KiB, total 2.10 MiB); writes 2000 (avg 2.93 KiB, total 5.72 MiB); \
             span 2.50 s; devices 0,3; Upd R at 4096-byte pages"
        );
        // Zero and 0.1 % (the first value one decimal shows) keep one decimal.
        s.write_ratio = 0.0;
        s.update_ratio = 0.001;
        let text = s.to_string();
        assert_eq!(text.lines().nth(1).unwrap(), row(["4000", "0.0 %", "2.00 KiB", "0.1 %"], ia));
    }
}
