//! The stripe rule's counts in closed form: how many stripes of the rest
//! ([`super::deal::Taken`]) a range takes, per residue, without walking it.

/// Stripes of the rest (not forced) taken among rest indices `i0..i1` that
/// are ≡ `c` (mod `l`): stripe i is taken when ⌊(i+1)·W/S⌋ > ⌊i·W/S⌋
/// ([`super::deal::Taken::take`]), so the count is a difference of two floor sums.
pub(super) fn rest_taken(want: u64, all: u64, (i0, i1): (u64, u64), (c, l): (u64, u64)) -> u64 {
    let first = i0 + (c + l - i0 % l) % l;
    if first >= i1 || all == 0 {
        return 0;
    }
    let n = (i1 - first).div_ceil(l);
    let (a, b) = (l as u128 * want as u128, first as u128 * want as u128);
    (floor_sum(n, all, a, b + want as u128) - floor_sum(n, all, a, b)) as u64
}

/// Σ_{t < n} ⌊(a·t + b) / m⌋, by the usual reduction, for 0 < m < 2^32 and
/// n ≤ 2^32. After the first reduction a, b < m, so every later value fits
/// 64 bits (a·n + b < 2^64) and only the sum needs 128.
fn floor_sum(n: u64, m: u64, a: u128, b: u128) -> u128 {
    debug_assert!(m > 0 && m < 1 << 32 && n <= 1 << 32);
    let (n128, m128) = (n as u128, m as u128);
    let mut sum = n128 * n128.saturating_sub(1) / 2 * (a / m128) + n128 * (b / m128);
    let (mut n, mut m, mut a, mut b) = (n, m, (a % m128) as u64, (b % m128) as u64);
    loop {
        if a >= m {
            sum += (n as u128 * n.saturating_sub(1) as u128 / 2) * (a / m) as u128;
            a %= m;
        }
        if b >= m {
            sum += n as u128 * (b / m) as u128;
            b %= m;
        }
        let y = a * n + b;
        if y < m {
            return sum;
        }
        (n, b) = (y / m, y % m);
        (m, a) = (a, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// The floor sum is the sum it names, on values small enough to add up.
    #[test]
    fn floor_sum_adds_up() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(1);
        for _ in 0..2000 {
            let (n, m) = (rng.random_range(0..60u64), rng.random_range(1..50u64));
            let (a, b) = (rng.random_range(0..200u128), rng.random_range(0..500u128));
            let sum = (0..n as u128).map(|t| (a * t + b) / m as u128).sum::<u128>();
            assert_eq!(floor_sum(n, m, a, b), sum, "n={n} m={m} a={a} b={b}");
        }
        // At the bounds (2^32 terms, 2^32 - 1 stripes): the rule's taken
        // stripes telescope to ⌊n·W/S⌋, with no overflow on the way.
        let (s, w) = ((1u64 << 32) - 1, (1u128 << 32) / 3);
        let n = 1u64 << 32;
        let taken = floor_sum(n, s, w, w) - floor_sum(n, s, w, 0);
        assert_eq!(taken, n as u128 * w / s as u128);
    }
}
