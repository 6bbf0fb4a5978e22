//! Garbage collection: greedy victim, exact page moves, page accounting.

use crate::tiny;
use rainsim_model::flash::address::Layout;
use rainsim_model::ftl::Ftl;
use rainsim_model::policy::in_order::InOrder;

#[test]
fn gc_picks_fewest_valid_block_and_moves_exactly_its_valid_pages() {
    let cfg = tiny(1, 1, 1, 8, 4, None);
    let layout = Layout::new(&cfg.geometry);
    let mut ftl = Ftl::new(layout, 32, 0.25, 0);
    let mut alloc = InOrder;
    // Fill blocks 0..3 with chunks 0..15 (block b holds chunks 4b..4b+3).
    for c in 0..16 {
        let p = ftl.allocate(0, &mut alloc).unwrap();
        ftl.commit(c, p);
    }
    // Overwrite: block 0 loses 1 page, block 1 loses 3, block 2 loses 2.
    for c in [0, 4, 5, 6, 8, 9] {
        let p = ftl.allocate(0, &mut alloc).unwrap();
        ftl.commit(c, p);
    }
    assert_eq!(ftl.victim(0), Some(1), "block 1 has the fewest valid pages (1)");
    let before: Vec<Option<u32>> = (0..16).map(|c| ftl.lookup(c)).collect();
    let work = ftl.collect(0, &mut alloc).unwrap();
    assert_eq!((work.moved, work.erased), (1, 1));
    assert_eq!(ftl.moves.len(), 1);
    let (old, new) = ftl.moves[0];
    assert_eq!(old, 4 + 3, "chunk 7, the only valid page of block 1, moved");
    assert_eq!(ftl.lookup(7), Some(new));
    for c in (0..16).filter(|&c| c != 7) {
        assert_eq!(ftl.lookup(c), before[c as usize], "chunk {c} must not move");
    }
    let (free, valid, invalid, total) = ftl.plane_accounting(0);
    assert_eq!(free + valid + invalid, total);
    assert_eq!(valid, 16);
    assert_eq!(ftl.blocks[1].erases, 1);
    assert_eq!((ftl.blocks[1].valid, ftl.blocks[1].written), (0, 0));
}
