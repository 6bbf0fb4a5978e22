//! Data tokens: what a page holds in verification mode. A version of a
//! chunk is a token; parity is the XOR of its stripe's tokens, so the RAID
//! layer computes them as a controller computes parity over data.

/// The token of version `serial` of position `pos` (never 0).
#[inline]
pub fn token(serial: u64, pos: u32) -> u32 {
    let mut z = serial.wrapping_mul(64).wrapping_add(pos as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32 | 1
}

/// The token of a page that version `serial` wrote only in part (position
/// `pos`), over old contents `old`: the sectors kept come from the old page, so
/// the result depends on it, and a merge that skipped reading the old page
/// (old = 0) gives another token than the verifier expects.
#[inline]
pub fn merged(old: u32, serial: u64, pos: u32) -> u32 {
    token(serial ^ (u64::from(old) << 24) ^ 0x5bd1_e995_0000_0000, pos)
}
