//! FTL settings (`[ftl]`).

use serde::{Deserialize, Serialize};

/// Flash translation layer settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FtlParams {
    /// GC starts on a plane when its free blocks fall to this fraction of its blocks.
    pub gc_threshold: f64,
    /// Move valid pages by copyback inside the die (no bus transfer).
    pub copyback: bool,
    /// Static wear levelling: swap in the coldest block when a plane's erase-count
    /// spread exceeds this many cycles; 0 = off.
    pub wear_level_spread: u32,
    /// Program/erase cycles a block endures (for the predicted lifetime).
    pub pe_cycle_limit: u32,
    /// ttFlash's rotating GC (`ssd/rotating_gc.rs`). Left out of serialised
    /// configs while off, so that reports without it stay as they were.
    #[serde(skip_serializing_if = "is_false")]
    pub rotating_gc: bool,
    /// Which die of its channel a chunk is programmed on: any idle one, in
    /// rotation (`round-robin`) or from the first (`dynamic`), or a fixed one
    /// (`static-channel-first`, vios Eq. 1). Always serialised, so that a
    /// report says which one it ran (`dynamic` was the default before 0.2.0).
    pub allocation: PageAllocation,
}

/// Which die a program goes to (`ftl.allocation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PageAllocation {
    /// Any idle die of the chunk's channel takes it, offered from the
    /// channel's first die, so that under light load a fresh device fills die
    /// by die (the default before round-robin).
    Dynamic,
    /// A fixed die: chunk c (on channel c mod C) on die ⌊c / C⌋ mod dies per
    /// channel; without parity, logical page p on chip p mod ChipNum, channels first
    /// (vios-variation-aware-scheduler Eq. 1; `sched/chip_bound.rs`).
    StaticChannelFirst,
    /// Any idle die, offered in rotation: a program just queued goes to the
    /// first idle die after the one that took the channel's last program
    /// (SSDsim's dynamic allocation rotates its die token).
    #[default]
    RoundRobin,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Default for FtlParams {
    fn default() -> Self {
        FtlParams {
            gc_threshold: 0.10,
            copyback: true,
            wear_level_spread: 100,
            pe_cycle_limit: 3000,
            rotating_gc: false,
            allocation: PageAllocation::RoundRobin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `rotating_gc` is left out of a serialised config while off (so that
    /// reports without it stay as they were); `allocation` is always written,
    /// since its default changed; both are read back when set.
    #[test]
    fn rotating_gc_is_serialised_only_when_set_and_allocation_always() {
        let json = |p: &FtlParams| serde_json::to_value(p).unwrap();
        let d = json(&FtlParams::default());
        assert!(d.get("rotating_gc").is_none(), "{d}");
        assert_eq!(d["allocation"], "round-robin", "{d}");
        assert_eq!(d["copyback"], true, "other keys stay");
        let set =
            FtlParams { rotating_gc: true, allocation: PageAllocation::StaticChannelFirst, ..FtlParams::default() };
        let s = json(&set);
        assert_eq!((&s["rotating_gc"], &s["allocation"]), (&true.into(), &"static-channel-first".into()));
        assert_eq!(serde_json::from_value::<FtlParams>(s).unwrap(), set);
    }
}
