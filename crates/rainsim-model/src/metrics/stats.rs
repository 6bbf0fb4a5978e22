//! Statistics over channels for the report: the spread (min, mean, max) of a
//! per-channel value, and Pearson's χ² test of per-channel counts against a
//! uniform spread (adaptive-parity-update, Appendix A).

use serde::Serialize;

/// Smallest, mean and largest of a per-channel value.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Default)]
pub struct Spread {
    /// Smallest value, ns.
    pub min_ns: u64,
    /// Mean value, ns.
    pub mean_ns: f64,
    /// Largest value, ns.
    pub max_ns: u64,
}

/// The spread of `xs`; all zero when `xs` is empty.
pub fn spread(xs: &[u64]) -> Spread {
    if xs.is_empty() {
        return Spread::default();
    }
    let mean_ns = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len() as f64;
    Spread { min_ns: *xs.iter().min().expect("non-empty"), mean_ns, max_ns: *xs.iter().max().expect("non-empty") }
}

/// Pearson's χ² goodness-of-fit test against the uniform distribution.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct ChiSquare {
    /// Σ_i (O_i − E)² / E with E = Σ_i O_i / n over the n channels.
    pub statistic: f64,
    /// Degrees of freedom, n − 1.
    pub dof: u32,
    /// P(χ²_dof ≥ statistic); 1 when there is nothing to test (no counts or one channel).
    pub p_value: f64,
}

/// χ² of `counts` against a uniform spread over its entries.
pub fn chi2_uniform(counts: &[u64]) -> ChiSquare {
    let n = counts.len();
    let total: f64 = counts.iter().map(|&c| c as f64).sum();
    let dof = n.saturating_sub(1) as u32;
    if n < 2 || total == 0.0 {
        return ChiSquare { statistic: 0.0, dof, p_value: 1.0 };
    }
    let e = total / n as f64;
    let statistic = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum::<f64>();
    ChiSquare { statistic, dof, p_value: gamma_q(dof as f64 / 2.0, statistic / 2.0) }
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms; relative error below 1e-13).
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1 − x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a),
/// a > 0: a series below x = a + 1, a continued fraction above.
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let front = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut ap, mut del) = (a, 1.0 / a);
        let mut sum = del;
        for _ in 0..10_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        return (1.0 - sum * front).clamp(0.0, 1.0);
    }
    // Modified Lentz evaluation of the continued fraction.
    const TINY: f64 = 1e-300;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / TINY;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..10_000 {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < TINY {
            d = TINY;
        }
        c = b + an / c;
        if c.abs() < TINY {
            c = TINY;
        }
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (front * h).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn ln_gamma_at_known_points() {
        // Γ(1/2) = √π, Γ(10) = 9!, Γ(1) = 1.
        assert!(close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-13));
        assert!(close(ln_gamma(10.0), 362_880f64.ln(), 1e-13));
        assert!(ln_gamma(1.0).abs() < 1e-13);
    }

    /// Below 1/2 (the reflection) against the recurrence Γ(x + 1) = x·Γ(x)
    /// and Γ(1/4) = 3.625 609 908 221 908.
    #[test]
    fn ln_gamma_below_one_half() {
        for x in [0.1, 0.25, 0.3, 0.49] {
            assert!(close(ln_gamma(x), ln_gamma(x + 1.0) - f64::ln(x), 1e-12), "x = {x}");
        }
        assert!(close(ln_gamma(0.25), 3.625_609_908_221_908f64.ln(), 1e-13));
    }

    /// Integer a: Q(n, x) = e^(−x) Σ_{k<n} x^k / k!, on both sides of x = a + 1
    /// (the series below it, the continued fraction above).
    #[test]
    fn gamma_q_of_integer_a_is_the_poisson_tail() {
        for n in [2u32, 3, 5] {
            for x in [0.3, 1.0, 2.5, 3.9, 4.0, 6.5, 20.0] {
                let (mut term, mut sum) = (1.0, 1.0);
                for k in 1..n {
                    term *= x / k as f64;
                    sum += term;
                }
                let want = (-x).exp() * sum;
                assert!(close(gamma_q(n as f64, x), want, 1e-11), "Q({n}, {x}) = {} ≠ {want}", gamma_q(n as f64, x));
            }
        }
    }

    #[test]
    fn chi2_p_values_match_tables() {
        // Two degrees of freedom: Q(1, x/2) = e^(−x/2) exactly.
        for x in [0.1, 1.0, 5.0, 40.0] {
            assert!(close(gamma_q(1.0, x / 2.0), (-x / 2.0f64).exp(), 1e-12), "x = {x}");
        }
        // Upper 5 % and 1 % points of the χ² tables.
        for (x, dof, p) in
            [(3.841_458_820_694_124, 1, 0.05), (11.070_497_693_516_351, 5, 0.05), (23.209_251_158_954_356, 10, 0.01)]
        {
            assert!(close(gamma_q(dof as f64 / 2.0, x / 2.0), p, 1e-9), "χ² = {x}, dof {dof}");
        }
    }

    #[test]
    fn chi2_of_counts() {
        // E = 20: (100 + 0 + 100) / 20 = 10, dof 2, p = e^(−5).
        let c = chi2_uniform(&[10, 20, 30]);
        assert_eq!((c.statistic, c.dof), (10.0, 2));
        assert!(close(c.p_value, (-5.0f64).exp(), 1e-12));
        // Uniform counts: 0 and p = 1; nothing to test: p = 1.
        assert_eq!(chi2_uniform(&[7, 7, 7, 7]).statistic, 0.0);
        assert_eq!(chi2_uniform(&[7, 7, 7, 7]).p_value, 1.0);
        assert_eq!(chi2_uniform(&[0, 0]).p_value, 1.0);
        assert_eq!(chi2_uniform(&[5]).dof, 0);
        // Two channels: (100 + 100) / 20 = 10, dof 1, p = Q(1/2, 5) = erfc(√5).
        let c = chi2_uniform(&[10, 30]);
        assert_eq!((c.statistic, c.dof), (10.0, 1));
        assert!(close(c.p_value, 1.565_402_258_002_549_5e-3, 1e-9), "{}", c.p_value);
        // The paper's magnitudes (millions) give p = 0, not NaN.
        assert_eq!(chi2_uniform(&[1_000_000_000, 10, 10, 10, 10, 10]).p_value, 0.0);
    }

    #[test]
    fn spread_of_values() {
        assert_eq!(spread(&[]), Spread::default());
        assert_eq!(spread(&[4, 1, 7]), Spread { min_ns: 1, mean_ns: 4.0, max_ns: 7 });
    }
}
