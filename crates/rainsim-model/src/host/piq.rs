//! PIQ (Gao et al., MSST'14; vios-variation-aware-scheduler §4's second
//! baseline): waiting requests are grouped into batches of requests that
//! touch no chip in common (chip-conflict-free), a conflicting request
//! opening a later batch; batches are issued in order, requests within one in
//! arrival order. Reads and writes wait in separate queues and reads are
//! always issued first (§4.1). Not stated by the paper, and not modelled:
//! channel sub-batches, a bound on how long a write may wait.

use super::batches::ReadsFirst;

/// Chip-conflict-free batches, reads first.
pub type Piq = ReadsFirst<false>;
