"""One self-contained HTML page for one or several runs (single devices, or arrays of
SSDs): identity, summary tables, plots (SVG inlined as base64, no network needed to
view it) and configurations."""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import os
from typing import Any, Dict, List, Optional, Sequence

from . import plots
from ._report import CLASSES, PERCENTILES, Report, metrics

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:.85em;margin:.4em 0}
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right;max-width:22em;overflow-wrap:anywhere}
th:first-child,td:first-child{text-align:left}th{background:#f0f0f0}
.row{display:flex;flex-wrap:wrap;gap:1.2em;align-items:flex-start}
.plot{max-width:100%;border:1px solid #eee}
pre{font-size:.75em;background:#f7f7f7;padding:.6em;max-height:30em;overflow:auto}
.mono{font-family:monospace;font-size:.8em}.diff{background:#fff3cd}
"""


def _img(fig, alt: str) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg")
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img class="plot" alt="{html.escape(alt)}" src="data:image/svg+xml;base64,{data}">'


def _fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.6g}"
    return html.escape(str(v))


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], marks: Optional[Sequence[bool]] = None) -> str:
    h = "".join(f"<th>{html.escape(str(x))}</th>" for x in header)
    body = []
    for i, r in enumerate(rows):
        cls = ' class="diff"' if marks and marks[i] else ""
        body.append(f"<tr{cls}>" + "".join(f"<td>{_fmt(x)}</td>" for x in r) + "</tr>")
    return f"<table><tr>{h}</tr>{''.join(body)}</table>"


def _flat(d: Any, prefix: str = "") -> Dict[str, Any]:
    if isinstance(d, dict):
        out: Dict[str, Any] = {}
        for k, v in d.items():
            out.update(_flat(v, f"{prefix}{k}."))
        return out
    return {prefix[:-1]: json.dumps(d) if isinstance(d, list) else d}


def _load(runs: Any) -> List[Report]:
    if isinstance(runs, (Report, dict, str, os.PathLike)):
        runs = [runs]
    out: List[Report] = []
    for r in runs:
        if isinstance(r, (str, os.PathLike)) and os.path.isdir(r):
            manifest = os.path.join(r, "sweep.json")
            if os.path.isfile(manifest):
                # A sweep's directory: its runs, stored, in its order (as load_results has them).
                with open(manifest, encoding="utf-8") as f:
                    keys = dict.fromkeys(run["key"] for run in json.load(f)["runs"])
                names = [f"{k}.json" for k in keys if os.path.isfile(os.path.join(r, f"{k}.json"))]
            else:
                names = sorted(n for n in os.listdir(r) if n.endswith(".json"))
            out.extend(Report.load(os.path.join(r, n)) for n in names)
        else:
            out.extend(plots._reports(r))
    if not out:
        raise ValueError("report needs at least one run")
    arrays = [x.path or f"run {i + 1}" for i, x in enumerate(out) if x.is_array]
    devices = [x.path or f"run {i + 1}" for i, x in enumerate(out) if not x.is_array]
    if arrays and devices:
        raise ValueError(f"one page shows arrays or single devices, not both: {arrays[0]} is an array's report, "
                         f"{devices[0]} a single device's")
    return out


def _identity(r: Report) -> List[Any]:
    t = r.trace
    cfg_digest = hashlib.sha256(json.dumps(r.config, sort_keys=True).encode()).hexdigest()[:16]
    row = [r.scheme, r.seed, r.version, t.get("path"), t.get("format"), t.get("sha256"), t.get("requests"), cfg_digest]
    if r.is_array:
        a, failed, f = r.data["array"], r.data.get("device_failed_at_ns"), r.data.get("failure") or {}
        fails = "none" if failed is None else f"device {r.config['array']['fail_device']} at {failed} ns"
        if f.get("rebuilt_at_ns") is not None:
            fails += f", replaced at {f['replaced_at_ns']} ns, rebuilt at {f['rebuilt_at_ns']} ns"
        elif f.get("replaced_at_ns") is not None:
            fails += f", replaced at {f['replaced_at_ns']} ns, rebuild unfinished"
        m = r.data.get("member_fault")
        if m is None:
            inner = "none"
        else:
            unit = f"die {m['die']}" if m.get("die") is not None else f"channel {m['channel']}"
            inner = f"device {m['device']}, {unit} at {m['failed_at_ns']} ns"
            if m.get("rebuilt_at_ns") is not None:
                inner += f", rebuilt inside it at {m['rebuilt_at_ns']} ns"
        row += [a["allocation"], a["devices"], a["chunk_kib"] or "one page", a["replay"], fails, inner]
    return row


_IDENTITY = ["scheme", "seed", "rainsim version", "trace", "trace format", "trace sha256", "requests",
             "config sha256 (16)"]
_ARRAY_IDENTITY = ["allocation", "devices", "chunk (KiB)", "replay", "device failure", "failure inside a member"]


def render(runs: Any, title: Optional[str] = None, labels: Optional[Sequence[str]] = None) -> str:
    """The page as a string (see :func:`report`)."""
    reports = _load(runs)
    names = plots._labels(reports, labels)
    title = title or ("rainsim report: " + (names[0] if len(names) == 1 else f"{len(names)} runs"))
    p: List[str] = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>",
                    f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"]
    arrays = reports[0].is_array
    # Identity: what ran, on what.
    ident = [_identity(r) for r in reports]
    keys = _IDENTITY + (_ARRAY_IDENTITY if arrays else [])
    p.append("<h2>Runs</h2>")
    p.append(_table(["", *names], [[k, *(row[i] for row in ident)] for i, k in enumerate(keys)]))
    # Summary: headline metrics side by side.
    ms = [metrics(r.data) for r in reports]
    p.append("<h2>Summary</h2>")
    p.append(_table(["metric", *names], [[k, *(m[k] for m in ms)] for k in ms[0]]))
    p.append("<h2>Latency by class (ns)</h2><div class=\"row\">")
    for r, n in zip(reports, names):
        lat = r.data["latency"]
        p.append(f"<div><b>{html.escape(n)}</b>"
                 + _table(["class", *PERCENTILES], [[c, *(lat[c][k] for k in PERCENTILES)] for c in CLASSES]) + "</div>")
    p.append('</div><h2 id="cdf">Latency CDF</h2>')
    p.append(_img(plots.latency_cdf(reports, labels=names), "latency CDF per class with tail zoom"))
    if len(reports) > 1:
        p.append('<h2 id="comparison">Comparison</h2>')
        rows = [{"run": n, **m} for n, m in zip(names, ms)]
        # Runs of one scheme (an array's: one allocation) are its group, e.g. its seeds.
        group = "allocation" if arrays else "scheme"
        for row, r in zip(rows, reports):
            row["scheme"] = r.scheme
        by = group if len({row[group] for row in rows}) < len(rows) else "run"
        p.append(_img(plots.scheme_comparison(_Rows(rows), by=by), "comparison bars with 95% intervals"))
    unit, bars, table = ("device", plots.device_bars, "devices") if arrays else ("channel", plots.channel_bars,
                                                                                 "channels")
    p.append(f'<h2 id="{table}">{table.capitalize()}</h2><div class="row">')
    for r, n in zip(reports, names):
        p.append(_img(bars(r, title=n), f"{unit} bars of {n}"))
    p.append("</div>")
    cols = (["reads", "data_programs", "parity_programs", "blocked_sum", "gc", "erases", "bytes_written", "waf",
             "mean_latency_ns", "life_days_eq12"] if arrays else
            ["ops", "avg_blocked", "blocked_sum", "busy_fraction", "gc_count", "erases", "read_p99_9_ns"])
    for r, n in zip(reports, names):
        rows_ = r.data[table]
        p.append(f"<details><summary>{unit} table: {html.escape(n)}</summary>"
                 + _table([unit, *cols], [[i, *(c[k] for k in cols)] for i, c in enumerate(rows_)]) + "</details>")
    # Configuration: differences first, then each in full.
    p.append("<h2>Configuration</h2>")
    flats = [_flat(r.config) for r in reports]
    keys_all = sorted(set().union(*flats))
    if len(reports) > 1:
        diff = [k for k in keys_all if len({json.dumps(f.get(k)) for f in flats}) > 1]
        p.append("<p>Keys that differ between the runs:</p>" if diff else "<p>The runs share one configuration.</p>")
        if diff:
            p.append(_table(["key", *names], [[k, *(f.get(k, "—") for f in flats)] for k in diff]))
    p.append('<div class="row">')
    for r, n in zip(reports, names):
        p.append(f"<details><summary>{html.escape(n)}</summary><pre>{html.escape(json.dumps(r.config, indent=2))}</pre>"
                 "</details>")
    p.append("</div>")
    notes = [(n, x) for r, n in zip(reports, names) for x in r.data.get("notes", [])]
    if notes:
        p.append("<h2>Notes</h2><ul>" + "".join(f"<li>{html.escape(n)}: {html.escape(x)}</li>" for n, x in notes)
                 + "</ul>")
    p.append("</body></html>\n")
    return "\n".join(p)


class _Rows(list):
    """Rows that plots.scheme_comparison reads as they are."""

    def to_dicts(self):
        return list(self)


def report(runs: Any, out: str = "report.html", title: Optional[str] = None,
           labels: Optional[Sequence[str]] = None) -> str:
    """Writes one self-contained HTML page for ``runs`` (reports, dicts, JSON paths or a
    sweep's directory), several runs side by side; returns the path."""
    text = render(runs, title, labels)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return os.fspath(out)
