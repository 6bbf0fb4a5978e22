//! Replication axis (DESIGN.md §7, rep-raid §2.2–3): which partial-stripe
//! updates are written as two copies outside parity, where the copies go,
//! and how replicas return into their stripes (conversion, GC-time
//! reorganisation). Implementations: `none` (RAID-5), `cr5m.rs`,
//! `fusionraid.rs`, `rep_raid.rs`. The RAID layer carries the copies out
//! (`raid/replica_job.rs`); a policy only decides.

use crate::device_state::DeviceView;
use crate::engine::SimTime;
use serde::{Deserialize, Serialize};

/// Replication implementations (`policy.replication`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ReplicationKind {
    /// No replica: every update is a stripe write.
    #[default]
    None,
    /// CR5M (Pan & Xie, TECS 2018): small updates mirrored on another die of
    /// the same channel; a stripe converts back once every data chunk of it
    /// is replicated.
    Cr5m,
    /// FusionRAID (Jiang et al., FAST'21): small updates as two copies on two
    /// channels; conversion during idle periods and above the high-water mark.
    Fusionraid,
    /// Rep-RAID (Li et al., LCTES'23): the Eq. 2 frequency threshold decides,
    /// GC reorganises stripes (§3.3).
    RepRaid,
}

impl ReplicationKind {
    /// Whether `self` is [`ReplicationKind::None`] (serde skip helper).
    pub fn is_none(&self) -> bool {
        *self == ReplicationKind::None
    }
    /// The name in configs.
    pub fn name(self) -> &'static str {
        match self {
            ReplicationKind::None => "none",
            ReplicationKind::Cr5m => "cr5m",
            ReplicationKind::Fusionraid => "fusionraid",
            ReplicationKind::RepRaid => "rep-raid",
        }
    }
}

/// Parameters shared by the replication schemes (`[policy.replicas]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ReplicaParams {
    /// Entries above which the oldest replicated chunks convert back into
    /// their stripes (the replica-space high-water mark). Our choice: rep-raid
    /// §4.4's largest replica tables held about 58–62 K entries.
    pub high_water: u32,
    /// Host idle time after which FusionRAID converts replicas back (ns).
    pub idle_ns: u64,
    /// Largest request (bytes) whose updates CR5M and FusionRAID replicate; 0
    /// = any partial-stripe update (the papers say "small" only).
    pub max_request_bytes: u32,
    /// CR5M: both copies on one die apart from the home die of the channel
    /// ("dedicated mirroring chip"); `false`: any other die of the channel.
    pub strict_mirror_die: bool,
}

impl Default for ReplicaParams {
    fn default() -> Self {
        ReplicaParams { high_water: 65_536, idle_ns: 10_000_000, max_request_bytes: 0, strict_mirror_die: false }
    }
}

impl ReplicaParams {
    /// Whether every key is at its default (serde skip helper).
    pub fn is_default(&self) -> bool {
        *self == ReplicaParams::default()
    }
    /// Copy pairs the table holds: the high-water mark plus room for the
    /// writes in flight while conversions catch up (a replica write that
    /// finds it full becomes a stripe write).
    pub fn capacity(&self) -> u32 {
        self.high_water.saturating_add((self.high_water / 8).max(64))
    }
    /// Rejects values no scheme can work with.
    pub fn validate(&self) -> Result<(), String> {
        if self.high_water == 0 || self.high_water > 1 << 24 {
            return Err(format!(
                "policy.replicas.high_water = {} must be between 1 and 16777216 entries",
                self.high_water
            ));
        }
        Ok(())
    }
}

/// What one GC did, as a replication model sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct GcRoles {
    /// Die time of the GC.
    pub dur_ns: SimTime,
    /// Pages moved.
    pub moved: u32,
    /// Of them, pages that exist because of replication (old slots of
    /// replicated chunks and copies).
    pub moved_replication: u32,
}

/// The replication axis.
pub trait Replication {
    /// A host request arrived (Rep-RAID's windows, Eq. 3).
    fn on_request(&mut self) {}
    /// A request just read will ask [`Self::replicate`] about chunks among
    /// `chunks`: a cache hint for a policy with a large table (no result
    /// depends on it).
    fn prefetch(&self, _chunks: std::ops::RangeInclusive<u32>) {}
    /// A partial-stripe write of a request of `bytes` updates written chunk
    /// `chunk`: write it as two copies?
    fn replicate(&mut self, view: &DeviceView, chunk: u32, bytes: u32) -> bool;
    /// Channels of copy A (always `home`, its slot's channel) and copy B.
    fn place(&mut self, view: &DeviceView, home: u32) -> [u32; 2] {
        [home, least_loaded_other(view, home)]
    }
    /// Whether GC reorganises stripes with replicas in its victim (Rep-RAID §3.3).
    fn reorganizes(&self) -> bool {
        false
    }
    /// Whether a reorganisation may fill a stale slot with another chunk's
    /// copy (Rep-RAID's `policy.rep_raid.matching = "any-chunk"`).
    fn any_chunk(&self) -> bool {
        false
    }
    /// Host idle time after which replicas convert back (FusionRAID).
    fn idle_ns(&self) -> Option<SimTime> {
        None
    }
    /// Whether a stripe converts as soon as all its data chunks are replicated (CR5M).
    fn converts_full_stripes(&self) -> bool {
        false
    }
    /// Whether copy B must be on another die of copy A's channel (CR5M).
    fn same_channel(&self) -> bool {
        false
    }
    /// A GC ended (Alg. 1 line 16: Rep-RAID re-estimates f* here).
    fn on_gc(&mut self, _g: &GcRoles) {}
    /// A reorganisation ended after `ns` of service.
    fn on_reorg(&mut self, _ns: SimTime) {}
    /// A replica read saved `ns` against the other copy.
    fn on_replica_read(&mut self, _ns: SimTime) {}
    /// Current threshold f* (Rep-RAID), for the report.
    fn threshold(&self) -> Option<f64> {
        None
    }
    /// f* after every change, as (host requests seen, f*).
    fn threshold_history(&self) -> Vec<(u64, f64)> {
        Vec::new()
    }
}

/// The channel other than `home` with the fewest queued operations.
pub fn least_loaded_other(view: &DeviceView, home: u32) -> u32 {
    least_loaded_after(view.channels.len() as u32, home, |c| view.channels[c as usize].queued())
}

/// Of the `m` channels other than `home`, the one with the least `load`;
/// ties go to the first after `home` in rotation (`min_by_key` keeps the
/// first minimum). Ties to the lowest index would send nearly every copy of
/// a lightly loaded device to channel 0.
pub fn least_loaded_after<L: Ord>(m: u32, home: u32, load: impl Fn(u32) -> L) -> u32 {
    debug_assert!(home < m, "channel {home} of {m}");
    // Wrapped by a subtraction, not `% m`: a division per channel, per copy.
    let wrap = |c: u32| if c >= m { c - m } else { c };
    (1..m).map(|d| wrap(home + d)).min_by_key(|&c| load(c)).unwrap_or(home)
}

/// RAID-5 without replicas.
pub struct NoReplication;

impl Replication for NoReplication {
    fn replicate(&mut self, _view: &DeviceView, _chunk: u32, _bytes: u32) -> bool {
        false
    }
}

/// The "small request" rule of CR5M and FusionRAID.
#[inline]
pub fn small(bytes: u32, max: u32) -> bool {
    max == 0 || bytes <= max
}

#[cfg(test)]
mod tests {
    use super::{least_loaded_after, ReplicaParams, ReplicationKind};

    #[test]
    fn each_kind_is_named_as_configs_spell_it() {
        for k in [ReplicationKind::None, ReplicationKind::Cr5m, ReplicationKind::Fusionraid, ReplicationKind::RepRaid] {
            let spelt: ReplicationKind = serde_json::from_value(serde_json::Value::from(k.name()))
                .unwrap_or_else(|e| panic!("{}: {e}", k.name()));
            assert_eq!(spelt, k);
        }
    }

    #[test]
    fn the_table_holds_the_high_water_mark_plus_an_eighth_at_least_64() {
        let p = |high_water| ReplicaParams { high_water, ..ReplicaParams::default() };
        assert_eq!(ReplicaParams::default().capacity(), 65_536 + 8_192);
        assert_eq!(p(1_000).capacity(), 1_000 + 125);
        assert_eq!(p(100).capacity(), 100 + 64, "below 512 entries the margin is 64");
        assert_eq!(p(u32::MAX).capacity(), u32::MAX, "saturates");
    }

    #[test]
    fn the_high_water_mark_is_checked_and_defaults_are_recognised() {
        let p = |high_water| ReplicaParams { high_water, ..ReplicaParams::default() };
        assert!(ReplicaParams::default().is_default());
        assert!(!p(1).is_default());
        assert!(!ReplicaParams { idle_ns: 1, ..ReplicaParams::default() }.is_default());
        assert_eq!(p(1).validate(), Ok(()));
        assert_eq!(p(1 << 24).validate(), Ok(()));
        for bad in [0, (1 << 24) + 1] {
            let e = p(bad).validate().expect_err("out of range");
            assert!(e.contains(&format!("policy.replicas.high_water = {bad}")), "{e}");
        }
    }

    #[test]
    fn copy_b_goes_to_the_least_loaded_other_channel_ties_in_rotation() {
        // All idle: the channel after home, so copies B spread as homes do.
        assert_eq!(least_loaded_after(8, 0, |_| 0), 1);
        assert_eq!(least_loaded_after(8, 5, |_| 0), 6);
        assert_eq!(least_loaded_after(8, 7, |_| 0), 0);
        // The least loaded wins over rotation; never home itself.
        assert_eq!(least_loaded_after(8, 2, |c| if c == 6 { 0 } else { 3 }), 6);
        assert_eq!(least_loaded_after(8, 2, |c| if c == 2 { 0 } else { 1 }), 3);
        // A tie between 1 and 6 from home 5: 6 comes first in rotation.
        assert_eq!(least_loaded_after(8, 5, |c| if c == 1 || c == 6 { 0 } else { 9 }), 6);
        assert_eq!(least_loaded_after(1, 0, |_| 0), 0, "one channel: nowhere else");
        // Every width and home against the rotation written with `%`, under
        // loads with ties.
        for m in 1..=12u32 {
            for home in 0..m {
                for seed in 0..20u32 {
                    let load = |c: u32| (c.wrapping_mul(2_654_435_761) ^ seed.wrapping_mul(40_503)) % 4;
                    let want = (1..m).map(|d| (home + d) % m).min_by_key(|&c| load(c)).unwrap_or(home);
                    assert_eq!(least_loaded_after(m, home, load), want, "m {m}, home {home}, seed {seed}");
                }
            }
        }
    }
}
