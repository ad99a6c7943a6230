"""Plain JSON of the numerics' results: what `as_json()` of every result returns. Pure.

numpy scalars and arrays become Python floats, ints and lists; NaN and +-inf become None (JSON
has neither, and a page must show "not defined" rather than a number that is not one);
dataclasses become dicts of their fields, tuples become lists.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np


def plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, np.ndarray):
        return [plain(v) for v in obj.tolist()]
    if isinstance(obj, list | tuple):
        return [plain(v) for v in obj]
    if isinstance(obj, bool | np.bool_):
        return bool(obj)
    if isinstance(obj, int | np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        f = float(obj)
        return f if math.isfinite(f) else None
    return obj
