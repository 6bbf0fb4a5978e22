//! `[fault]`: a channel (or a die) that fails during the run, and its rebuild.

use crate::raid::layer::ReadPlace;
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
    /// Behind everything: a die takes a rebuild read only when no other read
    /// and no program it may take waits for it (host writes first, even
    /// under read priority).
    Background,
}

impl RebuildPriority {
    /// Where the rebuild's reads join their dies' queues.
    pub fn read_place(self) -> ReadPlace {
        match self {
            RebuildPriority::Low => ReadPlace::Tail,
            RebuildPriority::High => ReadPlace::Head,
            RebuildPriority::Background => ReadPlace::Background,
        }
    }
}

/// `[fault]`: channel `channel` fails at `at_ns`; optionally a replacement
/// takes its place `replace_after_ns` later and its chunks are rebuilt onto it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FaultParams {
    /// Inside an `[array]`: the member whose channel or die fails (its own
    /// RAID-5 rebuilds it; the array sees a slower member). Arrays only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<u32>,
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
            device: None,
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

    /// The keys besides the failing unit that differ from their defaults,
    /// in table order; only those in `among` unless it is empty.
    fn keys_set(&self, among: &[&str]) -> Vec<&'static str> {
        let d = FaultParams::default();
        [
            ("fault.device", self.device != d.device),
            ("fault.at_ns", self.at_ns != d.at_ns),
            ("fault.rebuild", self.rebuild != d.rebuild),
            ("fault.replace_after_ns", self.replace_after_ns != d.replace_after_ns),
            ("fault.rebuild_stripes", self.rebuild_stripes != d.rebuild_stripes),
            ("fault.rebuild_priority", self.rebuild_priority != d.rebuild_priority),
            ("fault.second_at_ns", self.second_at_ns != d.second_at_ns),
        ]
        .into_iter()
        .filter(|&(k, set)| set && (among.is_empty() || among.contains(&k)))
        .map(|(k, _)| k)
        .collect()
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
            let set = self.keys_set(&[]);
            if !set.is_empty() {
                return Err(format!(
                    "{} set but nothing fails: give fault.channel or fault.die (or leave [fault] out)",
                    set.join(", ")
                ));
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
        if !self.rebuild {
            let set = self.keys_set(&["fault.replace_after_ns", "fault.rebuild_stripes", "fault.rebuild_priority"]);
            if !set.is_empty() {
                return Err(format!(
                    "{} set but fault.rebuild = false: without a replacement nothing is rebuilt (remove them, or \
                     set fault.rebuild = true)",
                    set.join(", ")
                ));
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A change to the defaults and the start of the error it must give.
    type Bad<'a> = (&'a dyn Fn(&mut FaultParams), &'a str);

    /// A device of 4 channels of 2 dies with parity: every key is checked at
    /// its bounds (the value at the bound passes, the one beyond it is
    /// refused naming the key).
    #[test]
    fn every_key_is_checked_at_its_bounds() {
        let check = |f: &dyn Fn(&mut FaultParams)| {
            let mut p = FaultParams { channel: Some(0), ..FaultParams::default() };
            f(&mut p);
            p.validate(4, 2, true)
        };
        let ok: [&dyn Fn(&mut FaultParams); 9] = [
            &|p| p.channel = Some(3),
            &|p| (p.channel, p.die) = (None, Some(7)),
            &|p| (p.channel, p.die, p.second_channel) = (None, Some(7), Some(2)),
            &|p| (p.at_ns, p.replace_after_ns) = (MAX_FAULT_NS, MAX_FAULT_NS),
            &|p| (p.second_channel, p.at_ns, p.second_at_ns) = (Some(1), 5, 5),
            &|p| (p.second_channel, p.second_at_ns) = (Some(3), MAX_FAULT_NS),
            &|p| p.rebuild_stripes = 4096,
            &|p| p.rebuild = false,
            &|p| p.second_at_ns = 0,
        ];
        for (i, f) in ok.iter().enumerate() {
            assert_eq!(check(f), Ok(()), "case {i}");
        }
        let bad: [Bad; 10] = [
            (&|p| p.channel = Some(4), "fault.channel = 4 but the device has channels 0..3"),
            (&|p| (p.channel, p.die) = (None, Some(8)), "fault.die = 8 but the device has dies 0..7"),
            (&|p| p.second_channel = Some(4), "fault.second_channel = 4 but"),
            (&|p| (p.channel, p.die, p.second_channel) = (None, Some(7), Some(3)), "fault.second_channel = 3 is"),
            (&|p| p.at_ns = MAX_FAULT_NS + 1, "fault.at_ns = "),
            (&|p| p.replace_after_ns = MAX_FAULT_NS + 1, "fault.replace_after_ns = "),
            (&|p| (p.second_channel, p.second_at_ns) = (Some(1), MAX_FAULT_NS + 1), "fault.second_at_ns = 46"),
            (&|p| (p.second_channel, p.at_ns, p.second_at_ns) = (Some(1), 5, 4), "fault.second_at_ns = 4 is before"),
            (&|p| p.rebuild_stripes = 0, "fault.rebuild_stripes = 0"),
            (&|p| p.rebuild_stripes = 4097, "fault.rebuild_stripes = 4097"),
        ];
        for (f, msg) in bad {
            let e = check(f).unwrap_err();
            assert!(e.starts_with(msg), "{e}");
        }
    }

    /// Nothing fails by default; a channel or a die makes a failure, and
    /// any key set makes the section worth writing out.
    #[test]
    fn active_and_default() {
        let d = FaultParams::default();
        assert!(d.is_default() && !d.active() && d.validate(4, 2, false).is_ok());
        let ch = FaultParams { channel: Some(1), ..d.clone() };
        let die = FaultParams { die: Some(1), ..d.clone() };
        assert!(ch.active() && die.active() && !ch.is_default());
        assert!(!FaultParams { rebuild_stripes: 2, ..d.clone() }.is_default());
    }

    /// A key of the failure set while nothing fails is refused, naming every
    /// such key (it would otherwise be ignored in silence).
    #[test]
    fn keys_without_a_failure_are_refused() {
        let d = FaultParams::default();
        let check = |p: FaultParams| p.validate(4, 2, true).unwrap_err();
        let one: [(FaultParams, &str); 6] = [
            (FaultParams { at_ns: 5, ..d.clone() }, "fault.at_ns"),
            (FaultParams { rebuild: false, ..d.clone() }, "fault.rebuild"),
            (FaultParams { replace_after_ns: 1, ..d.clone() }, "fault.replace_after_ns"),
            (FaultParams { rebuild_stripes: 2, ..d.clone() }, "fault.rebuild_stripes"),
            (FaultParams { rebuild_priority: RebuildPriority::High, ..d.clone() }, "fault.rebuild_priority"),
            (FaultParams { second_at_ns: 9, ..d.clone() }, "fault.second_at_ns"),
        ];
        for (p, key) in one {
            assert_eq!(
                check(p),
                format!("{key} set but nothing fails: give fault.channel or fault.die (or leave [fault] out)")
            );
        }
        let two = check(FaultParams { at_ns: 5, rebuild_stripes: 3, ..d });
        assert!(two.starts_with("fault.at_ns, fault.rebuild_stripes set"), "{two}");
    }

    /// Without a rebuild its keys would do nothing: refused, each named.
    #[test]
    fn rebuild_keys_without_a_rebuild_are_refused() {
        let off = FaultParams { channel: Some(1), rebuild: false, ..FaultParams::default() };
        assert!(off.validate(4, 2, true).is_ok());
        let e = FaultParams { rebuild_stripes: 4, rebuild_priority: RebuildPriority::High, ..off.clone() }
            .validate(4, 2, true)
            .unwrap_err();
        assert!(e.starts_with("fault.rebuild_stripes, fault.rebuild_priority set but fault.rebuild = false"), "{e}");
        let e = FaultParams { replace_after_ns: 100, ..off }.validate(4, 2, true).unwrap_err();
        assert!(e.starts_with("fault.replace_after_ns set but fault.rebuild = false"), "{e}");
    }
}
