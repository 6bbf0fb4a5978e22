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


def sweep_seconds(workers: int) -> float:
    out = tempfile.mkdtemp(prefix="rainsim-bench-")
    try:
        t = time.perf_counter()
        df = rainsim.sweep(GRID, out=out, workers=workers, progress=False)
        assert len(df) == 64
        return time.perf_counter() - t
    finally:
        shutil.rmtree(out)


def main() -> None:
    print(f"cpus: {os.cpu_count()}")
    one, two = sweep_seconds(1), sweep_seconds(2)
    print(f"64-run sweep, local: 1 worker {one:.2f} s, 2 workers {two:.2f} s, speed-up {one / two:.2f}x")
    trace = str(TRACES / NAMES[0])
    kw = dict(config="default", scheme="baseline", trace=trace)
    rainsim.run(**kw)  # warm caches
    full, native, inner, cli = [], [], [], []
    for _ in range(20):
        t = time.perf_counter()
        r = rainsim.run(**kw)
        full.append(time.perf_counter() - t)
        inner.append(r["timing"]["setup_s"] + r["timing"]["wall_s"])
        t = time.perf_counter()
        _rainsim.run_json(config="default", scheme="baseline", trace=trace)
        native.append(time.perf_counter() - t)
        t = time.perf_counter()
        subprocess.run([str(ROOT / "target/release/rainsim"), "run", "-c", "default", "--trace", trace, "-q",
                        "--out", os.devnull], check=True)
        cli.append(time.perf_counter() - t)
    med = statistics.median
    print(f"one run ({NAMES[0]}, default preset), medians of 20: rainsim.run {med(full) * 1e3:.1f} ms; "
          f"simulate() itself (report timing: setup + run) {med(inner) * 1e3:.1f} ms; "
          f"native call alone {med(native) * 1e3:.1f} ms; CLI process {med(cli) * 1e3:.1f} ms")
    print(f"Python overhead per run: {(med(full) - med(native)) * 1e3:.2f} ms beyond the native call, "
          f"{(med(full) - med(inner)) * 1e3:.2f} ms beyond the simulation (trace loading and JSON included)")


if __name__ == "__main__":
    main()
