//! The report sections of vios-variation-aware-scheduler's models: process
//! variation (present only with `process_variation.enabled`: the blocks'
//! program times at the end of the run and the programs made at each speed)
//! and Table 1's conflicts (present only when counted).

use crate::flash::process_variation::ProcessVariation;
use crate::ftl::Ftl;
use serde::Serialize;

/// One ISPP grid step.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PvClass {
    /// Program step ΔVp, V.
    pub dvp: f64,
    /// Program time at this step, ns.
    pub tprog_ns: u64,
    /// Blocks detected at this step at the end of the run.
    pub blocks: u64,
    /// Host and parity programs into blocks at this step.
    pub programs: u64,
    /// GC page moves into blocks at this step.
    pub gc_programs: u64,
}

/// Program speed under process variation.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PvReport {
    /// P/E cycles every block had before the run (the wear stage).
    pub initial_pe_cycles: u32,
    /// Mean program time over blocks at the end of the run, ns.
    pub block_tprog_mean_ns: f64,
    /// 5th percentile of the blocks' program times, ns.
    pub block_tprog_p5_ns: u64,
    /// 95th percentile of the blocks' program times, ns.
    pub block_tprog_p95_ns: u64,
    /// Mean program time of the run's programs (host, parity and GC), ns.
    pub program_tprog_mean_ns: f64,
    /// Per grid step, slowest first.
    pub classes: Vec<PvClass>,
}

impl PvReport {
    /// The section, from the FTL's blocks and the programs counted per step.
    pub fn new(pv: &ProcessVariation, ftl: &Ftl, programs: &[Vec<u64>; 2]) -> PvReport {
        let n = pv.grid().len();
        let mut blocks = vec![0u64; n];
        for b in &ftl.blocks {
            blocks[b.dvp_step as usize] += 1;
        }
        let at = |v: &Vec<u64>, k: usize| v.get(k).copied().unwrap_or(0);
        let classes: Vec<PvClass> = (0..n)
            .map(|k| PvClass {
                dvp: (pv.grid()[k] * 1e6).round() / 1e6,
                tprog_ns: pv.tprog_table()[k],
                blocks: blocks[k],
                programs: at(&programs[0], k),
                gc_programs: at(&programs[1], k),
            })
            .collect();
        let total: u64 = blocks.iter().sum();
        // Blocks by program time, fastest first: quantiles walk the classes
        // from the last (fastest) one.
        let quantile = |q: f64| {
            let want = ((q * total as f64).ceil() as u64).max(1);
            let mut seen = 0;
            for c in classes.iter().rev() {
                seen += c.blocks;
                if seen >= want {
                    return c.tprog_ns;
                }
            }
            0
        };
        let weighted = |f: &dyn Fn(&PvClass) -> u64| {
            let w: u64 = classes.iter().map(f).sum();
            let s: f64 = classes.iter().map(|c| f(c) as f64 * c.tprog_ns as f64).sum();
            if w == 0 {
                0.0
            } else {
                s / w as f64
            }
        };
        PvReport {
            initial_pe_cycles: pv.params().initial_pe_cycles,
            block_tprog_mean_ns: weighted(&|c| c.blocks),
            block_tprog_p5_ns: quantile(0.05),
            block_tprog_p95_ns: quantile(0.95),
            program_tprog_mean_ns: weighted(&|c| c.programs + c.gc_programs),
            classes,
        }
    }
}

/// Table 1: host requests that found, on arrival, another request waiting
/// for or issued to one of their chips (A_r of Eq. 1).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ConflictReport {
    /// Reads that arrived.
    pub reads: u64,
    /// Writes that arrived.
    pub writes: u64,
    /// Reads in conflict.
    pub read_conflicts: u64,
    /// Writes in conflict.
    pub write_conflicts: u64,
    /// (read + write conflicts) / requests.
    pub ratio: f64,
}

impl ConflictReport {
    /// The section from the host's counts.
    pub fn new(c: &crate::host::chips::ConflictCounts) -> ConflictReport {
        ConflictReport {
            reads: c.reads,
            writes: c.writes,
            read_conflicts: c.read_conflicts,
            write_conflicts: c.write_conflicts,
            ratio: c.ratio(),
        }
    }
}
