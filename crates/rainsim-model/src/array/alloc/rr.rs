//! Round robin (the DLS paper's RR baseline): the next write goes to the
//! next device in rotation, and inside it to the next channel in rotation
//! (next-wave-spec.md §3.b; the in-device rotation is our reading).

use super::{next_channel_with_room, ArrayView, ArrayWriteAllocation, Choice};

/// Round robin over devices, then over channels.
#[derive(Debug, Default)]
pub struct RoundRobin {
    next_device: u32,
    next_channel: Vec<u32>,
}

impl ArrayWriteAllocation for RoundRobin {
    fn choose(&mut self, view: &ArrayView, allowed: &[bool]) -> Option<Choice> {
        let n = allowed.len() as u32;
        let device = (0..n).map(|i| (self.next_device + i) % n).find(|&d| allowed[d as usize])?;
        self.next_device = (device + 1) % n;
        self.next_channel.resize(allowed.len(), 0);
        let load = &view.devices[device as usize];
        let channel = next_channel_with_room(load, self.next_channel[device as usize]);
        self.next_channel[device as usize] = (channel + 1) % load.free.len() as u32;
        Some(Choice { device, channel })
    }
}
