//! Behaviour pinned by golden reports: every scheme on every preset, replaying
//! every shared trace sample and a short run of the built-in workload. Each
//! report (its `timing` and the trace's path aside) is reduced to two SHA-256
//! digests — of the whole report, and of the model's numbers alone (without
//! `config`, `version` and `trace`, so a new config key shows as a config-only
//! change) — plus a few headline numbers, so a failure says which runs moved
//! and by how much.
//!
//! After a change that is meant to alter reports, refresh the file with
//!
//! ```sh
//! RAINSIM_BLESS=1 cargo test -p rainsim --test cli golden
//! ```
//!
//! and say in the commit why the rows changed.

use crate::support::{rainsim, traces_dir, TempDir};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// Requests of the built-in workload's golden runs.
const SYNTHETIC_REQUESTS: u32 = 3000;

fn golden_file() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/reports.tsv")
}

fn names(dir: &str) -> Vec<String> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../configs").join(dir);
    let mut v: Vec<String> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .filter_map(|e| {
            let p = e.expect("dir entry").path();
            (p.extension()? == "toml").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    v.sort();
    v
}

fn hex(v: &Value) -> String {
    let bytes = serde_json::to_vec(v).expect("serialises");
    Sha256::digest(&bytes).iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// The golden row of one report: digests and headline numbers.
fn row(mut r: Value) -> String {
    let o = r.as_object_mut().expect("a JSON object");
    o.remove("timing");
    if let Some(t) = o.get_mut("trace").and_then(Value::as_object_mut) {
        t.remove("path");
    }
    let all = hex(&r);
    let o = r.as_object_mut().unwrap();
    for k in ["config", "version", "trace"] {
        o.remove(k);
    }
    let model = hex(&r);
    let g = |p: &str| r.pointer(p).map(|v| v.to_string()).unwrap_or_else(|| "-".into());
    format!(
        "{all}\t{model}\tcompleted={} read_mean={} write_mean={} gc={} moves_per_gc={} erases={}",
        g("/latency/all/count"),
        g("/latency/read/mean_ns"),
        g("/latency/write/mean_ns"),
        g("/gc/count"),
        g("/gc/moves_per_gc"),
        g("/flash_ops/erase"),
    )
}

/// Runs one case and returns its golden row (an error run is pinned by its message).
fn case(dir: &TempDir, preset: &str, scheme: &str, workload: &str) -> String {
    case_with(dir, preset, scheme, workload, &[])
}

/// [`case`] with `extra` arguments.
fn case_with(dir: &TempDir, preset: &str, scheme: &str, workload: &str, extra: &[&str]) -> String {
    let out = dir.join(&format!("{preset}-{scheme}-{workload}.json"));
    let mut args: Vec<String> =
        ["run", "--quiet", "--config", preset, "--scheme", scheme, "--out"].iter().map(|s| s.to_string()).collect();
    args.push(out.to_string_lossy().into_owned());
    args.extend(extra.iter().map(|s| s.to_string()));
    if workload == "synthetic" {
        args.extend(["--set".into(), format!("workload.requests={SYNTHETIC_REQUESTS}")]);
    } else {
        args.extend(["--trace".into(), traces_dir().join(workload).to_string_lossy().into_owned()]);
    }
    let o = rainsim(&args);
    if o.code != Some(0) {
        assert!(!o.stderr.contains("panicked"), "{preset} {scheme} {workload} panicked:\n{}", o.stderr);
        let first = o.stderr.lines().next().unwrap_or("").replace('\t', " ");
        return format!("error\t-\t{first}");
    }
    let text = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    let _ = std::fs::remove_file(&out);
    row(serde_json::from_str(&text).expect("report is JSON"))
}

#[test]
fn golden_reports_are_unchanged() {
    let presets = names("");
    let schemes = names("schemes");
    let mut workloads: Vec<String> = std::fs::read_dir(traces_dir())
        .expect("traces folder")
        .map(|e| e.expect("dir entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    workloads.sort();
    workloads.push("synthetic".into());
    let mut cases = Vec::new();
    for p in &presets {
        for s in &schemes {
            cases.extend(workloads.iter().map(|w| (p.clone(), s.clone(), w.clone())));
        }
    }
    let dir = TempDir::new("golden");
    let rows = Mutex::new(BTreeMap::new());
    let next = Mutex::new(0usize);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    std::thread::scope(|sc| {
        for _ in 0..workers {
            sc.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some((p, s, w)) = cases.get(i) else { break };
                let r = case(&dir, p, s, w);
                rows.lock().unwrap().insert(format!("{p}\t{s}\t{w}"), r);
            });
        }
    });
    let rows = rows.into_inner().unwrap();
    let text: String = rows.iter().map(|(k, v)| format!("{k}\t{v}\n")).collect();
    let path = golden_file();
    if std::env::var_os("RAINSIM_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{}: {e}; create it with RAINSIM_BLESS=1 cargo test -p rainsim --test cli golden", path.display())
    });
    let want: BTreeMap<String, String> = want
        .lines()
        .map(|l| {
            let mut f = l.splitn(4, '\t');
            let key = [f.next(), f.next(), f.next()].map(|x| x.unwrap_or("")).join("\t");
            (key, f.next().unwrap_or("").to_string())
        })
        .collect();
    let mut diffs = Vec::new();
    for (k, got) in &rows {
        match want.get(k) {
            None => diffs.push(format!("new run {k}: {got}")),
            Some(w) if w != got => {
                let kind = if w.split('\t').nth(1) == got.split('\t').nth(1) {
                    "config/trace identity only"
                } else {
                    "model numbers"
                };
                diffs.push(format!("{k} ({kind} changed)\n   was {w}\n   now {got}"));
            }
            _ => {}
        }
    }
    diffs.extend(want.keys().filter(|k| !rows.contains_key(*k)).map(|k| format!("run gone: {k}")));
    assert!(
        diffs.is_empty(),
        "{} of {} golden reports differ (refresh with RAINSIM_BLESS=1 cargo test -p rainsim --test cli golden \
         and explain why in the commit):\n{}",
        diffs.len(),
        rows.len(),
        diffs.join("\n")
    );
}

/// Rep-RAID's same-chunk ablation reproduces the model numbers its reports
/// had before any-chunk matching (digests pinned from those reports): only
/// the `config` section names the key. Those reports ran the die dispatch
/// that was the default then (`dynamic`). Re-pinned at 0.2.5, whose replica
/// origin moves copies B and conversions' rewrites from `host_program` to
/// `replica_program` (and `waf` with them): every other field of the three
/// reports was checked equal to 0.2.4's.
#[test]
fn rep_raid_same_chunk_reports_are_the_reports_before_any_chunk() {
    let dir = TempDir::new("same-chunk");
    let set = ["--set", "policy.rep_raid.matching=same-chunk", "--set", "ftl.allocation=dynamic"];
    for (preset, workload, model) in [
        ("rep-raid-8ch", "synthetic", "dd5ccfe9b762159049dffc23"),
        ("rep-raid-8ch-7p1", "msr_hm_0_slice1000.csv", "f02b3f43f4d196bf4ea7d7ee"),
        ("default", "msr.cut.per_10k.rw_20_80.105.trace", "7cc58c2a109e61ad490b3cc2"),
    ] {
        let row = case_with(&dir, preset, "rep-raid", workload, &set);
        assert_eq!(row.split('\t').nth(1), Some(model), "{preset} {workload}: {row}");
    }
}
