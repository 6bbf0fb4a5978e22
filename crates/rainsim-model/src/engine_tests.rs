use super::*;

/// The wheel's span: events further ahead than this wait in the far heap.
const SPAN: u64 = 1 << (SLOT_BITS + WHEEL_BITS);

/// Schedules `n` events at `now + delay(x)` for a pseudo-random x (from
/// `seed`); after each, when `pop(x)`, pops one, which must be the
/// smallest (time, id) pending; `peek_every` checks the earliest time
/// after every push and pop, otherwise just before each pop. Then drains.
fn interleave(seed: u64, n: u32, delay: impl Fn(u64) -> u64, pop: impl Fn(u64) -> bool, peek_every: bool) {
    let mut q = EventQueue::default();
    let mut pending: Vec<(u64, u32)> = Vec::new();
    let earliest = |p: &[(u64, u32)]| p.iter().min().map(|m| m.0);
    let mut x = seed;
    for id in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let t = q.now() + delay(x);
        q.at(t, id);
        pending.push((t, id));
        if peek_every {
            assert_eq!(q.peek_time(), earliest(&pending), "after scheduling {id} at {t}");
        }
        if pop(x) {
            assert_eq!(q.peek_time(), earliest(&pending), "peek sees the earliest time, on the wheel or far");
            let min = *pending.iter().min().unwrap();
            assert_eq!(q.pop(), Some(min));
            pending.retain(|&p| p != min);
            if peek_every {
                assert_eq!(q.peek_time(), earliest(&pending));
            }
        }
        assert_eq!(q.len(), pending.len());
    }
    while let Some(e) = q.pop() {
        let min = *pending.iter().min().unwrap();
        assert_eq!(e, min);
        pending.retain(|&p| p != min);
    }
    assert!(pending.is_empty() && q.is_empty() && q.peek_time().is_none());
}

/// Ranked events (a group's devices sharing one queue) pop by time,
/// then rank, then schedule order within a rank, wherever they sit
/// (one slot, across slots, the far heap), mixed with unranked ones
/// (rank 0) and pops; checked against a sort by (time, rank, order).
#[test]
fn ranked_events_pop_by_time_then_rank_then_schedule_order() {
    let mut q = EventQueue::default();
    let mut pending: Vec<(u64, u16, u32)> = Vec::new();
    let mut x: u64 = 2024;
    for id in 0..30_000u32 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // Few distinct times (many ties), some far beyond the wheel.
        let delay = ((x >> 40) % 8) * [1, 4096, 1 << 25][(x >> 61) as usize % 3];
        let (t, rank) = (q.now() + delay, ((x >> 20) % 5) as u16);
        if rank == 0 {
            q.at(t, id);
        } else {
            q.at_ranked(t, rank, id);
        }
        pending.push((t, rank, id));
        if (x >> 30).is_multiple_of(3) {
            let min = *pending.iter().min().unwrap();
            assert_eq!(q.pop(), Some((min.0, min.2)), "after scheduling {id}");
            pending.retain(|&p| p != min);
        }
    }
    pending.sort();
    let rest: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(rest, pending.iter().map(|p| (p.0, p.2)).collect::<Vec<_>>());
}

/// In outbox mode events are collected in schedule order (at no
/// earlier than now, times past the limit tracked) and nothing is queued.
fn drained(q: &mut EventQueue<char>) -> Vec<(SimTime, char)> {
    let mut v = Vec::new();
    q.drain_outbox(|t, e| v.push((t, e)));
    v
}

#[test]
fn an_outbox_collects_events_in_order_and_queues_none() {
    let mut q = EventQueue::default();
    q.use_outbox();
    q.advance_to(100);
    q.at(300, 'a');
    q.at(100, 'b');
    q.at(200, 'c');
    assert!(q.is_empty() && q.peek_time().is_none());
    assert_eq!(q.overrun(), 0, "no time at or past the limit");
    assert_eq!(drained(&mut q), [(300, 'a'), (100, 'b'), (200, 'c')]);
    assert_eq!(drained(&mut q), [], "taken once");
    q.at(150, 'd');
    assert_eq!(drained(&mut q), [(150, 'd')]);
    q.at(TIME_LIMIT_NS + 7, 'x');
    assert_eq!(q.overrun(), TIME_LIMIT_NS + 7, "tracked in outbox mode too");
}

#[test]
fn times_at_or_past_the_limit_are_tracked() {
    let mut q = EventQueue::default();
    q.at(10, 'a');
    assert_eq!(q.overrun(), 0);
    q.at(TIME_LIMIT_NS, 'b');
    assert_eq!(q.overrun(), TIME_LIMIT_NS, "the limit itself is allowed");
    q.at(TIME_LIMIT_NS + 1, 'c');
    q.at(20, 'd');
    q.at(TIME_LIMIT_NS - 1, 'e');
    assert_eq!(q.overrun(), TIME_LIMIT_NS + 1);
    assert!(q.overrun() > TIME_LIMIT_NS, "the run loop sees the limit passed");
}

/// A time before now can only come from a wrapped addition: it is recorded
/// as `SimTime::MAX` (the run stops), and the event is kept at now. Called
/// past `note_time`, whose debug assertion stops a debug build at the
/// scheduling itself; a release build takes this path.
#[test]
fn a_time_before_now_is_recorded_as_a_wrap() {
    let mut q = EventQueue::default();
    q.at(100, 'a');
    assert_eq!(q.pop(), Some((100, 'a')));
    assert_eq!(q.note_overrun(TIME_LIMIT_NS + 7), TIME_LIMIT_NS + 7);
    assert_eq!(q.overrun(), TIME_LIMIT_NS + 7);
    assert_eq!(q.note_overrun(99), 100, "kept at now");
    assert_eq!(q.overrun(), SimTime::MAX, "a wrap outranks any time past the limit");
    assert_eq!(q.note_overrun(TIME_LIMIT_NS + 9), TIME_LIMIT_NS + 9);
    assert_eq!(q.overrun(), SimTime::MAX, "and stays recorded");
    // At now is not before now, even at the limit.
    let mut q = EventQueue::<char>::default();
    q.advance_to(TIME_LIMIT_NS);
    assert_eq!(q.note_overrun(TIME_LIMIT_NS), TIME_LIMIT_NS);
    assert_eq!(q.overrun(), TIME_LIMIT_NS);
}

/// Where an event waits: within the wheel's span (2^24 ns ahead of the
/// current slot) on the wheel, beyond it in the far heap, wherever the
/// clock stands (here past several turns of the wheel). Order does not
/// tell the two apart; the speed of the common case does.
#[test]
fn near_events_go_on_the_wheel_and_far_ones_in_the_heap() {
    let mut q = EventQueue::default();
    assert!(q.is_empty());
    q.at(5 * SPAN + 123, 'a');
    assert_eq!((q.on_wheel, q.far.len()), (0, 1), "beyond the span from time 0");
    assert!(!q.is_empty() && q.len() == 1, "an event in the far heap is pending");
    assert_eq!(q.pop(), Some((5 * SPAN + 123, 'a')));
    q.at(q.now() + 1_000, 'b');
    q.at(q.now() + SPAN / 2, 'c');
    assert_eq!((q.on_wheel, q.far.len()), (2, 0), "both within the span from now");
    q.at(q.now() + 2 * SPAN, 'd');
    assert_eq!((q.on_wheel, q.far.len()), (2, 1));
    let order: Vec<char> = std::iter::from_fn(|| q.pop()).map(|e| e.1).collect();
    assert_eq!(order, ['b', 'c', 'd']);
}

/// The scan for the next busy slot starts at the current one and runs
/// round the wheel: a slot just behind the current one in its own bitmap
/// word holds an event almost a full turn ahead, so a busy slot in the
/// next word comes first; with nothing else, the wrapped one is found.
#[test]
fn the_scan_goes_round_the_wheel_from_the_current_slot() {
    let slot = |s: u64| s << SLOT_BITS;
    let (cur, turn) = (64 * 3 + 10, SLOTS as u64);
    let mut q = EventQueue::default();
    q.advance_to(slot(cur));
    assert_eq!(q.now(), slot(cur));
    q.at(slot(cur + turn - 5), 'w'); // index 64 * 3 + 5: word 3, behind bit 10
    q.at(slot(64 * 4 + 1), 'n'); // word 4
    q.at(slot(64 * 3 + 12), 'm'); // word 3, ahead of bit 10
    let order: Vec<char> = std::iter::from_fn(|| q.pop()).map(|e| e.1).collect();
    assert_eq!(order, ['m', 'n', 'w']);
    // From a word with nothing after it in the bitmap: the words before it.
    let mut q = EventQueue::default();
    let cur = 64 * 63 + 60;
    q.advance_to(slot(cur));
    q.at(slot(cur + turn - 2), 'w'); // word 63, behind bit 60
    q.at(slot(cur + 100), 'b'); // index 4,192 − 4,096 = 96: word 1
    let order: Vec<char> = std::iter::from_fn(|| q.pop()).map(|e| e.1).collect();
    assert_eq!(order, ['b', 'w']);
}

/// An emptied queue's clock goes back to a given time (events dropped
/// unhandled do not move it), and events scheduled from there pop in order,
/// on the wheel from the new time's slot.
#[test]
fn an_empty_queue_rewinds_its_clock() {
    let mut q = EventQueue::default();
    q.at(10 * SPAN, 'x');
    assert_eq!(q.pop(), Some((10 * SPAN, 'x')));
    q.rewind_empty(3 * SPAN + 50);
    assert_eq!(q.now(), 3 * SPAN + 50);
    q.at(3 * SPAN + 900, 'b');
    q.at(3 * SPAN + 60, 'a');
    assert_eq!((q.on_wheel, q.far.len()), (2, 0), "near the rewound clock: on the wheel");
    let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(order, [(3 * SPAN + 60, 'a'), (3 * SPAN + 900, 'b')]);
}

/// The earliest event, once found, is remembered (no search at the next
/// peek or pop) and replaced by an earlier one scheduled after it, on the
/// wheel or in the far heap; a later one leaves it.
#[test]
fn the_remembered_head_is_the_earliest_event() {
    let mut q = EventQueue::default();
    q.at(3 * SPAN, 'a');
    assert_eq!(q.peek_time(), Some(3 * SPAN));
    let key = |q: &EventQueue<char>| (q.head_key.get() >> 64) as SimTime;
    q.at(2 * SPAN, 'b');
    assert_eq!((key(&q), q.head_at.get()), (2 * SPAN, FAR), "an earlier far event");
    q.at(500, 'c');
    assert_eq!(key(&q), 500, "an earlier event on the wheel");
    q.at(700, 'd');
    assert_eq!(key(&q), 500, "a later one leaves it");
    let order: Vec<char> = std::iter::from_fn(|| q.pop()).map(|e| e.1).collect();
    assert_eq!(order, ['c', 'd', 'b', 'a']);
}

#[test]
fn pops_in_time_then_schedule_order() {
    let mut q = EventQueue::default();
    q.at(10, 'a');
    q.at(5, 'b');
    q.at(10, 'c');
    q.at(5, 'd');
    let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
    assert_eq!(order, vec![(5, 'b'), (5, 'd'), (10, 'a'), (10, 'c')]);
    assert_eq!(q.now(), 10);
}

#[test]
fn matches_a_sort_by_time_then_insertion_on_random_interleavings() {
    // 0..1023 ns ahead, many ties; a pop after every third push or so.
    interleave(12345, 5000, |x| x >> 54, |x| x.is_multiple_of(3), false);
}

#[test]
fn a_remembered_head_gives_way_to_an_earlier_event() {
    // Peek after every push and pop, so the remembered earliest event
    // must be replaced by earlier ones, kept by later ones and found
    // again after a pop, on the wheel and in the far heap (up to ~0.3 s).
    interleave(7, 20_000, |x| ((x >> 33) % 1_000_000) * (1 + (x >> 62) * 300), |x| (x >> 17) % 5 < 2, true);
}

#[test]
fn wheel_and_far_heap_keep_global_order() {
    // Delays from nanoseconds to seconds cross slots, wrap the wheel and
    // land in the far heap; equal times (common) must still pop in
    // schedule order.
    let scales = [1u64, 1 << 10, 1 << 14, 1 << 20, 1 << 24, 1 << 30];
    interleave(
        99,
        20_000,
        |x| ((x >> 40) % 4) * scales[(x >> 61) as usize % scales.len()],
        |x| (x >> 20).is_multiple_of(2),
        false,
    );
}

/// The process's CPU clock, which `bench` divides by: it only runs
/// forward, by nanoseconds (not the 10 ms ticks of `/proc`, the fallback),
/// and spinning 20 ms of CPU moves it by about that much (at least the
/// spin; less than ten times it, whatever else the test binary's threads
/// do meanwhile). Every wait is bounded by the wall clock, so that a clock
/// that stands still fails instead of hanging.
#[test]
fn cpu_seconds_is_this_process_in_fine_steps() {
    let wall = std::time::Instant::now();
    let within = |limit: f64| wall.elapsed().as_secs_f64() < limit;
    let spin = |secs: f64| {
        let (start, mut x) = (cpu_seconds(), 1u64);
        while cpu_seconds() - start < secs && within(5.0) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        x
    };
    spin(0.001);
    let before = cpu_seconds();
    assert!(before > 0.0, "a process that has run has used CPU: {before}");
    // The first step of the clock seen from here: under a millisecond.
    let mut next = cpu_seconds();
    while next == before && within(5.0) {
        next = cpu_seconds();
    }
    assert!(next > before && next - before < 1e-3, "a step of {} s", next - before);
    let (start, from) = (cpu_seconds(), wall.elapsed().as_secs_f64());
    spin(0.02);
    let (used, elapsed) = (cpu_seconds() - start, wall.elapsed().as_secs_f64() - from);
    assert!((0.02..0.2).contains(&used), "20 ms of spinning counted as {used} s");
    // A process's CPU time is at most its wall time on every core.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    assert!(used <= cores * elapsed + 0.01, "{used} s of CPU in {elapsed} s on {cores} cores");
}

/// A `timespec` of whole and part seconds.
#[test]
fn a_timespec_is_its_seconds_plus_its_nanoseconds() {
    assert_eq!(seconds(2.0, 5e8), 2.5);
    assert_eq!(seconds(0.0, 1.0), 1e-9);
    assert_eq!(seconds(3.0, 0.0), 3.0);
}

/// The `/proc/PID/stat` fallback: utime and stime (fields 14 and 15) in
/// ticks of 10 ms, counted after the last ')' (a command name may hold
/// blanks and parentheses); a line without them gives 0.
#[test]
fn a_proc_stat_line_gives_user_plus_system_time() {
    let line = "4242 (my (odd) cmd) R 1 4242 4242 0 -1 4194304 120 0 0 0 250 37 0 0 20 0 1 0 99 1000 50";
    assert_eq!(stat_cpu_seconds(line), 2.87);
    let plain = "7 (rainsim) S 1 7 7 0 -1 0 0 0 0 0 1 2 0 0 20 0 1 0 5 6 7";
    assert_eq!(stat_cpu_seconds(plain), 0.03);
    assert_eq!(stat_cpu_seconds("7 (rainsim) S 1 7"), 0.0, "too few fields");
    assert_eq!(stat_cpu_seconds("no parenthesis 1 2 3 4 5 6 7 8 9 10 11 12 13"), 0.0);
}
