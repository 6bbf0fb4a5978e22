#!/usr/bin/env python3
"""Regenerate the results pages in docs/results/ under the verdict protocol.

    python3 scripts/results.py degraded-mode      # docs/results/degraded-mode.md
    python3 scripts/results.py adaptive-parity    # docs/results/adaptive-parity.md
    python3 scripts/results.py degraded-mode --quick   # smoke run, page to a temp file

Builds the release binary and runs, in parallel, every (preset, scheme,
workload, window, seed) the page needs with `rainsim run -o report.json`, then
the sensitivity variants; scripts/verdict.py turns the reports into intervals,
tests and verdicts and scripts/results_pages.py renders the page. Nothing in
the pages is typed by hand; the protocol is stated at the top of each page.

Workloads: the shared trace samples (cut into disjoint windows of --window
requests when longer than one window) and the synthetic profiles of
configs/workloads/*.toml run with `rainsim run --workload NAME` (skipped, with
a note, when the binary has no --workload flag).

Options: --traces DIR (default: $RAINSIM_TRACES or ../shared/traces),
--jobs N (default: all cores), --keep DIR (keep the JSON reports and the
window files), --out FILE, --seeds N (default 5), --window N (default 10000),
--profiles a,b (default: every configs/workloads/*.toml), --quick (2 seeds,
3 traces: the two shortest and the longest, 1 profile, one sensitivity variant; the page goes to a temp file
unless --out is given).
"""

import argparse
import concurrent.futures as cf
import json
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import results_pages  # noqa: E402  (the page renderers)
import verdict  # noqa: E402  (the statistics)

MIN_REQUESTS = 100  # samples shorter than this say nothing about tails
WINDOW = 10_000  # requests per trace window
# Sensitivity variants: (label, key, values). The value equal to a preset's
# own setting is that preset's main run and is not simulated again.
VARIANT_KEYS = [
    ("layout", "precondition.layout", ["packed", "steady-state", "uniform"]),
    ("LDPC", "ldpc.enabled", ["false", "true"]),
    ("copyback", "ftl.copyback", ["false", "true"]),
]
# Keys that mean something only with the preset's own layout: a layout
# variant removes them (they would be refused with another layout).
LAYOUT_ONLY = ["precondition.target_moves_per_gc=default", "precondition.hot_utilization=default"]


def variant_sets(key, value):
    extra = LAYOUT_ONLY if key == "precondition.layout" and value != "steady-state" else []
    return [f"{key}={value}"] + extra


def note(msg):
    print(f"note: {msg}", file=sys.stderr, flush=True)


def bpu_calibration():
    """The workload BPU's thresholds were fitted on (`# calibration: ID` in
    configs/schemes/bpu.toml, written by scripts/fit_bpu.py): no verdict may
    count it. A trace sample whose file name is ID would be left out."""
    text = (ROOT / "configs" / "schemes" / "bpu.toml").read_text()
    for line in text.splitlines():
        if line.startswith("# calibration:"):
            return line.split(":", 1)[1].strip()
    return None


def trace_dir(arg):
    d = Path(arg or os.environ.get("RAINSIM_TRACES") or ROOT.parent / "shared" / "traces")
    if not d.is_dir():
        sys.exit(f"trace samples not found at {d}: pass --traces DIR or set RAINSIM_TRACES")
    return d


def build():
    subprocess.run(["cargo", "build", "--release", "--locked", "-p", "rainsim"], cwd=ROOT, check=True)
    return ROOT / "target" / "release" / "rainsim"


class Binary:
    """The rainsim binary and what it supports."""

    def __init__(self, path):
        self.path = str(path)
        run_help = subprocess.run([self.path, "run", "--help"], capture_output=True, text=True).stdout
        self.has_workload = "--workload" in run_help
        self._defaults = {}

    def supports_set(self, preset, sets):
        cmd = [self.path, "config", "show", "--config", preset]
        for kv in sets:
            cmd += ["--set", kv]
        return subprocess.run(cmd, capture_output=True, text=True).returncode == 0

    def default(self, preset, key):
        """The preset's value of a dotted key, as a lower-case string (None if absent)."""
        if preset not in self._defaults:
            r = subprocess.run([self.path, "config", "show", "--config", preset], capture_output=True, text=True, check=True)
            self._defaults[preset] = tomllib.loads(r.stdout)
        d = self._defaults[preset]
        for part in key.split("."):
            if not isinstance(d, dict) or part not in d:
                return None
            d = d[part]
        return str(d).lower()


class Workload:
    """One workload: a trace sample (with its windows) or a synthetic profile."""

    def __init__(self, name, kind, windows, requests, fmt=None):
        self.name, self.kind, self.windows, self.requests, self.fmt = name, kind, windows, requests, fmt

    def args(self, win):
        if self.kind == "profile":
            return ["--workload", self.name]
        a = ["--trace", str(self.windows[win][1])]
        return a + (["--format", self.fmt] if self.fmt else [])


def trace_info(binary, p):
    """(request count, format) from `rainsim trace stats`."""
    r = subprocess.run([binary.path, "trace", "stats", str(p)], capture_output=True, text=True)
    n, fmt = None, None
    lines = r.stdout.splitlines()
    if lines and "(" in lines[0]:
        fmt = lines[0].split("(", 1)[1].split(",", 1)[0].strip()
    for i, line in enumerate(lines[:-1]):
        if "Req #" in line:
            n = int(lines[i + 1].split()[0].replace(",", ""))
            break
    if n is None:
        raise RuntimeError(f"could not read the request count of {p}:\n{r.stdout}{r.stderr}")
    return n, fmt


def cut_windows(path, window, outdir):
    """Disjoint windows of `window` records in file order, each written in the
    trace's own format (leading header lines, i.e. lines not starting with a
    digit, are copied into every window; line endings kept). A trace of at
    most one window is its own single window. Returns [(label, path)]."""
    lines = path.read_bytes().splitlines(keepends=True)
    head = 0
    while head < len(lines) and not lines[head].lstrip()[:1].isdigit():
        head += 1
    header, data = lines[:head], [ln for ln in lines[head:] if ln.strip()]
    k = len(data) // window
    if k <= 1:
        return [("all", path)]
    out = []
    for i in range(k):
        chunk = data[i * window : (i + 1) * window]
        if not chunk[-1].endswith((b"\n", b"\r")):
            chunk = chunk[:-1] + [chunk[-1] + b"\n"]
        f = outdir / f"{path.name}.w{i + 1}"
        f.write_bytes(b"".join(header + chunk))
        out.append((f"records {i * window + 1:,}–{(i + 1) * window:,}", f))
    return out


def trace_workloads(binary, d, window, outdir, limit=None):
    keep, skipped = [], []
    calibration = bpu_calibration()
    for p in sorted(d.iterdir()):
        if p.name == "README.md" or p.name == calibration:
            continue
        n, fmt = trace_info(binary, p)
        if n < MIN_REQUESTS:
            skipped.append((p.name, n))
            continue
        keep.append(Workload(p.name, "trace", cut_windows(p, window, outdir), n, fmt))
    if limit is not None and len(keep) > limit:
        # The shortest samples, and the longest so that windows are exercised.
        by_len = sorted(keep, key=lambda w: w.requests)
        keep = sorted(by_len[: limit - 1] + by_len[-1:], key=lambda w: w.name)
    return keep, skipped


def profile_workloads(binary, names):
    names = [n for n in names if n != bpu_calibration()]
    if not names:
        return [], []
    if not binary.has_workload:
        note(f"`rainsim run` has no --workload flag yet: synthetic profiles {', '.join(names)} skipped")
        return [], [(n, "no --workload flag in this build") for n in names]
    return [Workload(n, "profile", [("synthetic", None)], None) for n in names], []


def discover_profiles():
    return sorted(p.stem for p in (ROOT / "configs" / "workloads").glob("*.toml"))


def run_one(binary, preset, scheme, wl, win, seed, sets, out):
    cmd = [binary.path, "run", "-q", "--config", preset, "--scheme", scheme] + wl.args(win) + ["-o", str(out)]
    for s in list(results_pages.COMMON_SETS) + [f"seed={seed}"] + list(sets):
        cmd += ["--set", s]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}\n{p.stderr}")
    with open(out) as f:
        r = json.load(f)
    for cls in r.get("latency", {}).values():
        cls.pop("cdf", None)
    r["_wall_s"] = time.monotonic() - t0
    return r


class Runner:
    """Runs every job once (jobs with the same canonical settings share one
    run) in parallel, with progress on stderr."""

    def __init__(self, binary, keep, jobs, reuse=False):
        self.binary = binary
        self.dir = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="rainsim-results-"))
        self.dir.mkdir(parents=True, exist_ok=True)
        self.jobs = jobs
        self.reuse = reuse
        self.walls = []

    def key_file(self, ck):
        return self.dir / f"run{self.index[ck]:05d}.key"

    def kept(self, out, ck, scheme, seed):
        """With --reuse, the report an earlier run left at `out` for the same
        job (its key file must match; a report without one must at least
        have the same scheme and seed), else None."""
        if not self.reuse or not out.exists():
            return None
        key = out.with_suffix(".key")
        try:
            r = json.loads(out.read_text())
        except (OSError, ValueError):
            return None
        if key.exists():
            if json.loads(key.read_text()) != json.loads(json.dumps(ck)):
                return None
        elif r.get("scheme") != scheme or r.get("seed") != seed:
            return None
        for cls in r.get("latency", {}).values():
            cls.pop("cdf", None)
        r.setdefault("_wall_s", 0.0)
        return r

    def canonical(self, preset, sets):
        """The sets that differ from the preset's own values, sorted."""
        out = []
        for s in sets:
            k, v = s.split("=", 1)
            if self.binary.default(preset, k) != v.lower():
                out.append(s)
        return tuple(sorted(out))

    def run_all(self, jobs):
        """jobs: {key: (preset, scheme, workload, win, seed, sets)} -> {key: report}."""
        unique, alias = {}, {}
        for key, (preset, scheme, wl, win, seed, sets) in jobs.items():
            ck = (preset, scheme, wl.name, win, seed, self.canonical(preset, sets))
            alias[key] = ck
            unique.setdefault(ck, (preset, scheme, wl, win, seed, ck[-1]))
        self.index = {ck: i for i, ck in enumerate(unique)}
        done, t0 = {}, time.monotonic()
        with cf.ThreadPoolExecutor(self.jobs) as ex:
            futs = {}
            for i, (ck, (preset, scheme, wl, win, seed, sets)) in enumerate(unique.items()):
                out = self.dir / f"run{i:05d}.json"
                kept = self.kept(out, ck, scheme, seed)
                if kept is not None:
                    done[ck] = kept
                    continue
                futs[ex.submit(run_one, self.binary, preset, scheme, wl, win, seed, sets, out)] = ck
            if done:
                print(f"{len(done)} runs reused from {self.dir}", file=sys.stderr)
            for i, fut in enumerate(cf.as_completed(futs), 1):
                done[futs[fut]] = fut.result()
                self.key_file(futs[fut]).write_text(json.dumps(futs[fut]))
                self.walls.append(done[futs[fut]]["_wall_s"])
                el = time.monotonic() - t0
                eta = el / i * (len(futs) - i)
                print(f"\r{i}/{len(futs)} runs, {el:.0f} s elapsed, ~{eta:.0f} s left   ", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        return {key: done[ck] for key, ck in alias.items()}


def git_rev():
    r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    # The pages themselves do not count as changes to the code that made them.
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", ".", ":!docs/results"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return r.stdout.strip() + ("+changes" if dirty else "")


def variants(binary, presets, quick):
    """[(label, sets)] of the sensitivity panel, and notes on what was skipped."""
    out, notes = [], []
    keys = [VARIANT_KEYS[1]] if quick else VARIANT_KEYS
    for label, key, values in keys:
        if not all(binary.supports_set(p, variant_sets(key, values[0])) for p in presets):
            msg = f"not in this panel: `{key}` is not a config key of this build: the {label} variants are skipped"
            note(msg)
            notes.append(msg)
            continue
        for v in values:
            if all(binary.default(p, key) == v for p in presets):
                notes.append(f"`{key}={v}` is every preset's own setting: the main-runs column")
                continue
            out.append((f"{key}={v}", variant_sets(key, v)))
    return out, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page", choices=sorted(results_pages.PAGES))
    ap.add_argument("--traces")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep")
    ap.add_argument("--out")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--sens-seeds", type=int, default=2, help="seeds of the sensitivity runs (the first N)")
    ap.add_argument("--window", type=int, default=WINDOW)
    ap.add_argument("--profiles", help="comma-separated synthetic profile names")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument(
        "--reuse", action="store_true", help="with --keep DIR: reuse the reports an earlier run of the same jobs left there"
    )
    a = ap.parse_args()
    t_start = time.monotonic()
    page = results_pages.PAGES[a.page]
    binary = Binary(build())
    seeds = list(range(1, (2 if a.quick else a.seeds) + 1))
    runner = Runner(binary, a.keep, a.jobs, a.reuse)
    windir = runner.dir / "windows"
    windir.mkdir(exist_ok=True)
    traces, skipped = trace_workloads(binary, trace_dir(a.traces), a.window, windir, 3 if a.quick else None)
    names = a.profiles.split(",") if a.profiles else (page.profiles if page.profiles is not None else discover_profiles())
    if a.quick:
        names = names[:1]
    profiles, skipped_profiles = profile_workloads(binary, names)
    workloads = traces + profiles
    var, var_notes = variants(binary, sorted({p for p, _ in page.sensitivity_runs()}), a.quick)

    jobs = {}
    sens_seeds = seeds[: a.sens_seeds]
    for preset, scheme in page.main_runs():
        for wl in workloads:
            if wl.kind == "profile" and preset not in page.profile_presets():
                continue
            for win in range(len(wl.windows)):
                for seed in seeds:
                    jobs[(preset, scheme, wl.name, win, seed, "main")] = (preset, scheme, wl, win, seed, [])
    sens_workloads = traces + profiles[:1]
    for label, sets in var:
        for preset, scheme in page.sensitivity_runs():
            for wl in sens_workloads:
                for win in range(len(wl.windows)):
                    for seed in sens_seeds:
                        jobs[(preset, scheme, wl.name, win, seed, label)] = (preset, scheme, wl, win, seed, sets)
    print(f"{a.page}: {len(workloads)} workloads, {len(seeds)} seeds, {len(var)} sensitivity variants", file=sys.stderr)
    reports = runner.run_all(jobs)
    ctx = results_pages.Context(
        reports=reports,
        workloads=workloads,
        seeds=seeds,
        window=a.window,
        skipped=skipped,
        skipped_profiles=skipped_profiles,
        variants=[label for label, _ in var],
        variant_notes=var_notes,
        sens_workloads=sens_workloads,
        sens_seeds=sens_seeds,
        rev=git_rev(),
        quick=a.quick,
    )
    text = page.render(ctx)
    if a.out:
        out = Path(a.out)
    elif a.quick:
        out = Path(tempfile.gettempdir()) / f"rainsim-quick-{a.page}.md"
    else:
        out = ROOT / "docs" / "results" / f"{a.page}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    walls = runner.walls
    mean_wall = sum(walls) / len(walls) if walls else 0.0
    print(
        f"wrote {out}: {len(walls)} runs (mean {mean_wall:.2f} s per run), {time.monotonic() - t_start:.0f} s in all",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
