//! Flash translation layer: page-level mapping, block manager, greedy GC per
//! plane, static wear levelling and direct preconditioning.
//!
//! The FTL is pure state: it never schedules events. The device asks it for a
//! page to program (`allocate`), tells it when the program ends (`commit`),
//! and runs `collect` when a plane's free blocks fall to the threshold; the
//! returned work tells the device how long the die stays busy.

pub mod allocation;
pub mod block;
mod gc;
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
    /// Per-block metadata, indexed by global block. A free block's speed
    /// step set from outside is followed by [`Ftl::recount_free_lists`].
    pub blocks: Vec<BlockMeta>,
    /// Per-plane free lists, indexed by global plane. Changed only through
    /// the FTL's own methods (or followed by [`Ftl::recount_free_lists`]).
    pub planes: Vec<PlaneMeta>,
    /// Each plane's free blocks by speed step (plane p's at p·S..(p+1)·S, S
    /// grid steps, or 256 without process variation) under an allocator by
    /// lane or process variation; empty otherwise. They tell the
    /// variation-aware allocator the fastest and slowest step free, so that
    /// it reads the free list only up to that step's first block.
    free_steps: Vec<u32>,
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
            free_steps: Vec::new(),
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
        ftl.recount_free_lists();
        ftl
    }

    /// Replaces the block allocation policy (in order by default).
    pub fn set_allocator(&mut self, alloc: Box<dyn BlockAllocator>) {
        self.lanes = alloc.uses_lanes();
        self.plain = !self.lanes && self.pv.is_none();
        self.alloc = alloc;
        self.count_steps_if_needed();
    }

    /// Keeps the free lists' counts by speed step when something reads them
    /// (an allocator by lane) or speeds differ (process variation: a step per
    /// grid value; without it the model leaves every block at step 0, and a
    /// caller may set any).
    fn count_steps_if_needed(&mut self) {
        let steps = match &self.pv {
            Some(pv) => pv.grid().len(),
            None if self.lanes => u8::MAX as usize + 1,
            None => 0,
        };
        self.free_steps = vec![0; self.planes.len() * steps];
        self.recount_free_lists();
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
        self.count_steps_if_needed();
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
        let steps = self.counted_steps();
        let pm = &mut self.planes[plane as usize];
        let slot = if fast { pm.fast } else { pm.active };
        let open = match slot {
            Some(b) => b,
            None => {
                let blocks = &self.blocks[first as usize..(first + self.layout.blocks_per_plane) as usize];
                let free_steps = &self.free_steps[plane as usize * steps..(plane as usize + 1) * steps];
                debug_assert_eq!(free_steps, &count_steps(&pm.free, blocks, steps)[..], "plane {plane}'s step counts");
                let i = self.alloc.choose(&pm.free, blocks, free_steps, lane)?;
                let before = pm.free.len();
                let b = pm.free.remove(i).expect("the allocator chose a position in the free list");
                if fast {
                    pm.fast = Some(b);
                } else {
                    pm.active = Some(b);
                }
                self.free_changed(plane, before);
                self.count_free(plane, first + b, false);
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

/// Free blocks of `free` at each of `steps` speed steps (none if 0).
fn count_steps(free: &std::collections::VecDeque<u32>, blocks: &[BlockMeta], steps: usize) -> Vec<u32> {
    let mut n = vec![0; steps];
    if steps > 0 {
        for &b in free {
            n[blocks[b as usize].dvp_step as usize] += 1;
        }
    }
    n
}
