"""Plots of reports (matplotlib, the ``plot`` extra): latency CDFs with a tail zoom,
per-channel (an array's: per-device) bars, and scheme comparisons with intervals.
Each function returns a matplotlib Figure and, given ``path``, saves it (SVG, PNG,
... by the extension)."""

from __future__ import annotations

import math
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ._report import CLASSES, Report, metrics


def _figure(w: float, h: float):
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'rainsim[plot]'") from None
    return Figure(figsize=(w, h), layout="constrained")


def _save(fig, path: Optional[str]):
    if path is not None:
        fig.savefig(os.fspath(path))
    return fig


def _reports(runs: Any) -> List[Report]:
    if isinstance(runs, (Report, dict, str, os.PathLike)):
        runs = [runs]
    out = []
    for r in runs:
        out.append(r if isinstance(r, Report) else Report(r) if isinstance(r, dict) else Report.load(r))
    return out


def label(r: Report) -> str:
    """A short name for a run: scheme (an array's: allocation and devices), trace file name, seed."""
    t = r.trace.get("path", "?")
    t = "synthetic" if r.trace.get("format") == "synthetic" else os.path.basename(t)
    if r.is_array:
        a = r.data["array"]
        return f"{a['allocation']} ({a['devices']} SSDs) · {t} · seed {r.seed}"
    return f"{r.scheme} · {t} · seed {r.seed}"


def _labels(reports: Sequence[Report], labels: Optional[Sequence[str]]) -> List[str]:
    if labels is not None:
        if len(labels) != len(reports):
            raise ValueError(f"{len(labels)} labels for {len(reports)} runs: give one label per run")
        return list(labels)
    names = [label(r) for r in reports]
    # Same names (e.g. runs differing only by a config key): number them.
    return [f"{n} #{i + 1}" if names.count(n) > 1 else n for i, n in enumerate(names)]


def latency_cdf(runs: Any, path: Optional[str] = None, labels: Optional[Sequence[str]] = None):
    """Latency CDF per class (read, write; ``all`` too where the report has its points),
    one line per run; the lower row zooms into the tail as 1 − F on a log scale."""
    reports = _reports(runs)
    names = _labels(reports, labels)
    classes = [c for c in CLASSES if any(r.data["latency"][c]["cdf"] for r in reports)] or ["read"]
    fig = _figure(4 * len(classes), 6.5)
    axes = fig.subplots(2, len(classes), squeeze=False)
    for j, cls in enumerate(classes):
        top, tail = axes[0][j], axes[1][j]
        for r, name in zip(reports, names):
            # Zero latencies (e.g. reads of unwritten pages) cannot sit on a log axis:
            # the curve starts at the first positive latency from their fraction (0
            # without any), so the jump there is drawn.
            cdf = r.data["latency"][cls]["cdf"]
            pts = [p for p in cdf if p[0] > 0]
            if not pts:
                continue
            at_zero = max((p[1] for p in cdf if p[0] <= 0), default=0.0)
            xs = [pts[0][0] / 1e3] + [p[0] / 1e3 for p in pts]
            ys = [at_zero] + [p[1] for p in pts]
            top.step(xs, ys, where="post", label=name)
            tail.step(xs, [max(1 - y, 1e-7) for y in ys], where="post", label=name)
        top.set_title(f"{cls} latency CDF")
        top.set_ylim(0, 1.02)
        top.set_xscale("log")
        top.set_xlabel("latency (µs)")
        top.set_ylabel("fraction ≤ x")
        top.grid(True, alpha=0.3)
        tail.set_title(f"{cls} tail (1 − F)")
        tail.set_xscale("log")
        tail.set_yscale("log")
        tail.set_xlabel("latency (µs)")
        tail.set_ylabel("fraction > x")
        tail.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    return _save(fig, path)


def _bars(r: Report, rows: List[Dict[str, Any]], panels, unit: str, title: Optional[str], path: Optional[str]):
    fig = _figure(4 * len(panels), 3.2)
    axes = fig.subplots(1, len(panels))
    idx = list(range(len(rows)))
    for ax, (key, name, colour) in zip(axes, panels):
        values = [c[key] for c in rows]
        ax.bar(idx, values, color=colour)
        # Counts start at 0; an all-zero panel (no GC yet) gets an axis to 1, not ±0.04.
        ax.set_ylim(0, None if max(values, default=0) > 0 else 1)
        ax.set_title(name)
        ax.set_xlabel(unit)
        ax.set_xticks(idx)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(title or label(r), fontsize=10)
    return _save(fig, path)


def channel_bars(run: Any, path: Optional[str] = None, title: Optional[str] = None):
    """Per-channel bars: requests blocked behind flash operations, GCs, erases."""
    r = _reports(run)[0]
    if r.is_array:
        raise ValueError(f"{r.path or 'this run'}: an array's report has devices, not channels: use device_bars")
    panels = (("blocked_sum", "blocked requests", "#4472c4"), ("gc_count", "GCs", "#ed7d31"),
              ("erases", "erases", "#70ad47"))
    return _bars(r, r.data["channels"], panels, "channel", title, path)


def device_bars(run: Any, path: Optional[str] = None, title: Optional[str] = None):
    """An array's per-device bars: requests blocked inside each device, GCs, erases and
    bytes written (the balance the write allocations differ in)."""
    r = _reports(run)[0]
    if not r.is_array:
        raise ValueError(f"{r.path or 'this run'}: a single device's report has channels, not devices: "
                         "use channel_bars")
    panels = (("blocked_sum", "blocked requests", "#4472c4"), ("gc", "GCs", "#ed7d31"),
              ("erases", "erases", "#70ad47"), ("bytes_written", "bytes written", "#7f6084"))
    return _bars(r, r.data["devices"], panels, "device", title, path)


# Two-sided 95% Student t quantiles for 1..30 degrees of freedom (1.96 beyond).
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def interval(values: Sequence[float]) -> tuple:
    """Mean and half-width of its 95% confidence interval (Student t; 0 for one value)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, (_T95[n - 2] if n - 1 <= 30 else 1.96) * sd / math.sqrt(n)


def _rows(data: Any) -> List[Dict[str, Any]]:
    """Rows from a sweep frame (pandas, polars or ``lib="dict"``) or from reports."""
    if hasattr(data, "to_dicts"):
        return data.to_dicts()
    if hasattr(data, "to_dict") and hasattr(data, "columns"):
        return data.to_dict("records")
    if isinstance(data, dict) and "latency" not in data and all(isinstance(v, list) for v in data.values()):
        # A sweep frame as lib="dict" gives it: {column: values}.
        n = len(next(iter(data.values()), []))
        return [{k: v[i] for k, v in data.items()} for i in range(n)]
    return [{"scheme": r.scheme, "label": label(r), **metrics(r.data)} for r in _reports(data)]


DEVICE_METRICS = ("read_p99_9_ns", "write_p99_9_ns", "iops", "waf")
ARRAY_METRICS = ("read_p99_9_ns", "write_p99_9_ns", "iops", "bytes_written")


def scheme_comparison(data: Any, metrics_: Optional[Iterable[str]] = None, by: str = "scheme",
                      path: Optional[str] = None):
    """Bars of each metric's mean per group (``by``, default scheme), with 95% intervals
    over the group's runs (e.g. seeds or traces). The metrics default to the tails, IOPS
    and WAF (an array's runs: bytes written by its devices in place of WAF)."""
    rows = _rows(data)
    if metrics_ is None:
        metrics_ = ARRAY_METRICS if rows and "allocation" in rows[0] and "waf" not in rows[0] else DEVICE_METRICS
    missing = [m for m in metrics_ if rows and m not in rows[0]]
    if missing:
        raise ValueError(f"no column {missing[0]!r} to compare; the runs have: {', '.join(rows[0])}")
    groups: Dict[Any, List[Dict[str, Any]]] = {}
    for r in rows:
        # A sweep frame without the grid column has the run's own (`scheme_run`, `seed_run`).
        key = r.get(by)
        if key is None:
            key = r.get(f"{by}_run")
        if key is None:
            raise ValueError(f"no column {by!r} (nor {by}_run) to group the runs by")
        groups.setdefault(key, []).append(r)
    names = list(groups)
    ms = list(metrics_)
    fig = _figure(max(3.2 * len(ms), 6), 3.6)
    axes = fig.subplots(1, len(ms), squeeze=False)[0]
    for ax, m in zip(axes, ms):
        stats = [interval([float(r[m]) for r in groups[g]]) for g in names]
        scale, unit = (1e3, " (µs)") if m.endswith("_ns") else (1, "")
        ax.bar(range(len(names)), [s[0] / scale for s in stats], yerr=[s[1] / scale for s in stats], capsize=4,
               color="#5b9bd5", ecolor="#333333")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([str(n) for n in names], rotation=20, ha="right", fontsize=8)
        ax.set_title(m + unit, fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(f"mean by {by}, 95% interval over runs", fontsize=10)
    return _save(fig, path)
