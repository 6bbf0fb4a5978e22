//! VIOS's hierarchical-batch structured queue (vios-variation-aware-scheduler
//! §3.3, Eq. 3, Fig. 3): separate read and write queues, each of chip
//! batches (no two requests of a batch share a chip) split into channel
//! batches (no two requests of one share a channel), so that channel-level
//! parallelism comes first, then chip-level. Reads are always issued first
//! (§4.1). The variation-aware half of VIOS is the block allocator
//! (`ftl/allocation/variation_aware.rs`); the scheme `vios` sets both.

use super::batches::ReadsFirst;

/// Hierarchical batches, reads first.
pub type Vios = ReadsFirst<true>;
