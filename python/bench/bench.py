"""Measures the README's Python figures: a 64-run sweep on `local` with 1 and 2
workers, and the per-run cost of calling from Python. Not a test (timings on a
shared machine are noisy): `python python/bench/bench.py`."""

import json
import os
import pathlib
import shutil
import statistics
import subprocess
import tempfile
import time

import rainsim
from rainsim import _rainsim

ROOT = pathlib.Path(__file__).resolve().parents[2]
TRACES = pathlib.Path(os.environ.get("RAINSIM_TRACES") or ROOT.parent / "shared" / "traces")
NAMES = ["msr_hm_0_slice1000.csv", "systor17_lun0_slice999.csv", "msr_rsrch_0_head1000.csv",
         "msr.cut.per_10k.rw_20_80.105.trace"]
GRID = {"config": ["default"], "scheme": ["baseline", "gc-tolerant-read", "bpu", "adaptive"],
        "trace": [str(TRACES / n) for n in NAMES], "seed": [1, 2, 3, 4]}


def sweep_seconds(workers: int) -> tuple:
    """Wall seconds of the sweep and the process's CPU seconds per wall second."""
    out = tempfile.mkdtemp(prefix="rainsim-bench-")
    try:
        c, t = time.process_time(), time.perf_counter()
        df = rainsim.sweep(GRID, out=out, workers=workers, progress=False)
        wall = time.perf_counter() - t
        assert len(df) == 64
        return wall, (time.process_time() - c) / wall
    finally:
        shutil.rmtree(out)


def main() -> None:
    print(f"cpus: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    trials = {1: [], 2: []}
    for i in range(3):  # alternating, so that a change of load hits both
        for w in (1, 2):
            load = os.getloadavg()[0]
            trials[w].append(sweep_seconds(w))
            print(f"  trial {i + 1}, {w} worker(s): {trials[w][-1][0]:.2f} s "
                  f"({trials[w][-1][1]:.2f} CPU-s per s), load average before {load:.2f}")
    one, two = min(trials[1]), min(trials[2])
    print(f"64-run sweep, local, best of 3: 1 worker {one[0]:.2f} s ({one[1]:.2f} CPU-s per s), "
          f"2 workers {two[0]:.2f} s ({two[1]:.2f} CPU-s per s), speed-up {one[0] / two[0]:.2f}x; "
          f"median speed-up {statistics.median(a[0] / b[0] for a, b in zip(trials[1], trials[2])):.2f}x")
    trace = str(TRACES / NAMES[0])
    kw = dict(config="default", scheme="baseline", trace=trace)
    rainsim.run(**kw)  # warm caches
    full, native, inner, cli, beyond, wrap = [], [], [], [], [], []
    for _ in range(20):
        t = time.perf_counter()
        r = rainsim.run(**kw)
        full.append(time.perf_counter() - t)
        inner.append(r["timing"]["setup_s"] + r["timing"]["wall_s"])
        beyond.append(full[-1] - inner[-1])  # paired: the same call
        t = time.perf_counter()
        text = _rainsim.run_json(config="default", scheme="baseline", trace=trace)
        native.append(time.perf_counter() - t)
        t = time.perf_counter()
        rainsim.Report(json.loads(text))  # all Python adds to the native call
        wrap.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run([str(ROOT / "target/release/rainsim"), "run", "-c", "default", "--trace", trace, "-q",
                        "--out", os.devnull], check=True)
        cli.append(time.perf_counter() - t)
    med = statistics.median
    print(f"one run ({NAMES[0]}, default preset), medians of 20: rainsim.run {med(full) * 1e3:.1f} ms; "
          f"simulate() itself (report timing: setup + run) {med(inner) * 1e3:.1f} ms; "
          f"native call alone {med(native) * 1e3:.1f} ms; CLI process {med(cli) * 1e3:.1f} ms")
    print(f"per run, medians: Python side (JSON text -> dict -> Report) {med(wrap) * 1e3:.2f} ms; "
          f"everything beyond the simulation (config, trace loading, JSON, Python) {med(beyond) * 1e3:.2f} ms")
    # A tiny run (100 synthetic requests): the call's own cost against the model's time.
    tiny = dict(config="default", scheme="baseline", set={"workload.requests": 100})
    rainsim.run(**tiny)
    full, inner = [], []
    for _ in range(20):
        t = time.perf_counter()
        r = rainsim.run(**tiny)
        full.append(time.perf_counter() - t)
        inner.append(r["timing"]["setup_s"] + r["timing"]["wall_s"])
    print(f"tiny run (100 synthetic requests), medians of 20: rainsim.run {med(full) * 1e3:.2f} ms, "
          f"model (setup + run) {med(inner) * 1e3:.2f} ms, beyond the model "
          f"{med(f - i for f, i in zip(full, inner)) * 1e3:.2f} ms")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
