//! Turns on the cores for runs held at once (`compare`): at most `cores`
//! runs compute at a time, and a run that gets ahead of a waiting one by
//! more than `slack` of its requests gives its core to the run furthest
//! behind. Runs of unequal cost then advance at the same fraction of their
//! requests and finish together, where runs started two by two leave a core
//! idle at the end, and four runs left to the OS at once evict each other's
//! caches every few milliseconds. A turn lasts a few percent of a run (tens
//! of milliseconds or more), so its cache refill is small. Each core slot is
//! a CPU, and a computing run is pinned to its slot's CPU (Linux).

use std::sync::{Condvar, Mutex, MutexGuard};

/// Where a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Not started yet, or finished.
    Out,
    /// Waiting for a core.
    Queued,
    /// Computing, on core slot `State::slot[run]`.
    Running,
}

#[derive(Debug)]
struct State {
    /// Fraction of its requests each run has completed.
    progress: Vec<f64>,
    phase: Vec<Phase>,
    /// Core slot of each running run.
    slot: Vec<usize>,
    /// Core slots no run holds.
    free: Vec<usize>,
    /// Thread of each run that has entered (to pin a run handed a core).
    thread: Vec<Option<pin::Thread>>,
}

impl State {
    fn new(runs: usize, cores: usize) -> State {
        State {
            progress: vec![0.0; runs],
            phase: vec![Phase::Out; runs],
            slot: vec![usize::MAX; runs],
            free: (0..cores).rev().collect(),
            thread: vec![None; runs],
        }
    }

    #[cfg(test)]
    fn running(&self) -> usize {
        self.phase.iter().filter(|&&p| p == Phase::Running).count()
    }

    /// The queued run furthest behind (the lowest index among equals).
    fn furthest_behind(&self) -> Option<usize> {
        let queued = (0..self.phase.len()).filter(|&i| self.phase[i] == Phase::Queued);
        queued.min_by(|&a, &b| self.progress[a].total_cmp(&self.progress[b]).then(a.cmp(&b)))
    }

    /// Whether queued `run` holds a core: one was handed to it, or one is
    /// free and its turn has come (then it takes it).
    fn take_core(&mut self, run: usize) -> bool {
        if self.phase[run] == Phase::Running {
            return true;
        }
        if self.furthest_behind() != Some(run) {
            return false;
        }
        let Some(slot) = self.free.pop() else { return false };
        (self.phase[run], self.slot[run]) = (Phase::Running, slot);
        true
    }

    /// Running `run` is at `fraction`: when a queued run is more than
    /// `slack` behind it, `run` is queued and its core handed to the run
    /// furthest behind, which is returned.
    fn report(&mut self, run: usize, fraction: f64, slack: f64) -> Option<usize> {
        self.progress[run] = fraction;
        let behind = self.furthest_behind().filter(|&j| self.progress[j] + slack < fraction)?;
        self.phase[run] = Phase::Queued;
        self.hand(self.slot[run], behind);
        Some(behind)
    }

    /// `run` gives up its core for good (it ended, or will not start): the
    /// core goes to the queued run furthest behind (returned), or is freed.
    fn leave(&mut self, run: usize) -> Option<usize> {
        let was = std::mem::replace(&mut self.phase[run], Phase::Out);
        if was != Phase::Running {
            return None;
        }
        match self.furthest_behind() {
            Some(j) => {
                self.hand(self.slot[run], j);
                Some(j)
            }
            None => {
                self.free.push(self.slot[run]);
                None
            }
        }
    }

    fn hand(&mut self, slot: usize, to: usize) {
        (self.phase[to], self.slot[to]) = (Phase::Running, slot);
    }
}

/// The turns of `runs` runs on `cores` cores.
#[derive(Debug)]
pub struct Turns {
    slack: f64,
    /// The CPU of each core slot, when runs are pinned to their cores (a
    /// run handed a core then starts on it at once, where the OS may wake
    /// it on the busy core it last ran on and leave the freed one idle for
    /// tens of milliseconds).
    cpus: Option<Vec<usize>>,
    /// Every CPU the process may use (a thread's own set after its turns).
    all: Vec<usize>,
    state: Mutex<State>,
    wake: Condvar,
}

impl Turns {
    /// Turns for runs `0..runs` on `cores` cores (at least 1); a run yields
    /// once it is `slack` (a fraction of its requests) ahead of a waiting
    /// run. Each core slot is one of the CPUs the process may use, where the
    /// system says which (Linux).
    pub fn new(runs: usize, cores: usize, slack: f64) -> Turns {
        let cores = cores.max(1);
        let all = pin::allowed();
        let cpus = (all.len() >= cores).then(|| all[..cores].to_vec());
        Turns { slack, cpus, all, state: Mutex::new(State::new(runs, cores)), wake: Condvar::new() }
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
    /// no run waits for it any more, and a core handed to it moves on.
    pub fn withdraw(&self, run: usize) {
        let mut s = self.lock();
        let next = s.leave(run);
        self.hand_over(&s, next);
    }

    /// Run `run` starts: returns once it has a core. The core is given back
    /// when the returned guard drops (the run ended, or failed).
    pub fn enter(&self, run: usize) -> Turn<'_> {
        let mut s = self.lock();
        if s.phase[run] != Phase::Running {
            s.phase[run] = Phase::Queued;
        }
        s.thread[run] = Some(pin::Thread::current());
        self.wait_for_core(s, run);
        Turn { turns: self, run }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A run that panicked holding the lock left consistent state (every
        // update is one assignment).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits (queued) until `run` holds a core, then runs on it.
    fn wait_for_core(&self, mut s: MutexGuard<'_, State>, run: usize) {
        while !s.take_core(run) {
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        let slot = s.slot[run];
        // Another core may be free for the next run behind.
        self.wake.notify_all();
        drop(s);
        self.pin(pin::Thread::current(), slot);
    }

    /// Wakes the waiting runs after a core was given up; the run it was
    /// handed to (`handed`) is first pinned to that core's CPU, so that it
    /// wakes there.
    fn hand_over(&self, s: &State, handed: Option<usize>) {
        if let Some((t, slot)) = handed.and_then(|j| Some((s.thread[j]?, s.slot[j]))) {
            self.pin(t, slot);
        }
        self.wake.notify_all();
    }

    /// Lets `thread` run only on core slot `slot`'s CPU (when pinning).
    fn pin(&self, thread: pin::Thread, slot: usize) {
        if let Some(cpus) = &self.cpus {
            pin::set(thread, &cpus[slot..=slot]);
        }
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
        if let Some(next) = s.report(self.run, fraction, t.slack) {
            t.hand_over(&s, Some(next));
            t.wait_for_core(s, self.run);
        }
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let t = self.turns;
        let mut s = t.lock();
        let next = s.leave(self.run);
        s.thread[self.run] = None;
        t.hand_over(&s, next);
        drop(s);
        if t.cpus.is_some() {
            // The worker goes on (writing its report) on any CPU.
            pin::set(pin::Thread::current(), &t.all);
        }
    }
}

/// Pinning threads to CPUs, where the system offers it (Linux); elsewhere
/// nothing is pinned and the turns work the same.
mod pin {
    /// A thread, as the system names it.
    #[derive(Debug, Clone, Copy)]
    pub struct Thread(#[cfg_attr(not(target_os = "linux"), allow(dead_code))] i32);

    #[cfg(target_os = "linux")]
    impl Thread {
        pub fn current() -> Thread {
            // SAFETY: gettid has no preconditions.
            Thread(unsafe { libc::gettid() })
        }
    }

    /// The CPUs this process may run on, in order.
    #[cfg(target_os = "linux")]
    pub fn allowed() -> Vec<usize> {
        // SAFETY: a zeroed cpu_set_t is a valid empty set, and the size
        // passed is its own.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
                return Vec::new();
            }
            (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
        }
    }

    /// Lets `thread` run only on `cpus` (best effort: a refusal leaves it
    /// where the OS puts it, which costs time, not correctness).
    #[cfg(target_os = "linux")]
    pub fn set(thread: Thread, cpus: &[usize]) {
        // SAFETY: as in `allowed`; CPU_SET is given CPUs below CPU_SETSIZE.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
                libc::CPU_SET(c, &mut set);
            }
            libc::sched_setaffinity(thread.0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }

    #[cfg(not(target_os = "linux"))]
    impl Thread {
        pub fn current() -> Thread {
            Thread(0)
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn allowed() -> Vec<usize> {
        Vec::new()
    }

    #[cfg(not(target_os = "linux"))]
    pub fn set(_: Thread, _: &[usize]) {}
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
        let mut s = State::new(4, 2);
        s.phase.fill(Phase::Queued);
        let mut done = [0u32; 4];
        let mut ticks = 0;
        let mut last_done = [0u32; 4];
        while done.iter().zip(&steps).any(|(d, n)| d < n) {
            while let Some(j) = s.furthest_behind() {
                if !s.take_core(j) {
                    break;
                }
            }
            assert!(s.running() <= 2);
            ticks += 1;
            // The runs computing this tick (a core handed on takes effect next tick).
            let running: Vec<usize> = (0..4).filter(|&r| s.phase[r] == Phase::Running).collect();
            for run in running {
                done[run] += 1;
                if done[run] == steps[run] {
                    s.leave(run);
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

    /// A core given up goes straight to the queued run furthest behind,
    /// and one handed to a run that then leaves without computing moves
    /// on: no core is lost and none is held twice.
    #[test]
    fn a_core_is_handed_on_never_lost() {
        let mut s = State::new(3, 1);
        s.phase.fill(Phase::Queued);
        assert!(s.take_core(0));
        assert!(!s.take_core(1), "one core, already taken");
        assert_eq!(s.report(0, 0.05, 0.1), None, "within the slack");
        assert_eq!(s.report(0, 0.5, 0.1), Some(1), "the furthest behind (first among equals) gets it");
        assert_eq!((s.phase[0], s.phase[1]), (Phase::Queued, Phase::Running));
        assert!(s.take_core(1) && !s.take_core(0) && !s.take_core(2));
        assert_eq!(s.leave(1), Some(2), "run 2 (at 0) is behind run 0 (at 0.5)");
        assert_eq!(s.leave(2), Some(0));
        assert_eq!(s.leave(0), None);
        assert_eq!(s.free, vec![0], "the core is free again");
        assert_eq!(s.leave(0), None, "leaving twice frees nothing");
        assert_eq!(s.free, vec![0]);
    }

    /// Runs compute pinned to their core's CPU, never two on one, and a
    /// run's thread may use every CPU again once its turn ends.
    #[cfg(target_os = "linux")]
    #[test]
    fn runs_compute_on_their_cores_cpus_then_anywhere() {
        use super::pin;
        use std::sync::atomic::AtomicBool;
        let all = pin::allowed();
        assert!(!all.is_empty(), "sched_getaffinity names no CPU");
        let cores = all.len().min(2);
        let turns = Turns::new(4, cores, 0.0);
        let busy: Vec<AtomicBool> = (0..cores).map(|_| AtomicBool::new(false)).collect();
        (0..4).for_each(|i| turns.queue(i));
        std::thread::scope(|sc| {
            for run in 0..4 {
                let (turns, busy, all) = (&turns, &busy, &all);
                sc.spawn(move || {
                    let turn = turns.enter(run);
                    for k in 1..=40 {
                        let mine = pin::allowed();
                        assert_eq!(mine.len(), 1, "run {run} computes on {mine:?}, not one CPU");
                        let c = all[..cores].iter().position(|&c| c == mine[0]).expect("one of the cores' CPUs");
                        assert!(!busy[c].swap(true, Ordering::SeqCst), "two runs on CPU {}", mine[0]);
                        std::thread::yield_now();
                        busy[c].store(false, Ordering::SeqCst);
                        turn.progress(k as f64 / 40.0);
                    }
                    drop(turn);
                    assert_eq!(&pin::allowed(), all, "run {run}'s thread is still pinned after its turn");
                });
            }
        });
    }

    /// `queue` makes a run that has not started count as waiting, and
    /// leaves a run that holds a core on it.
    #[test]
    fn queue_marks_only_a_run_not_started() {
        let turns = Turns::new(2, 1, 0.0);
        turns.queue(1);
        assert_eq!(turns.lock().phase, [Phase::Out, Phase::Queued]);
        // Both wait at 0: run 0, the lower index, takes the one core.
        let t = turns.enter(0);
        turns.queue(0);
        assert_eq!(turns.lock().phase, [Phase::Running, Phase::Queued], "queue took run 0's core");
        drop(t);
        assert_eq!(turns.lock().phase, [Phase::Out, Phase::Running], "the core went to run 1");
    }

    /// A run exactly the slack ahead of a waiting one keeps its core; only
    /// more than the slack makes it yield (0.25 and 0.5 are exact in binary).
    #[test]
    fn a_run_yields_only_beyond_the_slack() {
        let mut s = State::new(2, 1);
        s.phase.fill(Phase::Queued);
        assert!(s.take_core(0));
        assert_eq!(s.report(0, 0.25, 0.25), None, "exactly the slack ahead");
        assert_eq!(s.report(0, 0.5, 0.25), Some(1), "more than the slack ahead");
    }

    /// `progress` beyond the slack gives the core to the waiting run at once:
    /// run 1 computes while run 0 is still in its turn's `progress` call,
    /// and run 0 resumes when run 1 ends (the order of events, not timing).
    #[test]
    fn progress_beyond_the_slack_hands_the_core_over() {
        let turns = std::sync::Arc::new(Turns::new(2, 1, 0.0));
        let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        turns.queue(0);
        turns.queue(1);
        let (tx, rx) = std::sync::mpsc::channel();
        let (t, e) = (turns.clone(), events.clone());
        // Run 1 waits: run 0 is queued too, and first among equals.
        let one = std::thread::spawn(move || {
            let _turn = t.enter(1);
            e.lock().unwrap().push("1 computes");
        });
        let (t, e) = (turns.clone(), events.clone());
        // In a thread, so that a run left waiting fails the test, not hangs it.
        std::thread::spawn(move || {
            let turn = t.enter(0);
            e.lock().unwrap().push("0 at half");
            turn.progress(0.5);
            e.lock().unwrap().push("0 resumes");
            drop(turn);
            one.join().unwrap();
            tx.send(()).unwrap();
        });
        assert!(rx.recv_timeout(std::time::Duration::from_secs(10)).is_ok(), "a run never got its core back");
        assert_eq!(*events.lock().unwrap(), ["0 at half", "1 computes", "0 resumes"]);
    }

    /// `pin::allowed` names the CPUs the kernel lists for this thread.
    #[cfg(target_os = "linux")]
    #[test]
    fn allowed_cpus_are_the_kernels_list() {
        let status = std::fs::read_to_string("/proc/thread-self/status").expect("/proc/thread-self/status");
        let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:")).expect("Cpus_allowed_list");
        let mut want = Vec::new();
        for part in list.trim().split(',') {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            want.extend(a.parse::<usize>().unwrap()..=b.parse::<usize>().unwrap());
        }
        assert_eq!(super::pin::allowed(), want, "kernel's list: {list}");
    }

    /// `pin::set` skips a CPU number past the kernel's set (it must not
    /// index past it) and pins to the rest.
    #[cfg(target_os = "linux")]
    #[test]
    fn pinning_skips_cpus_past_the_set() {
        use super::pin;
        let all = pin::allowed();
        std::thread::spawn(move || {
            pin::set(pin::Thread::current(), &[all[0], libc::CPU_SETSIZE as usize]);
            assert_eq!(pin::allowed(), [all[0]]);
        })
        .join()
        .expect("pinning panicked");
    }
}
