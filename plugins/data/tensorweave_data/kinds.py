"""The component kinds this pack introduces: ``datasets``, ``pipelines``, ``processors``.

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``), so
``tensorweave describe digits.v1`` knows the kind and any pack may offer datasets or
processing steps. Light on purpose: imported whenever a component of these kinds loads.

>>> processors.check(abs), datasets.check("digits")
(None, "a dataset must be a function (**params) -> DataSplits, got str 'digits'")
"""

from __future__ import annotations

import tensorweave as tw

__all__ = ["datasets", "pipelines", "processors"]


datasets = tw.Kind.of_callables(
    "datasets",
    doc="functions (**params) -> DataSplits: training and validation data, in memory or "
    "streamed from your files",
    expected="a dataset must be a function (**params) -> DataSplits",
)
pipelines = tw.Kind.of_callables(
    "pipelines",
    doc="classes that run processors over samples in worker processes and feed tf.data",
    expected="a pipeline must be a class (or factory) Pipeline(steps, ...)",
)
processors = tw.Kind.of_callables(
    "processors",
    doc="pure-Python steps fn(value, **params) -> value, for pipelines and predictors",
    expected="a processor must be a function fn(value, **params) -> value",
    step=True,
)
