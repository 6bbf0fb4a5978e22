//! Greedy GC victim selection: the full block with the fewest valid pages.

use super::block::BlockMeta;

/// Picks the victim among the plane's blocks (plane-local index), skipping the
/// active block and blocks not yet full. Ties go to the lowest index. Returns
/// `None` when no full block has an invalid page (nothing to reclaim).
pub fn greedy_victim(blocks: &[BlockMeta], active: Option<u32>, ppb: u32) -> Option<u32> {
    let mut best: Option<(u16, u32)> = None;
    for (i, b) in blocks.iter().enumerate() {
        let i = i as u32;
        if Some(i) == active || b.written as u32 != ppb || b.valid as u32 == ppb {
            continue;
        }
        if best.is_none_or(|(v, _)| b.valid < v) {
            best = Some((b.valid, i));
            if b.valid == 0 {
                break;
            }
        }
    }
    best.map(|(_, i)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(valid: u16) -> BlockMeta {
        BlockMeta { valid, written: 8, ..Default::default() }
    }

    #[test]
    fn picks_fewest_valid_full_block() {
        let blocks = vec![full(5), full(2), BlockMeta { valid: 0, written: 3, ..Default::default() }, full(2), full(8)];
        // Block 2 is not full, block 4 has nothing to reclaim, ties → lowest index.
        assert_eq!(greedy_victim(&blocks, None, 8), Some(1));
        assert_eq!(greedy_victim(&blocks, Some(1), 8), Some(3));
        assert_eq!(greedy_victim(&[full(8)], None, 8), None);
    }
}
