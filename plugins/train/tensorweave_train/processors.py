"""Pre- and post-processing steps for ``Predictor``, registered in ``tw.processors``.

A processor is a function ``fn(value, **params) -> value`` on numpy data; a predictor
stores each step as ``(registered name, params)`` so it can be saved as JSON and rebuilt
from the registry (no pickle).

>>> scale(np.array([1.0, 2.0]), factor=2.0, offset=1.0).tolist()
[3.0, 5.0]
>>> labels(np.array([1, 0]), names=["cat", "dog"]).tolist()
['dog', 'cat']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["scale", "argmax", "labels"]


def scale(value: Any, factor: float = 1.0, offset: float = 0.0, dtype: str = "float32") -> Any:
    """``value * factor + offset`` as ``dtype`` (e.g. pixels to [0, 1])."""
    return (np.asarray(value, dtype=dtype) * factor + offset).astype(dtype)


def argmax(value: Any, axis: int = -1) -> Any:
    """The index of the largest entry along ``axis`` (class scores to class ids)."""
    return np.argmax(np.asarray(value), axis=axis)


def labels(value: Any, names: Sequence[str] = ()) -> Any:
    """Map integer ids to ``names``."""
    return np.asarray(list(names), dtype=object)[np.asarray(value)]
