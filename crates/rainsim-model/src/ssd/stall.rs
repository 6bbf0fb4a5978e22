//! Why a run stalled: the channel whose queued programs no die can take, or
//! the die whose bound programs no other die may take.

use crate::flash::address::Layout;
use rainsim_trace::stats::counted;

/// The first channel with programs queued whose every die is without room
/// (nothing left to collect: the channel is full of valid data), with how
/// many programs wait on it.
pub(crate) fn full_channel(
    layout: &Layout,
    writes_queued: impl Fn(u32) -> u32,
    die_takes_writes: impl Fn(u32) -> bool,
) -> Option<(u32, u32)> {
    (0..layout.channels).find_map(|ch| {
        let first = layout.first_die(ch);
        let waiting = writes_queued(ch);
        let full = (first..first + layout.dies_per_channel).all(|d| !die_takes_writes(d));
        (waiting > 0 && full).then_some((ch, waiting))
    })
}

/// The first die without room that has programs bound to it queued
/// (allocation or rotating GC binding a chunk to one die, which no other die
/// of the channel may take), with how many wait for it: its channel has room
/// elsewhere, but not for them.
pub(crate) fn full_die(
    layout: &Layout,
    writes_queued_for: impl Fn(u32, u32) -> u32,
    die_takes_writes: impl Fn(u32) -> bool,
) -> Option<(u32, u32)> {
    (0..layout.channels).find_map(|ch| {
        let first = layout.first_die(ch);
        (0..layout.dies_per_channel).find_map(|local| {
            let waiting = writes_queued_for(ch, local);
            (waiting > 0 && !die_takes_writes(first + local)).then_some((first + local, waiting))
        })
    })
}

/// Why a channel holding replicated chunks is full: their copies.
pub(crate) fn replicated_cause(replicated: u64, high: u64, most: u64) -> String {
    format!(
        "{} replicated, each as two copies beside its old slot (kept under the parity) until it converts back; \
         conversions start above policy.replicas.high_water = {} and the table holds up to {most}: lower \
         policy.replicas.high_water, raise geometry.over_provisioning or lower precondition.valid",
        counted(replicated, "chunk is", "chunks are"),
        counted(high, "replicated chunk", "replicated chunks")
    )
}

/// The run stalled with requests unfinished, and no channel or die is full.
pub(crate) fn ran_dry(admitted: u64, completed: u64, outstanding: u64, held: u64) -> String {
    format!(
        "{} admitted but {completed} completed ({outstanding} outstanding, {held} held) when the event queue ran dry",
        counted(admitted, "request", "requests")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts of one take the singular.
    #[test]
    fn stall_messages_agree_with_their_counts() {
        let one = replicated_cause(1, 1, 8);
        assert!(one.starts_with("1 chunk is replicated, each as two copies"), "{one}");
        assert!(one.contains("high_water = 1 replicated chunk and the table"), "{one}");
        let two = replicated_cause(2, 4, 8);
        assert!(two.starts_with("2 chunks are replicated, each as two copies"), "{two}");
        assert!(two.contains("high_water = 4 replicated chunks and the table"), "{two}");
        assert!(ran_dry(1, 0, 1, 0).starts_with("1 request admitted but 0 completed (1 outstanding"));
        assert!(ran_dry(3, 1, 2, 0).starts_with("3 requests admitted but 1 completed (2 outstanding"));
    }

    /// Four channels of two dies (dies 2ch and 2ch + 1).
    fn layout() -> Layout {
        Layout::of(4, 2, 1, 8, 8, 4096)
    }

    #[test]
    fn a_full_channel_with_nothing_queued_is_not_the_one_named() {
        // Channels 0 and 1 are full; only channel 1 has programs waiting.
        let queued = |ch: u32| if ch == 1 { 3 } else { 0 };
        let room = |d: u32| d >= 4;
        assert_eq!(full_channel(&layout(), queued, room), Some((1, 3)));
    }

    #[test]
    fn only_the_channels_own_dies_decide_whether_it_is_full() {
        // Channel 2's dies (4, 5) are full with 5 programs waiting; die 6, in
        // channel 3, has room and must not count for channel 2.
        let queued = |ch: u32| if ch == 2 { 5 } else { 0 };
        let room = |d: u32| !(4..6).contains(&d);
        assert_eq!(full_channel(&layout(), queued, room), Some((2, 5)));
        // A channel with one die that has room is not full.
        let room = |d: u32| d != 4;
        assert_eq!(full_channel(&layout(), queued, room), None);
    }

    #[test]
    fn a_full_die_is_named_only_with_programs_waiting_for_it() {
        // Die 5 (channel 2, local 1) is full with 2 programs bound to it;
        // die 3 is full too but nothing waits for it.
        let queued = |ch: u32, local: u32| if (ch, local) == (2, 1) { 2 } else { 0 };
        let room = |d: u32| d != 3 && d != 5;
        assert_eq!(full_die(&layout(), queued, room), Some((5, 2)));
        // With room on die 5 nothing is full.
        assert_eq!(full_die(&layout(), queued, |d: u32| d != 3), None);
    }
}
