//! What replication did (rep-raid §4): replicas made and read, conversions,
//! reorganisations by case, GC page moves by role, the replica table's size
//! and the threshold f* over time.

use super::is_zero;
use crate::raid::layer::ReplicationProbe;
use serde::Serialize;

/// Counters the collector keeps.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct ReplicationCounters {
    /// Chunk writes done as two copies.
    pub replica_writes: u64,
    /// Of them, first replications (a table entry added).
    pub new_replicas: u64,
    /// Replica writes that found the table full and became stripe writes.
    pub table_full: u64,
    /// Host reads served by a copy.
    pub replica_reads: u64,
    /// Chunks converted back into their stripes.
    pub converted_chunks: u64,
    /// Conversions started, by reason: idle, high-water mark, whole stripe replicated.
    pub conversions_idle: u64,
    /// See `conversions_idle`.
    pub conversions_high_water: u64,
    /// See `conversions_idle`.
    pub conversions_full_stripe: u64,
    /// GC reorganisations, case (a) of Fig. 7.
    pub reorg_case_a: u64,
    /// GC reorganisations, case (b) of Fig. 7.
    pub reorg_case_b: u64,
    /// Of the case (a) reorganisations, those whose copy was another
    /// chunk's (any-chunk matching: the two chunks swapped slots).
    #[serde(skip_serializing_if = "is_zero")]
    pub reorg_case_a_swapped: u64,
    /// See `reorg_case_a_swapped`, for case (b).
    #[serde(skip_serializing_if = "is_zero")]
    pub reorg_case_b_swapped: u64,
    /// GC page moves of ordinary pages.
    pub gc_moves_valid: u64,
    /// GC page moves of current slots of stripes holding a replicated chunk.
    pub gc_moves_semi_valid: u64,
    /// GC page moves of old slots of replicated chunks.
    pub gc_moves_semi_invalid: u64,
    /// GC page moves of copies.
    pub gc_moves_replica: u64,
    /// Service time of all reorganisations (GC reads of stale slots, the
    /// parity update: reads, XOR, software time, program), ns (Fig. 11).
    pub reorg_ns: u64,
}

impl ReplicationCounters {
    /// Counts one probe.
    pub fn record(&mut self, e: ReplicationProbe) {
        match e {
            ReplicationProbe::Replicated { new } => {
                self.replica_writes += 1;
                self.new_replicas += new as u64;
            }
            ReplicationProbe::TableFull => self.table_full += 1,
            ReplicationProbe::Converted => self.converted_chunks += 1,
            ReplicationProbe::ReplicaRead => self.replica_reads += 1,
            ReplicationProbe::Reorganized { case_b, swapped } => {
                if case_b {
                    self.reorg_case_b += 1;
                    self.reorg_case_b_swapped += swapped as u64;
                } else {
                    self.reorg_case_a += 1;
                    self.reorg_case_a_swapped += swapped as u64;
                }
            }
            ReplicationProbe::ConvertStarted { reason } => match reason {
                0 => self.conversions_idle += 1,
                1 => self.conversions_high_water += 1,
                _ => self.conversions_full_stripe += 1,
            },
            ReplicationProbe::GcMoves { valid, semi_valid, semi_invalid, replica } => {
                self.gc_moves_valid += valid as u64;
                self.gc_moves_semi_valid += semi_valid as u64;
                self.gc_moves_semi_invalid += semi_invalid as u64;
                self.gc_moves_replica += replica as u64;
            }
            ReplicationProbe::ReorgTime(ns) => self.reorg_ns += ns,
            ReplicationProbe::ConversionEnded { .. } => {}
        }
    }
}

/// The report's `replication` section (absent without a replication scheme).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReplicationReport {
    /// Scheme: cr5m, fusionraid or rep-raid.
    pub scheme: String,
    /// Counters.
    #[serde(flatten)]
    pub counts: ReplicationCounters,
    /// Entries held at the end.
    pub entries_end: u64,
    /// Most entries held at once.
    pub max_entries: u64,
    /// The table's largest size in bytes at 8 bytes per entry (two 4-byte
    /// page numbers, as rep-raid §4.4 counts it).
    pub max_table_bytes: u64,
    /// Entries the table can hold (high-water mark plus slack).
    pub capacity: u64,
    /// Rep-RAID: f* at the end.
    pub threshold_end: Option<f64>,
    /// Rep-RAID: f* after every change, as (host requests seen, f*).
    pub threshold_history: Vec<(u64, f64)>,
    /// Rep-RAID: bytes of its update counters at the paper's 2 bits per
    /// chunk (§4.4), and as this model holds them (2 bytes: epoch and count).
    pub counter_bytes_paper: u64,
    /// See `counter_bytes_paper`.
    pub counter_bytes_model: u64,
    /// Any-chunk matching: most slots owned by another chunk at once (the
    /// stripe map's entries), and their bytes (two 4-byte ids each way).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stripe_map_max_entries: Option<u64>,
    /// See `stripe_map_max_entries`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stripe_map_max_bytes: Option<u64>,
    /// Any-chunk matching: slots owned by another chunk at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stripe_map_entries_end: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each probe lands in its own counter, by hand.
    #[test]
    fn probes_count_where_they_belong() {
        use ReplicationProbe as P;
        let mut c = ReplicationCounters::default();
        for p in [
            P::Replicated { new: true },
            P::Replicated { new: false },
            P::Replicated { new: true },
            P::TableFull,
            P::Converted,
            P::Converted,
            P::ReplicaRead,
            P::Reorganized { case_b: false, swapped: true },
            P::Reorganized { case_b: false, swapped: false },
            P::Reorganized { case_b: true, swapped: true },
            P::Reorganized { case_b: true, swapped: true },
            P::Reorganized { case_b: true, swapped: false },
            P::ConvertStarted { reason: 0 },
            P::ConvertStarted { reason: 1 },
            P::ConvertStarted { reason: 1 },
            P::ConvertStarted { reason: 2 },
            P::GcMoves { valid: 5, semi_valid: 3, semi_invalid: 2, replica: 1 },
            P::GcMoves { valid: 1, semi_valid: 1, semi_invalid: 1, replica: 4 },
            P::ReorgTime(700),
            P::ReorgTime(50),
        ] {
            c.record(p);
        }
        let want = ReplicationCounters {
            replica_writes: 3,
            new_replicas: 2,
            table_full: 1,
            replica_reads: 1,
            converted_chunks: 2,
            conversions_idle: 1,
            conversions_high_water: 2,
            conversions_full_stripe: 1,
            reorg_case_a: 2,
            reorg_case_b: 3,
            reorg_case_a_swapped: 1,
            reorg_case_b_swapped: 2,
            gc_moves_valid: 6,
            gc_moves_semi_valid: 4,
            gc_moves_semi_invalid: 3,
            gc_moves_replica: 5,
            reorg_ns: 750,
        };
        assert_eq!(c, want);
    }

    /// The swapped counts appear in a report only when not zero, so that
    /// reports from before any-chunk matching read as they did.
    #[test]
    fn zero_swaps_are_left_out_of_the_report() {
        let mut c = ReplicationCounters::default();
        let json = serde_json::to_value(c).expect("serialises");
        assert!(json.get("reorg_case_a_swapped").is_none() && json.get("reorg_case_b_swapped").is_none());
        assert_eq!(json["reorg_case_a"], 0, "the other counters are always there");
        c.record(ReplicationProbe::Reorganized { case_b: true, swapped: true });
        let json = serde_json::to_value(c).expect("serialises");
        assert_eq!((json["reorg_case_b_swapped"].as_u64(), json.get("reorg_case_a_swapped")), (Some(1), None));
    }
}
