"""Lists of grids in a sweep, and the results pages' runner (scripts/results.py) on the sweep."""

import json
import sys

import pytest

import rainsim

SHORT = {"workload.requests": 1500}


def test_a_list_of_grids_runs_their_union_once(tmp_path, capfd):
    grids = [{"scheme": ["baseline", "bpu"], "seed": [1], **SHORT},
             {"scheme": ["bpu"], "seed": [1, 2], **SHORT},  # (bpu, 1) again: one run for both points
             {"workload": ["rep-raid-wdev_0"], "config": ["rep-raid-8ch"], "workload.requests": [1000]}]
    cols = rainsim.sweep(grids, out=str(tmp_path), workers=2, lib="dict")
    assert "4 runs, 0 stored already" in capfd.readouterr().err
    assert isinstance(cols, dict) and len(cols["key"]) == 5
    assert cols["scheme"] == ["baseline", "bpu", "bpu", "bpu", None]
    assert cols["seed"] == [1, 1, 1, 2, None] and cols["workload"] == [None] * 4 + ["rep-raid-wdev_0"]
    assert cols["key"][1] == cols["key"][2] and len(set(cols["key"])) == 4
    assert len(list(tmp_path.glob("[0-9a-f]*.json"))) == 4
    man = json.loads((tmp_path / "sweep.json").read_text())
    assert isinstance(man["grid"], list) and len(man["runs"]) == 5
    assert rainsim.load_results(str(tmp_path), lib="dict") == cols
    df = rainsim.sweep(grids, out=str(tmp_path), workers=2, lib="polars")
    assert "4 stored already" in capfd.readouterr().err and df.height == 5 and df["key"].to_list() == cols["key"]
    with pytest.raises(rainsim.RainsimError, match="no-such-scheme"):
        rainsim.sweep([{"scheme": ["baseline"]}, {"scheme": ["no-such-scheme"]}], out=str(tmp_path / "x"))
    with pytest.raises(rainsim.RainsimError, match="empty"):
        rainsim.sweep([], out=str(tmp_path / "y"))


@pytest.fixture
def results(root):
    sys.path.insert(0, str(root / "scripts"))
    try:
        import results
        yield results
    finally:
        sys.path.remove(str(root / "scripts"))


def test_results_runner_runs_the_jobs_through_the_sweep(results, traces, tmp_path, capfd):
    engine = results.Engine(rainsim)
    sample = traces / "msr_hm_0_slice1000.csv"
    n, fmt = results.trace_info(engine, sample)
    assert (n, fmt) == (1000, "msr")
    wl = results.Workload(sample.name, "trace", [("all", sample)], n, fmt)
    jobs = {}
    for scheme in ("baseline", "gc-tolerant-read"):
        for seed in (1, 2):
            jobs[("degraded-mode-8ch", scheme, wl.name, 0, seed, "main")] = ("degraded-mode-8ch", scheme, wl, 0, seed, [])
    # A variant equal to the preset's own setting is the main run: one run, one report.
    jobs[("degraded-mode-8ch", "baseline", wl.name, 0, 1, "ldpc.enabled=false")] = (
        "degraded-mode-8ch", "baseline", wl, 0, 1, results.variant_sets("ldpc.enabled", "false"))
    runner = results.Runner(engine, tmp_path / "store", 2)
    reports = runner.run_all(jobs)
    assert "4 runs, 0 stored already" in capfd.readouterr().err
    assert set(reports) == set(jobs) and len(runner.walls) == 4
    base = ("degraded-mode-8ch", "baseline", wl.name, 0, 1)
    assert reports[base + ("main",)] is reports[base + ("ldpc.enabled=false",)]
    # Each report is what `rainsim run` gives for the job's command line (CDFs dropped).
    want = rainsim.run(config="degraded-mode-8ch", scheme="gc-tolerant-read", trace=sample, format="msr",
                       set=["trace.repeat=2", "seed=2"]).data
    got = reports[("degraded-mode-8ch", "gc-tolerant-read", wl.name, 0, 2, "main")]
    for cls in want["latency"].values():
        cls.pop("cdf")
    assert {k: v for k, v in got.items() if k not in ("timing", "_wall_s")} == \
        {k: v for k, v in want.items() if k != "timing"}
    # Resumed: a second run of the same jobs on the same store runs nothing.
    again = results.Runner(engine, tmp_path / "store", 2).run_all(jobs)
    assert "4 stored already" in capfd.readouterr().err and again.keys() == reports.keys()
