//! Static channel-first allocation (vios-variation-aware-scheduler Eq. 1,
//! `ftl.allocation = "static-channel-first"`): every chunk is programmed on
//! one fixed die of its channel, so each channel-local die gets its own
//! scheduler of the configured kind holding its reads and the programs bound
//! to it. Chunk c lives on channel c mod C (`raid/stripe.rs`, parity or
//! not) and is bound to die ⌊c / C⌋ mod (dies per channel) of it: chip
//! μ = c mod ChipNum of Eq. 1, which without parity (`raid.level = "none"`,
//! chunk = logical page) is Eq. 1 exactly.

use super::die_bound::{Binding, DieBound};
use super::Sched;

/// `per_die[d]` serves die `d` of a channel of a `channels`-channel device;
/// programs are bound by chunk (Eq. 1).
pub fn chip_bound(per_die: Vec<Sched>, channels: u32) -> DieBound {
    DieBound::new(per_die, Binding::Chip { channels })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::op::FlashOp;
    use crate::flash::op::Origin;
    use crate::sched::ChannelScheduler;
    use crate::sched::SchedulerKind;

    fn op(chunk: u32) -> FlashOp {
        FlashOp { chunk, owner: crate::flash::op::tests_owner(Origin::HostProgram), enqueued: 0, ppn: 0, seq: chunk }
    }

    /// 8 channels × 8 dies without parity: chunk (logical page) 17 is chip
    /// 17 of Eq. 1, on channel 1, die ⌊17/8⌋ = 2 of it; 81 wraps to chip 17.
    #[test]
    fn programs_wait_for_their_eq_1_die_only() {
        let per_die = (0..8).map(|_| SchedulerKind::Fifo.build(1, true)).collect();
        let mut s = chip_bound(per_die, 8);
        assert_eq!((s.die_of(17), s.die_of(81), s.die_of(7)), (2, 2, 0));
        s.push_write(op(17));
        s.push_write(op(81));
        assert_eq!((s.writes_queued(), s.writes_queued_for(2), s.writes_queued_for(0)), (2, 2, 0));
        assert!(s.pop_for(0, true).is_none(), "die 0 does not take die 2's programs");
        assert_eq!(s.pop_for(2, true).map(|o| o.chunk), Some(17));
        assert_eq!(s.pop_for(2, true).map(|o| o.chunk), Some(81));
    }
}
