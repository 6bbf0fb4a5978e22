"""What a demanding user of the Python API runs into: interrupts, pickling, NumPy
values, arguments the CLI refuses, and reports the HTML page cannot show."""

import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import rainsim
from rainsim import _rainsim

TRACE = "msr_hm_0_slice1000.csv"


def test_errors_pickle_with_their_message():
    # Worker processes (multiprocessing, Dask, Ray) send exceptions back pickled.
    with pytest.raises(rainsim.RainsimError) as e:
        rainsim.run(scheme="no-such")
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is rainsim.RainsimError and "unknown scheme 'no-such'" in str(back)


def test_numpy_values_are_their_python_values(tmp_path):
    r = rainsim.run(set={"workload.read_ratio": np.float64(0.25), "workload.requests": np.int64(300),
                         "policy.read_priority": np.False_})
    w = r["config"]["workload"]
    assert w["read_ratio"] == 0.25 and w["requests"] == 300 and r["trace"]["requests"] == 300
    assert r["config"]["policy"]["read_priority"] is False
    grid = rainsim.sweep({"workload.read_ratio": list(np.linspace(0.0, 1.0, 2)), "workload.requests": [200]},
                         out=str(tmp_path / "np"), workers=1, progress=False, lib="dict")
    assert grid["workload.read_ratio"] == [0.0, 1.0]


def test_trace_keys_on_a_synthetic_run_give_the_clis_note(cli, tmp_path):
    r = rainsim.run(set={"trace.format": "msr", "workload.requests": 100})
    out = tmp_path / "c.json"
    subprocess.run([str(cli), "run", "--quiet", "--set", "trace.format=msr", "--set", "workload.requests=100",
                    "--out", str(out)], check=True)
    import json
    assert r["notes"] == json.loads(out.read_text())["notes"] and r["notes"], r["notes"]
    with pytest.raises(rainsim.RainsimError, match="needs a trace file"):
        rainsim.run(format="msr", set={"workload.requests": 100})


def test_arguments_the_cli_refuses_are_refused(traces):
    for bad in (1000, 3, 0, -1, 1 << 32):
        with pytest.raises(rainsim.RainsimError, match="multiple of 512"):
            rainsim.trace_stats(traces / TRACE, page_bytes=bad)


def test_a_set_stop_flag_ends_a_run_early():
    stop = _rainsim.StopFlag()
    stop.set()
    with pytest.raises(rainsim.RainsimError, match=r"interrupted after \d+ completed requests"):
        _rainsim.run_json(sets=["workload.requests=200000"], stop=stop)
    assert _rainsim.run_json(sets=["workload.requests=200"], stop=_rainsim.StopFlag())


INTERRUPT = textwrap.dedent("""
    import os, signal, sys, threading, time, rainsim
    signal.signal(signal.SIGINT, signal.default_int_handler)
    caller = sys.argv[5:] == ["caller"]
    client = None
    if caller and sys.argv[4] == "dask":
        import distributed
        client = distributed.Client(distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                                             dashboard_address=None))
    elif caller:
        import ray
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    sent = []
    def interrupt():
        sent.append(time.time())
        os.kill(os.getpid(), signal.SIGINT)
    threading.Timer(float(sys.argv[2]), interrupt).start()
    t = time.time()
    try:
        if sys.argv[1] == "run":
            rainsim.run(set={"workload.requests": 50_000_000})
        else:
            grid = [{"seed": [1, 2], "workload.requests": [20_000]}, {"seed": [3], "workload.requests": [50_000_000]}]
            rainsim.sweep(grid, out=sys.argv[3], workers=2, progress=False, backend=sys.argv[4], client=client)
    except KeyboardInterrupt:
        print("interrupted", round(time.time() - t, 1), round(time.time() - sent[0], 1), end=" ")
        # The caller's cluster (one CPU) takes a task only once the long run stopped.
        if caller and client is not None:
            print("probe", client.submit(lambda: time.time(), pure=False).result(timeout=30) - sent[0])
        elif caller:
            print("probe", ray.get(ray.remote(lambda: time.time()).remote(), timeout=30) - sent[0])
""")


def test_ctrl_c_stops_a_run_at_once():
    # 50M requests take about a minute; Ctrl-C after a second stops it within seconds.
    r = subprocess.run([sys.executable, "-c", INTERRUPT, "run", "1.0"], capture_output=True, text=True, timeout=300)
    assert r.stdout.startswith("interrupted"), r.stdout + r.stderr
    assert float(r.stdout.split()[1]) < 20, r.stdout


@pytest.mark.parametrize("backend, cluster", [("local", "own"), ("dask", "own"), ("ray", "own"), ("dask", "caller"),
                                              ("ray", "caller")])
def test_ctrl_c_in_a_sweep_keeps_the_runs_done(tmp_path, backend, cluster):
    # On the caller's cluster (a Dask client or Ray initialised before the sweep,
    # one CPU) the long run must stop too: a task sent after the interrupt runs.
    if backend != "local":
        pytest.importorskip("distributed" if backend == "dask" else "ray")
    # Dask's and Ray's local clusters take seconds to start: the interrupt comes
    # once the two short runs are surely done, while the long one runs.
    after = "3.0" if backend == "local" else "20.0"
    out = tmp_path / "sw"
    r = subprocess.run([sys.executable, "-c", INTERRUPT, "sweep", after, str(out),
                        backend, cluster], capture_output=True, text=True, timeout=300)
    assert r.stdout.startswith("interrupted"), r.stdout + r.stderr
    assert float(r.stdout.split()[2]) < 20, "the long run was not stopped: " + r.stdout
    if cluster == "caller":
        assert "probe" in r.stdout and float(r.stdout.split()[4]) < 20, "the long run held the cluster: " + r.stdout
    stored = [n for n in os.listdir(out) if n.endswith(".json") and n != "sweep.json"]
    assert len(stored) == 2, f"the two short runs are stored, the long one not: {stored}"


def test_sweep_arguments(tmp_path):
    grid = {"workload.requests": [200]}
    with pytest.raises(rainsim.RainsimError, match="verify = 'no'"):
        rainsim.sweep({**grid, "verify": ["no"]}, out=str(tmp_path / "a"), progress=False)
    f = rainsim.sweep({**grid, "verify": ["false"]}, out=str(tmp_path / "b"), progress=False, lib="dict")
    assert f["verify"] == ["false"]
    with pytest.raises(rainsim.RainsimError, match="workers = -1"):
        rainsim.sweep(grid, out=str(tmp_path / "c"), workers=-1)
    with pytest.raises(rainsim.RainsimError, match="lib = 'arrow'"):
        rainsim.sweep(grid, out=str(tmp_path / "d"), lib="arrow")
    assert not (tmp_path / "d").exists(), "refused before any run"


def test_relative_config_files_are_made_absolute(tmp_path, monkeypatch):
    (tmp_path / "my.toml").write_text('extends = "default"\nseed = 5\n')
    monkeypatch.chdir(tmp_path)
    spec = rainsim._sweep.run_spec({"config": "my.toml", "workload": "rep-raid-hm_0"})
    assert spec["config"] == str(tmp_path / "my.toml") and spec["workload"] == "rep-raid-hm_0"


def test_report_refuses_mismatched_labels_and_a_mix_of_arrays_and_devices(tmp_path, cli, traces):
    a = rainsim.run(set={"workload.requests": 300})
    b = rainsim.run(set={"workload.requests": 300, "seed": 2})
    with pytest.raises(ValueError, match="1 labels for 2 runs"):
        rainsim.report([a, b], out=str(tmp_path / "r.html"), labels=["a"])
    arr, dev = tmp_path / "arr.json", tmp_path / "dev.json"
    subprocess.run([str(cli), "run", "--quiet", "--config", "dls-4ssd", "--trace", str(traces / TRACE),
                    "--out", str(arr)], check=True)
    a.to_json(dev)
    r = subprocess.run([sys.executable, "-m", "rainsim", "report", str(dev), str(arr), "-o", str(tmp_path / "x.html")],
                       capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith("error:"), r.stderr
    assert f"{arr} is an array's report, {dev} a single device's" in r.stderr, r.stderr
    assert not (tmp_path / "x.html").exists()


def test_report_of_a_sweep_directory_shows_its_runs(tmp_path):
    out = str(tmp_path / "sw")
    rainsim.sweep({"workload.requests": [300], "scheme": ["baseline", "bpu"]}, out=out, progress=False)
    rainsim.sweep({"workload.requests": [300], "seed": [2]}, out=out, progress=False)
    # The directory now holds three reports, and its manifest names them all (the
    # earlier sweep's first): a second sweep into it once hid the first's runs.
    assert len([n for n in os.listdir(out) if n != "sweep.json"]) == 3
    runs = rainsim.load_results(out, lib="dict")["key"]
    shown = rainsim._html._load(out)
    assert len(runs) == 3 and [os.path.basename(r.path) for r in shown] == [f"{k}.json" for k in runs]
    assert rainsim.load_results(out, lib="dict")["seed"][-1] == 2
