"""rainsim from Python: runs, sweeps, data frames, plots and HTML reports.

Every run goes through the same code as ``rainsim run`` (the CLI crate's
library), so a report from Python equals the CLI's, ``timing`` aside.

>>> import rainsim
>>> r = rainsim.run(config="rep-raid-8ch", scheme="adaptive", set={"workload.requests": 2000})
>>> r.latency()            # class x percentile (pandas, or polars: lib="polars")
>>> rainsim.sweep({"scheme": ["baseline", "adaptive"], "seed": [1, 2]}, out="results/")
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Mapping, Optional, Sequence, Union

from . import _rainsim
from ._rainsim import RainsimError

# Pickled by reference as `rainsim.RainsimError` (the native module is not
# importable as `_rainsim`), so that errors cross to and from worker processes.
RainsimError.__module__ = "rainsim"
from ._report import Report, load_report, read_request_log, set_frame_library
from ._values import set_list

__version__: str = _rainsim.__version__

__all__ = [
    "RainsimError", "RainsimWarning", "Report", "run", "config", "presets", "schemes", "workloads", "trace_stats",
    "load_report", "read_request_log", "set_frame_library", "sweep", "load_results", "report", "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]


class RainsimWarning(UserWarning):
    """What ``rainsim run`` prints as a warning or a note: a trace format or time unit
    detected by rule, settings the run did not use, requests folded onto the device, a
    setup a policy's assumptions do not hold for (the report keeps each, too)."""
Sets = Union[Mapping[str, Any], Sequence[str], None]


def _path(p: Optional[PathLike]) -> Optional[str]:
    return None if p is None else os.fspath(p)


def run(config: Optional[PathLike] = None, scheme: Optional[str] = None, trace: Optional[PathLike] = None,
        set: Sets = None, verify: bool = False, workload: Optional[str] = None,
        format: Optional[str] = None, time_unit: Optional[str] = None,
        request_log: Optional[PathLike] = None) -> Report:
    """Simulates one configuration, as ``rainsim run`` does, and returns its :class:`Report`.

    ``config`` is a preset name or TOML file (default ``default``), ``scheme`` a scheme
    name (default: the configuration's own policy, a preset's being ``baseline``'s; the
    report names the scheme it equals, else ``custom``), ``trace`` a trace file (default: the config's synthetic
    workload), ``set`` overrides as ``{"raid.stripe_width": 8}`` or ``["raid.stripe_width=8"]``.
    ``request_log`` writes the per-request log there as Parquet (as ``--request-log``;
    ``report.requests()`` reads it back as a frame). The GIL is released while the
    simulation runs. Raises :class:`RainsimError` with the CLI's message.
    """
    log = _path(request_log)
    text = _rainsim.run_json(config=_path(config), scheme=scheme, workload=_path(workload), trace=_path(trace),
                             sets=set_list(set), format=format, time_unit=time_unit, verify=verify,
                             request_log=log)
    r = Report(json.loads(text))
    r.request_log = log
    detection = (r.data.get("trace") or {}).get("detection")
    if detection:
        warnings.warn(f"{r.data['trace'].get('path')}: {detection}", RainsimWarning, stacklevel=2)
    for note in r.data.get("notes") or []:
        warnings.warn(note, RainsimWarning, stacklevel=2)
    return r


def config(config: Optional[PathLike] = None, scheme: Optional[str] = None, set: Sets = None,
           workload: Optional[str] = None, format: Optional[str] = None,
           time_unit: Optional[str] = None) -> dict:
    """The effective configuration (preset, scheme, workload, overrides) as a dict, as in a report's ``config``."""
    return json.loads(_rainsim.config_json(config=_path(config), scheme=scheme, workload=_path(workload),
                                           sets=set_list(set), format=format, time_unit=time_unit))


def presets() -> dict:
    """Device presets: name -> one-line description."""
    return dict(_rainsim.presets())


def schemes() -> dict:
    """Schemes (named policy settings): name -> one-line description."""
    return dict(_rainsim.schemes())


def workloads() -> dict:
    """Synthetic workload profiles: name -> one-line description."""
    return dict(_rainsim.workloads())


def trace_stats(path: PathLike, format: Optional[str] = None, time_unit: Optional[str] = None,
                page_bytes: int = 8192) -> dict:
    """``rainsim trace stats --json``: ``{"trace": identity, "stats": statistics}`` of a trace file."""
    return json.loads(_rainsim.trace_stats_json(os.fspath(path), format=format, time_unit=time_unit,
                                                page_bytes=page_bytes))


from ._sweep import load_results, sweep  # noqa: E402  (uses run and config above)
from ._html import report  # noqa: E402
