#!/usr/bin/env python3
"""Regenerate the results pages in docs/results/ from the shared trace samples.

    python3 scripts/results.py degraded-mode      # docs/results/degraded-mode.md
    python3 scripts/results.py adaptive-parity    # docs/results/adaptive-parity.md

Builds the release binary, runs every (preset, scheme, trace) combination the
page needs with `rainsim run -o report.json`, and renders the page from those
reports, next to the paper's claims. Nothing in the pages is typed by hand.
Options: --traces DIR (default: $RAINSIM_TRACES or ../shared/traces), --jobs N,
--keep DIR (keep the JSON reports), --out FILE.
"""

import argparse
import concurrent.futures as cf
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

import results_pages  # noqa: E402  (the page renderers)

MIN_REQUESTS = 100  # samples shorter than this say nothing about tails


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


def run_one(binary, preset, scheme, trace, sets, out):
    cmd = [str(binary), "run", "-q", "--config", preset, "--scheme", scheme, "--trace", str(trace), "-o", str(out)]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}\n{p.stderr}")
    with open(out) as f:
        return json.load(f)


class Runner:
    """Runs combinations in parallel and keeps their reports by key."""

    def __init__(self, binary, keep, jobs):
        self.binary = binary
        self.dir = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="rainsim-results-"))
        self.dir.mkdir(parents=True, exist_ok=True)
        self.jobs = jobs

    def run_all(self, combos):
        """combos: list of (preset, scheme, trace_path, sets) -> dict keyed by (preset, scheme, trace name)."""
        out = {}
        with cf.ThreadPoolExecutor(self.jobs) as ex:
            futs = {}
            for preset, scheme, trace, sets in combos:
                name = f"{preset}__{scheme}__{trace.name}.json"
                futs[ex.submit(run_one, self.binary, preset, scheme, trace, sets, self.dir / name)] = (
                    preset,
                    scheme,
                    trace.name,
                )
            for i, fut in enumerate(cf.as_completed(futs), 1):
                out[futs[fut]] = fut.result()
                print(f"\r{i}/{len(futs)} runs", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        return out


def usable_traces(binary, d):
    """Trace samples long enough to say something, and the ones left out."""
    keep, skipped = [], []
    calibration = bpu_calibration()
    for p in sorted(d.iterdir()):
        if p.name == "README.md" or p.name == calibration:
            continue
        r = subprocess.run([str(binary), "trace", "stats", str(p)], capture_output=True, text=True)
        n = None
        lines = r.stdout.splitlines()
        for i, line in enumerate(lines[:-1]):
            if "Req #" in line:
                n = int(lines[i + 1].split()[0].replace(",", ""))
                break
        if n is None:
            raise RuntimeError(f"could not read the request count of {p}:\n{r.stdout}{r.stderr}")
        (keep if n >= MIN_REQUESTS else skipped).append((p, n))
    return keep, skipped


def git_rev():
    r = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    # The pages themselves do not count as changes to the code that made them.
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", ".", ":!docs/results"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    return r.stdout.strip() + ("+changes" if dirty else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page", choices=sorted(results_pages.PAGES))
    ap.add_argument("--traces")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep")
    ap.add_argument("--out")
    a = ap.parse_args()
    binary = build()
    traces, skipped = usable_traces(binary, trace_dir(a.traces))
    page = results_pages.PAGES[a.page]
    runner = Runner(binary, a.keep, a.jobs)
    reports = runner.run_all(page.combos([p for p, _ in traces]))
    text = page.render(reports, traces, skipped, git_rev())
    out = Path(a.out) if a.out else ROOT / "docs" / "results" / f"{a.page}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
