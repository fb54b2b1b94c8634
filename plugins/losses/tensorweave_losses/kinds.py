"""The component kinds this pack introduces: ``losses`` and ``metrics``.

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``). Light
on purpose (no TensorFlow): it is imported whenever a component of these kinds loads.

>>> losses.check(len), metrics.check(3)
(None, 'a metric must be a function (labels, predictions, ...) -> value or a class, got int 3')
"""

from __future__ import annotations

from typing import Any

import tensorweave as tw

__all__ = ["losses", "metrics"]


def _function_of(what: str) -> Any:
    def check(obj: Any) -> str | None:
        if callable(obj):
            return None
        return (
            f"a {what} must be a function (labels, predictions, ...) -> value or a class, got "
            f"{type(obj).__name__} {obj!r}"
        )

    return check


losses = tw.Kind(
    "losses",
    doc="functions (labels, predictions, ...) -> loss; called with layers, a graph node",
    check=_function_of("loss"),
)
metrics = tw.Kind(
    "metrics",
    doc="metric functions and streaming metric classes (accuracy, auc, perplexity…)",
    check=_function_of("metric"),
)
