//! Turns on the cores for runs held at once (`compare`): at most `cores`
//! runs compute at a time, and a run that gets ahead of a waiting one by
//! more than `slack` of its requests gives its core to the run furthest
//! behind. Runs of unequal cost then advance at the same fraction of their
//! requests and finish together, where runs started two by two leave a core
//! idle at the end, and four runs left to the OS at once evict each other's
//! caches every few milliseconds. A turn lasts a few percent of a run (tens
//! of milliseconds or more), so its cache refill is small.

use std::sync::{Condvar, Mutex, MutexGuard};

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Not started yet, or finished.
    Out,
    /// Waiting for a core.
    Queued,
    /// Computing.
    Running,
}

#[derive(Debug)]
struct State {
    /// Fraction of its requests each run has completed.
    progress: Vec<f64>,
    phase: Vec<Phase>,
}

impl State {
    fn running(&self) -> usize {
        self.phase.iter().filter(|&&p| p == Phase::Running).count()
    }

    /// The queued run furthest behind (the lowest index among equals).
    fn furthest_behind(&self) -> Option<usize> {
        let queued = (0..self.phase.len()).filter(|&i| self.phase[i] == Phase::Queued);
        queued.min_by(|&a, &b| self.progress[a].total_cmp(&self.progress[b]).then(a.cmp(&b)))
    }

    /// Queued `run` takes a core if one is free and its turn has come.
    fn take_core(&mut self, run: usize, cores: usize) -> bool {
        let turn = self.running() < cores && self.furthest_behind() == Some(run);
        if turn {
            self.phase[run] = Phase::Running;
        }
        turn
    }

    /// Running `run` is at `fraction`: it gives up its core (and is queued)
    /// when a queued run is more than `slack` behind it.
    fn report(&mut self, run: usize, fraction: f64, slack: f64) -> bool {
        self.progress[run] = fraction;
        let yields = self.furthest_behind().is_some_and(|j| self.progress[j] + slack < fraction);
        if yields {
            self.phase[run] = Phase::Queued;
        }
        yields
    }
}

/// The turns of `runs` runs on `cores` cores.
#[derive(Debug)]
pub struct Turns {
    cores: usize,
    slack: f64,
    state: Mutex<State>,
    wake: Condvar,
}

impl Turns {
    /// Turns for runs `0..runs` on `cores` cores (at least 1); a run yields
    /// once it is `slack` (a fraction of its requests) ahead of a waiting run.
    pub fn new(runs: usize, cores: usize, slack: f64) -> Turns {
        Turns {
            cores: cores.max(1),
            slack,
            state: Mutex::new(State { progress: vec![0.0; runs], phase: vec![Phase::Out; runs] }),
            wake: Condvar::new(),
        }
    }

    /// Run `run` will start: from now on it counts as waiting (at its
    /// progress), so runs ahead of it yield to it. Only for a run whose
    /// [`Turns::enter`] follows without waiting on anything else.
    pub fn queue(&self, run: usize) {
        let mut s = self.lock();
        if s.phase[run] == Phase::Out {
            s.phase[run] = Phase::Queued;
        }
    }

    /// Queued run `run` will not start after all (an earlier run failed):
    /// no run waits for it any more.
    pub fn withdraw(&self, run: usize) {
        let mut s = self.lock();
        s.phase[run] = Phase::Out;
        self.wake.notify_all();
    }

    /// Run `run` starts: returns once it has a core. The core is given back
    /// when the returned guard drops (the run ended, or failed).
    pub fn enter(&self, run: usize) -> Turn<'_> {
        let mut s = self.lock();
        s.phase[run] = Phase::Queued;
        self.wait_for_core(s, run);
        Turn { turns: self, run }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A run that panicked holding the lock left consistent state (every
        // update is one assignment).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits (queued) until a core is free and `run` is the queued run
    /// furthest behind, then takes the core.
    fn wait_for_core(&self, mut s: MutexGuard<'_, State>, run: usize) {
        while !s.take_core(run, self.cores) {
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        // Another core may be free for the next run behind.
        self.wake.notify_all();
    }
}

/// A run's hold on the turns: report its progress, and the core goes back
/// when it drops.
#[derive(Debug)]
pub struct Turn<'a> {
    turns: &'a Turns,
    run: usize,
}

impl Turn<'_> {
    /// The run has completed `fraction` of its requests: when a waiting run
    /// is more than the slack behind, it gets this core and this run waits
    /// for the next turn.
    pub fn progress(&self, fraction: f64) {
        let t = self.turns;
        let mut s = t.lock();
        if s.report(self.run, fraction, t.slack) {
            t.wake.notify_all();
            t.wait_for_core(s, self.run);
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut s = self.turns.lock();
        s.phase[self.run] = Phase::Out;
        self.turns.wake.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::{Phase, State, Turns};
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Four threads on two turns: never more than two compute at once, and
    /// every run finishes (no turn is lost).
    #[test]
    fn at_most_cores_compute_and_every_run_finishes() {
        let steps = [100u32, 150, 200, 130];
        let turns = Turns::new(steps.len(), 2, 0.05);
        let computing = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let finished = AtomicUsize::new(0);
        let (started, together) = (AtomicUsize::new(0), AtomicUsize::new(0));
        (0..steps.len()).for_each(|i| turns.queue(i));
        std::thread::scope(|s| {
            for (run, &n) in steps.iter().enumerate() {
                let (turns, computing, most, finished) = (&turns, &computing, &most, &finished);
                let (started, together) = (&started, &together);
                s.spawn(move || {
                    let turn = turns.enter(run);
                    // The first two runs hold their turns at once: each sees
                    // the other start (within 10 s).
                    if run < 2 {
                        started.fetch_add(1, Ordering::SeqCst);
                        let t0 = std::time::Instant::now();
                        while started.load(Ordering::SeqCst) < 2 && t0.elapsed().as_secs() < 10 {
                            std::thread::yield_now();
                        }
                        if started.load(Ordering::SeqCst) >= 2 {
                            together.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    for k in 1..=n {
                        let now = computing.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        computing.fetch_sub(1, Ordering::SeqCst);
                        turn.progress(k as f64 / n as f64);
                    }
                    finished.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        assert!(most.load(Ordering::SeqCst) <= 2, "more than two runs computed at once");
        assert_eq!(together.load(Ordering::SeqCst), 2, "the first two runs did not hold turns at once");
        assert_eq!(finished.load(Ordering::SeqCst), 4);
    }

    /// The turns' rule in simulated time: each running run does one step a
    /// tick. Three runs of 100 steps and one of 300 on two cores finish at
    /// total / 2 = 300 ticks (plus the slack), where two workers taking the
    /// runs in order need 100 + 300 = 400.
    #[test]
    fn runs_of_unequal_length_finish_together() {
        let steps = [100u32, 100, 100, 300];
        let mut s = State { progress: vec![0.0; 4], phase: vec![Phase::Queued; 4] };
        let mut done = [0u32; 4];
        let mut ticks = 0;
        let mut last_done = [0u32; 4];
        while done.iter().zip(&steps).any(|(d, n)| d < n) {
            while let Some(j) = s.furthest_behind() {
                if !s.take_core(j, 2) {
                    break;
                }
            }
            assert!(s.running() <= 2);
            ticks += 1;
            for run in 0..4 {
                if s.phase[run] != Phase::Running {
                    continue;
                }
                done[run] += 1;
                if done[run] == steps[run] {
                    s.phase[run] = Phase::Out;
                    last_done[run] = ticks;
                } else {
                    s.report(run, done[run] as f64 / steps[run] as f64, 0.02);
                }
            }
            assert!(ticks < 1000, "the runs never finish");
        }
        let first = *last_done.iter().min().unwrap();
        assert!(ticks <= 306, "finished after {ticks} ticks, not about 300");
        assert!(first >= 290, "a run finished at {first}, long before the others ({last_done:?})");
    }

    /// A queued run that is withdrawn (its worker stopped after a failure)
    /// is no longer waited for: the run ahead of it goes on alone.
    #[test]
    fn a_withdrawn_run_is_not_waited_for() {
        let turns = std::sync::Arc::new(Turns::new(2, 1, 0.0));
        turns.queue(0);
        turns.queue(1);
        turns.withdraw(1);
        let (tx, rx) = std::sync::mpsc::channel();
        let t = turns.clone();
        // In a thread, so that a run left waiting fails the test, not hangs it.
        std::thread::spawn(move || {
            let turn = t.enter(0);
            for k in 1..=10 {
                turn.progress(k as f64 / 10.0);
            }
            tx.send(()).unwrap();
        });
        let r = rx.recv_timeout(std::time::Duration::from_secs(10));
        assert!(r.is_ok(), "run 0 waits for the withdrawn run 1");
    }

    /// One core: the runs alternate, each finishing; a run alone never waits.
    #[test]
    fn one_core_and_a_single_run_finish() {
        let turns = Turns::new(1, 1, 0.01);
        let t = turns.enter(0);
        for k in 1..=10 {
            t.progress(k as f64 / 10.0);
        }
        drop(t);
        let turns = Turns::new(3, 1, 0.0);
        std::thread::scope(|s| {
            for run in 0..3 {
                let turns = &turns;
                s.spawn(move || {
                    let t = turns.enter(run);
                    for k in 1..=50 {
                        t.progress(k as f64 / 50.0);
                    }
                });
            }
        });
    }
}
