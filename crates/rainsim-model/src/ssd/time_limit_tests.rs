//! The run loop's time limit: an event at 2^63 ns still runs; one beyond it
//! stops the run with an error naming the time reached.

use super::{Ev, Ssd};
use crate::config::Config;
use crate::engine::TIME_LIMIT_NS;
use crate::metrics::observer::NullObserver;

fn device() -> Ssd<NullObserver> {
    let mut c = Config::default();
    let g = &mut c.geometry;
    (g.channels, g.chips_per_channel, g.dies_per_chip, g.planes_per_die) = (1, 1, 1, 1);
    (g.blocks_per_plane, g.pages_per_block) = (16, 16);
    c.raid.level = crate::config::RaidLevel::None;
    Ssd::new(&c, NullObserver, false).unwrap()
}

#[test]
fn an_event_beyond_2_pow_63_ns_stops_the_run_naming_the_time() {
    let mut ssd = device();
    let mut none = std::iter::empty();
    // An idle check with a stale stamp does nothing: only its time matters.
    ssd.q.at(TIME_LIMIT_NS, Ev::Idle(u32::MAX));
    assert!(ssd.step(&mut none).unwrap(), "an event at the limit runs");
    ssd.q.at(TIME_LIMIT_NS + 1, Ev::Idle(u32::MAX));
    let e = ssd.step(&mut none).unwrap_err().to_string();
    assert!(e.contains(&format!("simulated time reached {} ns, beyond the 2^63 ns", TIME_LIMIT_NS + 1)), "{e}");
}
