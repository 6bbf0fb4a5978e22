//! The memory budget: a run's memory is estimated from its configuration and
//! request count before the device is built (the formula and its measured
//! constants are in `rainsim_model::setup::memory_estimate`), and a run that
//! would not fit in the memory available is refused with the estimate and
//! the key to change, instead of being aborted by a failed allocation.

use crate::settings::SettingsError;
use rainsim_model::array::params::Allocation;
use rainsim_model::setup::{memory_estimate, MemoryEstimate};
use rainsim_model::Config;

/// Overrides the available memory, bytes (for tests and for machines whose
/// `/proc/meminfo` does not tell the truth, e.g. some containers).
pub const ENV_AVAILABLE: &str = "RAINSIM_MEMORY_AVAILABLE";

/// Memory available to the run, bytes: `RAINSIM_MEMORY_AVAILABLE` (bytes,
/// or with a KiB/MiB/GiB/TiB suffix; anything else is an error), else
/// `MemAvailable` from `/proc/meminfo`, and where neither exists the address
/// space (`isize::MAX`: only impossible estimates are refused there).
pub fn available() -> Result<(u64, &'static str), String> {
    if let Some(v) = std::env::var_os(ENV_AVAILABLE) {
        let v = v.to_string_lossy();
        return Ok((bytes(ENV_AVAILABLE, &v)?, ENV_AVAILABLE));
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let kib = meminfo.as_deref().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    });
    Ok(match kib {
        Some(k) => (k.saturating_mul(1024), "MemAvailable in /proc/meminfo"),
        None => (isize::MAX as u64, "the address space"),
    })
}

/// `4096`, `64KiB`, `32GiB`, `1TiB` (binary units; `K`, `M`, `G`, `T` too).
pub fn bytes(flag: &str, v: &str) -> Result<u64, String> {
    let t = v.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let shift = match unit.trim() {
        "" | "B" => 0,
        "K" | "KiB" => 10,
        "M" | "MiB" => 20,
        "G" | "GiB" => 30,
        "T" | "TiB" => 40,
        _ => return Err(format!("{flag}: expected bytes with an optional KiB/MiB/GiB/TiB suffix, found `{v}`")),
    };
    let n = num.parse::<u64>().ok().filter(|&n| n > 0);
    let n = n.ok_or_else(|| format!("{flag}: expected a positive number of bytes, found `{v}`"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("{flag}: `{v}` is more bytes than 2^64"))
}

/// How many of the runs whose memory estimates are `estimates` may run at
/// once, at most `wanted` (and at least 1): the most whose largest estimates
/// together fit in `avail` bytes.
pub fn runs_at_once(estimates: &[u64], avail: u64, wanted: usize) -> usize {
    let mut e = estimates.to_vec();
    e.sort_unstable_by(|a, b| b.cmp(a));
    let mut sum = 0u64;
    let mut n = 0;
    for &b in e.iter().take(wanted) {
        sum = sum.saturating_add(b);
        if sum > avail {
            break;
        }
        n += 1;
    }
    n.max(1)
}

fn gib(b: u64) -> String {
    format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
}

/// Memory of the per-request log per request, bytes: the columns (about
/// 36 bytes a row with a few channels) with their growth slack.
pub const REQUEST_LOG_BYTES: u64 = 80;

/// The memory a run of `cfg` on `requests` requests needs, by part: one
/// device's [`memory_estimate`], or an array's devices and its own table.
pub fn estimate(cfg: &Config, requests: u64, verify: bool) -> MemoryEstimate {
    match &cfg.array {
        None => memory_estimate(cfg, requests, verify),
        Some(a) => {
            // Every device as one run, and the array's own table per unit
            // of its RAID layer: under free placement each unit's device and
            // slot (5 bytes, once one moves; static computes them), and a
            // data token per unit when verifying (4 bytes).
            let mut one = cfg.clone();
            one.array = None;
            let mut e = memory_estimate(&one, requests, verify);
            e.bytes = e.bytes.saturating_mul(a.devices as u64);
            for p in &mut e.parts {
                p.1 = p.1.saturating_mul(a.devices as u64);
            }
            let units = rainsim_model::run::capacity_bytes(cfg) / a.unit_bytes(cfg.geometry.page_bytes).max(1)
                * a.devices as u64
                / (a.devices as u64 - 1).max(1);
            let per_unit = if a.allocation == Allocation::Static { 0 } else { 5 } + if verify { 4 } else { 0 };
            let table = units.saturating_mul(per_unit);
            e.bytes = e.bytes.saturating_add(table);
            e.parts.push(("the array mapping (array.devices, array.chunk_kib)", table));
            e.parts.sort_by_key(|p| std::cmp::Reverse(p.1));
            e
        }
    }
}

/// Refuses a run of `cfg` on `requests` requests whose estimate exceeds the
/// memory available, unless `run.ignore_memory_budget` is set. `request_log`
/// adds the per-request log's memory.
pub fn check(cfg: &Config, requests: u64, verify: bool, request_log: bool) -> Result<(), SettingsError> {
    if cfg.run.ignore_memory_budget {
        return Ok(());
    }
    let mut est = estimate(cfg, requests, verify);
    if request_log {
        let b = requests.saturating_mul(REQUEST_LOG_BYTES);
        est.bytes = est.bytes.saturating_add(b);
        est.parts.push(("the request log (--request-log)", b));
        est.parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    }
    let (avail, source) = available().map_err(SettingsError)?;
    if est.bytes <= avail {
        return Ok(());
    }
    Err(SettingsError(refusal(&est, avail, source)))
}

/// Why a run estimated at `est` does not fit in `avail` bytes: its parts
/// (those that take memory, largest first) and the key of the largest.
fn refusal(est: &MemoryEstimate, avail: u64, source: &str) -> String {
    let parts: Vec<String> = est.parts.iter().filter(|p| p.1 > 0).map(|(k, b)| format!("{k}: {}", gib(*b))).collect();
    format!(
        "this run needs about {} of memory ({}; see the README's memory budget), but {} is available ({source}); \
         lower {}, or set run.ignore_memory_budget = true to run anyway",
        gib(est.bytes),
        parts.join(", "),
        gib(avail),
        est.parts[0].0
    )
}

#[cfg(test)]
mod tests {
    use super::{bytes, estimate, gib, refusal, runs_at_once};
    use crate::settings::{resolve, Request};
    use rainsim_model::setup::{memory_estimate, MemoryEstimate};

    #[test]
    fn byte_sizes() {
        assert_eq!(bytes("x", "4096"), Ok(4096));
        assert_eq!(bytes("x", "32GiB"), Ok(32 << 30));
        assert_eq!(bytes("x", "2 T"), Ok(2 << 40));
        assert!(bytes("x", "0").unwrap_err().contains("a positive number"));
        assert!(bytes("x", "-1").unwrap_err().contains("found `-1`"));
        assert!(bytes("x", "12 parsecs").unwrap_err().contains("KiB/MiB/GiB/TiB"));
        assert!(bytes("x", "1e6").unwrap_err().contains("KiB/MiB/GiB/TiB"));
        assert!(bytes("x", "99999999999TiB").unwrap_err().contains("more bytes than 2^64"));
    }

    /// Every unit, short and long, is its power of 1024.
    #[test]
    fn every_unit_is_its_power_of_1024() {
        for (i, (short, long)) in
            [("B", "B"), ("K", "KiB"), ("M", "MiB"), ("G", "GiB"), ("T", "TiB")].iter().enumerate()
        {
            let want = 3u64 << (10 * i);
            assert_eq!(bytes("x", &format!("3{short}")), Ok(want), "{short}");
            assert_eq!(bytes("x", &format!("3 {long}")), Ok(want), "{long}");
        }
    }

    /// The refusal's sizes: GiB of 2^30 bytes, two decimals.
    #[test]
    fn sizes_are_printed_in_gib() {
        assert_eq!(gib(3 << 29), "1.50 GiB");
        assert_eq!(gib(1 << 20), "0.00 GiB");
        assert_eq!(gib(10 << 30), "10.00 GiB");
    }

    /// A refusal names the parts that take memory (a part of 0 bytes is left
    /// out, one too small to show is not) and the key of the largest.
    #[test]
    fn a_refusal_lists_the_parts_that_take_memory() {
        let est = MemoryEstimate { bytes: 5 << 30, parts: vec![("big", 4 << 30), ("small", 1), ("none", 0)] };
        let m = refusal(&est, 1 << 30, "here");
        assert_eq!(
            m,
            "this run needs about 5.00 GiB of memory (big: 4.00 GiB, small: 0.00 GiB; see the README's memory \
             budget), but 1.00 GiB is available (here); lower big, or set run.ignore_memory_budget = true to run anyway"
        );
    }

    /// An array needs its devices' memory and a table entry per unit of
    /// every device: 5 bytes (its device and slot) under free placement, 4
    /// more for a data token when verifying, none under static placement.
    #[test]
    fn an_arrays_estimate_is_its_devices_and_a_table_entry_per_unit() {
        for (preset, alloc) in [("dls-4ssd", "dls"), ("dls-8ssd", "egs"), ("dls-4ssd", "static")] {
            let sets = [format!("array.allocation={alloc}"), "array.chunk_kib=64".to_string()];
            let cfg = resolve(&Request { config: Some(preset), sets: &sets, ..Default::default() }).unwrap();
            let a = cfg.array.clone().unwrap();
            let mut one = cfg.clone();
            one.array = None;
            // A stripe holds one unit of each device; the array's capacity
            // is its stripes' data units.
            let unit = if alloc == "static" { cfg.geometry.page_bytes as u64 } else { 64 << 10 };
            let stripes = rainsim_model::run::capacity_bytes(&cfg) / unit / (a.devices as u64 - 1);
            for verify in [false, true] {
                let per_unit = match (alloc, verify) {
                    ("static", v) => 4 * v as u64,
                    (_, v) => 5 + 4 * v as u64,
                };
                let devices = memory_estimate(&one, 1000, verify).bytes * a.devices as u64;
                let e = estimate(&cfg, 1000, verify);
                assert_eq!(
                    e.bytes,
                    devices + stripes * a.devices as u64 * per_unit,
                    "{preset} {alloc} verify {verify}"
                );
                let table = e.parts.iter().find(|p| p.0.starts_with("the array mapping")).unwrap().1;
                assert_eq!(table, stripes * a.devices as u64 * per_unit);
            }
        }
    }

    #[test]
    fn runs_at_once_takes_the_largest_estimates_that_fit() {
        let gib = 1u64 << 30;
        // 3 + 2 = 5 GiB fit in 6; adding the next 2 GiB does not.
        assert_eq!(runs_at_once(&[2 * gib, 3 * gib, gib, 2 * gib], 6 * gib, 4), 2);
        assert_eq!(runs_at_once(&[gib; 4], 6 * gib, 2), 2, "never more than asked");
        assert_eq!(runs_at_once(&[gib; 4], 6 * gib, 8), 4, "never more than the runs");
        assert_eq!(runs_at_once(&[9 * gib], 6 * gib, 2), 1, "one run always (the budget check refuses it alone)");
        assert_eq!(runs_at_once(&[3 * gib, 3 * gib], 6 * gib, 2), 2, "exactly full fits");
    }
}
