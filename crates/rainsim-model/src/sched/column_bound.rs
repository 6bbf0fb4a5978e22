//! Column-bound scheduling (rotating GC): a program may only go to the die
//! column its stripe is bound to, so each channel-local die gets its own
//! scheduler of the configured kind, holding its reads and the programs of
//! its column. Service order inside a die is the inner scheduler's.

use super::die_bound::{Binding, DieBound};
use super::Sched;
use crate::raid::stripe::StripeLayout;

/// `per_die[d]` serves die `d`; `stripes` must have columns bound.
pub fn column_bound(per_die: Vec<Sched>, stripes: StripeLayout) -> DieBound {
    DieBound::new(per_die, Binding::Column(stripes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::op::FlashOp;
    use crate::flash::op::Origin;
    use crate::sched::ChannelScheduler;
    use crate::sched::SchedulerKind;

    fn op(chunk: u32, seq: u32, origin: Origin) -> FlashOp {
        FlashOp { chunk, owner: crate::flash::op::tests_owner(origin), enqueued: 0, ppn: 0, seq }
    }

    /// 8 channels, 4-wide stripes, 2 columns: stripes 0–7 (a period of two
    /// stripes at each of the four parity positions) on die 0, 8–15 on die 1.
    #[test]
    fn programs_wait_for_their_column() {
        let l = StripeLayout::new(8, 4, true, 100).with_columns(2);
        let per_die = (0..2).map(|_| SchedulerKind::Fifo.build(1, true)).collect();
        let mut s = column_bound(per_die, l);
        s.push_write(op(8 * 4, 1, Origin::HostProgram)); // stripe 8 → die 1
        s.push_write(op(4 + 1, 2, Origin::HostProgram)); // stripe 1 → die 0
        s.push_read(1, op(99, 3, Origin::HostRead));
        assert_eq!((s.writes_queued(), s.reads_queued(), s.reads_queued_for(1)), (2, 1, 1));
        assert_eq!(s.pop_for(0, true).map(|o| o.seq), Some(2));
        assert!(s.pop_for(0, true).is_none(), "die 0 takes no program of column 1");
        assert_eq!(s.pop_for(1, false).map(|o| o.seq), Some(3));
        assert!(s.pop_for(1, false).is_none(), "a full die takes no program");
        assert_eq!(s.pop_for(1, true).map(|o| o.seq), Some(1));
        assert_eq!(s.writes_queued() + s.reads_queued(), 0);
    }
}
