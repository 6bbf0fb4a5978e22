//! The block valid fractions greedy GC settles into under uniform writes.
//!
//! Model (fluid limit, many pages per block): every valid page of a pool of
//! utilisation ρ is overwritten at the same rate, so a block's valid fraction
//! decays as e^(−a/U) with its age a (host writes since it was written, U the
//! pool's valid pages). With every block decaying alike, the oldest block is
//! always the emptiest, so greedy and FIFO clean the same block: blocks are
//! cleaned at one age T, ages are uniform on [0, T], and a block's valid
//! fraction is X^u with u uniform on [0, 1] and X = e^(−T/U) the victim's.
//! Conservation of pages gives ρ = (X − 1) / ln X (Desnoyers, "Analytic
//! modeling of SSD write performance", SYSTOR 2012, the LRW/FIFO result; Hu
//! et al., SYSTOR 2009, show greedy approaches it as blocks grow), and the
//! write amplification 1 / (1 − X).

/// Valid fraction of the greedy victim, X, for pool utilisation `rho` in (0, 1):
/// the root of (X − 1) / ln X = ρ.
pub fn victim_fraction(rho: f64) -> f64 {
    let f = |x: f64| (x - 1.0) / x.ln();
    let (mut lo, mut hi) = (1e-300f64, 1.0 - 1e-15);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) < rho {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Pool utilisation ρ whose victim holds fraction `x` of its pages valid.
pub fn utilization(x: f64) -> f64 {
    (x - 1.0) / x.ln()
}

/// Valid pages of each of `blocks` blocks of `ppb` pages holding `valid`
/// pages in all, spread as the steady state: block i (of the sorted
/// sequence) at fraction X^((i + ½)/blocks), scaled to the exact total and
/// rounded by largest remainder. Sorted from fullest to emptiest.
pub fn block_valid_counts(blocks: u32, ppb: u32, valid: u64) -> Vec<u32> {
    if blocks == 0 {
        return Vec::new();
    }
    let cap = blocks as u64 * ppb as u64;
    let valid = valid.min(cap);
    let rho = valid as f64 / cap as f64;
    if valid == cap || rho <= 0.0 {
        return vec![if valid == cap { ppb } else { 0 }; blocks as usize];
    }
    let x = victim_fraction(rho);
    let ideal: Vec<f64> = (0..blocks).map(|i| ppb as f64 * x.powf((i as f64 + 0.5) / blocks as f64)).collect();
    let scale = valid as f64 / ideal.iter().sum::<f64>();
    let mut counts: Vec<u32> = ideal.iter().map(|v| ((v * scale).floor() as u32).min(ppb)).collect();
    let mut left = valid - counts.iter().map(|&c| c as u64).sum::<u64>();
    // Largest remainders first; blocks that are full are skipped.
    let mut order: Vec<u32> = (0..blocks).collect();
    let frac = |i: u32| ideal[i as usize] * scale - counts[i as usize] as f64;
    order.sort_by(|&a, &b| frac(b).total_cmp(&frac(a)).then(a.cmp(&b)));
    while left > 0 {
        for &i in &order {
            if left == 0 {
                break;
            }
            if counts[i as usize] < ppb {
                counts[i as usize] += 1;
                left -= 1;
            }
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn victim_fraction_inverts_utilization() {
        for rho in [0.05, 0.3, 0.5, 0.8, 0.95, 0.999] {
            let x = victim_fraction(rho);
            assert!((utilization(x) - rho).abs() < 1e-9, "rho {rho}: x {x}");
        }
        // Hand check: X = 1/e gives ρ = (1/e − 1)/(−1) = 1 − 1/e.
        assert!((victim_fraction(1.0 - (-1.0f64).exp()) - (-1.0f64).exp()).abs() < 1e-9);
    }

    #[test]
    fn counts_sum_exactly_and_follow_the_curve() {
        let c = block_valid_counts(200, 128, 200 * 128 * 8 / 10);
        assert_eq!(c.iter().map(|&v| v as u64).sum::<u64>(), 200 * 128 * 8 / 10);
        let x = victim_fraction(0.8);
        let min = *c.iter().min().unwrap() as f64;
        // The emptiest block sits at X^(1 − 1/400) of a block, within rounding.
        assert!((min - 128.0 * x.powf(1.0 - 0.5 / 200.0)).abs() <= 1.5, "min {min}, x {x}");
        assert!(c.windows(2).all(|w| w[0] >= w[1]), "fullest to emptiest (largest remainders keep the order)");
        assert!(c.iter().all(|&v| v <= 128));
    }

    #[test]
    fn four_blocks_by_hand() {
        // ρ = 16 / 32 = 0.5: X = 0.20319 ((X − 1)/ln X = 0.5). Block i at
        // 8·X^((i + ½)/4) = 6.5551, 4.4010, 2.9548, 1.9838 (sum 15.8947); scaled
        // by 16 / 15.8947 = 1.00663: 6.5985, 4.4302, 2.9744, 1.9970; floors 6, 4,
        // 2, 1 leave 3 pages for the largest remainders (.9970, .9744, .5985).
        assert_eq!(block_valid_counts(4, 8, 16), vec![7, 4, 3, 2]);
    }

    #[test]
    fn two_blocks_at_low_utilisation_by_hand() {
        // Two blocks are where the midpoint rule is far off and the scale far
        // from 1. ρ = 2 / 16: X = 3.3637e-4; 8·X^(1/4) = 1.0834, 8·X^(3/4) =
        // 0.0199 (sum 1.1033), scaled by 2 / 1.1033 = 1.8128: 1.9640, 0.0360;
        // floors 1, 0 leave 1 page for the larger remainder (.9640).
        assert_eq!(block_valid_counts(2, 8, 2), vec![2, 0]);
        // ρ = 3 / 16: X = 0.0049573; 2.1228, 0.1495 (sum 2.2722), scaled by
        // 1.3203: 2.8027, 0.1973; floors 2, 0 and the remainder page to .8027.
        assert_eq!(block_valid_counts(2, 8, 3), vec![3, 0]);
    }

    #[test]
    fn edge_totals_are_exact() {
        assert_eq!(block_valid_counts(1, 8, 2), vec![2]);
        assert_eq!(block_valid_counts(3, 8, 0), vec![0, 0, 0]);
        assert_eq!(block_valid_counts(3, 8, 24), vec![8, 8, 8]);
        assert_eq!(block_valid_counts(3, 8, 30), vec![8, 8, 8], "at most full");
        assert!(block_valid_counts(0, 8, 5).is_empty());
    }
}
