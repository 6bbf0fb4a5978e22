//! The array mapping: unit of the array's RAID layer → (device, slot), where a
//! slot is a unit-sized run of the device's logical pages, and the free slots
//! of each device by the channel they land on. A unit is a chunk under free
//! placement and a page under `static` (a page row's member,
//! [`super::params::ArrayParams::unit_bytes`]); "chunk" below means a unit.
//!
//! Every chunk starts at its layout home — device = its stripe position,
//! slot = its stripe — so the array starts as a plain RAID-5 whose data
//! the devices' preconditioning stands for. Slots beyond the array's stripes
//! (the `spare` fraction) are free; a chunk that moves frees its old slot
//! once its new copy is written. Until the first chunk moves (under static
//! placement, never) locations are computed, not stored: no table of every
//! chunk to build, hold or miss in the cache.

/// Marker of a chunk with no location (its device failed).
const NONE: u32 = u32::MAX;

/// Where each chunk lives, and the free slots.
#[derive(Debug, Clone)]
pub struct ArrayMap {
    /// Devices (the stripe width).
    width: u32,
    /// Chunks.
    chunks: usize,
    /// Where each chunk is, once one has left its home.
    placed: Option<Placed>,
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

/// Device and slot of each chunk.
#[derive(Debug, Clone)]
struct Placed {
    device: Vec<u8>,
    slot: Vec<u32>,
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
        let mut per_channel = vec![0u32; channels];
        for s in stripes as u64..slots {
            per_channel[channel_of.channel(s) as usize] += 1;
        }
        ArrayMap {
            width,
            chunks,
            placed: None,
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
        match &self.placed {
            None => Some(self.home(chunk)),
            Some(p) => {
                let s = p.slot[chunk as usize];
                (s != NONE).then(|| (p.device[chunk as usize] as u32, s))
            }
        }
    }

    /// Where `chunk` starts: its stripe position's device, its stripe's slot.
    #[inline]
    fn home(&self, chunk: u32) -> (u32, u32) {
        (chunk % self.width, chunk / self.width)
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
        if old == Some((device, slot)) {
            return None;
        }
        let (width, chunks) = (self.width, self.chunks as u32);
        let p = self.placed.get_or_insert_with(|| Placed {
            device: (0..chunks).map(|c| (c % width) as u8).collect(),
            slot: (0..chunks).map(|c| c / width).collect(),
        });
        p.device[chunk as usize] = device as u8;
        p.slot[chunk as usize] = slot;
        old
    }

    /// Stripes whose chunks do not all sit on distinct devices.
    pub fn co_resident_stripes(&self, width: u32) -> u64 {
        // At home, a stripe's chunks are on its positions' distinct devices.
        let Some(p) = &self.placed else { return 0 };
        let w = width as usize;
        p.device
            .chunks(w)
            .zip(p.slot.chunks(w))
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

    /// 3 devices, 4 stripes at home: chunk c on device c mod 3, slot c / 3,
    /// stored nowhere; writing a chunk where it is changes nothing; moving
    /// chunk 4 (stripe 1) to device 0, where chunk 3 of its stripe is,
    /// returns its old place and makes stripe 1 co-resident.
    #[test]
    fn chunks_stay_at_their_computed_home_until_one_moves() {
        let of = ChannelOf { stripes: StripeLayout::new(2, 1, false, 64), pages: 1 };
        let mut m = ArrayMap::new(3, 4, 16, of);
        assert_eq!((0..12).map(|c| m.get(c).unwrap()).collect::<Vec<_>>()[3..6], [(0, 1), (1, 1), (2, 1)]);
        assert_eq!(m.set(4, 1, 1), None, "written in place");
        assert!(m.placed.is_none(), "nothing stored while every chunk is home");
        assert_eq!(m.co_resident_stripes(3), 0);
        assert_eq!(m.set(4, 0, 9), Some((1, 1)));
        assert_eq!((m.get(4), m.get(3), m.get(11)), (Some((0, 9)), Some((0, 1)), Some((2, 3))));
        assert_eq!(m.co_resident_stripes(3), 1);
    }
}
