"""The component kinds this pack introduces: ``losses`` and ``metrics``.

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``). Light
on purpose (no TensorFlow): it is imported whenever a component of these kinds loads.

>>> losses.check(len), metrics.check(3)
(None, 'a metric must be a function (labels, predictions, ...) -> value or a class, got int 3')
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["losses", "metrics"]


losses = tw.Kind.of_callables(
    "losses",
    doc="functions (labels, predictions, ...) -> loss; called with layers, a graph node",
    expected="a loss must be a function (labels, predictions, ...) -> value or a class",
)
metrics = tw.Kind.of_callables(
    "metrics",
    doc="metric functions and streaming metric classes (accuracy, auc, perplexity…)",
    expected="a metric must be a function (labels, predictions, ...) -> value or a class",
)
