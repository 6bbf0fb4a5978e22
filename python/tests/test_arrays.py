"""Arrays of SSDs (``[array]``, the ``dls-*`` presets) from Python: a run gives the
CLI's array report, its tables, a sweep over allocations gives the array's columns,
a stop flag or a request log is handled as for a single device, and the HTML report
shows arrays with their devices' plots and tables."""

import json
import subprocess
import sys

import pytest

import rainsim
from browser import assert_plots_drawn, chromium, shoot
from rainsim import _rainsim, plots

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


def test_a_sweep_over_the_rebuild_rate_has_the_rebuilds_columns(traces, tmp_path):
    # Device 1 fails at 1 s and is replaced at 1.5 s; more rows at once rebuild
    # it sooner. A healthy array's rebuild columns are empty.
    grid = {"config": ["dls-4ssd"], "trace": [str(traces / TRACE)], "geometry.blocks_per_plane": [16],
            "array.fail_device": [1], "array.fail_at_ns": [1_000_000_000], "array.replace_after_ns": [500_000_000],
            "array.rebuild_stripes": [1, 16]}
    f = rainsim.sweep(grid, out=str(tmp_path / "sw"), progress=False, lib="dict")
    assert f["failed_at_ns"] == [1_000_000_000] * 2
    assert 0 < f["rebuild_ns"][1] < f["rebuild_ns"][0] / 4, f["rebuild_ns"]
    for i, key in enumerate(f["key"]):
        d = json.loads((tmp_path / "sw" / f"{key}.json").read_text())["failure"]
        assert f["rebuild_ns"][i] == d["rebuilt_at_ns"] - d["replaced_at_ns"]
        assert f["units_rebuilt"][i] == d["units_rebuilt"] > 0
        assert f["during_write_mean_us"][i] == d["during"]["write"]["mean_us"]
    healthy = rainsim.run(config="dls-4ssd", trace=traces / TRACE, set=SMALL).summary(lib="pandas")
    assert healthy["rebuild_ns"].isna().all() and healthy["failed_at_ns"].isna().all()


def test_an_array_run_stops_and_keeps_no_request_log(traces, tmp_path):
    stop = _rainsim.StopFlag()
    stop.set()
    with pytest.raises(rainsim.RainsimError, match=r"interrupted after \d+ completed requests"):
        _rainsim.run_json(config="dls-4ssd", sets=["workload.requests=200000"], stop=stop)
    with pytest.raises(rainsim.RainsimError, match="request log is not available for an array"):
        rainsim.run(config="dls-4ssd", trace=traces / TRACE, request_log=tmp_path / "r.parquet")


@pytest.fixture(scope="module")
def array_runs(traces, tmp_path_factory):
    """Two allocations, two seeds each, as JSON files; the last run loses device 1 and
    rebuilds it onto a replacement."""
    d = tmp_path_factory.mktemp("arrays")
    paths = []
    for alloc in ("static", "dls"):
        for seed in (1, 2):
            r = rainsim.run(config="dls-4ssd", trace=traces / TRACE,
                            set={**SMALL, "array.allocation": alloc, "seed": seed})
            p = d / f"{alloc}-{seed}.json"
            r.to_json(p)
            paths.append(p)
    r = rainsim.run(config="dls-4ssd", trace=traces / TRACE,
                    set={**SMALL, "array.fail_device": 1, "array.fail_at_ns": 1_000_000_000,
                         "array.replace_after_ns": 500_000_000})
    p = d / "failed.json"
    r.to_json(p)
    return paths, p


def test_a_failed_arrays_failure_table_splits_every_request_into_a_phase(array_runs):
    _, failed = array_runs
    r = rainsim.load_report(failed)
    t = r.tables()["failure"]
    assert list(zip(t["phase"], t["class"])) == [(p, c) for p in ("before", "during", "after") for c in ("read", "write")]
    assert sum(t["count"]) == r["requests"] == 1000
    f = r["failure"]
    assert t["mean_us"][3] == f["during"]["write"]["mean_us"]
    assert len(r.failure(lib="pandas")) == 6
    healthy = rainsim.load_report(array_runs[0][0])
    with pytest.raises(ValueError, match="an array's report has no 'failure' table"):
        healthy.failure()


def test_device_bars_draw_each_devices_numbers(array_runs):
    paths, _ = array_runs
    r = rainsim.load_report(paths[2])
    fig = plots.device_bars(r)
    for ax, key in zip(fig.axes, ("blocked_sum", "gc", "erases", "bytes_written")):
        assert [b.get_height() for b in ax.patches] == [d[key] for d in r["devices"]]
    assert sum(d["bytes_written"] for d in r["devices"]) > 0
    # No GC in so short a run: its panel's axis is 0 to 1, not centred on 0.
    assert [d["gc"] for d in r["devices"]] == [0] * 4 and fig.axes[1].get_ylim() == (0.0, 1.0)
    with pytest.raises(ValueError, match="use device_bars"):
        plots.channel_bars(r)


def test_arrays_compare_by_allocation_on_bytes_written(array_runs):
    paths, _ = array_runs
    fig = plots.scheme_comparison(paths, by="allocation")
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["static", "dls"]
    assert [ax.get_title() for ax in fig.axes] == ["read_p99_9_ns (µs)", "write_p99_9_ns (µs)", "iops",
                                                   "bytes_written"]
    # Each bar is its allocation's mean over the seeds of the devices' bytes written.
    data = [json.loads(p.read_text()) for p in paths]
    want = [sum(sum(x["bytes_written"] for x in d["devices"]) for d in data[i:i + 2]) / 2 for i in (0, 2)]
    assert [b.get_height() for b in fig.axes[3].patches] == want
    with pytest.raises(ValueError, match="no column 'waf'"):
        plots.scheme_comparison(paths, metrics_=["waf"], by="allocation")


def test_one_page_takes_arrays_or_devices_not_both(array_runs, traces, tmp_path):
    paths, _ = array_runs
    single = rainsim.run(config="default", trace=traces / TRACE, set={"raid.stripe_width": 4})
    with pytest.raises(ValueError, match=r"arrays or single devices, not both: .*static-1\.json is an array's "
                                         r"report, run 2 a single device's"):
        rainsim.report([paths[0], single], out=str(tmp_path / "x.html"))


def test_html_report_of_arrays_renders(array_runs, tmp_path):
    exe = chromium()
    paths, failed = array_runs
    runs = [*paths, failed]
    out = tmp_path / "arrays.html"
    p = subprocess.run([sys.executable, "-m", "rainsim", "report", *map(str, runs), "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    for needle in ("<script", "<link", 'src="http'):
        assert needle not in text
    first = json.loads(paths[0].read_text())
    dead = json.loads(failed.read_text())
    assert dead["device_failed_at_ns"] == 1_000_000_000 and dead["failure"]["rebuilt_at_ns"] > 1_500_000_000
    for needle in ("<td>allocation</td>", "dls (4 SSDs)", "static (4 SSDs)",
                   "<h2 id=\"devices\">Devices</h2>", "device table: static (4 SSDs)",
                   f"<td>{first['devices'][3]['bytes_written']}</td>",
                   f"device 1 at 1000000000 ns, replaced at 1500000000 ns, rebuilt at {dead['failure']['rebuilt_at_ns']} ns",
                   "Keys that differ", "array.allocation"):
        assert needle in text, needle
    assert "channel table" not in text and 'id="channels"' not in text
    # No console message; the CDF, the comparison and one device figure per run drawn.
    png = tmp_path / "arrays.png"
    assert shoot(exe, out.as_uri(), png, tmp_path, height=7000) == []
    assert_plots_drawn(png, 2 + len(runs))


def test_a_members_channel_failure_has_its_columns_and_table(traces, tmp_path):
    # Member 2's channel 5 fails at 100 ms and its own RAID-5 rebuilds it; a sweep
    # over the member gives the member columns, and the table is the member's phases.
    inner = {"raid.level": "raid5", "raid.stripe_width": 4, "fault.channel": 5, "fault.at_ns": 100_000_000}
    grid = {"config": ["dls-4ssd"], "trace": [str(traces / TRACE)], "geometry.blocks_per_plane": [16],
            **{k: [v] for k, v in inner.items()}, "fault.device": [1, 2]}
    f = rainsim.sweep(grid, out=str(tmp_path / "sw"), progress=False, lib="dict")
    assert f["member_fault_device"] == [1, 2] and f["member_failed_at_ns"] == [100_000_000] * 2
    for i, key in enumerate(f["key"]):
        d = json.loads((tmp_path / "sw" / f"{key}.json").read_text())["member_fault"]
        assert f["member_rebuild_ns"][i] == d["rebuilt_at_ns"] - d["replaced_at_ns"] > 0
        assert f["member_reads_reconstructed"][i] == d["reads_reconstructed"]
        assert f["failed_at_ns"][i] is None, "no member failed whole"
    r = rainsim.run(config="dls-4ssd", trace=traces / TRACE, set={**SMALL, **inner, "fault.device": 2})
    t = r.member_fault(lib="pandas")
    assert list(t["phase"]) == ["before", "before", "during", "during", "after", "after"]
    assert t["count"][2] == r["member_fault"]["during"]["read"]["count"]
    from rainsim._html import render
    page = render([r])
    assert "<td>failure inside a member</td>" in page
    assert f"device 2, channel 5 at 100000000 ns, rebuilt inside it at {r['member_fault']['rebuilt_at_ns']} ns" in page
    healthy = rainsim.run(config="dls-4ssd", trace=traces / TRACE, set=SMALL)
    assert healthy.tables()["summary"]["member_fault_device"] == [None]
    with pytest.raises(ValueError, match="has no 'member_fault' table"):
        healthy.member_fault()
