"""Sweeps: the same frame on local, Dask and Ray; resuming a killed sweep; bad grids."""

import json
import os
import re
import subprocess
import sys
import time

import pandas as pd
import pytest

import rainsim

# Short runs on shared trace samples (default preset) and on the synthetic workload.
def trace_grid(traces):
    return {"config": ["default"], "scheme": ["baseline", "gc-tolerant-read"],
            "trace": [str(traces / "msr_hm_0_slice1000.csv"), str(traces / "systor17_lun0_slice999.csv")],
            "raid.stripe_width": [4]}


def reports(out):
    return {n: json.loads((out / n).read_text()) for n in sorted(os.listdir(out)) if n != "sweep.json"}


def no_timing(rs):
    return {k: {a: b for a, b in v.items() if a != "timing"} for k, v in rs.items()}


@pytest.fixture(scope="module")
def local_result(traces, tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    return out, rainsim.sweep(trace_grid(traces), out=str(out), backend="local", workers=2)


def test_local_sweep_frame(local_result, traces):
    out, df = local_result
    assert isinstance(df, pd.DataFrame) and len(df) == 4
    assert list(df["scheme"]) == ["baseline", "baseline", "gc-tolerant-read", "gc-tolerant-read"]
    assert df["key"].is_unique and {"iops", "waf", "read_p99_9_ns", "erases"} <= set(df.columns)
    assert len(reports(out)) == 4
    for k, d in zip(df["key"], df.itertuples()):
        assert json.loads((out / f"{k}.json").read_text())["scheme"] == d.scheme
    # The same frame from the directory alone, and nothing runs twice.
    pd.testing.assert_frame_equal(rainsim.load_results(str(out)), df)
    again = rainsim.sweep(trace_grid(traces), out=str(out), workers=2, progress=False)
    pd.testing.assert_frame_equal(again, df)


def test_dask_local_cluster_same_frame(local_result, traces, tmp_path, capfd):
    out, df = local_result
    d = rainsim.sweep(trace_grid(traces), out=str(tmp_path), backend="dask", workers=2)
    pd.testing.assert_frame_equal(d, df)
    assert no_timing(reports(tmp_path)) == no_timing(reports(out))
    # The workers' stop watchers end quietly when the sweep closes its cluster
    # (a pending wait on the Dask event was cancelled and logged, once per run).
    err = capfd.readouterr().err
    assert "Traceback" not in err and "CancelledError" not in err, err


def test_grid_axes_workers_and_an_earlier_sweep_kept(tmp_path):
    import numpy as np
    # A NumPy array and a range are axes, as lists are.
    df = rainsim.sweep({"precondition.valid": np.linspace(0.6, 0.7, 2), "seed": range(1, 3),
                        "workload.requests": [300]}, out=str(tmp_path), progress=False)
    assert len(df) == 4 and sorted(set(df["seed"])) == [1, 2]
    assert sorted(set(round(v, 2) for v in df["precondition.valid"])) == [0.6, 0.7]
    with pytest.raises(rainsim.RainsimError, match="workers = 0: at least 1"):
        rainsim.sweep({"workload.requests": [300]}, out=str(tmp_path), workers=0)
    # A second sweep into the directory returns its own run; the directory keeps all five.
    one = rainsim.sweep({"workload.requests": [400]}, out=str(tmp_path), progress=False)
    assert len(one) == 1 and len(rainsim.load_results(str(tmp_path))) == 5


def test_ray_local_same_frame(local_result, traces, tmp_path):
    out, df = local_result
    r = rainsim.sweep(trace_grid(traces), out=str(tmp_path), backend="ray", workers=2)
    pd.testing.assert_frame_equal(r, df)
    assert no_timing(reports(tmp_path)) == no_timing(reports(out))


def test_polars_frame_and_sweep_file(traces, tmp_path):
    f = tmp_path / "sweep.toml"
    f.write_text(f'out = "res"\nworkers = 2\n[grid]\nscheme = ["baseline", "bpu"]\n'
                 f'trace = ["{traces / "msr_hm_0_slice1000.csv"}"]\n"raid.stripe_width" = [4]\n')
    df = rainsim.sweep(str(f), lib="polars")
    assert df.height == 2 and df["scheme"].to_list() == ["baseline", "bpu"]
    p = subprocess.run([sys.executable, "-m", "rainsim", "sweep", str(f), "--csv", str(tmp_path / "f.csv")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "2 stored already" in p.stderr and "running 0" in p.stderr
    assert pd.read_csv(tmp_path / "f.csv").shape[0] == 2
    # Dotted keys unquoted (a TOML table) are the same grid key.
    g = tmp_path / "dotted.toml"
    g.write_text(f'out = "res"\n[grid]\nscheme = ["baseline", "bpu"]\n'
                 f'trace = ["{traces / "msr_hm_0_slice1000.csv"}"]\nraid.stripe_width = [4]\n')
    assert rainsim._sweep.load_sweep_file(g)["grid"]["raid.stripe_width"] == [4]
    p = subprocess.run([sys.executable, "-m", "rainsim", "sweep", str(g)], capture_output=True, text=True)
    assert p.returncode == 0 and "2 stored already" in p.stderr, p.stderr


KILL_SCRIPT = """
import rainsim, sys
rainsim.sweep({"config": ["rep-raid-8ch"], "seed": list(range(1, 9)), "workload.requests": [2000]},
              out=sys.argv[1], workers=1)
"""


def test_killed_sweep_resumes_with_only_the_missing_runs(tmp_path):
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(out)], stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and (not out.is_dir() or len(list(out.glob("[0-9a-f]*.json"))) < 3):
        time.sleep(0.05)
    p.kill()  # SIGKILL: no clean-up of any kind
    p.wait()
    done = {f.name: (f.stat().st_ino, f.stat().st_mtime_ns) for f in out.glob("[0-9a-f]*.json")}
    assert 3 <= len(done) < 8, f"the sweep was not stopped mid-way ({len(done)} runs stored)"
    for name in done:
        assert "latency" in json.loads((out / name).read_text())  # every stored report is whole
    r = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = re.search(r"(\d+) runs, (\d+) stored already .* running (\d+) on", r.stderr)
    assert m and m.groups() == ("8", str(len(done)), str(8 - len(done))), r.stderr
    after = {f.name: (f.stat().st_ino, f.stat().st_mtime_ns) for f in out.glob("[0-9a-f]*.json")}
    assert len(after) == 8 and all(after[n] == v for n, v in done.items()), "a stored report was rewritten"
    assert not [n for n in os.listdir(out) if ".tmp-" in n], "temporary files left"
    assert all("latency" in json.loads((out / n).read_text()) for n in after)


@pytest.mark.parametrize("bad,needle", [
    ({"config": ["default", "no-such-preset"]}, "no-such-preset"),
    ({"scheme": ["baseline", "no-such-scheme"]}, "unknown scheme 'no-such-scheme'"),
    ({"scheme": ["baseline"], "raid.stripe_wdith": [4]}, "stripe_wdith"),
    ({"scheme": ["baseline"], "trace": ["/no/such/trace.csv"]}, "/no/such/trace.csv"),
])
def test_bad_grid_fails_before_any_run(bad, needle, tmp_path):
    grid = {"workload.requests": [2000], **bad}
    with pytest.raises(rainsim.RainsimError, match=re.escape(needle)):
        rainsim.sweep(grid, out=str(tmp_path / "o"), workers=1)
    assert not (tmp_path / "o").exists() or not list((tmp_path / "o").glob("*.json"))


def test_backend_errors(tmp_path, monkeypatch):
    with pytest.raises(rainsim.RainsimError, match="unknown backend 'spark'"):
        rainsim.sweep({"workload.requests": [2000]}, out=str(tmp_path), backend="spark")
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=re.escape("rainsim[dask]")):
        rainsim.sweep({"workload.requests": [2000]}, out=str(tmp_path / "d"), backend="dask")
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=re.escape("rainsim[ray]")):
        rainsim.sweep({"workload.requests": [2000]}, out=str(tmp_path / "r"), backend="ray")
