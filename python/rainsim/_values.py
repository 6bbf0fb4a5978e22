"""Python values as ``--set KEY=VALUE`` overrides (values written as TOML)."""

from __future__ import annotations

import json
import numbers
from typing import Any, Mapping, Sequence, Union


def python_value(v: Any) -> Any:
    """A NumPy scalar or array as the Python value it holds (``np.float64(0.5)`` is
    ``0.5``, an array a list), a ``range`` as a list; anything else as it is."""
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        return v.tolist()
    return list(v) if isinstance(v, range) else v


def toml_value(v: Any) -> str:
    """A Python value (see :func:`python_value`) as a TOML literal; a plain string stays
    bare (as on the CLI)."""
    v = python_value(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        return repr(float(v))
    if isinstance(v, str):
        return v
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k} = {_quoted(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_quoted(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} {v!r} as a config value")


def _quoted(v: Any) -> str:
    return json.dumps(v) if isinstance(v, str) else toml_value(v)


def set_list(sets: Union[Mapping[str, Any], Sequence[str], None]) -> list:
    """``{"a.b": 1}`` or ``["a.b=1"]`` -> ``["a.b=1"]``."""
    if sets is None:
        return []
    if isinstance(sets, Mapping):
        return [f"{k}={toml_value(v)}" for k, v in sets.items()]
    if isinstance(sets, str):
        return [sets]
    return [str(s) for s in sets]
