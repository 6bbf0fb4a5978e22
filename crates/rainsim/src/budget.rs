//! The memory budget: a run's memory is estimated from its configuration and
//! request count before the device is built (the formula and its measured
//! constants are in `rainsim_model::setup::memory_estimate`), and a run that
//! would not fit in the memory available is refused with the estimate and
//! the key to change, instead of being aborted by a failed allocation.

use crate::settings::SettingsError;
use rainsim_model::setup::memory_estimate;
use rainsim_model::Config;

/// Overrides the available memory, bytes (for tests and for machines whose
/// `/proc/meminfo` does not tell the truth, e.g. some containers).
pub const ENV_AVAILABLE: &str = "RAINSIM_MEMORY_AVAILABLE";

/// Memory available to the run, bytes: `RAINSIM_MEMORY_AVAILABLE`, else
/// `MemAvailable` from `/proc/meminfo`, and where neither exists the address
/// space (`isize::MAX`: only impossible estimates are refused there).
pub fn available() -> (u64, &'static str) {
    if let Some(v) = std::env::var(ENV_AVAILABLE).ok().and_then(|v| v.trim().parse::<u64>().ok()) {
        return (v, ENV_AVAILABLE);
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let kib = meminfo.as_deref().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()
    });
    match kib {
        Some(k) => (k.saturating_mul(1024), "MemAvailable in /proc/meminfo"),
        None => (isize::MAX as u64, "the address space"),
    }
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

/// Refuses a run of `cfg` on `requests` requests whose estimate exceeds the
/// memory available, unless `run.ignore_memory_budget` is set. `request_log`
/// adds the per-request log's memory.
pub fn check(cfg: &Config, requests: u64, verify: bool, request_log: bool) -> Result<(), SettingsError> {
    if cfg.run.ignore_memory_budget {
        return Ok(());
    }
    let mut est = match &cfg.array {
        None => memory_estimate(cfg, requests, verify),
        Some(a) => {
            // Every device as one run, and the array's mapping (5 bytes a chunk).
            let mut one = cfg.clone();
            one.array = None;
            let mut e = memory_estimate(&one, requests, verify);
            e.bytes = e.bytes.saturating_mul(a.devices as u64);
            for p in &mut e.parts {
                p.1 = p.1.saturating_mul(a.devices as u64);
            }
            let chunks = rainsim_model::run::capacity_bytes(cfg) / a.chunk_bytes(cfg.geometry.page_bytes).max(1)
                * a.devices as u64
                / (a.devices as u64 - 1).max(1);
            e.bytes = e.bytes.saturating_add(chunks * 5);
            e.parts.push(("the array mapping (array.devices, array.chunk_kib)", chunks * 5));
            e.parts.sort_by_key(|p| std::cmp::Reverse(p.1));
            e
        }
    };
    if request_log {
        let b = requests.saturating_mul(REQUEST_LOG_BYTES);
        est.bytes = est.bytes.saturating_add(b);
        est.parts.push(("the request log (--request-log)", b));
        est.parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    }
    let (avail, source) = available();
    if est.bytes <= avail {
        return Ok(());
    }
    let parts: Vec<String> = est.parts.iter().filter(|p| p.1 > 0).map(|(k, b)| format!("{k}: {}", gib(*b))).collect();
    Err(SettingsError(format!(
        "this run needs about {} of memory ({}; see the README's memory budget), but {} is available ({source}); \
         lower {}, or set run.ignore_memory_budget = true to run anyway",
        gib(est.bytes),
        parts.join(", "),
        gib(avail),
        est.parts[0].0
    )))
}

#[cfg(test)]
mod tests {
    use super::runs_at_once;

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
