#!/usr/bin/env python3
"""docs/results/rep-raid.md: Rep-RAID (Li et al., LCTES'23) and its baselines
CR5M and FusionRAID against RAID-5, beside the paper's §4 numbers, under the
verdict protocol of scripts/verdict.py.

Runs (the release CLI, one process at a time unless --jobs says otherwise):
- main block: preset rep-raid-8ch (Table 2, 3+1 stripes, aged 80 % valid /
  10 % invalid, packed), schemes baseline (= RAID-5), cr5m, fusionraid,
  rep-raid, on the nine synthetic profiles of the paper's Table 3 traces
  (`--workload rep-raid-<trace>`, each at its own full request count), seeds
  1..--seeds;
- 7+1 block: the same on rep-raid-8ch-7p1, seeds 1..--wide-seeds (0 = skip);
- secondary: the shared real trace samples with at least 100 requests
  (read from --traces, never copied), on rep-raid-8ch, seeds 1..--trace-seeds;
- allocation check: RAID-5 on each profile, seed 1, with every chunk bound to
  one die of its channel (ftl.allocation = "static-channel-first").

The seed drives preconditioning and the synthetic request stream, but a
profile's seeds redraw one workload: the profile is the unit of the tests
(sign test, Wilcoxon, bootstrap; verdict.classify) and its seeds are
replicates. For the real traces the seed changes only the preconditioning:
there too the trace is the unit and its seeds are replicates.

Usage: python3 scripts/rep_raid_results.py [--seeds 3] [--wide-seeds 3]
       [--trace-seeds 3] [--requests N] [--traces DIR] [--keep DIR]
       [--jobs 1] [--out FILE]
The defaults write the checked-in page: 321 runs, about 20 CPU-minutes of
simulation (about 25 minutes wall-clock on one core of a shared 2-core
machine, plus about a minute of bootstrap). --keep DIR stores every report
(named by preset, scheme, workload, seed, requests) and a later run with the
same DIR runs only what is missing; clear it after changing the model.
The release CLI (target/release/rainsim) is built first (cargo build --release,
a no-op when it is up to date), so the runs never use a stale binary.
"""

import argparse
import concurrent.futures as cf
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from rep_raid_claims import B, BS, MIN_TRACE_REQUESTS, PRESET, PROFILES, SCHEMES, WIDE, Workload  # noqa: E402
from rep_raid_page import page  # noqa: E402
from rep_raid_tables import cpu_minutes  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLI = ROOT / "target" / "release" / "rainsim"


# ---------------------------------------------------------------- running


def trace_workloads(d):
    """The shared samples with at least MIN_TRACE_REQUESTS requests, and those left out."""
    keep, skipped = [], []
    for p in sorted(pathlib.Path(d).iterdir()):
        if not p.is_file() or p.name.lower().startswith("readme"):
            continue
        out = subprocess.run([str(CLI), "trace", "stats", str(p), "--json"], capture_output=True, text=True)
        if out.returncode != 0:
            skipped.append((p.name, "not a trace"))
            continue
        info = json.loads(out.stdout)
        n = info["stats"]["requests"]
        if n < MIN_TRACE_REQUESTS:
            skipped.append((p.name, f"{n} requests"))
            continue
        keep.append(Workload(p.name, "trace", n, p, info["trace"]["format"]))
    return keep, skipped


def run_name(preset, scheme, wl, seed, requests):
    n = "full" if requests is None or wl.kind == "trace" else str(requests)
    return f"{preset}__{scheme}__{wl.name}__s{seed}__{n}.json"


def command(preset, scheme, wl, seed, requests, out):
    cmd = [str(CLI), "run", "--config", preset, "--scheme", B if scheme == BS else scheme, "--quiet",
           "--out", str(out), "--set", f"seed={seed}"]
    if scheme == BS:
        cmd += ["--set", "ftl.allocation=static-channel-first"]
    if wl.kind == "profile":
        cmd += ["--workload", wl.name]
        if requests:
            cmd += ["--set", f"workload.requests={requests}"]
    else:
        cmd += ["--trace", str(wl.path), "--format", wl.fmt]
    return cmd


def run(preset, scheme, wl, seed, requests, store):
    """One report (from the store when it is there), or, for a run that failed,
    {"failed": message, "command": its command line} (also kept in the store,
    as NAME.failed, and not run again)."""
    out = pathlib.Path(store) / run_name(preset, scheme, wl, seed, requests)
    bad = out.with_suffix(".failed")
    if bad.exists():
        fail = json.loads(bad.read_text())
        fail["failed"] = re.sub(r"thread '([^']*)' \(\d+\)", r"thread '\1'", fail["failed"])
        return fail
    if not out.exists():
        cmd = command(preset, scheme, wl, seed, requests, out)
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, RUST_BACKTRACE="0"))
        if p.returncode != 0:
            msg = " ".join(line.strip() for line in p.stderr.strip().splitlines()
                           if not line.startswith("note: run with"))
            msg = re.sub(r"thread '([^']*)' \(\d+\)", r"thread '\1'", msg)  # no thread id: the page stays stable
            shown = ["rainsim"] + [str(x) for x in cmd[1:cmd.index("--out")]] + cmd[cmd.index("--out") + 2:]
            fail = {"failed": f"exit status {p.returncode}: {msg}", "command": " ".join(shown)}
            bad.write_text(json.dumps(fail))
            print(f"FAILED {out.name}: {fail['failed']}", file=sys.stderr, flush=True)
            return fail
        print(f"ran {out.name}", file=sys.stderr, flush=True)
    return json.loads(out.read_text())


# ---------------------------------------------------------------- main


def git_rev():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def jobs_of(a, trace_wls):
    seeds = range(1, a.seeds + 1)
    out = [(PRESET, sc, Workload(wl), s) for wl in PROFILES for s in seeds for sc in SCHEMES]
    out += [(WIDE, sc, Workload(wl), s) for wl in PROFILES for s in range(1, a.wide_seeds + 1) for sc in SCHEMES]
    out += [(PRESET, sc, w, s) for w in trace_wls for s in range(1, a.trace_seeds + 1) for sc in SCHEMES]
    out += [(PRESET, BS, Workload(wl), 1) for wl in PROFILES]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--wide-seeds", type=int, default=3, help="seeds of the 7+1 block (0: skip it)")
    ap.add_argument("--trace-seeds", type=int, default=3, help="seeds of the real-trace block")
    ap.add_argument("--requests", type=int, default=None,
                    help="requests per profile run (default: each profile's own count)")
    ap.add_argument("--traces", default=os.environ.get("RAINSIM_TRACES") or str(ROOT.parent / "shared" / "traces"),
                    help="directory of the shared trace samples ('' to skip them)")
    ap.add_argument("--keep", default=None, help="store of reports (resumable); default: a temporary directory")
    ap.add_argument("--jobs", type=int, default=1, help="simulations at once (default 1)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "results" / "rep-raid.md"))
    a = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--locked", "-p", "rainsim"], cwd=ROOT, check=True)
    trace_wls, skipped = trace_workloads(a.traces) if a.traces else ([], [])
    tmp = None
    store = a.keep
    if store is None:
        tmp = tempfile.TemporaryDirectory()
        store = tmp.name
    pathlib.Path(store).mkdir(parents=True, exist_ok=True)
    jobs = jobs_of(a, trace_wls)
    with cf.ThreadPoolExecutor(max(1, a.jobs)) as ex:
        got = list(ex.map(lambda j: run(j[0], j[1], j[2], j[3], a.requests, store), jobs))
    reports = {(p, sc, wl.name, s): r for (p, sc, wl, s), r in zip(jobs, got) if "failed" not in r}
    failed = {(p, sc, wl.name, s): r for (p, sc, wl, s), r in zip(jobs, got) if "failed" in r}
    text = page(reports, a, trace_wls, skipped, git_rev(), failed)
    pathlib.Path(a.out).write_text(text)
    print(f"wrote {a.out} ({len(reports)} runs, {len(failed)} failed, {cpu_minutes(reports):.1f} CPU-minutes of "
          "simulation)")
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
