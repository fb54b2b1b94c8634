"""Argument checks shared by components: refuse at construction what a component cannot mean.

A size such as ``n_units=2.5`` (silently ``2`` after ``int()``), ``-1`` or ``True`` is a
mistake; these checks raise a ``ValueError``/``TypeError`` subclass that names the
component and the argument, at the point of the mistake instead of deep inside TensorFlow.

>>> import tensorweave as tw
>>> tw.positive_int(8, "n_units", "Linear 'h'")
8
>>> tw.positive_int(2.5, "n_units", "Linear 'h'")
Traceback (most recent call last):
...
tensorweave.errors.ArgumentError: Linear 'h': n_units must be a positive integer, got 2.5 (float).
>>> tw.positive_int(None, "n_units", "Input", optional=True) is None
True
"""

from __future__ import annotations

import numbers
from typing import Any

from tensorweave.errors import ArgumentError

__all__ = ["positive_int", "dimension"]


def _integral(value: Any) -> bool:
    # numpy integers are Integral; floats, strings, bools are not
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def positive_int(value: Any, arg: str, component: str, *, optional: bool = False) -> Any:
    """``value`` as an ``int`` when it is a positive integer (``None`` passes when
    ``optional``); else ``ArgumentError`` naming ``component`` and ``arg``."""
    if value is None and optional:
        return None
    if not _integral(value) or int(value) < 1:
        raise ArgumentError(
            f"{component}: {arg} must be a positive integer, got {value!r} "
            f"({type(value).__name__})."
        )
    return int(value)


def dimension(value: Any, arg: str, component: str) -> int | None:
    """A shape dimension: ``None`` (dynamic) or an integer ``>= 0``.

    >>> dimension(None, "shape[1]", "Input"), dimension(3, "shape[1]", "Input")
    (None, 3)
    """
    if value is None:
        return None
    if not _integral(value) or int(value) < 0:
        raise ArgumentError(
            f"{component}: {arg} must be None (dynamic) or an integer >= 0, got {value!r}."
        )
    return int(value)
