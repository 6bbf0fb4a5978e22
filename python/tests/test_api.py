"""run, config, presets, errors and frames; the same report as the CLI's."""

import json
import threading
import time

import pandas as pd
import polars as pl
import pytest

import rainsim
from conftest import run_cli

SHORT = {"workload.requests": 2000}


def without_timing(d):
    return {k: v for k, v in d.items() if k != "timing"}


def test_presets_schemes_workloads():
    assert "rep-raid-8ch" in rainsim.presets() and "default" in rainsim.presets()
    assert set(rainsim.schemes()) >= {"baseline", "adaptive", "bpu", "degraded", "gc-tolerant-read"}
    assert "rep-raid-hm_0" in rainsim.workloads()
    assert all(isinstance(v, str) and v for v in rainsim.presets().values())


def test_config_is_the_effective_config():
    c = rainsim.config("rep-raid-8ch", scheme="adaptive", set={"raid.stripe_width": 4, "seed": 7})
    assert c["raid"]["stripe_width"] == 4 and c["seed"] == 7
    assert c["geometry"]["channels"] == 8
    assert rainsim.config(set=["seed=9"])["seed"] == 9


def test_run_report_and_frames(tmp_path):
    r = rainsim.run(config="rep-raid-8ch", scheme="adaptive", set=SHORT)
    assert isinstance(r, rainsim.Report) and r.scheme == "adaptive" and r["trace"]["requests"] == 2000
    lat = r.latency()
    assert isinstance(lat, pd.DataFrame) and list(lat["class"]) == ["read", "write", "all"]
    assert {"p50_ns", "p99_9_ns", "max_ns", "count"} <= set(lat.columns)
    assert lat.set_index("class").loc["all", "count"] == 2000
    ch = r.channels(lib="polars")
    assert isinstance(ch, pl.DataFrame) and ch.height == 8
    assert ch["erases"].sum() == r["flash_ops"]["erase"]
    cdf = r.cdf()
    assert set(cdf["class"]) >= {"read", "write"} and cdf["fraction"].between(0, 1).all()
    fo = r.flash_ops().set_index("origin")["count"]
    assert fo["erase"] == r["flash_ops"]["erase"]
    assert set(r.to_pandas()) == set(r.to_polars()) == {"summary", "latency", "channels", "cdf", "flash_ops"}
    paths = r.to_csv(tmp_path / "csv")
    assert len(paths) == 5 and pd.read_csv(tmp_path / "csv" / "channels.csv").shape[0] == 8


@pytest.mark.parametrize("case", ["synthetic", "trace"])
def test_same_report_as_cli(case, cli, traces, tmp_path):
    if case == "synthetic":
        kw = {"config": "rep-raid-8ch", "scheme": "adaptive", "set": SHORT}
        args = ["--config", "rep-raid-8ch", "--scheme", "adaptive", "--set", "workload.requests=2000"]
    else:
        t = str(traces / "msr_hm_0_slice1000.csv")
        kw = {"config": "default", "scheme": "gc-tolerant-read", "trace": t, "set": {"raid.stripe_width": 4}}
        args = ["--config", "default", "--scheme", "gc-tolerant-read", "--trace", t, "--set", "raid.stripe_width=4"]
    out = tmp_path / "cli.json"
    p = run_cli(cli, "run", *args, "--out", out, "--quiet")
    assert p.returncode == 0, p.stderr
    from_cli = json.loads(out.read_text())
    from_py = rainsim.run(**kw)
    assert without_timing(from_py.data) == without_timing(from_cli)
    # Written back, it reads as the CLI's file does.
    from_py.to_json(tmp_path / "py.json")
    assert without_timing(rainsim.load_report(tmp_path / "py.json").data) == without_timing(from_cli)


def test_trace_stats_as_cli(cli, traces):
    t = str(traces / "systor17_lun0_slice999.csv")
    p = run_cli(cli, "trace", "stats", t, "--json")
    assert p.returncode == 0, p.stderr
    assert rainsim.trace_stats(t) == json.loads(p.stdout)


@pytest.mark.parametrize("kw,args,needle", [
    ({"config": "no-such-preset"}, ["--config", "no-such-preset"], "no-such-preset"),
    ({"scheme": "nope"}, ["--scheme", "nope"], "unknown scheme 'nope'"),
    ({"set": {"raid.stripe_wdith": 4}}, ["--set", "raid.stripe_wdith=4"], "stripe_wdith"),
    ({"set": {"raid.stripe_width": 99}}, ["--set", "raid.stripe_width=99"], "stripe_width"),
])
def test_errors_carry_the_cli_message(kw, args, needle, cli):
    with pytest.raises(rainsim.RainsimError) as e:
        rainsim.run(**kw)
    p = run_cli(cli, "run", *args, "--quiet")
    assert p.returncode != 0
    assert needle in str(e.value)
    assert ("error: " + str(e.value)).strip() == p.stderr.strip()


def test_trace_error_names_file_and_line(cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("128166372003061629,hm,0,Read,7014609920,24576,41286\nbad,line\n")
    with pytest.raises(rainsim.RainsimError, match=r"bad\.csv:2: ") as e:
        rainsim.run(trace=bad)
    assert ("error: " + str(e.value)).strip() == run_cli(cli, "run", "--trace", bad, "--quiet").stderr.strip()
    with pytest.raises(rainsim.RainsimError, match="no-such-file"):
        rainsim.trace_stats(tmp_path / "no-such-file.csv")


def test_gil_is_released_while_simulating():
    done = threading.Event()
    result = {}

    # Long enough (about 0.2 s) for the ticks to mean something: with the GIL
    # held through the run, the loop below would tick once or twice.
    def work():
        result["r"] = rainsim.run(config="rep-raid-8ch", set={"workload.requests": 100000})
        done.set()

    t = threading.Thread(target=work)
    ticks = 0
    t0 = time.perf_counter()
    t.start()
    while not done.is_set():  # Python code keeps running beside the simulation.
        ticks += 1
        time.sleep(0.001)
    t.join()
    assert result["r"]["trace"]["requests"] == 100000
    assert time.perf_counter() - t0 > 0.05 and ticks > 20, ticks


def test_run_warns_what_the_cli_prints(traces):
    import warnings
    # Requests folded onto the device, and a format's unit detected by rule.
    with pytest.warns(rainsim.RainsimWarning, match="999 of the 999 requests replayed lay beyond"):
        rainsim.run(trace=str(traces / "systor17_lun0_slice999.csv"))
    with pytest.warns(rainsim.RainsimWarning, match="--time-unit ms"):
        rainsim.run(trace=str(traces / "umass_websearch1_head.mqsim.trace"))
    # A run with nothing to say says nothing.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rainsim.run(set={"workload.requests": 300})
        rainsim.run(trace=str(traces / "msr_hm_0_slice1000.csv"), set={"trace.device": 0})
