"""The per-request log (``--request-log``, ``run(request_log=...)``): its rows against the
report, its degraded flag against the RAID counters, its channel sets, determinism, the
three readers, and its errors."""

import json
import math

import pandas as pd
import polars as pl
import pyarrow.parquet as pq
import pytest

import rainsim
from conftest import run_cli

# One 8 KiB page per request (the presets' page size), so that a request holds at most
# one rebuilt page and flagged rows can be counted against the report's counters.
ONE_PAGE = {"workload.sizes": [{"bytes": 8192, "weight": 1.0}], "workload.align_bytes": 8192}
COLUMNS = ["arrival_ns", "class", "size_bytes", "latency_ns", "channels", "degraded"]
QUANTILES = {"p50_ns": 0.5, "p90_ns": 0.9, "p99_ns": 0.99, "p99_9_ns": 0.999, "max_ns": 1.0}


def without_timing(d):
    return {k: v for k, v in d.items() if k != "timing"}


def exact_quantile(sorted_values, q):
    """The smallest value with at least q of the samples at or below it."""
    return sorted_values[max(1, math.ceil(q * len(sorted_values))) - 1]


@pytest.mark.parametrize("case", ["synthetic", "trace"])
def test_rows_and_latencies_match_the_report(case, traces, tmp_path):
    log = tmp_path / "log.parquet"
    if case == "synthetic":
        # Over 65,536 rows: several pages per column.
        r = rainsim.run(config="default", set={"workload.requests": 70000}, request_log=log)
    else:
        r = rainsim.run(config="rep-raid-8ch", scheme="adaptive", trace=traces / "msr_hm_0_slice1000.csv",
                        request_log=log)
    df = r.requests()
    assert list(df.columns) == COLUMNS
    assert len(df) == r["latency"]["all"]["count"] == r["trace"]["requests"]
    for cls in ("read", "write", "all"):
        lat = df["latency_ns"] if cls == "all" else df.loc[df["class"] == cls, "latency_ns"]
        want = r["latency"][cls]
        assert len(lat) == want["count"]
        assert int(lat.sum()) == want["sum_ns"]
        assert lat.mean() == pytest.approx(want["mean_ns"], rel=1e-12)
        values = sorted(int(v) for v in lat)
        for key, q in QUANTILES.items():
            exact = exact_quantile(values, q)
            # The report's percentiles come from a histogram of 3 significant digits:
            # never below the exact value, at most one bucket (1/1024) above it.
            assert exact <= want[key] <= exact + exact / 1024 + 1, (cls, key, exact, want[key])
    host = r["host"]
    assert int(df.loc[df["class"] == "read", "size_bytes"].sum()) == host["bytes_read"]
    assert int(df.loc[df["class"] == "write", "size_bytes"].sum()) == host["bytes_written"]
    assert (df["arrival_ns"] >= 0).all() and (df["latency_ns"] >= 0).all()
    # Completion order: arrival + latency never decreases.
    done = (df["arrival_ns"] + df["latency_ns"]).tolist()
    assert done == sorted(done)


def test_log_changes_nothing_else_and_is_deterministic(cli, tmp_path):
    kw = {"config": "rep-raid-8ch", "scheme": "adaptive", "set": {"workload.requests": 3000}}
    a = rainsim.run(**kw, request_log=tmp_path / "a.parquet")
    b = rainsim.run(**kw, request_log=tmp_path / "b.parquet")
    plain = rainsim.run(**kw)
    assert without_timing(a.data) == without_timing(plain.data) == without_timing(b.data)
    p = run_cli(cli, "run", "-q", "--config", "rep-raid-8ch", "--scheme", "adaptive",
                "--set", "workload.requests=3000", "--request-log", tmp_path / "c.parquet")
    assert p.returncode == 0, p.stderr
    data = (tmp_path / "a.parquet").read_bytes()
    assert data[:4] == data[-4:] == b"PAR1"
    assert data == (tmp_path / "b.parquet").read_bytes() == (tmp_path / "c.parquet").read_bytes()
    # Another seed gives another log (the comparison above can fail).
    rainsim.run(**{**kw, "set": {**kw["set"], "seed": 2}}, request_log=tmp_path / "d.parquet")
    assert (tmp_path / "d.parquet").read_bytes() != data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.parquet", "b.parquet", "c.parquet", "d.parquet"]


def test_pandas_pyarrow_and_polars_read_the_same_rows(tmp_path):
    log = tmp_path / "log.parquet"
    r = rainsim.run(config="default", scheme="degraded", set={"workload.requests": 3000}, request_log=log)
    t = pq.read_table(log)
    assert t.schema.names == COLUMNS and t.num_rows == 3000
    assert str(t.schema.field("channels").type) == "list<element: int32 not null>"
    meta = {k.decode(): v.decode() for k, v in t.schema.metadata.items()}
    assert meta == {"rainsim.version": r.version, "rainsim.scheme": "degraded", "rainsim.seed": "1",
                    "rainsim.channels": "8"}
    pdf = r.requests(lib="pandas")
    plf = rainsim.read_request_log(log, lib="polars")
    assert isinstance(pdf, pd.DataFrame) and isinstance(plf, pl.DataFrame)
    rows = t.to_pylist()
    assert plf.to_dicts() == rows
    assert [{k: (list(v) if k == "channels" else v) for k, v in row.items()} for row in pdf.to_dict("records")] == rows
    assert set(pdf["class"]) == {"read", "write"} and pdf["degraded"].any()


@pytest.mark.parametrize("scheme,sets,counter", [
    ("degraded", {}, "degraded_reads"),
    ("gc-tolerant-read", {"precondition.invalid": 0.22}, "gc_tolerant_reads"),  # GC from the start
    ("baseline", {"precondition.invalid": 0.22}, None),
])
def test_degraded_flag_is_set_exactly_on_rebuilt_requests(scheme, sets, counter, tmp_path):
    log = tmp_path / "log.parquet"
    r = rainsim.run(config="default", scheme=scheme, request_log=log,
                    set={"workload.requests": 5000, **ONE_PAGE, **sets})
    df = r.requests()
    raid = r["raid"]
    reads, writes = df[df["class"] == "read"], df[df["class"] == "write"]
    rebuilt = raid["degraded_reads"] + raid["gc_tolerant_reads"]
    assert int(reads["degraded"].sum()) == rebuilt
    assert int(writes["degraded"].sum()) == raid["degraded_updates"]
    if counter is None:
        assert rebuilt == 0 and not df["degraded"].any()
    else:
        assert raid[counter] > 0
        # A rebuilt read ran on its partners' channels only: stripe width 4 = 3 other chunks.
        assert (reads.loc[reads["degraded"], "channels"].map(len) == 3).all()


def test_multi_page_requests_flag_at_most_once(tmp_path):
    log = tmp_path / "log.parquet"
    mix = {"workload.sizes": [{"bytes": 8192, "weight": 1.0}, {"bytes": 65536, "weight": 1.0}]}
    r = rainsim.run(config="default", scheme="gc-tolerant-read", request_log=log,
                    set={"workload.requests": 5000, "precondition.invalid": 0.22, **mix})
    flagged = int(r.requests().query("`class` == 'read'")["degraded"].sum())
    assert 0 < flagged < r["raid"]["gc_tolerant_reads"]


@pytest.mark.parametrize("channels", [8, 72])
def test_channel_sets(channels, tmp_path):
    log = tmp_path / "log.parquet"
    sets = {"workload.requests": 4000, **ONE_PAGE}
    if channels != 8:
        sets.update({"geometry.channels": channels, "geometry.blocks_per_plane": 32})
    r = rainsim.run(config="default", request_log=log, set=sets)
    df = r.requests(lib="polars")
    chans = df["channels"].to_list()
    assert all(c == sorted(set(c)) and all(0 <= x < channels for x in c) for c in chans)
    reads = df.filter(pl.col("class") == "read")
    writes = df.filter(pl.col("class") == "write")
    # A mapped one-page read touches its page's channel; an unmapped one touches none.
    per_channel = [0] * channels
    for c in reads["channels"].to_list():
        assert len(c) <= 1
        for x in c:
            per_channel[x] += 1
    assert per_channel == [c["ops_by_origin"]["host_read"] for c in r["channels"]]
    unmapped = sum(1 for c in reads["channels"].to_list() if not c)
    assert unmapped == r["host"]["unmapped_reads"] == r["host"]["unmapped_read_requests"]
    # A write programs its chunk and the stripe's parity, on two channels at least.
    assert writes["channels"].list.len().min() >= 2
    if channels > 64:
        assert max(max(c) for c in chans if c) >= 64


def test_unwritable_log_is_a_clear_error_before_the_run(cli, tmp_path):
    missing = tmp_path / "no" / "such" / "dir" / "log.parquet"
    with pytest.raises(rainsim.RainsimError, match=r"log\.parquet: cannot write here"):
        rainsim.run(set={"workload.requests": 100}, request_log=missing)
    with pytest.raises(rainsim.RainsimError, match="is a directory"):
        rainsim.run(set={"workload.requests": 100}, request_log=tmp_path)
    out = tmp_path / "r.json"
    p = run_cli(cli, "run", "--set", "workload.requests=100", "-o", out, "--request-log", missing)
    assert p.returncode == 1 and "cannot write here" in p.stderr and p.stdout == ""
    assert not out.exists()
    p = run_cli(cli, "run", "--set", "workload.requests=100", "-o", out, "--request-log", out)
    assert p.returncode == 1 and "both name" in p.stderr and not out.exists()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="no request log"):
        rainsim.run(set={"workload.requests": 100}).requests()


def test_cli_help_documents_the_flag(cli):
    p = run_cli(cli, "run", "--help")
    assert "--request-log <FILE.parquet>" in p.stdout and "completion order" in p.stdout
