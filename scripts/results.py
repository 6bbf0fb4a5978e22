#!/usr/bin/env python3
"""Regenerate the results pages in docs/results/ under the verdict protocol.

    .venv/bin/python scripts/results.py degraded-mode      # docs/results/degraded-mode.md
    .venv/bin/python scripts/results.py adaptive-parity    # docs/results/adaptive-parity.md
    .venv/bin/python scripts/results.py degraded-mode --quick   # smoke run, page to a temp file

Builds the rainsim Python package from this tree into the interpreter that runs
the script (`maturin develop --release`: run it with the venv of the README's
set-up), then runs every (preset, scheme, workload, window, seed) the page
needs and the sensitivity variants as one `rainsim.sweep` on the local backend
(resumable: each report is stored under its key, and a sweep started again on
the same store runs only what is missing); scripts/verdict.py turns the
reports into intervals, tests and verdicts and the page's module
(degraded_mode_page.py, adaptive_parity_page.py, over results_pages.py)
renders it. Nothing in the pages is typed by hand; the protocol is
stated at the top of each page.

Workloads: the shared trace samples (cut into disjoint windows of --window
requests when longer than one window) and the synthetic profiles of
configs/workloads/*.toml (the sweep's `workload` key).

Options: --traces DIR (default: $RAINSIM_TRACES or ../shared/traces),
--jobs N (sweep workers; default: all cores), --keep DIR (the sweep's store of
JSON reports, with the window files: kept, and resumed by a later run with the
same DIR; clear it after changing the model, since a report's key names the
rainsim version, not the commit), --out FILE, --seeds N (default 5),
--window N (default 10000), --profiles a,b (default: every
configs/workloads/*.toml), --quick (2 seeds, 3 traces: the two shortest and the
longest, 1 profile, one sensitivity variant; the page goes to a temp file unless
--out is given).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import results_pages  # noqa: E402  (the shared page renderers)
from adaptive_parity_page import AdaptiveParity  # noqa: E402
from degraded_mode_page import DegradedMode  # noqa: E402

PAGES = {"degraded-mode": DegradedMode(), "adaptive-parity": AdaptiveParity()}
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
    """Builds the extension from this tree into the running interpreter and imports it
    (as the script used to build the CLI binary: the pages always come from this tree)."""
    try:
        import maturin  # noqa: F401
    except ImportError:
        sys.exit("scripts/results.py builds the rainsim package with maturin: run it with the venv of the "
                 "README's set-up, e.g. .venv/bin/python scripts/results.py PAGE (scripts/test-all.sh makes .venv)")
    env = dict(os.environ, VIRTUAL_ENV=sys.prefix, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    subprocess.run([sys.executable, "-m", "maturin", "develop", "--release", "--locked", "-q"], cwd=ROOT, env=env, check=True)
    import rainsim

    return Engine(rainsim)


class Engine:
    """The rainsim package and what this build supports."""

    def __init__(self, rainsim):
        self.rainsim = rainsim
        self.has_workload = True  # the sweep's `workload` key
        self._defaults = {}

    def supports_set(self, preset, sets):
        try:
            self.rainsim.config(preset, set=list(sets))
            return True
        except self.rainsim.RainsimError:
            return False

    def default(self, preset, key):
        """The preset's value of a dotted key, as a lower-case string (None if absent)."""
        if preset not in self._defaults:
            self._defaults[preset] = self.rainsim.config(preset)
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

    def point(self, win):
        """The sweep keys that name this workload's window."""
        if self.kind == "profile":
            return {"workload": self.name}
        return {"trace": str(self.windows[win][1]), **({"format": self.fmt} if self.fmt else {})}


def trace_info(engine, p):
    """(request count, format) from `rainsim.trace_stats`."""
    d = engine.rainsim.trace_stats(p)
    return d["stats"]["requests"], d["trace"]["format"]


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


def trace_workloads(engine, d, window, outdir, limit=None):
    keep, skipped = [], []
    calibration = bpu_calibration()
    for p in sorted(d.iterdir()):
        if p.name == "README.md" or p.name == calibration:
            continue
        n, fmt = trace_info(engine, p)
        if n < MIN_REQUESTS:
            skipped.append((p.name, n))
            continue
        keep.append(Workload(p.name, "trace", cut_windows(p, window, outdir), n, fmt))
    if limit is not None and len(keep) > limit:
        # The shortest samples, and the longest so that windows are exercised.
        by_len = sorted(keep, key=lambda w: w.requests)
        keep = sorted(by_len[: limit - 1] + by_len[-1:], key=lambda w: w.name)
    return keep, skipped


def profile_workloads(engine, names):
    names = [n for n in names if n != bpu_calibration()]
    if not names:
        return [], []
    if not engine.has_workload:
        note(f"`rainsim run` has no --workload flag yet: synthetic profiles {', '.join(names)} skipped")
        return [], [(n, "no --workload flag in this build") for n in names]
    return [Workload(n, "profile", [("synthetic", None)], None) for n in names], []


def discover_profiles():
    return sorted(p.stem for p in (ROOT / "configs" / "workloads").glob("*.toml"))


def sweep_point(preset, scheme, wl, win, seed, sets):
    """One job as a point of the sweep: the run keys and every `--set` as a config key."""
    point = {"config": preset, "scheme": scheme, **wl.point(win), "seed": seed}
    for kv in list(results_pages.COMMON_SETS) + list(sets):
        k, v = kv.split("=", 1)
        point[k] = v  # a bare string is written as is, as on the command line
    return point


class Runner:
    """Runs every job once as one `rainsim.sweep` on the local backend (jobs whose
    effective configurations are equal share one run and one stored report)."""

    def __init__(self, engine, keep, jobs):
        self.engine = engine
        self.dir = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="rainsim-results-"))
        self.dir.mkdir(parents=True, exist_ok=True)
        self.jobs = jobs
        self.walls = []

    def run_all(self, jobs):
        """jobs: {key: (preset, scheme, workload, win, seed, sets)} -> {key: report}."""
        points = [sweep_point(*job) for job in jobs.values()]
        cols = self.engine.rainsim.sweep(points, out=str(self.dir), backend="local", workers=self.jobs, lib="dict")
        loaded = {}
        for k in cols["key"]:
            if k not in loaded:
                with open(self.dir / f"{k}.json") as f:
                    r = json.load(f)
                for cls in r.get("latency", {}).values():
                    cls.pop("cdf", None)
                t = r.get("timing", {})
                r["_wall_s"] = t.get("setup_s", 0.0) + t.get("wall_s", 0.0)
                loaded[k] = r
        self.walls = [r["_wall_s"] for r in loaded.values()]
        return {job: loaded[k] for job, k in zip(jobs, cols["key"])}


def git_rev():
    r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    # The pages themselves do not count as changes to the code that made them.
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", ".", ":!docs/results"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return r.stdout.strip() + ("+changes" if dirty else "")


def variants(engine, presets, quick):
    """[(label, sets)] of the sensitivity panel, and notes on what was skipped."""
    out, notes = [], []
    keys = [VARIANT_KEYS[1]] if quick else VARIANT_KEYS
    for label, key, values in keys:
        if not all(engine.supports_set(p, variant_sets(key, values[0])) for p in presets):
            msg = f"not in this panel: `{key}` is not a config key of this build: the {label} variants are skipped"
            note(msg)
            notes.append(msg)
            continue
        for v in values:
            if all(engine.default(p, key) == v for p in presets):
                notes.append(f"`{key}={v}` is every preset's own setting: the main-runs column")
                continue
            out.append((f"{key}={v}", variant_sets(key, v)))
    return out, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page", choices=sorted(PAGES))
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
        "--reuse", action="store_true", help="kept for old command lines: a --keep DIR store is always resumed"
    )
    a = ap.parse_args()
    t_start = time.monotonic()
    page = PAGES[a.page]
    engine = build()
    seeds = list(range(1, (2 if a.quick else a.seeds) + 1))
    runner = Runner(engine, a.keep, a.jobs)
    windir = runner.dir / "windows"
    windir.mkdir(exist_ok=True)
    traces, skipped = trace_workloads(engine, trace_dir(a.traces), a.window, windir, 3 if a.quick else None)
    names = a.profiles.split(",") if a.profiles else (page.profiles if page.profiles is not None else discover_profiles())
    if a.quick:
        names = names[:1]
    profiles, skipped_profiles = profile_workloads(engine, names)
    workloads = traces + profiles
    var, var_notes = variants(engine, sorted({p for p, _ in page.sensitivity_runs()}), a.quick)

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
