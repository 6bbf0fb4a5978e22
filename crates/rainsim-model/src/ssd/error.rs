//! Why a run stops early ([`SimError`]).

use crate::error::ConfigError;
use crate::ftl::OutOfSpace;
use crate::verify::VerifyError;
use rainsim_trace::stats::counted;

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A verification check failed.
    #[error(transparent)]
    Verify(#[from] VerifyError),
    /// The device ran out of space.
    #[error(transparent)]
    OutOfSpace(#[from] OutOfSpace),
    /// The configuration cannot be simulated.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The request list itself is unusable.
    #[error("{0}")]
    Input(String),
    /// A channel holds only valid data and programs wait for it forever.
    #[error(
        "channel {channel} filled up with valid data ({} waiting, nothing left to collect): {cause}",
        counted(u64::from(*waiting), "program", "programs")
    )]
    ChannelFull {
        /// The channel.
        channel: u32,
        /// Programs queued on it.
        waiting: u32,
        /// What concentrated the data there, and what to change.
        cause: String,
    },
    /// A die holds only valid data and programs bound to it (no other die of
    /// its channel may take them) wait forever.
    #[error("die {die} (channel {channel}) filled up with valid data ({} bound to it waiting, nothing left to collect): ftl.allocation = \"static-channel-first\" or ftl.rotating_gc binds each chunk's programs to one die, and this die's chunks outgrew it; lower precondition.valid, raise geometry.over_provisioning, or let programs go to any die of the channel", counted(u64::from(*waiting), "program", "programs"))]
    DieFull {
        /// The die (global index).
        die: u32,
        /// Its channel.
        channel: u32,
        /// Programs bound to it, queued.
        waiting: u32,
    },
    /// A device of an array stopped the run (`what` says which: its index,
    /// and whether it is the replacement of a failed one).
    #[error("device {device} of the array{what}: {error}")]
    Member {
        /// The device's index in the array.
        device: u32,
        /// Empty, or what else names the device.
        what: &'static str,
        /// Its error.
        error: Box<SimError>,
    },
    /// The run was asked to stop (its stop flag was set: `RunOptions::stop`).
    #[error("the run was interrupted after {}", counted(*completed, "completed request", "completed requests"))]
    Interrupted {
        /// Requests completed by then.
        completed: u64,
    },
    /// A policy asked for something the model cannot do yet.
    #[error("{0}")]
    Unsupported(String),
    /// A request arrives later than the simulator's clock can run.
    #[error("request {index} arrives at {time_ns} ns, beyond the 2^62 ns (146 years) the simulator supports; check the trace's time unit or trace.time_scale / trace.repeat")]
    TooLate {
        /// Request index in the trace.
        index: usize,
        /// Arrival time in ns.
        time_ns: u64,
    },
    /// A request addresses pages beyond the logical capacity.
    #[error("request {index} (offset {offset} B, {size} B) ends beyond the logical capacity of {capacity} B; use trace.address_map = \"wrap\" or \"compact\"")]
    OutOfRange {
        /// Request index in the trace.
        index: usize,
        /// Byte offset.
        offset: u64,
        /// Size in bytes.
        size: u32,
        /// Logical capacity in bytes.
        capacity: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::SimError;

    /// A count of one takes the singular; any other the plural.
    #[test]
    fn counts_agree_with_their_nouns() {
        let stop = |completed| SimError::Interrupted { completed }.to_string();
        assert_eq!(stop(1), "the run was interrupted after 1 completed request");
        assert_eq!(stop(7), "the run was interrupted after 7 completed requests");
        let channel = |waiting| SimError::ChannelFull { channel: 2, waiting, cause: "c".into() }.to_string();
        assert!(channel(1).contains("(1 program waiting,"), "{}", channel(1));
        assert!(channel(3).contains("(3 programs waiting,"), "{}", channel(3));
        let die = |waiting| SimError::DieFull { die: 4, channel: 2, waiting }.to_string();
        assert!(die(1).contains("(1 program bound to it waiting,"), "{}", die(1));
        assert!(die(5).contains("(5 programs bound to it waiting,"), "{}", die(5));
    }
}
