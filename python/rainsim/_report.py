"""The :class:`Report` of one run: the JSON report as a dict, and its tables as frames."""

from __future__ import annotations

import csv
import json
import os
from typing import Any, Dict, List, Optional

Columns = Dict[str, List[Any]]

CLASSES = ("read", "write", "all")
PERCENTILES = ("count", "mean_ns", "p50_ns", "p90_ns", "p99_ns", "p99_9_ns", "p99_99_ns", "p99_999_ns", "max_ns")
CHANNEL_KEYS = ("ops", "avg_blocked", "blocked_sum", "busy_fraction", "gc_count", "pages_moved", "erases", "reads",
                "read_p99_ns", "read_p99_9_ns", "read_p99_99_ns", "gc_mean_ns")

_default_lib: Optional[str] = None


def set_frame_library(lib: Optional[str]) -> None:
    """Chooses the frames' library: ``"pandas"``, ``"polars"`` or None (pandas if installed, else polars)."""
    global _default_lib
    if lib not in (None, "pandas", "polars"):
        raise ValueError(f"frame library must be 'pandas' or 'polars', not {lib!r}")
    _default_lib = lib


def frame(cols: Columns, lib: Optional[str] = None):
    """A column dict as a pandas or polars frame (whichever is asked for or installed)."""
    lib = lib or _default_lib
    if lib in (None, "pandas"):
        try:
            import pandas as pd
            return pd.DataFrame(cols)
        except ImportError:
            if lib == "pandas":
                raise ImportError("frames need pandas: pip install 'rainsim[pandas]'") from None
    if lib in (None, "polars"):
        try:
            import polars as pl
            return pl.DataFrame(cols, strict=False)
        except ImportError:
            if lib == "polars":
                raise ImportError("frames need polars: pip install 'rainsim[polars]'") from None
    if lib not in (None, "pandas", "polars"):
        raise ValueError(f"frame library must be 'pandas' or 'polars', not {lib!r}")
    raise ImportError("frames need pandas or polars: pip install 'rainsim[pandas]' or 'rainsim[polars]'")


DEVICE_KEYS = ("reads", "data_programs", "parity_programs", "blocked_requests", "blocked_sum", "avg_blocked", "gc", "erases",
               "pages_moved", "bytes_written", "waf", "predicted_lifetime_s", "life_days_eq12", "use_life_years_eq11",
               "mean_latency_ns")


def is_array(d: dict) -> bool:
    """Whether a report is an array's (``[array]``): one per device in ``devices``."""
    return "array" in d and "devices" in d


def metrics(d: dict) -> Dict[str, Any]:
    """The headline numbers of a report, flat (one row of a sweep frame); timing is left out."""
    if is_array(d):
        return array_metrics(d)
    m: Dict[str, Any] = {"iops": d["iops"], "waf": d["waf"]}
    for c in CLASSES:
        for k in PERCENTILES:
            m[f"{c}_{k}"] = d["latency"][c][k]
    ch = d["channels"]
    m.update({
        "gc_count": d["gc"]["count"], "gc_moves_per_gc": d["gc"]["moves_per_gc"], "erases": d["flash_ops"]["erase"],
        "blocked_sum": sum(c["blocked_sum"] for c in ch), "cv_blocked": d["balance"]["cv_blocked"],
        "cv_read_p99_9": d["balance"]["cv_read_p99_9"], "rmw": d["raid"]["rmw"], "rcw": d["raid"]["rcw"],
        "degraded_reads": d["raid"]["degraded_reads"], "sim_span_ns": d["sim"]["span_ns"],
        "requests": d["trace"].get("requests"),
    })
    # A channel or die failure ([fault]): its columns only where a run has one.
    f = d.get("fault")
    if f:
        during = f["during"]
        m.update({
            "fault_failed_at_ns": f["failed_at_ns"], "fault_rebuild_ns": _rebuild_ns(f),
            "fault_reads_reconstructed": f["reads_reconstructed"], "fault_chunks_lost_at_end": f["chunks_lost_at_end"],
            **{f"fault_during_{c}_{k}": during[c][k] for c in ("read", "write") for k in ("mean_us", "p99_us")},
        })
    return m


def array_metrics(d: dict) -> Dict[str, Any]:
    """:func:`metrics` of an array's report: the array's latency, IOPS and RAID routines,
    the devices' sums, and the balance across devices."""
    m: Dict[str, Any] = {"iops": d["iops"], "execution_time_ns": d["execution_time_ns"],
                         "allocation": d["array"]["allocation"]}
    for c in CLASSES:
        for k in PERCENTILES:
            m[f"{c}_{k}"] = d["latency"][c][k]
    dev = d["devices"]
    m.update({
        "gc_count": sum(x["gc"] for x in dev), "erases": sum(x["erases"] for x in dev),
        "blocked_sum": sum(x["blocked_sum"] for x in dev), "bytes_written": sum(x["bytes_written"] for x in dev),
        "full_stripe_writes": d["raid"]["full_stripe_writes"], "rmw": d["raid"]["rmw"], "rcw": d["raid"]["rcw"],
        "prereads": d["raid"]["prereads"], "degraded_reads": d["raid"]["degraded_reads"],
        "chunks_moved": d["raid"]["moves"], "cv_programs": d["balance"]["cv_programs"],
        "max_min_programs": d["balance"]["max_min_programs"], "cv_bytes_written": d["balance"]["cv_bytes_written"],
        "cv_erases": d["balance"]["cv_erases"], "cv_blocked": d["balance"]["cv_blocked"],
        "min_predicted_lifetime_s": d["min_predicted_lifetime_s"], "co_resident_stripes": d["co_resident_stripes"],
        "requests": d["requests"],
    })
    # A failed device and its rebuild (None without): the rebuild's time against the
    # host's latency meanwhile, as a sweep over array.rebuild_stripes compares them.
    f = d.get("failure") or {}
    during = f.get("during", {})
    m.update({
        "failed_at_ns": f.get("failed_at_ns"), "rebuild_ns": _rebuild_ns(f),
        "units_rebuilt": f.get("units_rebuilt"),
        **{f"during_{c}_{k}": during.get(c, {}).get(k) for c in ("read", "write") for k in ("mean_us", "p99_us")},
    })
    # A channel or die failing inside one member ([fault] with fault.device; None without).
    mf = d.get("member_fault") or {}
    m.update({
        "member_fault_device": mf.get("device"), "member_failed_at_ns": mf.get("failed_at_ns"),
        "member_rebuild_ns": _rebuild_ns(mf),
        "member_reads_reconstructed": mf.get("reads_reconstructed"),
    })
    return m


def _rebuild_ns(f: dict) -> Optional[int]:
    """A failure section's rebuild time, replacement to rebuilt (None: not rebuilt)."""
    done = f.get("rebuilt_at_ns")
    return None if done is None else done - f["replaced_at_ns"]


class Report:
    """One run's report. ``report.data`` is the JSON report as a dict (``report["waf"]`` reads it too).
    An array's report (``is_array``) has the array's tables: summary, latency, devices, cdf
    (and, with a failed device, failure)."""

    def __init__(self, data: dict, path: Optional[str] = None, request_log: Optional[str] = None):
        self.data = data
        self.path = path
        #: The Parquet request log written with this run (``run(..., request_log=...)``), if any.
        self.request_log = request_log

    @classmethod
    def load(cls, path: "os.PathLike[str] | str", request_log: "Optional[os.PathLike[str] | str]" = None) -> "Report":
        """Reads a JSON report written by ``rainsim run --out`` or a sweep (and, with
        ``request_log``, names the run's ``--request-log`` file for :meth:`requests`)."""
        with open(path, encoding="utf-8") as f:
            return cls(json.load(f), os.fspath(path), None if request_log is None else os.fspath(request_log))

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __repr__(self) -> str:
        t = self.data.get("trace", {})
        if self.is_array:
            a = self.data["array"]
            return (f"<rainsim.Report array of {a['devices']} allocation={a['allocation']!r} seed={self.seed} "
                    f"trace={t.get('path')!r} iops={self.data['iops']:.1f}>")
        return (f"<rainsim.Report scheme={self.scheme!r} seed={self.seed} trace={t.get('path')!r} "
                f"iops={self.data['iops']:.1f} waf={self.data['waf']:.3f}>")

    is_array = property(lambda self: is_array(self.data), doc="Whether this is an array's report (``[array]``).")

    scheme = property(lambda self: self.data["scheme"], doc="Scheme name.")
    seed = property(lambda self: self.data["seed"], doc="Seed.")
    version = property(lambda self: self.data["version"], doc="rainsim version that made it.")
    config = property(lambda self: self.data["config"], doc="The effective configuration (dict).")
    trace = property(lambda self: self.data["trace"], doc="Trace identity (path, format, sha256, ...).")

    def to_json(self, path: "os.PathLike[str] | str") -> None:
        """Writes the report as pretty JSON with a final newline: the CLI's values, though
        Python may spell a float differently (``6.28e-05`` for the CLI's ``0.0000628``)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(self.data, indent=2) + "\n")

    # Tables as plain columns; the frame methods wrap them.
    def tables(self) -> Dict[str, Columns]:
        """Every table as ``{name: {column: values}}`` (no dependency needed)."""
        d = self.data
        lat: Columns = {"class": list(CLASSES)}
        for k in PERCENTILES:
            lat[k] = [d["latency"][c][k] for c in CLASSES]
        if self.is_array:
            devices: Columns = {"device": list(range(len(d["devices"])))}
            for k in DEVICE_KEYS:
                devices[k] = [x.get(k) for x in d["devices"]]  # absent in reports before 0.2.3
            summary = {k: [v] for k, v in metrics(d).items()}
            out = {"summary": summary, "latency": lat, "devices": devices, "cdf": _cdf(d)}
            if d.get("failure"):
                out["failure"] = _phases(d["failure"])
            if d.get("member_fault"):
                out["member_fault"] = _phases(d["member_fault"])
            return out
        chan: Columns = {"channel": list(range(len(d["channels"])))}
        for k in CHANNEL_KEYS:
            chan[k] = [c[k] for c in d["channels"]]
        for k in ("host_read", "host_program", "pre_read", "degraded_read", "parity_program", "replica_program"):
            chan[f"ops_{k}"] = [c["ops_by_origin"].get(k, 0) for c in d["channels"]]
        cdf = _cdf(d)
        ops = d["flash_ops"]
        flash: Columns = {"origin": list(ops), "count": list(ops.values())}
        summary = {k: [v] for k, v in metrics(d).items()}
        out = {"summary": summary, "latency": lat, "channels": chan, "cdf": cdf, "flash_ops": flash}
        if d.get("fault"):
            out["fault"] = _phases(d["fault"])
        return out

    def summary(self, lib: Optional[str] = None):
        """One row of headline numbers (the columns of a sweep frame)."""
        return frame(self.tables()["summary"], lib)

    def latency(self, lib: Optional[str] = None):
        """Latency by class (read, write, all) x percentile, in ns (plus count)."""
        return frame(self.tables()["latency"], lib)

    def channels(self, lib: Optional[str] = None):
        """One row per channel: ops, blocking, busy time, GC, erases, read tails."""
        return frame(self._table("channels"), lib)

    def devices(self, lib: Optional[str] = None):
        """An array's report: one row per device (reads, programs, blocking, GC, erases,
        bytes written, WAF, lifetimes, mean latency)."""
        return frame(self._table("devices"), lib)

    def _table(self, name: str) -> Columns:
        t = self.tables()
        if name not in t:
            kind = "an array's report" if self.is_array else "a single device's report"
            raise ValueError(f"{kind} has no '{name}' table; its tables: {', '.join(t)}")
        return t[name]

    def failure(self, lib: Optional[str] = None):
        """An array's report with a failed device: read and write latency of the requests
        completed before the failure, during it (until the rebuild ended) and after, in µs
        (a percentile is None unless 10 samples lie beyond it)."""
        return frame(self._table("failure"), lib)

    def fault(self, lib: Optional[str] = None):
        """A single device's report with a channel or die failure (``[fault]``): read and
        write latency before the failure, during it (until the rebuild ended) and after, in
        µs, as :meth:`failure` gives them for an array's failed device."""
        return frame(self._table("fault"), lib)

    def member_fault(self, lib: Optional[str] = None):
        """An array's report with a channel or die failing inside one member (``[fault]`` with
        ``fault.device``): that member's own read and write latency before the failure, during
        it and after, in µs, as :meth:`failure` gives them for a device failing whole."""
        return frame(self._table("member_fault"), lib)

    def cdf(self, lib: Optional[str] = None):
        """Latency CDF points, long form: class, latency_ns, fraction."""
        return frame(self.tables()["cdf"], lib)

    def flash_ops(self, lib: Optional[str] = None):
        """Flash operations by origin."""
        return frame(self._table("flash_ops"), lib)

    def requests(self, lib: Optional[str] = None):
        """The per-request log of this run (``run(..., request_log=PATH)``) as a frame: one row
        per completed request (arrival_ns, class, size_bytes, latency_ns, channels, degraded)."""
        if self.request_log is None:
            raise ValueError("this run kept no request log: run it with request_log='FILE.parquet'")
        return read_request_log(self.request_log, lib)

    def to_pandas(self) -> Dict[str, Any]:
        """Every table as a pandas DataFrame: summary, latency, channels, cdf, flash_ops (an
        array's: summary, latency, devices, cdf)."""
        return {k: frame(v, "pandas") for k, v in self.tables().items()}

    def to_polars(self) -> Dict[str, Any]:
        """Every table as a polars DataFrame: summary, latency, channels, cdf, flash_ops."""
        return {k: frame(v, "polars") for k, v in self.tables().items()}

    def to_csv(self, directory: "os.PathLike[str] | str") -> List[str]:
        """Writes each table as ``<directory>/<name>.csv``; returns the paths."""
        os.makedirs(directory, exist_ok=True)
        paths = []
        for name, cols in self.tables().items():
            p = os.path.join(directory, f"{name}.csv")
            with open(p, "w", newline="", encoding="utf-8") as f:
                w = csv.writer(f)
                w.writerow(list(cols))
                w.writerows(zip(*cols.values()))
            paths.append(p)
        return paths


PHASE_KEYS = ("count", "mean_us", "p99_us", "p99_9_us", "p99_99_us")


def _phases(f: dict) -> Columns:
    cols: Columns = {"phase": [], "class": [], **{k: [] for k in PHASE_KEYS}}
    for phase in ("before", "during", "after"):
        for c in ("read", "write"):
            cols["phase"].append(phase)
            cols["class"].append(c)
            for k in PHASE_KEYS:
                cols[k].append(f[phase][c][k])
    return cols


def _cdf(d: dict) -> Columns:
    cdf: Columns = {"class": [], "latency_ns": [], "fraction": []}
    for c in CLASSES:
        for ns, frac in d["latency"][c]["cdf"]:
            cdf["class"].append(c)
            cdf["latency_ns"].append(ns)
            cdf["fraction"].append(frac)
    return cdf


def load_report(path: "os.PathLike[str] | str") -> Report:
    """Reads a JSON report file."""
    return Report.load(path)


def read_request_log(path: "os.PathLike[str] | str", lib: Optional[str] = None):
    """Reads a request log (``rainsim run --request-log``, ``run(request_log=...)``) as a pandas
    frame (needs pyarrow) or a polars frame, as :func:`set_frame_library` or ``lib`` chooses."""
    lib = lib or _default_lib
    path = os.fspath(path)
    if lib in (None, "pandas"):
        try:
            import pandas as pd
            import pyarrow  # noqa: F401  (pandas reads Parquet through it)
            return pd.read_parquet(path)
        except ImportError:
            if lib == "pandas":
                raise ImportError("reading the request log into pandas needs pyarrow: pip install 'rainsim[pandas]'") from None
    if lib in (None, "polars"):
        try:
            import polars as pl
            return pl.read_parquet(path)
        except ImportError:
            if lib == "polars":
                raise ImportError("frames need polars: pip install 'rainsim[polars]'") from None
    if lib not in (None, "pandas", "polars"):
        raise ValueError(f"frame library must be 'pandas' or 'polars', not {lib!r}")
    raise ImportError("the request log needs pandas with pyarrow, or polars: pip install 'rainsim[pandas]'")
