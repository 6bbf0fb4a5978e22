//! The array unit tests' configuration.

use crate::config::Config;

/// An array of `devices` fresh devices of 4 channels × 2 dies, 32 blocks of
/// 32 pages of 4 KiB, no RAID inside, chunk = page, under `allocation`.
pub(crate) fn tiny_array(devices: u32, allocation: super::params::Allocation) -> Config {
    let mut c = Config::default();
    let g = &mut c.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (4, 1, 2, 1);
    (g.blocks_per_plane, g.pages_per_block, g.page_bytes) = (32, 32, 4096);
    (c.precondition.valid, c.precondition.invalid) = (0.0, 0.0);
    c.raid.level = crate::config::RaidLevel::None;
    c.array = Some(super::params::ArrayParams { devices, allocation, ..Default::default() });
    c
}
