//! LDPC read retry (DESIGN.md §6): a page's read latency grows with the soft
//! decision level its LDPC decoder needs, and the level follows the raw bit
//! error rate (RBER) of its block.
//!
//! ```text
//!  block: P/E cycles, data age, reads since erase
//!     ──rber()──▶ RBER ──level(thresholds)──▶ level l ──▶ tR + retries[l]·step
//! ```
//!
//! RBER = ε + α·PE^k + β·PE^m·t^n + γ·PE^p·reads^q (t in days). The functions
//! here are pure; [`LdpcModel`] holds the configured table for a device.

use crate::engine::SimTime;
use crate::flash::ldpc_params::{Ldpc, RberModel};

const NS_PER_S: u64 = 1_000_000_000;
const S_PER_DAY: f64 = 86_400.0;

/// RBER of a page in a block with `pe` P/E cycles whose data is `age_days`
/// old and which was read `reads` times since its last erase (all ≥ 0).
pub fn rber(m: &RberModel, pe: f64, age_days: f64, reads: f64) -> f64 {
    // Every read evaluates this, so each term is one exp of a sum of
    // logarithms (ln 0 = −∞ gives 0) rather than a product of powf calls.
    let (lp, lt, lr) = (pe.ln(), age_days.ln(), reads.ln());
    let wear = m.alpha * exp_sum(&[(m.k, lp)]);
    let retention = m.beta * exp_sum(&[(m.m, lp), (m.n, lt)]);
    let disturb = m.gamma * exp_sum(&[(m.p, lp), (m.q, lr)]);
    m.epsilon + wear + retention + disturb
}

/// Π bᵢ^eᵢ from (eᵢ, ln bᵢ), with b^0 = 1 for every b (0^0 included, as powf).
#[inline]
fn exp_sum(factors: &[(f64, f64)]) -> f64 {
    factors.iter().map(|&(e, ln_b)| if e == 0.0 { 0.0 } else { e * ln_b }).sum::<f64>().exp()
}

/// The level a page of RBER `rber` needs: how many of the (increasing)
/// `thresholds` it exceeds. An RBER equal to a threshold stays below it.
pub fn level(thresholds: &[f64], rber: f64) -> usize {
    thresholds.partition_point(|&t| t < rber)
}

/// Sensing time of each level: tR plus its retries times the retry step.
pub fn level_read_ns(t_read: SimTime, step: SimTime, retries: &[u32]) -> Vec<SimTime> {
    retries.iter().map(|&r| t_read + r as SimTime * step).collect()
}

/// The configured model of one device (built only when `ldpc.enabled`).
///
/// Data age is kept per block as the *age clock* (whole seconds) at which the
/// block took its first page after its last erase: the clock reads
/// `precondition_age + now`, so preconditioned blocks carry stamp 0 and blocks
/// opened during the run carry the clock of their opening. Every page of a
/// block is taken to be as old as the block's first page (an upper bound).
#[derive(Debug, Clone)]
pub struct LdpcModel {
    rber: RberModel,
    thresholds: Vec<f64>,
    read_ns: Vec<SimTime>,
    t_read: SimTime,
    initial_pe: f64,
    precondition_age_s: u32,
}

/// What the RBER of a block depends on (the FTL keeps it per block).
#[derive(Debug, Clone, Copy, Default)]
pub struct BlockWear {
    /// Erases during the run (on top of the model's initial P/E cycles).
    pub erases: u32,
    /// Age clock stamp of the block's data (see [`LdpcModel::clock_s`]).
    pub opened_at_s: u32,
    /// Reads since the block's last erase (read disturb).
    pub reads: u32,
}

impl LdpcModel {
    /// The model `cfg` describes over base sensing time `t_read`; `None` when off.
    pub fn new(cfg: &Ldpc, t_read: SimTime) -> Option<LdpcModel> {
        cfg.enabled.then(|| LdpcModel {
            rber: cfg.rber.clone(),
            thresholds: cfg.rber_thresholds.clone(),
            read_ns: level_read_ns(t_read, cfg.retry_step_ns, &cfg.retries),
            t_read,
            initial_pe: cfg.initial_pe_cycles as f64,
            // Validation bounds the age to 100 years, well inside u32 seconds.
            precondition_age_s: (cfg.precondition_age_days * S_PER_DAY).round() as u32,
        })
    }

    /// The age clock at simulated time `now`, in whole seconds.
    #[inline]
    pub fn clock_s(&self, now: SimTime) -> u32 {
        let s = (now / NS_PER_S).min(u32::MAX as u64) as u32;
        s.saturating_add(self.precondition_age_s)
    }

    /// The level a page of block `b` needs at time `now`.
    pub fn level_of(&self, b: &BlockWear, now: SimTime) -> u8 {
        let pe = b.erases as f64 + self.initial_pe;
        let age_days = self.clock_s(now).saturating_sub(b.opened_at_s) as f64 / S_PER_DAY;
        level(&self.thresholds, rber(&self.rber, pe, age_days, b.reads as f64)) as u8
    }

    /// Sensing time at `level` (tR included).
    #[inline]
    pub fn read_ns(&self, level: u8) -> SimTime {
        self.read_ns[level as usize]
    }

    /// Sensing time spent on retries at `level` (beyond tR).
    #[inline]
    pub fn retry_ns(&self, level: u8) -> SimTime {
        self.read_ns[level as usize] - self.t_read
    }

    /// Sensing time of every level, level 0 first.
    pub fn level_read_times(&self) -> &[SimTime] {
        &self.read_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs()
    }

    #[test]
    fn rber_with_simple_constants_is_the_formula() {
        // 1e-3 + 1e-9·100² + 1e-5·100·4^0.5 + 1e-8·100^0·50 = 1e-3 + 1e-5 + 2e-3 + 5e-7.
        let m =
            RberModel { epsilon: 1e-3, alpha: 1e-9, k: 2.0, beta: 1e-5, m: 1.0, n: 0.5, gamma: 1e-8, p: 0.0, q: 1.0 };
        assert!(close(rber(&m, 100.0, 4.0, 50.0), 3.0105e-3), "{}", rber(&m, 100.0, 4.0, 50.0));
    }

    #[test]
    fn rber_with_the_default_constants_matches_a_hand_computation() {
        // PE 1000, 30 days, 100 reads:
        //   wear      3.90e-10 · 1000^2.05 = 3.90e-10 · 1.412538e6                  = 5.508896e-4
        //   retention 6.28e-5 · 1000^0.14 · 30^0.54 = 6.28e-5 · 2.630268 · 6.275459 = 1.036585e-3
        //   disturb   3.73e-9 · 1000^0.33 · 100^1.71 = 3.73e-9 · 9.772372 · 2630.268 = 9.587576e-5
        //   total     1.48e-3 + the three                                           = 3.163351e-3
        let got = rber(&RberModel::default(), 1000.0, 30.0, 100.0);
        assert!((got - 3.163351e-3).abs() < 2e-9, "{got}");
        // A fresh block: only epsilon (every other term has a factor PE^x, x > 0).
        assert_eq!(rber(&RberModel::default(), 0.0, 365.0, 1e4), 1.48e-3);
    }

    #[test]
    fn level_counts_the_thresholds_exceeded() {
        let t = [2e-3, 3e-3, 4e-3];
        assert_eq!(level(&t, 1e-3), 0);
        assert_eq!(level(&t, 2e-3), 0, "equal to a threshold stays below it");
        assert_eq!(level(&t, 2.0001e-3), 1);
        assert_eq!(level(&t, 3.5e-3), 2);
        assert_eq!(level(&t, 1.0), 3, "beyond the last threshold: the top level");
        assert_eq!(level(&[], 1.0), 0, "a one-level table");
    }

    #[test]
    fn default_table_spans_the_papers_read_times() {
        let c = Config::default().ldpc;
        let got = level_read_ns(45_000, c.retry_step_ns, &c.retries);
        // 0.045 ms + {0, 1, 2, 4, 8, 16, 32} × 0.024 ms: 7 levels, the top one
        // 0.813 ms (the paper's 0.819 ms is not on its own 0.024 ms grid).
        assert_eq!(got, vec![45_000, 69_000, 93_000, 141_000, 237_000, 429_000, 813_000]);
    }

    #[test]
    fn levels_never_fall_as_wear_age_or_reads_rise() {
        let c = Config::default().ldpc;
        let lv = |pe: f64, t: f64, r: f64| level(&c.rber_thresholds, rber(&c.rber, pe, t, r));
        let pes = [0.0, 1.0, 10.0, 100.0, 500.0, 1000.0, 1500.0, 2000.0, 3000.0, 5000.0, 1e4];
        let ages = [0.0, 0.01, 1.0, 7.0, 30.0, 90.0, 365.0, 3650.0];
        let reads = [0.0, 1.0, 10.0, 100.0, 300.0, 1000.0, 3000.0, 1e5];
        for &t in &ages {
            for &r in &reads {
                let v: Vec<usize> = pes.iter().map(|&pe| lv(pe, t, r)).collect();
                assert!(v.windows(2).all(|w| w[0] <= w[1]), "wear at t {t}, reads {r}: {v:?}");
            }
        }
        for &pe in &pes {
            for &r in &reads {
                let v: Vec<usize> = ages.iter().map(|&t| lv(pe, t, r)).collect();
                assert!(v.windows(2).all(|w| w[0] <= w[1]), "age at PE {pe}, reads {r}: {v:?}");
            }
            for &t in &ages {
                let v: Vec<usize> = reads.iter().map(|&r| lv(pe, t, r)).collect();
                assert!(v.windows(2).all(|w| w[0] <= w[1]), "reads at PE {pe}, t {t}: {v:?}");
            }
        }
        // And they do rise: fresh data of a new block reads at level 0, a worn
        // block's at the top.
        assert_eq!((lv(0.0, 0.0, 0.0), lv(1e4, 0.0, 0.0)), (0, 6));
    }

    #[test]
    fn block_age_counts_from_the_precondition_age() {
        let mut cfg = Config::default().ldpc;
        cfg.enabled = true;
        cfg.initial_pe_cycles = 1000;
        cfg.precondition_age_days = 30.0;
        let m = LdpcModel::new(&cfg, 45_000).expect("enabled");
        // A preconditioned block (stamp 0, no erase, no read) at time 0 is 30
        // days old: 1.48e-3 + 5.508896e-4 + 1.036585e-3 = 3.067475e-3 → level 2.
        let pre = BlockWear::default();
        assert_eq!(m.level_of(&pre, 0), 2);
        // A block opened now holds fresh data: 1.48e-3 + 5.508896e-4 = 2.030890e-3 → level 1.
        let fresh = BlockWear { opened_at_s: m.clock_s(5 * NS_PER_S), ..BlockWear::default() };
        assert_eq!(m.level_of(&fresh, 5 * NS_PER_S), 1);
        assert_eq!(m.clock_s(5 * NS_PER_S), 30 * 86_400 + 5);
        assert_eq!((m.read_ns(2), m.retry_ns(2)), (93_000, 48_000));
        cfg.enabled = false;
        assert!(LdpcModel::new(&cfg, 45_000).is_none());
    }

    #[test]
    fn bad_tables_are_errors_that_name_the_key() {
        let at = |f: &dyn Fn(&mut Ldpc)| {
            let mut c = Config::default();
            f(&mut c.ldpc);
            c.validate().map_err(|e| e.to_string())
        };
        let check = |f: &dyn Fn(&mut Ldpc), key: &str| {
            let e = at(f).expect_err(key);
            assert!(e.contains(key), "{key}: {e}");
        };
        check(&|l| l.retries.clear(), "ldpc.retries");
        check(&|l| l.retries = vec![0, 2, 1, 4, 8, 16, 32], "ldpc.retries must not decrease");
        check(
            &|l| {
                l.rber_thresholds.pop();
            },
            "ldpc.rber_thresholds has 5 entries",
        );
        check(&|l| l.rber_thresholds[3] = 3e-3, "ldpc.rber_thresholds must increase");
        check(&|l| l.rber_thresholds[0] = f64::NAN, "ldpc.rber_thresholds");
        check(&|l| l.rber_thresholds[0] = -1.0, "ldpc.rber_thresholds");
        check(&|l| l.rber_thresholds[0] = 0.0, "ldpc.rber_thresholds: 0 is not a positive");
        check(&|l| l.precondition_age_days = -1.0, "ldpc.precondition_age_days");
        check(&|l| l.rber.k = -0.5, "ldpc.rber.k");
        check(&|l| l.rber.gamma = f64::INFINITY, "ldpc.rber.gamma");
        assert!(Config::default().validate().is_ok());
        // One level and no threshold is a valid (constant) table.
        let mut c = Config::default();
        c.ldpc.retries = vec![3];
        c.ldpc.rber_thresholds.clear();
        assert!(c.validate().is_ok());
        // At the bounds: 64 levels, equal neighbours, exactly 1 s of retries,
        // 100 years of age and constants of 0 pass; one beyond each does not.
        let levels = |l: &mut Ldpc, n: usize| {
            l.retries = vec![1; n];
            l.rber_thresholds = (1..n).map(|i| i as f64 * 1e-4).collect();
        };
        assert!(at(&|l| levels(l, 64)).is_ok());
        assert!(at(&|l| levels(l, 65)).is_err_and(|e| e.contains("ldpc.retries has 65 levels")));
        assert!(at(&|l| (l.retries[6], l.retry_step_ns) = (1_000, 1_000_000)).is_ok());
        assert!(at(&|l| (l.retries[6], l.retry_step_ns) = (1_001, 1_000_000)).is_err_and(|e| e.contains("at most 1 s")));
        assert!(at(&|l| l.precondition_age_days = 36_500.0).is_ok());
        assert!(at(&|l| l.precondition_age_days = 36_500.5).is_err_and(|e| e.contains("precondition_age_days")));
        assert!(at(&|l| (l.rber.epsilon, l.rber.q) = (0.0, 0.0)).is_ok());
    }
}
