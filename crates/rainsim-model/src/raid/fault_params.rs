//! `[fault]`: a channel (or a die) that fails during the run, and its rebuild.

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
    /// A die that fails instead (global index: channel × dies per channel + die).
    pub die: Option<u32>,
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
            die: None,
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

    /// Whether a channel or a die fails.
    pub fn active(&self) -> bool {
        self.channel.is_some() || self.die.is_some()
    }

    /// Checks the keys against a device of `channels` channels of
    /// `dies_per_channel` dies; `raid5` when it has parity to rebuild from.
    pub fn validate(&self, channels: u32, dies_per_channel: u32, raid5: bool) -> Result<(), String> {
        if self.channel.is_some() && self.die.is_some() {
            return Err("fault.channel and fault.die are both set: one unit fails (remove one)".into());
        }
        if !self.active() {
            if self.second_channel.is_some() {
                return Err("fault.second_channel needs fault.channel or fault.die (the first failure)".into());
            }
            return Ok(());
        }
        let what = match (self.channel, self.die) {
            (Some(c), _) => format!("fault.channel = {c}"),
            (_, Some(d)) => format!("fault.die = {d}"),
            _ => unreachable!(),
        };
        if !raid5 {
            return Err(format!("{what} needs raid.level = \"raid5\": without parity a failure's data is lost"));
        }
        for (name, c) in [("fault.channel", self.channel), ("fault.second_channel", self.second_channel)] {
            if let Some(c) = c {
                if c >= channels {
                    return Err(format!("{name} = {c} but the device has channels 0..{}", channels - 1));
                }
            }
        }
        let dies = channels as u64 * dies_per_channel as u64;
        if let Some(d) = self.die {
            if d as u64 >= dies {
                return Err(format!(
                    "fault.die = {d} but the device has dies 0..{} (channel × {dies_per_channel} + die)",
                    dies - 1
                ));
            }
        }
        let first = self.channel.or(self.die.map(|d| d / dies_per_channel.max(1)));
        if self.second_channel.is_some() && self.second_channel == first {
            return Err(format!(
                "fault.second_channel = {} is the channel of the first failure",
                self.second_channel.unwrap_or_default()
            ));
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
