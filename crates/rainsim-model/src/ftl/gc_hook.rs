//! The GC policy hook: after the victim is chosen and before its valid pages
//! move, a policy may name pages that need not move because their data is
//! kept elsewhere (a replica, or a stripe it reorganises). The FTL unmaps
//! those and moves the rest. Replication schemes plug in here.

use crate::flash::address::Ppn;
use crate::ftl::mapping::Mapping;

/// GC policy hook.
pub trait GcHook {
    /// Whether [`GcHook::drop_pages`] should be asked (plain GC need not be).
    fn wants_pages(&self) -> bool {
        true
    }
    /// `valid` lists the victim's valid pages as (page, chunk); push onto
    /// `dropped` the indices (into `valid`, ascending) of those not to move.
    /// Their chunks become unmapped. `map` is the page map before any move.
    fn drop_pages(&mut self, plane: u32, valid: &[(Ppn, u32)], map: &Mapping, dropped: &mut Vec<usize>);
}

/// Plain GC: every valid page moves.
pub struct MoveAll;

impl GcHook for MoveAll {
    fn wants_pages(&self) -> bool {
        false
    }
    fn drop_pages(&mut self, _plane: u32, _valid: &[(Ppn, u32)], _map: &Mapping, _dropped: &mut Vec<usize>) {}
}
