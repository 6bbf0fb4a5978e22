//! Garbage collection: when a plane falls below the threshold, its victim
//! block's valid pages move to the plane's active block (or to where a GC
//! hook sends them), the victim is erased, and static wear levelling swaps
//! a cold block in when the erase counts spread too far.

use super::allocation::Lane;
use super::block::BlockMeta;
use super::gc_hook::{self, GcHook};
use super::{victim_block, Ftl, GcWork, OutOfSpace};
use crate::flash::address::Ppn;

impl Ftl {
    /// Whether `plane` has fallen below the GC threshold.
    #[inline]
    pub fn needs_gc(&self, plane: u32) -> bool {
        (self.planes[plane as usize].free.len() as u32) < self.gc_trigger_blocks
    }

    /// The lowest plane of a die below the GC threshold.
    #[inline]
    pub fn die_needs_gc(&self, die: u32) -> Option<u32> {
        let first = self.layout.first_plane(die);
        let low = self.low_planes[die as usize];
        debug_assert_eq!(
            low as usize,
            (first..first + self.layout.planes_per_die).filter(|&p| self.needs_gc(p)).count(),
            "planes below the GC trigger on die {die}"
        );
        if low == 0 {
            return None;
        }
        (first..first + self.layout.planes_per_die).find(|&p| self.needs_gc(p))
    }

    /// Counts again what the FTL keeps about the free lists, after they
    /// were set from outside (as preconditioning does): per die, the planes
    /// below the GC trigger; when they are counted (an allocator by lane,
    /// process variation), each plane's free blocks by speed step.
    pub fn recount_free_lists(&mut self) {
        let ppd = self.layout.planes_per_die;
        for die in 0..self.layout.dies() {
            let first = die * ppd;
            self.low_planes[die as usize] = (first..first + ppd).filter(|&p| self.needs_gc(p)).count() as u32;
        }
        let steps = self.counted_steps();
        for plane in 0..self.planes.len() as u32 {
            let first = self.layout.first_block(plane) as usize;
            let blocks = &self.blocks[first..first + self.layout.blocks_per_plane as usize];
            let n = super::count_steps(&self.planes[plane as usize].free, blocks, steps);
            self.free_steps[plane as usize * steps..(plane as usize + 1) * steps].copy_from_slice(&n);
        }
    }

    /// Speed steps counted per plane in `free_steps` (0: none counted).
    #[inline]
    pub(super) fn counted_steps(&self) -> usize {
        self.free_steps.len() / self.planes.len().max(1)
    }

    /// Global block `gblock` of `plane` joined (`true`) or left its free
    /// list: its speed step's count follows, when steps are counted.
    #[inline]
    pub(super) fn count_free(&mut self, plane: u32, gblock: u32, joined: bool) {
        if self.free_steps.is_empty() {
            return;
        }
        let steps = self.counted_steps();
        let n = &mut self.free_steps[plane as usize * steps + self.blocks[gblock as usize].dvp_step as usize];
        if joined {
            *n += 1;
        } else {
            *n -= 1;
        }
    }

    /// `plane`'s free list had `before` blocks and changed: keep its die's
    /// count of planes below the trigger.
    #[inline]
    pub(super) fn free_changed(&mut self, plane: u32, before: usize) {
        let t = self.gc_trigger_blocks as usize;
        let after = self.planes[plane as usize].free.len();
        if (before < t) != (after < t) {
            let low = &mut self.low_planes[self.layout.die_of_plane(plane) as usize];
            if after < t {
                *low += 1;
            } else {
                *low -= 1;
            }
        }
    }

    /// One GC on the lowest plane of `die` that is below the threshold and has
    /// something to reclaim; `None` when no plane qualifies.
    pub fn collect_die(&mut self, die: u32) -> Result<Option<GcWork>, OutOfSpace> {
        self.collect_die_with(die, None)
    }

    /// [`Ftl::collect_die`] with `hook` deciding which pages need not move
    /// instead of the FTL's own (a hook that borrows device state).
    pub fn collect_die_with(
        &mut self,
        die: u32,
        mut hook: Option<&mut (dyn GcHook + '_)>,
    ) -> Result<Option<GcWork>, OutOfSpace> {
        let first = self.layout.first_plane(die);
        for plane in first..first + self.layout.planes_per_die {
            if self.needs_gc(plane) {
                let h: Option<&mut dyn GcHook> = match hook {
                    Some(ref mut h) => Some(&mut **h),
                    None => None,
                };
                let work = self.collect_with(plane, h)?;
                if work.erased > 0 {
                    return Ok(Some(work));
                }
            }
        }
        Ok(None)
    }

    pub(super) fn plane_blocks(&self, plane: u32) -> &[BlockMeta] {
        let first = self.layout.first_block(plane) as usize;
        &self.blocks[first..first + self.layout.blocks_per_plane as usize]
    }

    /// The greedy victim of `plane` (plane-local index): a full block with the
    /// fewest valid pages.
    pub fn victim(&mut self, plane: u32) -> Option<u32> {
        self.index.victim(plane).map(|b| b - self.layout.first_block(plane))
    }

    /// The fewest valid pages of any full block of `plane`, by a plain scan
    /// (the reference the victim index is checked against).
    pub fn scan_min_valid(&self, plane: u32) -> Option<u16> {
        victim_block::greedy_victim(
            self.plane_blocks(plane),
            self.planes[plane as usize].active,
            self.layout.pages_per_block,
        )
        .map(|b| self.plane_blocks(plane)[b as usize].valid)
    }

    /// One GC on `plane`: move the victim's valid pages inside the plane, erase
    /// it, then level wear if the erase-count spread exceeds the bound. Page
    /// moves are left in `self.moves`.
    pub fn collect(&mut self, plane: u32) -> Result<GcWork, OutOfSpace> {
        self.collect_with(plane, None)
    }

    fn collect_with(&mut self, plane: u32, hook: Option<&mut (dyn GcHook + '_)>) -> Result<GcWork, OutOfSpace> {
        self.moves.clear();
        let mut work = GcWork::default();
        let Some(victim) = self.victim(plane) else { return Ok(work) };
        let first = self.layout.first_block(plane);
        let start = self.gather_valid(first + victim);
        debug_assert_eq!(start, 0, "the victim's pages are all of `moves`");
        self.apply_gc_hook(plane, hook);
        self.relocate_to_active(plane, start)?;
        self.erase(plane, victim);
        // `moves` held only this victim's pages (cleared above).
        work.moved = self.moves.len() as u32;
        work.erased += 1;
        let hot = self.blocks[(first + victim) as usize].erases;
        // The plane-wide minimum (free blocks too) bounds the coldest full
        // block from below, so the scan for it runs only when a swap may be due.
        if self.wl_spread > 0 && hot.saturating_sub(self.planes[plane as usize].min_erases) > self.wl_spread {
            if let Some((cold, cold_erases, holds_data)) = self.cold_block(plane) {
                // Every full block may be more worn than the victim.
                if hot.saturating_sub(cold_erases) > self.wl_spread {
                    let moved = if holds_data {
                        self.swap_cold_into(plane, cold, victim)
                    } else {
                        self.collect_cold(plane, cold)?
                    };
                    work.moved += moved;
                    work.wl_moved += moved;
                    work.erased += 1;
                }
            }
        }
        Ok(work)
    }

    /// Appends the valid pages of global block `gblock` to `self.moves` (new
    /// page not yet known) and warms their mapping slots; returns where they start.
    fn gather_valid(&mut self, gblock: u32) -> usize {
        let first_page = self.layout.first_page(gblock);
        let start = self.moves.len();
        self.map.push_valid(first_page, self.layout.pages_per_block, &mut self.moves);
        let map = &self.map;
        map.warm(self.moves[start..].iter().map(|&(p, _)| map.owner(p).unwrap_or(0)));
        start
    }

    /// Moves the gathered pages `self.moves[start..]` into the plane's open
    /// block(s), a run of consecutive pages at a time.
    fn relocate_to_active(&mut self, plane: u32, start: usize) -> Result<(), OutOfSpace> {
        let die = self.layout.die_of_plane(plane);
        let ppb = self.layout.pages_per_block;
        let mut i = start;
        while i < self.moves.len() {
            let first = self.take_page(plane, Lane::Slow).ok_or(OutOfSpace { die })?;
            let block = self.layout.block_of(first);
            let meta = &mut self.blocks[block as usize];
            // take_page advanced the write pointer by one; claim the rest of the
            // run (if it closed the block, the run is that single page: n = 1).
            let n = ((ppb - meta.written as u32 + 1) as usize).min(self.moves.len() - i);
            meta.written += n as u16 - 1;
            meta.valid += n as u16;
            if n > 1 && meta.written as u32 == ppb {
                self.close_block(plane, block);
            } else {
                self.index.update(block, self.blocks[block as usize].valid);
            }
            self.move_run(i, first, n);
            i += n;
        }
        Ok(())
    }

    /// Asks the GC hook which of the victim's gathered pages (all of
    /// `self.moves`) need not move; unmaps those and leaves the rest to move.
    fn apply_gc_hook(&mut self, plane: u32, ext: Option<&mut (dyn GcHook + '_)>) {
        match ext {
            Some(h) => self.drop_by(plane, h),
            None => {
                if !self.gc_hook.wants_pages() {
                    return;
                }
                // MoveAll is zero-sized: swapping it in allocates nothing.
                let mut own = std::mem::replace(&mut self.gc_hook, Box::new(gc_hook::MoveAll));
                self.drop_by(plane, &mut *own);
                self.gc_hook = own;
            }
        }
    }

    fn drop_by(&mut self, plane: u32, hook: &mut (dyn GcHook + '_)) {
        if !hook.wants_pages() {
            return;
        }
        let mut dropped = std::mem::take(&mut self.dropped);
        dropped.clear();
        let valid: Vec<(Ppn, u32)> =
            self.moves.iter().map(|&(p, _)| (p, self.map.owner(p).expect("gathered as valid"))).collect();
        hook.drop_pages(plane, &valid, &self.map, &mut dropped);
        if !dropped.is_empty() {
            for &i in dropped.iter().rev() {
                let (ppn, _) = self.moves.remove(i);
                self.map.unmap(ppn);
                self.invalidate(ppn);
            }
        }
        self.dropped = dropped;
    }

    /// Remaps `self.moves[i..i + n]` to the consecutive pages from `first`.
    fn move_run(&mut self, i: usize, first: Ppn, n: usize) {
        for (j, new) in (first..first + n as u32).enumerate() {
            self.map.move_page(self.moves[i + j].0, new);
            self.moves[i + j].1 = new;
        }
    }

    /// The least erased of the plane's full blocks: its index, its erase
    /// count, and whether it holds cold data (every page still valid: the
    /// least erased block has gone longest without a collection, and none
    /// of its data changed meanwhile).
    fn cold_block(&self, plane: u32) -> Option<(u32, u32, bool)> {
        let ppb = self.layout.pages_per_block as u16;
        let full = || self.plane_blocks(plane).iter().enumerate().filter(|&(_, b)| b.written == ppb);
        full().min_by_key(|&(i, b)| (b.erases, i)).map(|(i, b)| (i as u32, b.erases, b.valid == ppb))
    }

    /// Wear levelling of a least-worn block `cold` whose data is not all
    /// cold (some of it was overwritten): collected as a victim is (its
    /// pages to the open block, then erased), so it returns to use, and the
    /// worn victim stays free. Swapped into the worn block, its pages would
    /// make that block a victim again soon, skipping the free list's queue
    /// each time: under uniform overwrites the same few blocks took every
    /// swap and their erase counts ran away. Returns the pages moved.
    fn collect_cold(&mut self, plane: u32, cold: u32) -> Result<u32, OutOfSpace> {
        let start = self.moves.len();
        self.gather_valid(self.layout.first_block(plane) + cold);
        self.relocate_to_active(plane, start)?;
        self.erase(plane, cold);
        Ok((self.moves.len() - start) as u32)
    }

    /// Static wear levelling: the cold block's data moves into the just-erased,
    /// most-worn block `hot` (so worn cells hold data that rarely changes), the
    /// rest of `hot` is padded (counted invalid), and the cold block is erased
    /// for hot data to use. Returns the pages moved.
    fn swap_cold_into(&mut self, plane: u32, cold: u32, hot: u32) -> u32 {
        let first = self.layout.first_block(plane);
        let pm = &mut self.planes[plane as usize];
        let at = pm.free.iter().rposition(|&b| b == hot).expect("the victim was just freed");
        let before = pm.free.len();
        pm.free.remove(at);
        self.free_changed(plane, before);
        self.count_free(plane, first + hot, false);
        let start = self.gather_valid(first + cold);
        let n = self.moves.len() - start;
        let hot_first = self.layout.first_page(first + hot);
        self.move_run(start, hot_first, n);
        let ppb = self.layout.pages_per_block;
        let meta = &mut self.blocks[(first + hot) as usize];
        meta.written = ppb as u16;
        meta.valid = n as u16;
        // The cold data is programmed again now: its age restarts.
        meta.opened_at_s = self.clock_s;
        self.planes[plane as usize].invalid += (ppb as usize - n) as u64;
        self.index.insert(first + hot, n as u16);
        self.erase(plane, cold);
        n as u32
    }

    /// Erases plane-local block `block` (all its pages already invalid).
    fn erase(&mut self, plane: u32, block: u32) {
        let gblock = self.layout.first_block(plane) + block;
        self.index.remove(gblock);
        let meta = &mut self.blocks[gblock as usize];
        let invalid = meta.written as u64 - meta.valid as u64;
        meta.valid = 0;
        meta.written = 0;
        meta.reads = 0;
        let before = meta.erases;
        meta.erases += 1;
        if let Some(pv) = &self.pv {
            // Write-speed detection at each erase; the step never rises.
            meta.dvp_step = meta.dvp_step.min(pv.detect(gblock, meta.erases));
        }
        let pm = &mut self.planes[plane as usize];
        pm.invalid -= invalid;
        let free_before = pm.free.len();
        pm.free.push_back(block);
        if before == pm.min_erases {
            pm.at_min -= 1;
            if pm.at_min == 0 {
                let blocks = self.plane_blocks(plane);
                let min = blocks.iter().map(|b| b.erases).min().unwrap_or(0);
                let at_min = blocks.iter().filter(|b| b.erases == min).count() as u32;
                let pm = &mut self.planes[plane as usize];
                pm.min_erases = min;
                pm.at_min = at_min;
            }
        }
        self.free_changed(plane, free_before);
        self.count_free(plane, gblock, true);
    }
}

#[cfg(test)]
#[path = "gc_tests.rs"]
mod tests;
