"""Arrays of SSDs (``[array]``, the ``dls-*`` presets) from Python: a run gives the
CLI's array report, its tables, a sweep over allocations gives the array's columns,
and a stop flag or a request log is handled as for a single device."""

import json
import subprocess

import pytest

import rainsim
from rainsim import _rainsim

TRACE = "msr_hm_0_slice1000.csv"
SMALL = {"geometry.blocks_per_plane": 16}


def no_timing(d):
    return {k: v for k, v in d.items() if k != "timing"}


def test_an_array_run_is_the_clis(cli, traces, tmp_path):
    r = rainsim.run(config="dls-4ssd", trace=traces / TRACE, set={**SMALL, "array.allocation": "dls"})
    out = tmp_path / "a.json"
    subprocess.run([str(cli), "run", "--quiet", "--config", "dls-4ssd", "--trace", str(traces / TRACE), "--set",
                    "geometry.blocks_per_plane=16", "--set", "array.allocation=dls", "--out", str(out)], check=True)
    assert no_timing(r.data) == no_timing(json.loads(out.read_text()))
    assert r.is_array and "array of 4" in repr(r)
    t = r.tables()
    assert set(t) == {"summary", "latency", "devices", "cdf"}
    dev = t["devices"]
    assert dev["device"] == [0, 1, 2, 3]
    assert sum(dev["data_programs"]) == sum(d["data_programs"] for d in r["devices"]) > 0
    s = t["summary"]
    assert s["allocation"] == ["dls"] and s["chunks_moved"] == [r["raid"]["moves"]] and s["requests"] == [1000]
    assert s["erases"] == [sum(d["erases"] for d in r["devices"])]
    with pytest.raises(ValueError, match="an array's report has no 'channels' table"):
        r.channels()


def test_a_sweep_over_allocations_has_the_arrays_columns(traces, tmp_path):
    grid = {"config": ["dls-4ssd"], "trace": [str(traces / TRACE)], "array.allocation": ["static", "rr"],
            "geometry.blocks_per_plane": [16]}
    f = rainsim.sweep(grid, out=str(tmp_path / "sw"), progress=False, lib="dict")
    assert f["allocation"] == ["static", "rr"]
    assert f["chunks_moved"][0] == 0 < f["chunks_moved"][1]
    assert f["co_resident_stripes"][0] == 0
    assert all(n == 1000 for n in f["requests"])
    for key, moved in zip(f["key"], f["chunks_moved"]):
        d = json.loads((tmp_path / "sw" / f"{key}.json").read_text())
        assert d["raid"]["moves"] == moved


def test_an_array_run_stops_and_keeps_no_request_log(traces, tmp_path):
    stop = _rainsim.StopFlag()
    stop.set()
    with pytest.raises(rainsim.RainsimError, match=r"interrupted after \d+ completed requests"):
        _rainsim.run_json(config="dls-4ssd", sets=["workload.requests=200000"], stop=stop)
    with pytest.raises(rainsim.RainsimError, match="request log is not available for an array"):
        rainsim.run(config="dls-4ssd", trace=traces / TRACE, request_log=tmp_path / "r.parquet")
