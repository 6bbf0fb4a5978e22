//! Parameters of the LDPC read-retry model (`[ldpc]`), with their checks.

use crate::error::ConfigError;
use rainsim_trace::stats::counted;
use serde::{Deserialize, Serialize};

/// LDPC read retry: a read senses for `timing.read_ns` plus `retries[level]`
/// retry steps, where the page's level follows its block's raw bit error rate
/// (RBER) through `rber_thresholds`. Defaults and their sources: README
/// "Modelling choices" (LDPC).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Ldpc {
    /// Turn the model on; off, every read senses for `timing.read_ns`.
    pub enabled: bool,
    /// Sensing time added by one read retry, ns (adaptive-parity Table II: 0.024 ms).
    pub retry_step_ns: u64,
    /// Read retries of each level, level 0 first (non-decreasing); the number of
    /// entries is the number of levels.
    pub retries: Vec<u32>,
    /// RBER above which each level beyond 0 is needed: a page reads at level l
    /// when its RBER exceeds `rber_thresholds[l − 1]` (one fewer entry than
    /// `retries`, strictly increasing).
    pub rber_thresholds: Vec<f64>,
    /// P/E cycles every block had endured before the run, added to the FTL's
    /// erase counts for the RBER (the wear report counts only the run's erases).
    pub initial_pe_cycles: u32,
    /// Age of the preconditioned data at time 0, in days (retention).
    pub precondition_age_days: f64,
    /// How old each preconditioned block's data is: all `precondition_age_days`
    /// ("fixed"), or drawn per block, seeded, uniformly from 0 to it ("uniform").
    pub precondition_age_spread: AgeSpread,
    /// The RBER model's constants.
    pub rber: RberModel,
}

impl Default for Ldpc {
    fn default() -> Self {
        Ldpc {
            enabled: false,
            retry_step_ns: 24_000,
            retries: vec![0, 1, 2, 4, 8, 16, 32],
            rber_thresholds: vec![2e-3, 3e-3, 4e-3, 5e-3, 6e-3, 7e-3],
            initial_pe_cycles: 1000,
            precondition_age_days: 30.0,
            precondition_age_spread: AgeSpread::Fixed,
            rber: RberModel::default(),
        }
    }
}

/// Ages of the preconditioned blocks' data.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum AgeSpread {
    /// Every block as old as `precondition_age_days`.
    Fixed,
    /// Each block's age uniform on [0, `precondition_age_days`].
    Uniform,
}

/// RBER = epsilon + alpha·PE^k + beta·PE^m·t^n + gamma·PE^p·reads^q, with PE the
/// block's P/E cycles, t the age of its data in days and reads the reads of
/// the block since its last erase. All constants must be ≥ 0, so that the RBER
/// never falls as PE, t or reads grow.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RberModel {
    /// RBER of a fresh block.
    pub epsilon: f64,
    /// Wear coefficient.
    pub alpha: f64,
    /// Wear exponent.
    pub k: f64,
    /// Retention coefficient.
    pub beta: f64,
    /// Retention: P/E exponent.
    pub m: f64,
    /// Retention: time exponent (t in days).
    pub n: f64,
    /// Read-disturb coefficient.
    pub gamma: f64,
    /// Read disturb: P/E exponent.
    pub p: f64,
    /// Read disturb: read-count exponent.
    pub q: f64,
}

impl Default for RberModel {
    /// 72-layer TLC constants from an MQSim fork (research/baselines.md §10).
    fn default() -> Self {
        RberModel {
            epsilon: 1.48e-3,
            alpha: 3.90e-10,
            k: 2.05,
            beta: 6.28e-5,
            m: 0.14,
            n: 0.54,
            gamma: 3.73e-9,
            p: 0.33,
            q: 1.71,
        }
    }
}

impl Ldpc {
    /// Most levels a table may have (levels are counted in a byte).
    pub const MAX_LEVELS: usize = 64;

    /// Rejects tables and constants the model cannot use, whether or not it is on.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        let err = |m: String| Err(ConfigError(m));
        let n = self.retries.len();
        if n == 0 || n > Self::MAX_LEVELS {
            return err(format!("ldpc.retries has {n} levels; give 1 to {} (level 0 first)", Self::MAX_LEVELS));
        }
        if let Some(i) = self.retries.windows(2).position(|w| w[1] < w[0]) {
            return err(format!(
                "ldpc.retries must not decrease (a higher level never reads faster): level {} has {}, level {} \
                 has {}",
                i,
                counted(self.retries[i].into(), "retry", "retries"),
                i + 1,
                self.retries[i + 1]
            ));
        }
        let worst = self.retries[n - 1] as u128 * self.retry_step_ns as u128;
        if worst > 1_000_000_000 {
            return err(format!(
                "ldpc: the top level retries for {} × {} ns = {worst} ns; at most 1 s of retries per read is supported \
                 (lower ldpc.retry_step_ns or the largest ldpc.retries)",
                self.retries[n - 1], self.retry_step_ns
            ));
        }
        let t = &self.rber_thresholds;
        if t.len() != n - 1 {
            return err(format!(
                "ldpc.rber_thresholds has {} but ldpc.retries has {}: give one threshold per level above 0 ({})",
                counted(t.len() as u64, "entry", "entries"),
                counted(n as u64, "level", "levels"),
                counted(n as u64 - 1, "entry", "entries")
            ));
        }
        if let Some(v) = t.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
            return err(format!("ldpc.rber_thresholds: {v} is not a positive finite RBER"));
        }
        if let Some(i) = t.windows(2).position(|w| w[1] <= w[0]) {
            return err(format!(
                "ldpc.rber_thresholds must increase strictly: entry {} is {} after {}",
                i + 1,
                t[i + 1],
                t[i]
            ));
        }
        let a = self.precondition_age_days;
        if !(a.is_finite() && (0.0..=36_500.0).contains(&a)) {
            return err(format!("ldpc.precondition_age_days = {a} must be between 0 and 36500 (100 years)"));
        }
        let r = &self.rber;
        for (name, v) in [
            ("epsilon", r.epsilon),
            ("alpha", r.alpha),
            ("k", r.k),
            ("beta", r.beta),
            ("m", r.m),
            ("n", r.n),
            ("gamma", r.gamma),
            ("p", r.p),
            ("q", r.q),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return err(format!(
                    "ldpc.rber.{name} = {v} must be finite and ≥ 0 (the RBER must not fall as wear, age or reads grow)"
                ));
            }
        }
        if r.epsilon > 1.0 {
            return err(format!("ldpc.rber.epsilon = {} is a raw bit error rate: at most 1", r.epsilon));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Ldpc;

    fn error(retries: Vec<u32>, rber_thresholds: Vec<f64>) -> String {
        Ldpc { retries, rber_thresholds, ..Ldpc::default() }.validate().unwrap_err().to_string()
    }

    /// Counts of one take the singular.
    #[test]
    fn table_errors_agree_with_their_counts() {
        let e = error(vec![1, 0], vec![1e-3]);
        assert!(e.ends_with("level 0 has 1 retry, level 1 has 0"), "{e}");
        let e = error(vec![3, 2], vec![1e-3]);
        assert!(e.ends_with("level 0 has 3 retries, level 1 has 2"), "{e}");
        let e = error(vec![0], vec![1e-3]);
        assert!(
            e.contains("has 1 entry but ldpc.retries has 1 level: give one threshold per level above 0 (0 entries)")
        );
        let e = error(vec![0, 1], vec![]);
        assert!(
            e.contains("has 0 entries but ldpc.retries has 2 levels: give one threshold per level above 0 (1 entry)")
        );
        let e = error(vec![0, 1, 2], vec![1e-3]);
        assert!(
            e.contains("has 1 entry but ldpc.retries has 3 levels: give one threshold per level above 0 (2 entries)")
        );
    }
}
