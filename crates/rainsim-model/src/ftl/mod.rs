//! Flash translation layer: page-level mapping, block manager, greedy GC per
//! plane, static wear levelling and direct preconditioning.
//!
//! The FTL is pure state: it never schedules events. The device asks it for a
//! page to program (`allocate`), tells it when the program ends (`commit`),
//! and runs `collect` when a plane's free blocks fall to the threshold; the
//! returned work tells the device how long the die stays busy.

pub mod allocation;
pub mod block;
pub mod gc_hook;
mod lanes;
pub mod mapping;
pub mod params;
pub mod precondition;
mod replace;
mod replica_pages;
mod trim;
pub mod victim_block;

use crate::flash::address::{Layout, Ppn};
use allocation::{BlockAllocator, Lane};
use block::{BlockMeta, PlaneMeta};
use gc_hook::GcHook;
use mapping::Mapping;

/// What one garbage collection did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GcWork {
    /// Valid pages moved out of victims (including wear-levelling moves).
    pub moved: u32,
    /// Blocks erased.
    pub erased: u32,
    /// Pages moved by wear levelling (part of `moved`).
    pub wl_moved: u32,
}

/// The FTL state of one device.
pub struct Ftl {
    /// Address arithmetic.
    pub layout: Layout,
    /// Chunk ↔ page map.
    pub map: Mapping,
    /// Per-block metadata, indexed by global block.
    pub blocks: Vec<BlockMeta>,
    /// Per-plane free lists, indexed by global plane. Changed only through
    /// the FTL's own methods (or followed by [`Ftl::recount_low_planes`]).
    pub planes: Vec<PlaneMeta>,
    /// Per die, how many of its planes are below the GC trigger: the dispatch
    /// loop asks "does this die need GC?" before every operation, and the
    /// answer is almost always no.
    low_planes: Vec<u32>,
    /// GC starts when a plane has fewer free blocks than this.
    pub gc_trigger_blocks: u32,
    /// Erase-count spread that triggers a wear-levelling swap (0 = off).
    pub wl_spread: u32,
    /// Next plane to try per die (dynamic allocation inside the die).
    plane_cursor: Vec<u32>,
    /// Page moves of the last collection, (old, new), for observers and checks.
    pub moves: Vec<(Ppn, Ppn)>,
    /// Full blocks by valid count, for greedy victim selection.
    index: victim_block::GreedyIndex,
    /// Clock stamped on blocks as they are opened (see `set_clock_s`).
    clock_s: u32,
    /// Which erased block a plane opens next (the block allocation axis).
    alloc: Box<dyn BlockAllocator>,
    /// Which of a victim's valid pages need not move (the GC policy hook).
    gc_hook: Box<dyn GcHook>,
    /// Scratch: the hook's answer for the current victim.
    dropped: Vec<usize>,
    /// Per-block program speed (`None`: every program takes tPROG).
    pub pv: Option<crate::flash::process_variation::ProcessVariation>,
    /// Whether the allocator places pages by lane.
    lanes: bool,
    /// Neither lanes nor process variation.
    plain: bool,
}

/// No page could be allocated: the plane is full and GC cannot help.
#[derive(Debug, thiserror::Error)]
#[error("die {die} has no free page in any plane (every block is full of valid data); lower precondition.valid or raise geometry.over_provisioning")]
pub struct OutOfSpace {
    /// Global die index.
    pub die: u32,
}

impl Ftl {
    /// A fresh (all erased) FTL for `chunks` logical chunks.
    pub fn new(layout: Layout, chunks: u64, gc_threshold: f64, wl_spread: u32) -> Ftl {
        Ftl::with_tables(layout, chunks, gc_threshold, wl_spread, false)
    }

    /// [`Ftl::new`], with the mapping tables on huge pages when `huge_pages`
    /// (`run.huge_pages`, `huge_pages.rs`).
    pub fn with_tables(layout: Layout, chunks: u64, gc_threshold: f64, wl_spread: u32, huge_pages: bool) -> Ftl {
        let planes = (0..layout.planes())
            .map(|_| PlaneMeta {
                free: (0..layout.blocks_per_plane).collect(),
                active: None,
                fast: None,
                invalid: 0,
                min_erases: 0,
                at_min: layout.blocks_per_plane,
            })
            .collect();
        // At least 2, so that GC starts before host programs reach the one
        // erased block every plane keeps in reserve for GC itself.
        let trigger = ((gc_threshold * layout.blocks_per_plane as f64).floor() as u32).max(2);
        let mut ftl = Ftl {
            map: Mapping::with_tables(
                chunks,
                layout.pages(),
                layout.pages_per_block * layout.blocks_per_plane,
                huge_pages,
            ),
            blocks: vec![BlockMeta::default(); layout.blocks() as usize],
            planes,
            gc_trigger_blocks: trigger,
            wl_spread,
            plane_cursor: vec![0; layout.dies() as usize],
            low_planes: vec![0; layout.dies() as usize],
            moves: Vec::new(),
            index: victim_block::GreedyIndex::new(layout.planes(), layout.blocks_per_plane, layout.pages_per_block),
            clock_s: 0,
            alloc: Box::new(allocation::in_order::InOrder),
            gc_hook: Box::new(gc_hook::MoveAll),
            dropped: Vec::new(),
            pv: None,
            lanes: false,
            plain: true,
            layout,
        };
        ftl.recount_low_planes();
        ftl
    }

    /// Replaces the block allocation policy (in order by default).
    pub fn set_allocator(&mut self, alloc: Box<dyn BlockAllocator>) {
        self.lanes = alloc.uses_lanes();
        self.plain = !self.lanes && self.pv.is_none();
        self.alloc = alloc;
    }

    /// Whether programs need neither lanes nor process variation (the
    /// device's fast path: one test).
    #[inline]
    pub fn plain_programs(&self) -> bool {
        self.plain
    }

    /// Whether the allocator places pages by lane ([`Ftl::allocate_lane`]).
    #[inline]
    pub fn uses_lanes(&self) -> bool {
        self.lanes
    }

    /// Turns process variation on: every block's ISPP step is detected now
    /// (at its erase count so far) and again at each of its erases.
    pub fn set_process_variation(&mut self, pv: crate::flash::process_variation::ProcessVariation) {
        for (b, meta) in self.blocks.iter_mut().enumerate() {
            meta.dvp_step = pv.detect(b as u32, meta.erases);
        }
        self.pv = Some(pv);
        self.plain = false;
    }

    /// Program time of page `ppn` under process variation (its block's
    /// detected step); `None` with the model off.
    #[inline]
    pub fn pv_program_ns(&self, ppn: Ppn) -> Option<(u8, crate::engine::SimTime)> {
        let pv = self.pv.as_ref()?;
        let step = self.blocks[self.layout.block_of(ppn) as usize].dvp_step;
        Some((step, pv.tprog_ns(step)))
    }

    /// Replaces the GC hook (every valid page moves by default).
    pub fn set_gc_hook(&mut self, hook: Box<dyn GcHook>) {
        self.gc_hook = hook;
    }

    /// Sets the clock (whole seconds, on whatever origin the caller keeps)
    /// that blocks opened from now on are stamped with (`BlockMeta::opened_at_s`).
    /// The device sets it before it allocates or collects when a model needs
    /// data ages; otherwise every stamp stays 0.
    #[inline]
    pub fn set_clock_s(&mut self, s: u32) {
        self.clock_s = s;
    }

    /// `plane`'s open block for a page of `lane` (plane-local; the fast
    /// lane has its own under variation-aware allocation), opening one when
    /// it has none. An open block always has room: it is closed (its slot
    /// emptied) when its last page is taken.
    fn open_block(&mut self, plane: u32, lane: Lane) -> Option<u32> {
        let first = self.layout.first_block(plane);
        let fast = lane == Lane::Fast && self.lanes;
        let pm = &mut self.planes[plane as usize];
        let slot = if fast { pm.fast } else { pm.active };
        let open = match slot {
            Some(b) => b,
            None => {
                let blocks = &self.blocks[first as usize..(first + self.layout.blocks_per_plane) as usize];
                let i = self.alloc.choose(&pm.free, blocks, lane)?;
                let before = pm.free.len();
                let b = pm.free.remove(i).expect("the allocator chose a position in the free list");
                if fast {
                    pm.fast = Some(b);
                } else {
                    pm.active = Some(b);
                }
                self.free_changed(plane, before);
                // Only erased blocks are opened, so the block takes its first page now.
                self.blocks[(first + b) as usize].opened_at_s = self.clock_s;
                b
            }
        };
        Some(open)
    }

    /// Takes the next page of `plane`'s active block, opening a block when needed.
    #[inline]
    fn take_page(&mut self, plane: u32, lane: Lane) -> Option<Ppn> {
        let first = self.layout.first_block(plane);
        // The open block's next page, the common case, without a call.
        let open = match self.planes[plane as usize].active {
            Some(b) => b,
            None => self.open_block(plane, lane)?,
        };
        Some(self.program_page(plane, first + open))
    }

    /// The next page of open block `gblock` of `plane` (closing it when full).
    #[inline]
    fn program_page(&mut self, plane: u32, gblock: u32) -> Ppn {
        let meta = &mut self.blocks[gblock as usize];
        debug_assert!((meta.written as u32) < self.layout.pages_per_block, "open block {gblock} is full");
        let ppn = self.layout.first_page(gblock) + meta.written as u32;
        meta.written += 1;
        if meta.written as u32 == self.layout.pages_per_block {
            self.close_block(plane, gblock);
        }
        ppn
    }

    /// A block's last page was allocated: it stops being the plane's open
    /// block and becomes a GC candidate.
    fn close_block(&mut self, plane: u32, gblock: u32) {
        let pm = &mut self.planes[plane as usize];
        let local = Some(gblock - self.layout.first_block(plane));
        if pm.fast == local {
            pm.fast = None;
        } else {
            pm.active = None;
        }
        self.index.insert(gblock, self.blocks[gblock as usize].valid);
    }

    /// Whether a host program may take a page of `plane`: one erased block
    /// always stays in reserve so that GC can relocate a victim's pages.
    #[inline]
    fn plane_takes_writes(&self, plane: u32) -> bool {
        let pm = &self.planes[plane as usize];
        pm.free.len() >= 2 || (pm.active.is_some() && !pm.free.is_empty())
    }

    /// Whether any plane of `die` can take a host program.
    #[inline]
    pub fn die_takes_writes(&self, die: u32) -> bool {
        let first = self.layout.first_plane(die);
        (first..first + self.layout.planes_per_die).any(|p| self.plane_takes_writes(p))
    }

    /// Allocates a page for a host program on global die `die`, rotating over
    /// its planes and leaving each plane's GC reserve alone.
    pub fn allocate(&mut self, die: u32) -> Result<Ppn, OutOfSpace> {
        let ppd = self.layout.planes_per_die;
        // Round-robin from the die's cursor, wrapped without a division.
        let mut p = self.plane_cursor[die as usize];
        for _ in 0..ppd {
            let plane = self.layout.first_plane(die) + p;
            p = if p + 1 == ppd { 0 } else { p + 1 };
            if !self.plane_takes_writes(plane) {
                continue;
            }
            if let Some(ppn) = self.take_page(plane, Lane::Any) {
                self.plane_cursor[die as usize] = p;
                return Ok(ppn);
            }
        }
        Err(OutOfSpace { die })
    }

    /// Makes `ppn` the current copy of `chunk`; the old copy, returned, becomes invalid.
    pub fn commit(&mut self, chunk: u32, ppn: Ppn) -> Option<Ppn> {
        let old = self.map.set(chunk, ppn);
        if let Some(old) = old {
            self.invalidate(old);
        }
        let b = self.layout.block_of(ppn);
        self.blocks[b as usize].valid += 1;
        self.index.update(b, self.blocks[b as usize].valid);
        old
    }

    /// Prefetches what a commit of `chunk` will touch at random: the
    /// records of the page it holds now, which the commit invalidates (a
    /// hint, `prefetch.rs`).
    #[inline]
    pub fn prefetch_commit(&self, chunk: u32) {
        let Some(old) = self.map.get(chunk) else { return };
        let b = self.layout.block_of(old);
        self.map.prefetch_page(old);
        crate::prefetch::line(&self.blocks[b as usize]);
        self.index.prefetch(b);
    }

    pub(crate) fn invalidate(&mut self, old: Ppn) {
        let b = self.layout.block_of(old);
        let plane = self.layout.plane_of_block(b);
        self.blocks[b as usize].valid -= 1;
        self.index.update_in(plane, b, self.blocks[b as usize].valid);
        self.planes[plane as usize].invalid += 1;
    }

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

    /// Counts again, per die, the planes below the GC trigger (after free
    /// lists were set from outside, as preconditioning does).
    pub fn recount_low_planes(&mut self) {
        let ppd = self.layout.planes_per_die;
        for die in 0..self.layout.dies() {
            let first = die * ppd;
            self.low_planes[die as usize] = (first..first + ppd).filter(|&p| self.needs_gc(p)).count() as u32;
        }
    }

    /// `plane`'s free list had `before` blocks and changed: keep its die's
    /// count of planes below the trigger.
    #[inline]
    fn free_changed(&mut self, plane: u32, before: usize) {
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

    fn plane_blocks(&self, plane: u32) -> &[BlockMeta] {
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
        self.apply_gc_hook(plane, start, hook);
        self.relocate_to_active(plane, start)?;
        self.erase(plane, victim);
        // `moves` held only this victim's pages (cleared above).
        work.moved = self.moves.len() as u32;
        work.erased += 1;
        let hot = self.blocks[(first + victim) as usize].erases;
        // The plane-wide minimum bounds the coldest full block from below, so
        // the scan for it runs only when a swap may be due.
        if self.wl_spread > 0 && hot - self.planes[plane as usize].min_erases > self.wl_spread {
            let ppb = self.layout.pages_per_block as u16;
            let cold = self
                .plane_blocks(plane)
                .iter()
                .enumerate()
                .filter(|&(_, b)| b.written == ppb)
                .min_by_key(|&(i, b)| (b.erases, i))
                .map(|(i, b)| (i as u32, b.erases));
            if let Some((cold, cold_erases)) = cold {
                if hot - cold_erases > self.wl_spread {
                    let moved = self.swap_cold_into(plane, cold, victim);
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

    /// Asks the GC hook which gathered pages `self.moves[start..]` need not
    /// move; unmaps those and leaves the rest to move.
    fn apply_gc_hook(&mut self, plane: u32, start: usize, ext: Option<&mut (dyn GcHook + '_)>) {
        match ext {
            Some(h) => self.drop_by(plane, start, h),
            None => {
                if !self.gc_hook.wants_pages() {
                    return;
                }
                // MoveAll is zero-sized: swapping it in allocates nothing.
                let mut own = std::mem::replace(&mut self.gc_hook, Box::new(gc_hook::MoveAll));
                self.drop_by(plane, start, &mut *own);
                self.gc_hook = own;
            }
        }
    }

    fn drop_by(&mut self, plane: u32, start: usize, hook: &mut (dyn GcHook + '_)) {
        if !hook.wants_pages() {
            return;
        }
        let mut dropped = std::mem::take(&mut self.dropped);
        dropped.clear();
        let valid: Vec<(Ppn, u32)> =
            self.moves[start..].iter().map(|&(p, _)| (p, self.map.owner(p).expect("gathered as valid"))).collect();
        hook.drop_pages(plane, &valid, &self.map, &mut dropped);
        if !dropped.is_empty() {
            for &i in dropped.iter().rev() {
                let (ppn, _) = self.moves.remove(start + i);
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
    }

    /// Re-indexes every full block (after the tables were filled directly).
    pub(crate) fn rebuild_index(&mut self) {
        let l = &self.layout;
        self.index = victim_block::GreedyIndex::new(l.planes(), l.blocks_per_plane, l.pages_per_block);
        for (b, meta) in self.blocks.iter().enumerate() {
            if meta.written as u32 == l.pages_per_block {
                self.index.insert(b as u32, meta.valid);
            }
        }
    }

    /// Page accounting of one plane: (free, valid, invalid, total).
    pub fn plane_accounting(&self, plane: u32) -> (u64, u64, u64, u64) {
        let ppb = self.layout.pages_per_block;
        let blocks = self.plane_blocks(plane);
        let valid: u64 = blocks.iter().map(|b| b.valid as u64).sum();
        let pm = &self.planes[plane as usize];
        let free = pm.free_pages(&self.blocks, self.layout.first_block(plane), ppb);
        (free, valid, pm.invalid, self.layout.blocks_per_plane as u64 * ppb as u64)
    }

    /// Current page of a chunk.
    #[inline]
    pub fn lookup(&self, chunk: u32) -> Option<Ppn> {
        self.map.get(chunk)
    }

    /// Counts a read of `ppn` against its block (read disturb; called under
    /// the LDPC model only).
    #[inline]
    pub fn note_read(&mut self, ppn: Ppn) {
        let b = &mut self.blocks[self.layout.block_of(ppn) as usize];
        b.reads = b.reads.saturating_add(1);
    }

    /// Largest minus smallest erase count over all blocks.
    pub fn erase_spread(&self) -> (u32, u32, f64) {
        let min = self.blocks.iter().map(|b| b.erases).min().unwrap_or(0);
        let max = self.blocks.iter().map(|b| b.erases).max().unwrap_or(0);
        let mean = self.blocks.iter().map(|b| b.erases as f64).sum::<f64>() / self.blocks.len().max(1) as f64;
        (min, max, mean)
    }
}
