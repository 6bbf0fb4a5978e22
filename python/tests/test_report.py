"""CSV tables, plots and the HTML report, rendered in headless Chromium."""

import subprocess
import sys

import pytest
from PIL import Image

import rainsim
from browser import assert_plots_drawn, chromium, shoot
from rainsim import plots


@pytest.fixture(scope="module")
def runs(traces, tmp_path_factory):
    d = tmp_path_factory.mktemp("runs")
    paths = []
    for scheme in ("baseline", "gc-tolerant-read"):
        for seed in (1, 2):
            r = rainsim.run(config="default", scheme=scheme, trace=traces / "msr_hm_0_slice1000.csv",
                            set={"raid.stripe_width": 4, "seed": seed})
            p = d / f"{scheme}-{seed}.json"
            r.to_json(p)
            paths.append(p)
    return paths


def test_the_cdf_draws_the_jump_at_its_first_latency(runs):
    # 1.8 % of reads at 0 ns (off the log axis), 78.9 % more at 65.7 us: the curve
    # starts at 0.018 and rises there, on an axis from 0.
    d = rainsim.Report.load(runs[0]).data
    d["latency"]["read"]["cdf"] = [[0, 0.018], [65_700, 0.807], [100_000, 1.0]]
    fig = plots.latency_cdf(d)
    top = fig.axes[0]
    xs, ys = top.lines[0].get_data()
    assert list(ys[:2]) == [0.018, 0.807] and xs[0] == xs[1] == 65.7
    assert top.get_ylim()[0] == 0


def test_plots_as_svg_and_png(runs, tmp_path):
    plots.latency_cdf(runs, tmp_path / "cdf.svg")
    plots.channel_bars(runs[0], tmp_path / "ch.png")
    df = rainsim.sweep({"config": ["default"], "scheme": ["baseline", "bpu"], "seed": [1, 2, 3],
                        "trace": [rainsim.load_report(runs[0]).trace["path"]],
                        "raid.stripe_width": [4]}, out=str(tmp_path / "sw"), workers=2, progress=False)
    plots.scheme_comparison(df, path=tmp_path / "cmp.svg")
    assert (tmp_path / "cdf.svg").read_text().lstrip().startswith("<?xml")
    assert Image.open(tmp_path / "ch.png").size[0] > 500
    assert "<svg" in (tmp_path / "cmp.svg").read_text()
    # Grouped by the runs' own scheme when the grid had no scheme column.
    only_seeds = {k: v for k, v in rainsim._sweep._frame(str(tmp_path / "sw"), rainsim._sweep.plan(
        {"config": ["default"], "scheme": ["bpu"], "seed": [1, 2], "trace": [rainsim.load_report(runs[0]).trace["path"]],
         "raid.stripe_width": [4]}), "dict").items() if k != "scheme"}
    fig = plots.scheme_comparison(only_seeds)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["bpu"]
    with pytest.raises(ValueError, match="no column 'workload'"):
        plots.scheme_comparison(only_seeds, by="workload")
    m, h = plots.interval([1.0, 2.0, 3.0])
    assert m == 2.0 and abs(h - 4.303 * 1 / 3 ** 0.5) < 1e-9


def test_html_report_renders(runs, tmp_path):
    exe = chromium()
    out = tmp_path / "report.html"
    p = subprocess.run([sys.executable, "-m", "rainsim", "report", *map(str, runs), "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    text = out.read_text()
    # Self-contained: no scripts, no external resources.
    for needle in ('src="http', "src='http", 'href="http', "<script", "<link", "@import", "url(http"):
        assert needle not in text
    for needle in ("trace sha256", rainsim.load_report(runs[0]).trace["sha256"], "Keys that differ", "seed",
                   "data:image/svg+xml;base64,"):
        assert needle in text
    # The console catcher works: a page that logs an error is caught.
    ctl = tmp_path / "control.html"
    ctl.write_text('<html><body><script>console.error("control-error")</script></body></html>')
    assert any("control-error" in m for m in shoot(exe, ctl.as_uri(), tmp_path / "ctl.png", tmp_path))
    # The report logs nothing, and its plots are drawn: the CDF, the comparison and
    # one channel figure per run, each a band of coloured, varied pixels.
    png = tmp_path / "report.png"
    assert shoot(exe, out.as_uri(), png, tmp_path, height=7000) == []
    assert_plots_drawn(png, 2 + len(runs))


def test_a_single_devices_fault_has_its_table_and_sweep_columns(tmp_path):
    sets = {"workload.requests": 4000, "fault.channel": 2, "fault.at_ns": 200_000_000,
            "fault.replace_after_ns": 10_000_000, "fault.rebuild_stripes": 8}
    r = rainsim.run(config="degraded-mode-8ch", set=sets)
    t = r.fault(lib="pandas")
    f = r["fault"]
    assert list(t["phase"]) == ["before", "before", "during", "during", "after", "after"]
    assert list(t["count"]) == [f[p][c]["count"] for p in ("before", "during", "after") for c in ("read", "write")]
    df = rainsim.sweep({"config": ["degraded-mode-8ch"], **{k: [v] for k, v in sets.items()}},
                       out=str(tmp_path / "sw"), progress=False)
    assert list(df["fault_failed_at_ns"]) == [200_000_000]
    assert list(df["fault_reads_reconstructed"]) == [f["reads_reconstructed"]]
    rebuilt = f["rebuilt_at_ns"]
    assert list(df["fault_rebuild_ns"]) == [None if rebuilt is None else rebuilt - f["replaced_at_ns"]]
    # A run without a failure has no such table, and no such columns.
    plain = rainsim.run(config="degraded-mode-8ch", set={"workload.requests": 300})
    with pytest.raises(ValueError, match="no 'fault' table"):
        plain.fault()
    assert "fault_failed_at_ns" not in plain.summary(lib="pandas").columns
