"""Sweeps: every combination of a grid runs once, stored as one JSON report per run.

A run's file is ``<out>/<key>.json``, where the key is a SHA-256 of the effective
configuration, the scheme, the trace's SHA-256, the seed, ``verify`` and the rainsim
version; a file appears only complete (written to a temporary name, then renamed),
so a sweep that was killed and is started again runs only what is missing.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import itertools
import json
import os
import sys
import threading
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import _rainsim
from ._rainsim import RainsimError
from ._report import frame, metrics
from ._values import python_value, toml_value

#: Grid keys that are not config keys; every other key is a ``--set`` key (e.g. ``raid.stripe_width``).
RUN_KEYS = ("config", "scheme", "trace", "workload", "seed", "verify", "format", "time_unit")
BACKENDS = ("local", "dask", "ray")


def _run_one(spec: Dict[str, Any]) -> str:
    """One run (in a thread, a Dask worker or a Ray task): the report as JSON text.
    ``dask_stop`` names a Dask ``Event`` whose setting stops the run at its next
    progress call (a run in a worker process cannot see the sweep's interrupt)."""
    spec = dict(spec)
    name = spec.pop("dask_stop", None)
    if name is None:
        return _rainsim.run_json(**spec)
    import distributed

    # The worker's client, fetched here: the watcher thread is not the task's.
    event = distributed.Event(name, client=distributed.get_client())
    stop, done = _rainsim.StopFlag(), threading.Event()

    def watch() -> None:
        # Polled between local sleeps, not awaited: a wait on the Dask event left
        # pending when the sweep closes its cluster is cancelled there and logged
        # as an error on every worker. The local sleep ends at once when the run does.
        while not done.wait(timeout=0.5):
            try:
                if event.is_set():
                    stop.set()
                    return
            except BaseException:  # noqa: BLE001
                if done.is_set():  # the run is over and its cluster closing: nothing to watch
                    return
                raise

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        return _rainsim.run_json(**spec, stop=stop)
    finally:
        done.set()  # the watcher ends at its next wake-up; the run need not wait for it


def load_sweep_file(path: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """Reads a TOML sweep file: ``[grid]`` (lists of values) and optional ``out``, ``backend``,
    ``workers``. Relative paths (``out``, ``trace``, ``config`` and ``workload`` files) are
    taken from the file's directory."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    path = os.fspath(path)
    with open(path, "rb") as f:
        try:
            doc = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise RainsimError(f"{path}: {e}") from None
    if not isinstance(doc.get("grid"), dict):
        raise RainsimError(f"{path}: no [grid] table")
    unknown = set(doc) - {"grid", "out", "backend", "workers"}
    if unknown:
        raise RainsimError(f"{path}: unknown key(s) {', '.join(sorted(unknown))} (expected grid, out, backend, workers)")
    base = os.path.dirname(os.path.abspath(path))

    def rel(p: Any) -> Any:
        return os.path.normpath(os.path.join(base, p)) if isinstance(p, str) and os.path.exists(os.path.join(base, p)) else p

    grid = _dotted(doc["grid"])
    for k in ("trace", "config", "workload"):
        if k in grid:
            vals = grid[k] if isinstance(grid[k], list) else [grid[k]]
            grid[k] = [rel(v) if k != "trace" else os.path.normpath(os.path.join(base, v)) for v in vals]
    out = doc.get("out")
    return {"grid": grid, "out": None if out is None else os.path.normpath(os.path.join(base, out)),
            "backend": doc.get("backend"), "workers": doc.get("workers")}


def _dotted(table: Mapping[str, Any], prefix: str = "") -> Dict[str, Any]:
    """A TOML table with its sub-tables as dotted keys: ``raid.stripe_width = [4, 8]``
    (which TOML reads as a table ``raid``) is the grid key ``"raid.stripe_width"``."""
    out: Dict[str, Any] = {}
    for k, v in table.items():
        if isinstance(v, Mapping):
            out.update(_dotted(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _axis(v: Any) -> List[Any]:
    """A grid value's list of values: a list, tuple, range or NumPy array (or any other
    iterable but a string or a table) is an axis, anything else one value."""
    if isinstance(v, (str, bytes, Mapping)):
        return [v]
    if hasattr(v, "tolist") and getattr(v, "ndim", 1) >= 1:
        return list(v.tolist())  # NumPy arrays: their Python scalars
    if isinstance(v, (list, tuple, range)) or (hasattr(v, "__iter__") and not hasattr(v, "tolist")):
        return list(v)
    return [v]


def expand(grid: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]]) -> List[Dict[str, Any]]:
    """Every combination of the grid's values (a scalar counts as a one-value list), in key order;
    for a list of grids, each grid's combinations in turn."""
    if not isinstance(grid, Mapping):
        if not grid:
            raise RainsimError("the list of grids is empty")
        return [point for g in grid for point in expand(g)]
    keys = list(grid)
    lists = [_axis(v) for v in grid.values()]
    for k, v in zip(keys, lists):
        if len(v) == 0:
            raise RainsimError(f"grid key '{k}' has no values")
    return [dict(zip(keys, combo)) for combo in itertools.product(*lists)]


def run_spec(params: Mapping[str, Any]) -> Dict[str, Any]:
    """The keyword arguments of ``_rainsim.run_json`` for one grid point."""
    sets = [f"{k}={toml_value(v)}" for k, v in params.items() if k not in RUN_KEYS]
    if "seed" in params:
        sets.append(f"seed={toml_value(params['seed'])}")
    trace = params.get("trace")
    return {"config": _file_or_name(params.get("config")), "scheme": params.get("scheme"),
            "workload": _file_or_name(params.get("workload")),
            "trace": None if trace is None else os.path.abspath(os.fspath(trace)), "sets": sets,
            "format": params.get("format"), "time_unit": params.get("time_unit"),
            "verify": _flag(params.get("verify", False))}


def _flag(v: Any) -> bool:
    """A grid's ``verify`` value: a bool (or 0/1); the string "false" is not true."""
    if isinstance(v, str):
        if v.lower() in ("true", "false"):
            return v.lower() == "true"
        raise RainsimError(f"verify = {v!r}: expected true or false")
    v = python_value(v)
    if v not in (True, False):
        raise RainsimError(f"verify = {v!r}: expected true or false")
    return bool(v)


def _file_or_name(v: Any) -> Any:
    """A config or workload that names an existing file, as an absolute path (workers
    may run elsewhere); a preset or profile name stays as it is."""
    if v is None:
        return None
    v = os.fspath(v)
    return os.path.abspath(v) if os.path.isfile(v) else v


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def plan(grid: Union[Mapping[str, Any], Sequence[Mapping[str, Any]]]) -> List[Tuple[Dict[str, Any], Dict[str, Any], str]]:
    """(params, spec, key) of every run; resolves every configuration first, so a bad
    preset, scheme, key or trace fails here, before any run, naming it."""
    hashes: Dict[str, str] = {}
    out = []
    for params in expand(grid):
        spec = run_spec(params)
        try:
            cfg = json.loads(_rainsim.config_json(config=spec["config"], scheme=spec["scheme"], workload=spec["workload"],
                                                  sets=spec["sets"], format=spec["format"], time_unit=spec["time_unit"]))
        except RainsimError as e:
            raise RainsimError(f"{e} (grid point {params})") from None
        trace = spec["trace"]
        if trace is not None:
            if not os.path.isfile(trace):
                raise RainsimError(f"{trace}: no such trace file (grid point {params})")
            if trace not in hashes:
                hashes[trace] = _file_sha256(trace)
        identity = {"config": cfg, "scheme": spec["scheme"] or "baseline", "seed": cfg.get("seed"),
                    "trace_sha256": hashes[trace] if trace else "synthetic", "verify": spec["verify"],
                    "version": _rainsim.__version__}
        key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:32]
        out.append((params, spec, key))
    return out


def _stored(path: str) -> bool:
    """A report file that is there and whole (renamed into place only when complete)."""
    try:
        with open(path, encoding="utf-8") as f:
            return "latency" in json.load(f)
    except (OSError, ValueError):
        return False


def _write_atomic(path: str, text: str) -> None:
    tmp = f"{os.path.dirname(path)}/.{os.path.basename(path)}.tmp-{os.getpid()}-{threading.get_ident()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text if text.endswith("\n") else text + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _with_earlier(out: str, grids: Any, entries: List[Dict[str, Any]], progress: bool):
    """The manifest's grids and runs with those of an earlier sweep into ``out`` kept
    (before them), so that ``load_results`` still finds every run stored there."""
    try:
        with open(os.path.join(out, "sweep.json"), encoding="utf-8") as f:
            old = json.load(f)
    except (OSError, ValueError):
        return grids, entries
    keys = {e["key"] for e in entries}
    kept = [e for e in old.get("runs", []) if e.get("key") not in keys]
    if not kept:
        return grids, entries
    if progress:
        sys.stderr.write(f"rainsim sweep: {out}/sweep.json keeps the {len(kept)} runs of an earlier sweep there "
                         f"(load_results returns them too)\n")
    before = old.get("grid", [])
    before = before if isinstance(before, list) else [before]
    now = grids if isinstance(grids, list) else [grids]
    return before + now, kept + entries


def _clean_stale(out: str) -> None:
    """Removes temporary files left by a killed sweep (those whose process is gone)."""
    for name in os.listdir(out):
        if name.startswith(".") and ".json.tmp-" in name:
            pid = name.rsplit(".tmp-", 1)[1].split("-")[0]
            try:
                os.kill(int(pid), 0)
            except (ValueError, ProcessLookupError):
                os.remove(os.path.join(out, name))
            except PermissionError:
                pass


class Progress:
    """Runs done/left, rate and ETA on stderr (redrawn in place on a terminal, else a line every few seconds)."""

    def __init__(self, total: int, enabled: bool = True):
        self.total, self.done, self.t0, self.last = total, 0, time.monotonic(), 0.0
        self.enabled = enabled and total > 0
        self.tty = sys.stderr.isatty()

    def step(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.enabled and (self.tty or now - self.last > 5 or self.done == self.total):
            self.last = now
            el = now - self.t0
            eta = el / self.done * (self.total - self.done)
            bar = "#" * int(30 * self.done / self.total)
            line = (f"[{bar:<30}] {self.done}/{self.total} runs done, {self.total - self.done} left, "
                    f"elapsed {el:.0f} s, ETA {eta:.0f} s")
            sys.stderr.write(("\r" + line) if self.tty else line + "\n")
            if self.tty and self.done == self.total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def _local(todo, workers, finish):
    """Runs on local threads. On an interrupt (Ctrl-C) the runs not started are
    cancelled, those under way stop at their next progress call, and the runs that
    completed meanwhile are stored before the interrupt goes on: a sweep started
    again runs only what is missing."""
    stop = _rainsim.StopFlag()
    pool = cf.ThreadPoolExecutor(max_workers=workers)
    futs = {pool.submit(_run_one, {**spec, "stop": stop}): key for key, spec in todo}
    finished = set()
    try:
        for fut in cf.as_completed(futs):
            finished.add(fut)
            finish(futs[fut], fut)
    except BaseException:
        stop.set()
        pool.shutdown(wait=True, cancel_futures=True)
        for fut, key in futs.items():
            if fut not in finished and fut.done() and not fut.cancelled() and fut.exception() is None:
                finish(key, fut)
        raise
    finally:
        pool.shutdown(wait=True)


def _dask(todo, workers, finish, client):
    """Runs on a Dask cluster. On an interrupt the completed runs are stored, those
    not started cancelled, and those under way stopped (a Dask ``Event`` their
    workers watch), before the interrupt goes on — on the sweep's own
    ``LocalCluster`` and on a ``client`` passed in alike."""
    try:
        import distributed
    except ImportError:
        raise ImportError("backend='dask' needs dask.distributed: pip install 'rainsim[dask]'") from None
    own = None
    if client is None:
        own = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
        client = distributed.Client(own)
    futs = {}
    finished = set()
    stop = distributed.Event(f"rainsim-stop-{os.getpid()}-{time.time_ns()}", client=client)
    try:
        futs = {client.submit(_run_one, {**spec, "dask_stop": stop.name}, key=f"rainsim-{key}", pure=False): key
                for key, spec in todo}
        for fut in distributed.as_completed(list(futs)):
            finished.add(fut)
            finish(futs[fut], fut)
    except BaseException:
        stop.set()
        left = [f for f in futs if f not in finished]
        for fut in left:
            if fut.status == "finished":
                finish(futs[fut], fut)
        client.cancel([f for f in left if f.status != "finished"])
        raise
    finally:
        if own is not None:
            client.close()
            own.close()


def _ray(todo, workers, finish, address):
    """Runs on Ray. On an interrupt the completed runs are stored and the others
    cancelled (a run under way is stopped: its worker is killed) before the
    interrupt goes on — on the sweep's own Ray and on one already initialised alike."""
    try:
        import ray
    except ImportError:
        raise ImportError("backend='ray' needs ray: pip install 'rainsim[ray]'") from None
    started = not ray.is_initialized()
    if started:
        kw = {"num_cpus": workers} if address is None else {"address": address}
        ray.init(include_dashboard=False, log_to_driver=False, **kw)

    class _Fut:  # the one interface `finish` needs
        def __init__(self, ref):
            self.ref = ref

        def result(self):
            try:
                return ray.get(self.ref)
            except ray.exceptions.RayTaskError as e:
                raise RainsimError(str(e.cause) if getattr(e, "cause", None) else str(e)) from None

    refs: Dict[Any, str] = {}
    pending: List[Any] = []
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(_run_one)
        for key, spec in todo:  # one at a time: an interrupt mid-way cancels those sent
            ref = remote.remote(spec)
            refs[ref] = key
            pending.append(ref)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            finish(refs[done[0]], _Fut(done[0]))
    except BaseException:
        if pending:
            ready, pending = ray.wait(pending, num_returns=len(pending), timeout=0)
            for ref in ready:
                finish(refs[ref], _Fut(ref))
            for ref in pending:
                ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()


def sweep(grid: Union[Mapping[str, Any], Sequence[Mapping[str, Any]], str, "os.PathLike[str]"], out: Optional[str] = None,
          backend: Optional[str] = None, workers: Optional[int] = None, client: Any = None,
          address: Optional[str] = None, lib: Optional[str] = None, progress: bool = True):
    """Runs every combination of ``grid`` once and returns one tidy frame (one row per run).

    ``grid`` maps run keys (``config``, ``scheme``, ``trace``, ``workload``, ``seed``,
    ``verify``, ``format``, ``time_unit``) and config keys (``"raid.stripe_width"``) to
    lists of values, or is a list of such grids (the runs of each in turn; a run
    several points share runs once), or the path of a TOML sweep file. Reports go to ``out``
    (default ``results``) as ``<key>.json``; runs already stored there are not run
    again. ``backend``: ``"local"`` (threads, all cores by default), ``"dask"`` (on
    ``client``, else a ``LocalCluster``) or ``"ray"`` (``ray.init(address)``, local
    without one). Every configuration is resolved before any run starts, so a bad name
    fails at once. Runs that fail are reported together in one :class:`RainsimError`
    after the others are stored. ``lib``: the frame's library (``"pandas"``, ``"polars"``),
    or ``"dict"`` for the plain ``{column: values}`` (no dependency).
    """
    if workers is not None and int(workers) < 1:
        raise RainsimError(f"workers = {workers}: at least 1")
    if isinstance(grid, (str, os.PathLike)):
        f = load_sweep_file(grid)
        grid, out = f["grid"], out or f["out"]
        backend, workers = backend or f["backend"], workers or f["workers"]
    out = os.fspath(out or "results")
    backend = backend or "local"
    if backend not in BACKENDS:
        raise RainsimError(f"unknown backend '{backend}'; backends: {', '.join(BACKENDS)}")
    workers = int(workers or os.cpu_count() or 1)
    if workers < 1:
        raise RainsimError(f"workers = {workers}: at least 1")
    if lib not in (None, "dict", "pandas", "polars"):
        raise RainsimError(f"lib = {lib!r}: 'pandas', 'polars' or 'dict'")
    runs = plan(grid)
    os.makedirs(out, exist_ok=True)
    _clean_stale(out)
    grids = dict(grid) if isinstance(grid, Mapping) else [dict(g) for g in grid]
    entries = [{"key": k, "params": p} for p, _, k in runs]
    grids, entries = _with_earlier(out, grids, entries, progress)
    manifest = {"version": _rainsim.__version__, "grid": grids, "runs": entries}
    _write_atomic(os.path.join(out, "sweep.json"), json.dumps(manifest, indent=2, default=str))
    unique = {k: s for _, s, k in runs}
    todo = [(k, s) for k, s in unique.items() if not _stored(os.path.join(out, f"{k}.json"))]
    if progress:
        sys.stderr.write(f"rainsim sweep: {len(unique)} runs, {len(unique) - len(todo)} stored already in {out}, "
                         f"running {len(todo)} on {backend} ({workers} workers)\n")
    bar = Progress(len(todo), progress)
    failed: List[str] = []

    point = {k: p for p, _, k in runs}

    def finish(key: str, fut: Any) -> None:
        try:
            _write_atomic(os.path.join(out, f"{key}.json"), fut.result())
        except Exception as e:  # noqa: BLE001  (reported together at the end)
            failed.append(f"grid point {point[key]} ({key}): {e}")
        bar.step()

    if todo:
        if backend == "local":
            _local(todo, workers, finish)
        elif backend == "dask":
            _dask(todo, workers, finish, client)
        else:
            _ray(todo, workers, finish, address)
    if failed:
        raise RainsimError(f"{len(failed)} of {len(todo)} runs failed (the others are stored in {out}):\n"
                           + "\n".join(failed))
    return _frame(out, runs, lib)


def _frame(out: str, runs: Sequence[Tuple[Dict[str, Any], Any, str]], lib: Optional[str]):
    rows = []
    for params, _, key in runs:
        with open(os.path.join(out, f"{key}.json"), encoding="utf-8") as f:
            d = json.load(f)
        rows.append({**{k: (str(v) if k == "trace" else v) for k, v in params.items()}, "key": key,
                     "scheme_run": d["scheme"], "seed_run": d["seed"], **metrics(d)})
    names: Dict[str, None] = {}  # every row's columns, in order of first appearance
    for r in rows:
        names.update(dict.fromkeys(r))
    cols: Dict[str, List[Any]] = {k: [r.get(k) for r in rows] for k in names}
    return cols if lib == "dict" else frame(cols, lib)


def load_results(out: str = "results", lib: Optional[str] = None):
    """The frame of a sweep already stored in ``out`` (from its ``sweep.json``); runs not yet stored are skipped."""
    with open(os.path.join(out, "sweep.json"), encoding="utf-8") as f:
        man = json.load(f)
    runs = [(r["params"], None, r["key"]) for r in man["runs"] if _stored(os.path.join(out, f"{r['key']}.json"))]
    return _frame(out, runs, lib)
