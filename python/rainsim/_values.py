"""Python values as ``--set KEY=VALUE`` overrides (values written as TOML)."""

from __future__ import annotations

import json
import numbers
from typing import Any, Mapping, Sequence, Union


def toml_value(v: Any) -> str:
    """A Python value as a TOML literal; a plain string stays bare (as on the CLI).

    NumPy scalars and arrays count as the Python values they hold (``np.float64(0.5)``
    is ``0.5``), as do ``range`` objects.
    """
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        v = v.tolist()  # a NumPy scalar gives its Python value, an array a list
    if isinstance(v, range):
        v = list(v)
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
