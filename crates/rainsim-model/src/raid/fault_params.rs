//! `[fault]`: a channel that fails during the run, and its rebuild.

use serde::{Deserialize, Serialize};

/// Where a rebuild's reads queue, against host I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum RebuildPriority {
    /// At the tails of the queues, behind host I/O.
    #[default]
    Low,
    /// At the heads of the queues, ahead of host I/O.
    High,
}

/// `[fault]`: channel `channel` fails at `at_ns`; optionally a replacement
/// takes its place `replace_after_ns` later and its chunks are rebuilt onto it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FaultParams {
    /// The channel that fails (none: no failure).
    pub channel: Option<u32>,
    /// When it fails, ns of simulated time.
    pub at_ns: u64,
    /// Put a replacement channel in and rebuild onto it.
    pub rebuild: bool,
    /// Time from the failure until the replacement is in, ns.
    pub replace_after_ns: u64,
    /// Stripes the rebuild works on at once (its rate).
    pub rebuild_stripes: u32,
    /// Where the rebuild's reads queue against host I/O.
    pub rebuild_priority: RebuildPriority,
    /// A second channel that fails (data loss if before the rebuild ends).
    pub second_channel: Option<u32>,
    /// When the second channel fails, ns.
    pub second_at_ns: u64,
}

impl Default for FaultParams {
    fn default() -> Self {
        FaultParams {
            channel: None,
            at_ns: 0,
            rebuild: true,
            replace_after_ns: 0,
            rebuild_stripes: 1,
            rebuild_priority: RebuildPriority::Low,
            second_channel: None,
            second_at_ns: 0,
        }
    }
}

/// Latest failure time accepted (the simulated clock's range for arrivals).
pub const MAX_FAULT_NS: u64 = 1 << 62;

impl FaultParams {
    /// Whether nothing fails (left out of serialised configs then).
    pub fn is_default(&self) -> bool {
        *self == FaultParams::default()
    }

    /// Checks the keys against a device of `channels` channels; `raid5` when
    /// the device has parity to rebuild from.
    pub fn validate(&self, channels: u32, raid5: bool) -> Result<(), String> {
        let Some(ch) = self.channel else {
            if self.second_channel.is_some() {
                return Err("fault.second_channel needs fault.channel (the first failure)".into());
            }
            return Ok(());
        };
        if !raid5 {
            return Err(format!(
                "fault.channel = {ch} needs raid.level = \"raid5\": without parity a failed channel's data is lost"
            ));
        }
        for (name, c) in [("fault.channel", Some(ch)), ("fault.second_channel", self.second_channel)] {
            if let Some(c) = c {
                if c >= channels {
                    return Err(format!("{name} = {c} but the device has channels 0..{}", channels - 1));
                }
            }
        }
        if self.second_channel == Some(ch) {
            return Err(format!("fault.second_channel = {ch} is the channel that already failed"));
        }
        for (name, t) in [
            ("fault.at_ns", self.at_ns),
            ("fault.replace_after_ns", self.replace_after_ns),
            ("fault.second_at_ns", self.second_at_ns),
        ] {
            if t > MAX_FAULT_NS {
                return Err(format!("{name} = {t} exceeds {MAX_FAULT_NS} ns (146 years)"));
            }
        }
        if self.second_channel.is_some() && self.second_at_ns < self.at_ns {
            return Err(format!(
                "fault.second_at_ns = {} is before fault.at_ns = {}: the second failure comes second",
                self.second_at_ns, self.at_ns
            ));
        }
        if self.rebuild && !(1..=4096).contains(&self.rebuild_stripes) {
            return Err(format!("fault.rebuild_stripes = {} must be between 1 and 4096", self.rebuild_stripes));
        }
        Ok(())
    }
}
