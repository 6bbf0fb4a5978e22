//! The array mapping: array chunk → (device, slot), where a slot is a
//! chunk-sized run of the device's logical pages, and the free slots of each
//! device by the channel they land on.
//!
//! Every chunk starts at its layout home — device = its stripe position,
//! slot = its stripe — so the array starts as a plain RAID-5 whose data
//! the devices' preconditioning stands for. Slots beyond the array's stripes
//! (the `spare` fraction) are free; a chunk that moves frees its old slot
//! once its new copy is written.

/// Marker of a chunk with no location (its device failed).
const NONE: u32 = u32::MAX;

/// Where each chunk lives, and the free slots.
#[derive(Debug, Clone)]
pub struct ArrayMap {
    /// Device of each chunk.
    device: Vec<u8>,
    /// Slot of each chunk on its device.
    slot: Vec<u32>,
    /// Freed slots per device and channel.
    freed: Vec<Vec<Vec<u32>>>,
    /// Next never-used slot to look at, per device and channel.
    cursor: Vec<Vec<u64>>,
    /// Free slots per device and channel (freed + never used).
    free: Vec<Vec<u32>>,
    /// Slots per device.
    slots: u64,
    /// Channel of a slot (the device's layout).
    channel_of: ChannelOf,
}

/// Which channel a device slot lands on: slot × `pages` is its first
/// logical page, which the device's stripe layout places.
#[derive(Debug, Clone)]
pub struct ChannelOf {
    /// The device's stripe layout.
    pub stripes: crate::raid::stripe::StripeLayout,
    /// Device pages per chunk.
    pub pages: u64,
}

impl ChannelOf {
    /// Channel of `slot`.
    pub fn channel(&self, slot: u64) -> u32 {
        self.stripes.home_channel(self.stripes.chunk_of_lpn(slot * self.pages).1)
    }
}

impl ArrayMap {
    /// `width` devices, `stripes` stripes at home, `slots` slots per device.
    pub fn new(width: u32, stripes: u32, slots: u64, channel_of: ChannelOf) -> Self {
        let chunks = stripes as usize * width as usize;
        let channels = channel_of.stripes.channels as usize;
        let device = (0..chunks).map(|c| (c % width as usize) as u8).collect();
        let slot = (0..chunks).map(|c| (c / width as usize) as u32).collect();
        let mut per_channel = vec![0u32; channels];
        for s in stripes as u64..slots {
            per_channel[channel_of.channel(s) as usize] += 1;
        }
        ArrayMap {
            device,
            slot,
            freed: vec![vec![Vec::new(); channels]; width as usize],
            cursor: vec![vec![stripes as u64; channels]; width as usize],
            free: vec![per_channel; width as usize],
            slots,
            channel_of,
        }
    }

    /// Where `chunk` lives: (device, slot).
    #[inline]
    pub fn get(&self, chunk: u32) -> Option<(u32, u32)> {
        let s = self.slot[chunk as usize];
        (s != NONE).then(|| (self.device[chunk as usize] as u32, s))
    }

    /// Free slots of `device` per channel.
    pub fn free(&self, device: u32) -> &[u32] {
        &self.free[device as usize]
    }

    /// Channel a slot of the devices lands on.
    pub fn channel(&self, slot: u32) -> u32 {
        self.channel_of.channel(slot as u64)
    }

    /// Takes a free slot of `device` on `channel` (`None`: none left there).
    pub fn take(&mut self, device: u32, channel: u32) -> Option<u32> {
        let (d, c) = (device as usize, channel as usize);
        if self.free[d][c] == 0 {
            return None;
        }
        let slot = match self.freed[d][c].pop() {
            Some(s) => s,
            None => {
                let mut s = self.cursor[d][c];
                while s < self.slots && self.channel_of.channel(s) != channel {
                    s += 1;
                }
                if s >= self.slots {
                    self.free[d][c] = 0;
                    return None;
                }
                self.cursor[d][c] = s + 1;
                s as u32
            }
        };
        self.free[d][c] -= 1;
        Some(slot)
    }

    /// Gives back a slot of `device` that holds nothing any more.
    pub fn release(&mut self, device: u32, slot: u32) {
        let c = self.channel(slot) as usize;
        self.freed[device as usize][c].push(slot);
        self.free[device as usize][c] += 1;
    }

    /// Points `chunk` at (`device`, `slot`); returns its old location when
    /// it differs (the caller trims and releases it).
    pub fn set(&mut self, chunk: u32, device: u32, slot: u32) -> Option<(u32, u32)> {
        let old = self.get(chunk);
        self.device[chunk as usize] = device as u8;
        self.slot[chunk as usize] = slot;
        old.filter(|&o| o != (device, slot))
    }

    /// Stripes whose chunks do not all sit on distinct devices.
    pub fn co_resident_stripes(&self, width: u32) -> u64 {
        let w = width as usize;
        self.device
            .chunks(w)
            .zip(self.slot.chunks(w))
            .filter(|(devs, slots)| {
                let mut seen = 0u64;
                devs.iter().zip(slots.iter()).filter(|(_, &s)| s != NONE).any(|(&d, _)| {
                    let bit = 1u64 << d;
                    let dup = seen & bit != 0;
                    seen |= bit;
                    dup
                })
            })
            .count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raid::stripe::StripeLayout;

    /// A device of 4 channels without parity (page p on channel p mod 4)
    /// and chunks of 2 pages: slot s starts at page 2s, so slots alternate
    /// channels 0 and 2; a slot taken for channel 2 lands there, and a
    /// released one is taken again first.
    #[test]
    fn slots_land_on_the_channel_of_their_first_page() {
        let of = ChannelOf { stripes: StripeLayout::new(4, 4, false, 8), pages: 2 };
        let ch: Vec<u32> = (0..6).map(|s| of.channel(s)).collect();
        assert_eq!(ch, [0, 2, 0, 2, 0, 2]);
        // 2 devices of 16 slots, slots 0 and 1 holding the 2 stripes at home.
        let mut m = ArrayMap::new(2, 2, 16, of);
        assert_eq!(m.free(0), &[7, 0, 7, 0]);
        assert_eq!((m.take(0, 2), m.take(0, 2), m.take(1, 0), m.take(0, 1)), (Some(3), Some(5), Some(2), None));
        m.release(0, 3);
        assert_eq!(m.take(0, 2), Some(3));
        assert_eq!(m.free(0), &[7, 0, 5, 0]);
    }
}
