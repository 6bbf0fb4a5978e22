//! `rainsim compare`: several schemes or `--set` variants on one workload,
//! run side by side on every core (each run is independent and
//! deterministic, so the reports do not depend on the number of jobs).
//! The runs are all single devices or all arrays (`[array]`, e.g. one
//! `array.allocation` per variant).

use crate::commands::{out, resolve_labelled, simulate, simulate_array, warn_detection, write_report};
use crate::{interrupt, Setup};
use rainsim::workload::{self, Workload};
use rainsim::{budget, summary, turns, RunReport};
use rainsim_model::Config;
use rainsim_trace::stats::counted;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

type Res = Result<(), Box<dyn std::error::Error>>;
type RunResult = Result<RunReport, String>;

/// How far (a fraction of its requests) a run may get ahead of a waiting
/// one before it gives up its core, when the runs take turns.
const TURN_SLACK: f64 = 0.05;

/// `rainsim compare`; `jobs` = runs at once (`None`: every run held at once,
/// as many as the memory available holds, taking turns on the cores).
pub fn compare(
    setup: &Setup,
    schemes: &[String],
    variants: &[String],
    out_dir: Option<&Path>,
    verify: bool,
    jobs: Option<usize>,
) -> Res {
    let mut runs: Vec<(String, Option<&str>, Vec<String>)> = Vec::new();
    let base_scheme = setup.scheme.as_deref();
    for s in schemes {
        runs.push((s.clone(), Some(s.as_str()), Vec::new()));
    }
    for v in variants {
        let sets = split_variant(v);
        if sets.iter().any(String::is_empty) {
            return Err(format!(
                "--variant '{v}': expected KEY=VALUE settings separated by commas, found an empty one"
            )
            .into());
        }
        let keys: Vec<&str> = sets.iter().map(|s| s.split('=').next().unwrap_or("").trim()).collect();
        if let Some(k) = keys.iter().enumerate().find_map(|(i, k)| keys[..i].contains(k).then_some(k)) {
            return Err(format!("--variant '{v}' sets {k} twice").into());
        }
        runs.push((v.clone(), base_scheme, sets));
    }
    if runs.is_empty() {
        return Err("compare needs --schemes A,B and/or --variant KEY=VALUE (at least one)".into());
    }
    if jobs == Some(0) {
        return Err("compare --jobs must be at least 1".into());
    }
    if let Some(d) = out_dir {
        if d.exists() && !d.is_dir() {
            return Err(format!("--out-dir {}: not a directory", d.display()).into());
        }
        std::fs::create_dir_all(d).map_err(|e| format!("--out-dir {}: {e}", d.display()))?;
    }
    // Resolve every configuration first, so a bad name fails before any run.
    let named = |i: usize| {
        let what = if i < schemes.len() { "scheme" } else { "--variant" };
        format!("{what} '{}'", runs[i].0)
    };
    let (cfgs, labels): (Vec<Config>, Vec<String>) = runs
        .iter()
        .enumerate()
        .map(|(i, (_, scheme, sets))| resolve_labelled(setup, *scheme, sets).map_err(|e| format!("{}: {e}", named(i))))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .unzip();
    let arrays: Vec<usize> = (0..cfgs.len()).filter(|&i| cfgs[i].array.is_some()).collect();
    if !arrays.is_empty() && arrays.len() < cfgs.len() {
        let devices: Vec<usize> = (0..cfgs.len()).filter(|i| !arrays.contains(i)).collect();
        let list = |ix: &[usize]| ix.iter().map(|&i| named(i)).collect::<Vec<_>>().join(", ");
        return Err(format!(
            "compare runs arrays ([array]) or single devices, not both: arrays: {}; single devices: {}",
            list(&arrays),
            list(&devices)
        )
        .into());
    }
    // Every distinct workload once, before any run (runs that differ only
    // in the device share it).
    let mut traces: Vec<(String, Workload)> = Vec::new();
    let mut which = Vec::with_capacity(cfgs.len());
    for (run, cfg) in cfgs.iter().enumerate() {
        let key = workload::identity(cfg, setup.trace.as_deref());
        let i = match traces.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                // The first run to need a workload names it in its errors.
                let trace = workload::open(cfg, setup.trace.as_deref(), true)
                    .map_err(|e| format!("{}: {}", named(run), workload::named(e, setup.workload.as_deref())))?;
                warn_detection(trace.info());
                traces.push((key, trace));
                traces.len() - 1
            }
        };
        which.push(i);
    }
    interrupt::check("stopped while loading; no report written");
    // What each run's report says about its input, as `run`'s would.
    let notes: Vec<Vec<String>> = runs
        .iter()
        .zip(cfgs.iter().zip(&which))
        .map(|((_, _, sets), (cfg, &t))| {
            let mut spec = setup.spec();
            spec.sets.extend(sets.iter().cloned());
            let w = &traces[t].1;
            rainsim::input_notes(&spec, cfg, w.info(), w.held().map(|h| h.requests.as_slice()))
        })
        .collect();
    let estimates: Vec<u64> = cfgs
        .iter()
        .zip(&which)
        .map(|(c, &t)| budget::estimate(c, traces[t].1.held().map_or(0, |h| h.requests.len() as u64), verify).bytes)
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // By default every run is held at once and they take turns on the
    // cores (`crate::turns`), so runs of unequal length finish together
    // instead of leaving a core idle at the end.
    let wanted = jobs.unwrap_or(runs.len()).min(runs.len());
    let held = budget::runs_at_once(&estimates, budget::available()?.0, wanted);
    if held < wanted {
        let n = counted(held as u64, "run", "runs");
        eprintln!("note: {n} at once (not {wanted}): the memory available holds no more");
    }
    let turns = (jobs.is_none() && held > cores).then(|| turns::Turns::new(runs.len(), cores, TURN_SLACK));
    if let Some(t) = &turns {
        // Each of the first `held` runs has its worker already.
        (0..held).for_each(|i| t.queue(i));
    }
    let work = Work {
        runs: &runs,
        cfgs: &cfgs,
        labels: &labels,
        notes: &notes,
        traces: &traces,
        which: &which,
        out_dir,
        verify,
        jobs: held,
        turns: turns.as_ref(),
    };
    let results = work.run_all();
    let (mut devices, mut arrays) = (Vec::new(), Vec::new());
    for ((label, _, _), r) in runs.iter().zip(results) {
        match r {
            Some(Ok(RunReport::Device(report))) => devices.push((label.clone(), *report)),
            Some(Ok(RunReport::Array(report))) => arrays.push((label.clone(), *report)),
            Some(Err(e)) => return Err(format!("{label}: {e}").into()),
            None => return Err(format!("{label}: not run (an earlier run failed)").into()),
        }
    }
    if arrays.is_empty() {
        out(&summary::side_by_side(&devices))
    } else {
        out(&rainsim::array_summary::side_by_side(&arrays))
    }
}

/// The runs of one `compare` and where they go.
struct Work<'a> {
    runs: &'a [(String, Option<&'a str>, Vec<String>)],
    cfgs: &'a [Config],
    /// The scheme each run reports (`settings::scheme_label`).
    labels: &'a [String],
    /// Each run's notes on its input (`rainsim::input_notes`).
    notes: &'a [Vec<String>],
    traces: &'a [(String, Workload)],
    which: &'a [usize],
    out_dir: Option<&'a Path>,
    verify: bool,
    jobs: usize,
    turns: Option<&'a turns::Turns>,
}

impl Work<'_> {
    /// Every run, `jobs` at a time, in order of index; after a failure no
    /// new run starts. Result `i` is `None` for a run not started.
    fn run_all(&self) -> Vec<Option<RunResult>> {
        let n = self.runs.len();
        let results: Mutex<Vec<Option<RunResult>>> = Mutex::new((0..n).map(|_| None).collect());
        let (next, failed) = (AtomicUsize::new(0), AtomicBool::new(false));
        std::thread::scope(|s| {
            for _ in 0..self.jobs {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= n {
                        break;
                    }
                    if failed.load(Ordering::SeqCst) {
                        // Queued for its turn: the others must not wait for it.
                        if let Some(t) = self.turns {
                            t.withdraw(i);
                        }
                        break;
                    }
                    let r = self.one(i);
                    if r.is_err() {
                        failed.store(true, Ordering::SeqCst);
                    }
                    results.lock().expect("no worker panics holding it")[i] = Some(r);
                });
            }
        });
        results.into_inner().expect("no worker panics holding it")
    }

    /// Run `i`: simulate, then write its report when asked.
    fn one(&self, i: usize) -> RunResult {
        let (label, _, _) = &self.runs[i];
        let n = self.runs.len();
        eprintln!("[{}/{n}] {label}", i + 1);
        let stopped = match self.out_dir {
            Some(d) => format!("the reports already in {} are complete", d.display()),
            None => "no report written".to_string(),
        };
        let t0 = Instant::now();
        let trace = &self.traces[self.which[i]].1;
        let turn = self.turns.map(|t| t.enter(i));
        // A progress bar only when the runs go one by one.
        let scheme = self.labels[i].as_str();
        let (cfg, bar) = (&self.cfgs[i], self.jobs == 1);
        let report = match trace.held() {
            Some(t) if cfg.array.is_some() => simulate_array(cfg, t, scheme, self.verify, bar, &stopped, turn.as_ref())
                .map(|r| RunReport::Array(Box::new(r))),
            _ => simulate(cfg, trace, scheme, self.verify, bar, &stopped, turn.as_ref())
                .map(|r| RunReport::Device(Box::new(r))),
        }
        .map_err(|e| e.to_string())?;
        let mut report = report;
        match &mut report {
            RunReport::Device(r) => r.notes.extend(self.notes[i].iter().cloned()),
            RunReport::Array(r) => r.notes.extend(self.notes[i].iter().cloned()),
        }
        drop(turn);
        if let Some(d) = self.out_dir {
            let name: String =
                label.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
            write_report(&d.join(format!("{i:02}-{name}.json")), &report).map_err(|e| e.to_string())?;
        }
        if self.jobs > 1 {
            eprintln!("[{}/{n}] {label}: done in {:.1} s", i + 1, t0.elapsed().as_secs_f64());
        }
        Ok(report)
    }
}

/// Splits `a=1,b.c=[1, 2],d={x=1,y=2}` at the commas outside brackets,
/// braces and quotes (a comma inside a TOML array, table or string stays);
/// an empty setting (`''`, `a=1,,b=2`) is kept as "".
fn split_variant(v: &str) -> Vec<String> {
    let (mut depth, mut quoted) = (0i32, false);
    let mut out = vec![String::new()];
    for ch in v.chars() {
        match ch {
            '"' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        out.last_mut().expect("non-empty").push(ch);
    }
    out.into_iter().map(|s| s.trim().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::split_variant;

    #[test]
    fn variants_split_only_where_a_key_starts() {
        assert_eq!(split_variant("a=1, b.c=2"), vec!["a=1", "b.c=2"]);
        assert_eq!(
            split_variant("workload.sizes=[{bytes=4096,weight=1.0}],seed=3"),
            vec!["workload.sizes=[{bytes=4096,weight=1.0}]", "seed=3"]
        );
        assert_eq!(split_variant("x=[1, 2, 3]"), vec!["x=[1, 2, 3]"]);
        assert_eq!(split_variant(r#"n="a,b",m=1"#), vec![r#"n="a,b""#, "m=1"]);
        assert_eq!(split_variant(" , "), vec!["", ""], "empty settings are kept, for compare to refuse");
    }

    /// A bracket inside a quoted string opens or closes nothing: the commas
    /// after it still split.
    #[test]
    fn quoted_brackets_do_not_nest() {
        assert_eq!(split_variant(r#"n="[",m=1"#), vec![r#"n="[""#, "m=1"]);
        assert_eq!(split_variant(r#"n="}",m=1"#), vec![r#"n="}""#, "m=1"]);
    }
}
