//! Test-only model faults that verification must catch: each breaks one
//! layer on purpose (the RAID layer, the FTL's GC) to show `--verify` sees it.

/// Test-only faults that verification must catch.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// RMW forgets the old data: parity = old parity ⊕ new data.
    RmwIgnoresOldData,
    /// Host data programs never reach the mapping: later reads return the
    /// previous version.
    StaleRead,
    /// Parity leaves out the lowest data chunk its job writes.
    ParityMissesChunk,
    /// The first page a GC moves loses its data.
    GcLosesPage,
    /// Stripe writes plan as if every page were whole: a page written in
    /// part is not read and merged first.
    SkipsMergeRead,
    /// A degraded update programs its chunk on the new channel but the
    /// mapping (the stripe's record of where its chunks live) keeps the old page.
    MoveNotRecorded,
    /// A degraded update places its chunk on a channel its stripe already uses.
    MovesIntoStripe,
}
