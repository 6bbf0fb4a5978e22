//! Process variation (DESIGN.md §6; vios-variation-aware-scheduler §2.2, §4):
//! every block has its own bit-error growth rate, and the ISPP program step
//! ΔVp it tolerates — hence its program time — follows from it, its wear and
//! the ECC limit. Parameters: `[process_variation]` (README "Process
//! variation").
//!
//! ```text
//!  g_b   ~ N(growth_mean, growth_sd), resampled until within ± bound_sigmas·sd (seeded)
//!  BER_b(N, ΔVp) = g_b · (N / 1000) · (ΔVp / dvp_min)^κ        N = P/E cycles of the block
//!  ΔVp_b = the largest grid value dvp_min + k·dvp_step ≤ dvp_max with BER_b ≤ ecc_limit
//!          (dvp_min when none fits: the ECC must cope at the slowest step)
//!  tPROG_b = timing.program_ns × base_dvp / ΔVp_b
//! ```
//!
//! The paper gives neither the BER function nor the ECC limit; this
//! reconstruction is linear in wear (its growth rate is a BER per 1000 P/E
//! cycles, Pan et al. \[11\]) and a power κ of the step (a larger step leaves
//! less noise margin). The default ECC limit is where the worst block
//! (mean + 3 sd) at 15 K cycles, the paper's last wear stage, just needs the
//! slowest step. Detection runs when a block is erased and never raises its
//! step (the paper moves a block only when its ΔVp falls).

use crate::engine::SimTime;
use crate::error::ConfigError;
use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// `[process_variation]`: per-block program speed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PvParams {
    /// Turn the model on; off, every program takes `timing.program_ns`.
    pub enabled: bool,
    /// Mean BER growth rate per 1000 P/E cycles (the paper: 3.7e-4).
    pub growth_mean: f64,
    /// Its standard deviation (the paper: 9e-5).
    pub growth_sd: f64,
    /// Growth rates outside mean ± this many sd are drawn again.
    pub bound_sigmas: f64,
    /// Smallest (slowest) ISPP step, V; the BER is normalised to it.
    pub dvp_min: f64,
    /// Largest (fastest) ISPP step, V.
    pub dvp_max: f64,
    /// Grid step between them, V.
    pub dvp_step: f64,
    /// The step at which a program takes `timing.program_ns` (the paper: 600 µs at 0.30 V).
    pub base_dvp: f64,
    /// κ, the exponent of the step in the BER model (calibrated, README).
    pub ber_exponent: f64,
    /// Bit error rate the ECC corrects.
    pub ecc_limit: f64,
    /// P/E cycles every block had endured before the run (the wear stage),
    /// added to the FTL's erase counts.
    pub initial_pe_cycles: u32,
}

impl Default for PvParams {
    fn default() -> Self {
        PvParams {
            enabled: false,
            growth_mean: 3.7e-4,
            growth_sd: 9e-5,
            bound_sigmas: 3.0,
            dvp_min: 0.30,
            dvp_max: 0.60,
            dvp_step: 0.03,
            base_dvp: 0.30,
            ber_exponent: 2.0,
            // (3.7e-4 + 3 × 9e-5) × 15: the worst block at 15 K cycles needs 0.30 V.
            ecc_limit: 9.6e-3,
            initial_pe_cycles: 12_000,
        }
    }
}

impl PvParams {
    /// Most grid steps (the step index is a byte).
    pub const MAX_STEPS: usize = 255;
    /// Largest `bound_sigmas`.
    pub const MAX_SIGMAS: f64 = 6.0;

    /// Whether the table is at its defaults (left out of serialised configs).
    pub fn is_default(&self) -> bool {
        *self == PvParams::default()
    }

    /// Rejects parameters the model cannot use, naming the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |m: String| Err(ConfigError(m));
        let k = "process_variation";
        for (name, v) in [
            ("growth_mean", self.growth_mean),
            ("growth_sd", self.growth_sd),
            ("bound_sigmas", self.bound_sigmas),
            ("dvp_min", self.dvp_min),
            ("dvp_max", self.dvp_max),
            ("dvp_step", self.dvp_step),
            ("base_dvp", self.base_dvp),
            ("ber_exponent", self.ber_exponent),
            ("ecc_limit", self.ecc_limit),
        ] {
            if !v.is_finite() || v < 0.0 {
                return err(format!("{k}.{name} = {v} must be a finite number ≥ 0"));
            }
        }
        if self.growth_mean <= 0.0 {
            return err(format!("{k}.growth_mean = {} must be > 0", self.growth_mean));
        }
        if !(0.0 < self.bound_sigmas && self.bound_sigmas <= Self::MAX_SIGMAS) {
            return err(format!("{k}.bound_sigmas = {} must be in (0, {}]", self.bound_sigmas, Self::MAX_SIGMAS));
        }
        if self.growth_mean - self.bound_sigmas * self.growth_sd < 0.0 {
            return err(format!(
                "{k}: growth_mean − bound_sigmas × growth_sd = {} − {} × {} is negative; a block's BER cannot \
                 shrink with wear (lower growth_sd or bound_sigmas)",
                self.growth_mean, self.bound_sigmas, self.growth_sd
            ));
        }
        if !(self.dvp_min > 0.0 && self.dvp_max >= self.dvp_min) {
            return err(format!(
                "{k}.dvp_min = {} and dvp_max = {} must satisfy 0 < dvp_min ≤ dvp_max",
                self.dvp_min, self.dvp_max
            ));
        }
        if self.dvp_step <= 0.0 || self.steps() > Self::MAX_STEPS {
            return err(format!(
                "{k}.dvp_step = {} must be > 0 and give at most {} steps between dvp_min and dvp_max",
                self.dvp_step,
                Self::MAX_STEPS
            ));
        }
        if self.base_dvp <= 0.0 {
            return err(format!("{k}.base_dvp = {} must be > 0", self.base_dvp));
        }
        if !(0.1..=10.0).contains(&self.ber_exponent) {
            return err(format!("{k}.ber_exponent = {} must be in [0.1, 10]", self.ber_exponent));
        }
        if self.ecc_limit <= 0.0 || self.ecc_limit >= 0.5 {
            return err(format!("{k}.ecc_limit = {} must be in (0, 0.5)", self.ecc_limit));
        }
        Ok(())
    }

    /// Grid steps above `dvp_min` (the grid has one more value).
    pub fn steps(&self) -> usize {
        let n = ((self.dvp_max - self.dvp_min) / self.dvp_step + 1e-9).floor();
        // A quotient that overflows (a subnormal step) is too many steps, not none.
        if n >= 0.0 {
            n.min(1e6) as usize
        } else {
            0
        }
    }
}

/// The model of one device: every block's growth rate and the program time
/// of each grid step.
#[derive(Debug, Clone)]
pub struct ProcessVariation {
    p: PvParams,
    /// BER growth rate per 1000 P/E cycles, by global block.
    growth: Vec<f32>,
    /// ΔVp of each grid step, slowest (`dvp_min`) first.
    dvp: Vec<f64>,
    /// Program time of each grid step, ns.
    tprog: Vec<SimTime>,
    /// (ΔVp / dvp_min)^κ of each grid step: the BER model's one power,
    /// computed once (detection runs for every block at set-up).
    factor: Vec<f64>,
}

impl ProcessVariation {
    /// Draws `blocks` growth rates from the seeded bounded Gaussian; programs
    /// at `base_dvp` take `program_ns`.
    pub fn new(p: &PvParams, blocks: u32, program_ns: SimTime, seed: u64) -> ProcessVariation {
        let mut rng = Pcg64Mcg::seed_from_u64(seed ^ 0x7076_6172_6961_7469);
        let (lo, hi) = (p.growth_mean - p.bound_sigmas * p.growth_sd, p.growth_mean + p.bound_sigmas * p.growth_sd);
        let growth = (0..blocks)
            .map(|_| loop {
                // Box–Muller; u1 in (0, 1] so that the logarithm is finite.
                let u1 = 1.0 - rng.random::<f64>();
                let u2 = rng.random::<f64>();
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let g = p.growth_mean + p.growth_sd * z;
                if (lo..=hi).contains(&g) {
                    break g as f32;
                }
            })
            .collect();
        let dvp: Vec<f64> = (0..=p.steps()).map(|k| p.dvp_min + k as f64 * p.dvp_step).collect();
        let tprog = dvp.iter().map(|&v| (program_ns as f64 * p.base_dvp / v).round() as SimTime).collect();
        let factor = dvp.iter().map(|&v| (v / p.dvp_min).powf(p.ber_exponent)).collect();
        ProcessVariation { p: p.clone(), growth, dvp, tprog, factor }
    }

    /// The parameters.
    pub fn params(&self) -> &PvParams {
        &self.p
    }

    /// ΔVp of each grid step, slowest first.
    pub fn grid(&self) -> &[f64] {
        &self.dvp
    }

    /// Program time of each grid step, ns (falling: later steps are faster).
    pub fn tprog_table(&self) -> &[SimTime] {
        &self.tprog
    }

    /// Program time of grid step `step`, ns.
    #[inline]
    pub fn tprog_ns(&self, step: u8) -> SimTime {
        self.tprog[step as usize]
    }

    /// Block `gblock`'s growth rate.
    pub fn growth(&self, gblock: u32) -> f64 {
        self.growth[gblock as usize] as f64
    }

    /// The BER of block `gblock` after `erases` P/E cycles of the run (the
    /// wear stage added) at the slowest step: growth × kilocycles.
    fn damage(&self, gblock: u32, erases: u32) -> f64 {
        self.growth(gblock) * ((self.p.initial_pe_cycles as f64 + erases as f64) / 1000.0)
    }

    /// BER of block `gblock` after `erases` P/E cycles of the run (the wear
    /// stage added) when programmed at grid step `step`.
    pub fn ber(&self, gblock: u32, erases: u32, step: usize) -> f64 {
        self.damage(gblock, erases) * self.factor[step]
    }

    /// The BER model solved for the step: the last grid step whose BER
    /// under damage `g` (> 0) is within the ECC limit, by bisection of the
    /// rising factors (step 0 when none is). `detect` checks it against the
    /// definition, so a factor table that is not monotone (it is, for any
    /// κ > 0 and rising ΔVp) cannot give a wrong answer.
    fn step_guess(&self, g: f64) -> usize {
        self.factor.partition_point(|&f| g * f <= self.p.ecc_limit).saturating_sub(1)
    }

    /// Write-speed detection: the fastest grid step whose BER the ECC still
    /// corrects (step 0 when none does).
    pub fn detect(&self, gblock: u32, erases: u32) -> u8 {
        let top = self.dvp.len() - 1;
        let g = self.damage(gblock, erases);
        if g <= 0.0 {
            return top as u8;
        }
        // Closed form for the guess, then exact against the definition.
        self.settle(gblock, erases, self.step_guess(g)) as u8
    }

    /// From grid step `k`, the fastest step whose BER the ECC corrects
    /// (step 0 when none does): down while `k` errs, up while `k + 1` does not.
    fn settle(&self, gblock: u32, erases: u32, mut k: usize) -> usize {
        let (top, limit) = (self.dvp.len() - 1, self.p.ecc_limit);
        while k > 0 && self.ber(gblock, erases, k) > limit {
            k -= 1;
        }
        while k < top && self.ber(gblock, erases, k + 1) <= limit {
            k += 1;
        }
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_rejections_name_the_key() {
        PvParams::default().validate().unwrap();
        let bad = PvParams { dvp_step: 0.0, ..Default::default() };
        assert!(bad.validate().unwrap_err().0.contains("process_variation.dvp_step"));
        let bad = PvParams { growth_sd: 2e-4, ..Default::default() };
        assert!(bad.validate().unwrap_err().0.contains("growth_sd"));
        let bad = PvParams { ecc_limit: f64::NAN, ..Default::default() };
        assert!(bad.validate().unwrap_err().0.contains("process_variation.ecc_limit"));
    }

    #[test]
    fn each_key_at_its_bounds() {
        let at = |f: &dyn Fn(&mut PvParams)| {
            let mut p = PvParams::default();
            f(&mut p);
            p.validate().map_err(|e| e.0)
        };
        let refused = |f: &dyn Fn(&mut PvParams), what: &str| {
            let e = at(f).expect_err(what);
            assert!(e.contains(what), "{e:?} should name {what:?}");
        };
        // A spread of 0 is allowed, a negative one is not a number the model takes.
        assert!(at(&|p| p.growth_sd = 0.0).is_ok());
        refused(&|p| p.growth_sd = -1e-5, "growth_sd = -0.00001 must be a finite number ≥ 0");
        refused(&|p| p.growth_sd = f64::INFINITY, "growth_sd = inf must be a finite number");
        refused(&|p| p.growth_mean = 0.0, "growth_mean = 0 must be > 0");
        // The lowest growth rate drawn, mean − sigmas × sd, may be 0, not below.
        assert!(at(&|p| (p.growth_mean, p.growth_sd, p.bound_sigmas) = (3.0, 1.0, 3.0)).is_ok());
        refused(&|p| (p.growth_mean, p.growth_sd, p.bound_sigmas) = (3.0, 1.000001, 3.0), "is negative");
        assert!(at(&|p| (p.growth_sd, p.bound_sigmas) = (1e-5, 6.0)).is_ok());
        refused(&|p| (p.growth_sd, p.bound_sigmas) = (1e-5, 6.0001), "bound_sigmas = 6.0001 must be in (0, 6]");
        refused(&|p| p.bound_sigmas = 0.0, "bound_sigmas = 0 must be in");
        // One grid value (dvp_min = dvp_max) is a grid; 255 steps above it
        // are the most a byte indexes.
        assert!(at(&|p| p.dvp_max = p.dvp_min).is_ok());
        refused(&|p| p.dvp_max = 0.29, "satisfy 0 < dvp_min ≤ dvp_max");
        refused(&|p| p.dvp_min = 0.0, "dvp_min = 0 and dvp_max = 0.6");
        assert!(at(&|p| (p.dvp_min, p.dvp_step, p.dvp_max) = (1.0, 1.0, 256.0)).is_ok());
        refused(&|p| (p.dvp_min, p.dvp_step, p.dvp_max) = (1.0, 1.0, 257.0), "at most 255 steps");
        refused(&|p| p.dvp_step = 1e-300, "at most 255 steps");
        refused(&|p| p.dvp_step = 1e-310, "at most 255 steps");
        refused(&|p| p.base_dvp = 0.0, "base_dvp = 0 must be > 0");
        assert!(at(&|p| p.ber_exponent = 0.1).is_ok());
        assert!(at(&|p| p.ber_exponent = 10.0).is_ok());
        refused(&|p| p.ber_exponent = 0.099, "ber_exponent = 0.099 must be in [0.1, 10]");
        refused(&|p| p.ber_exponent = 10.01, "ber_exponent");
        assert!(at(&|p| p.ecc_limit = 0.4999).is_ok());
        refused(&|p| p.ecc_limit = 0.5, "ecc_limit = 0.5 must be in (0, 0.5)");
        refused(&|p| p.ecc_limit = 0.0, "ecc_limit = 0 must be in (0, 0.5)");
    }

    #[test]
    fn a_config_carries_the_table_only_when_set() {
        let json = |c: &crate::config::Config| serde_json::to_value(c).unwrap();
        let mut c = crate::config::Config::default();
        assert!(json(&c).get("process_variation").is_none(), "reports without the model stay as they were");
        c.process_variation.enabled = true;
        let v = json(&c);
        assert_eq!(v["process_variation"]["enabled"], true);
        let back: crate::config::Config = serde_json::from_value(v).unwrap();
        assert_eq!(back.process_variation, c.process_variation);
    }

    #[test]
    fn the_bisected_guess_is_the_step_the_formula_gives() {
        // Against the model's formula written out, its power taken anew for
        // every step (the model takes it once per step, in `new`).
        let pv = ProcessVariation::new(&PvParams::default(), 400, 600_000, 3);
        let p = PvParams::default();
        let mut inside = 0;
        for b in 0..400 {
            for erases in (0..20_000).step_by(500) {
                let g = pv.growth(b) * ((p.initial_pe_cycles as f64 + erases as f64) / 1000.0);
                let by_formula = (0..=10)
                    .rev()
                    .find(|&k| {
                        let dvp = p.dvp_min + k as f64 * p.dvp_step;
                        g * (dvp / p.dvp_min).powf(p.ber_exponent) <= p.ecc_limit
                    })
                    .unwrap_or(0);
                assert_eq!(pv.step_guess(pv.damage(b, erases)), by_formula, "block {b} at {erases}");
                assert_eq!(pv.detect(b, erases) as usize, by_formula, "block {b} at {erases}");
                inside += (0 < by_formula && by_formula < 10) as u32;
            }
        }
        assert!(inside > 4_000, "most cases lie strictly inside the grid ({inside} of 16,000)");
        // By hand: damage 9.6e-3 / 1.96 meets the limit at 0.30 × 1.4 = 0.42 V, step 4.
        assert_eq!(pv.step_guess(9.6e-3 / 1.96 * (1.0 - 1e-9)), 4);
        assert_eq!(pv.step_guess(1.0), 0, "beyond the slowest step: clamped");
        assert_eq!(pv.step_guess(1e-9), 10, "beyond the fastest step: clamped");
    }

    #[test]
    fn detection_settles_on_the_definition_from_any_starting_step() {
        // The guess is nearly always exact, so the correction is tested from
        // every start: the answer is the largest step within the ECC limit.
        let fresh = PvParams { initial_pe_cycles: 0, ..Default::default() };
        let pv = ProcessVariation::new(&fresh, 50, 600_000, 5);
        let mut seen = [false; 11];
        for b in 0..50 {
            for erases in (0..60_000).step_by(1_500) {
                let by_definition = (0..=10).rev().find(|&k| pv.ber(b, erases, k) <= pv.p.ecc_limit).unwrap_or(0);
                seen[by_definition] = true;
                for start in 0..=10 {
                    assert_eq!(pv.settle(b, erases, start), by_definition, "block {b} at {erases}, from {start}");
                }
                assert_eq!(pv.detect(b, erases) as usize, by_definition);
            }
        }
        assert!(seen.iter().all(|&s| s), "every step is some case's answer: {seen:?}");
        // A BER exactly at the limit is corrected: here BER(k) = 0.125 (k + 1)
        // in binary-exact numbers, and step 1 meets the limit of 0.25.
        let exact = PvParams {
            growth_mean: 0.125,
            growth_sd: 0.0,
            dvp_min: 1.0,
            dvp_step: 1.0,
            dvp_max: 4.0,
            ber_exponent: 1.0,
            ecc_limit: 0.25,
            initial_pe_cycles: 0,
            ..Default::default()
        };
        let pv = ProcessVariation::new(&exact, 1, 600_000, 5);
        assert_eq!(pv.ber(0, 1000, 1), 0.25);
        assert!((0..=3).all(|start| pv.settle(0, 1000, start) == 1));
    }

    #[test]
    fn the_grid_counts_whole_steps_despite_rounding() {
        // (0.60 − 0.30) / 0.03 is 9.999… in binary: still 10 steps.
        assert_eq!(PvParams::default().steps(), 10);
        let p = PvParams { dvp_min: 1.0, dvp_step: 1.0, dvp_max: 3.5, ..Default::default() };
        assert_eq!(p.steps(), 2, "a partial step past the last whole one does not count");
        let p = PvParams { dvp_min: 1.0, dvp_step: 1e-300, dvp_max: 2.0, ..Default::default() };
        assert_eq!(p.steps(), 1_000_000, "capped, so that validation can refuse it");
        let p = PvParams { dvp_min: 2.0, dvp_max: 1.0, ..Default::default() };
        assert_eq!(p.steps(), 0, "an inverted range has no steps");
    }
}
