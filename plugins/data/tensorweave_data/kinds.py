"""The component kinds this pack introduces: ``datasets``, ``pipelines``, ``processors``.

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``), so
``tensorweave describe digits.v1`` knows the kind and any pack may offer datasets or
processing steps. Light on purpose: imported whenever a component of these kinds loads.

>>> processors.check(abs), datasets.check("digits")
(None, "a dataset must be a function (**params) -> DataSplits, got str 'digits'")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorweave as tw

__all__ = ["datasets", "pipelines", "processors"]


def _callable(what: str) -> Callable[[Any], str | None]:
    def check(obj: Any) -> str | None:
        return None if callable(obj) else f"{what}, got {type(obj).__name__} {obj!r}"

    return check


datasets = tw.Kind(
    "datasets",
    doc="functions (**params) -> DataSplits: train/validation/test samples, no download",
    check=_callable("a dataset must be a function (**params) -> DataSplits"),
)
pipelines = tw.Kind(
    "pipelines",
    doc="classes that run processors over samples in worker processes and feed tf.data",
    check=_callable("a pipeline must be a class (or factory) Pipeline(steps, ...)"),
)
processors = tw.Kind(
    "processors",
    doc="pure-Python steps fn(value, **params) -> value, for pipelines and predictors",
    check=_callable("a processor must be a function fn(value, **params) -> value"),
)
