"""The ``layers`` kind, which the core declares because it defines ``Layer``.

Declared in the core's own ``pyproject.toml`` like any pack declares its kinds::

    [project.entry-points."tensorweave.kinds"]
    layers = "tensorweave.graph.kinds:layers"

>>> import tensorflow as tf, tensorweave as tw
>>> layers.check(tw.Lambda), layers.check(tf.Module)
(None, 'the class Module does not subclass tensorweave.Layer')
"""

from __future__ import annotations

import inspect
from typing import Any

from tensorweave.graph.layer import Layer
from tensorweave.registries.kinds import Kind

__all__ = ["layers", "is_layer_factory"]


def is_layer_factory(obj: Any) -> str | None:
    """``None`` for a ``Layer`` subclass or a function (that builds layers), else why not."""
    if inspect.isclass(obj):
        if issubclass(obj, Layer):
            return None
        return f"the class {obj.__qualname__} does not subclass tensorweave.Layer"
    if callable(obj):
        return None
    return f"expected a Layer class or a function that builds layers, got {type(obj).__name__}"


layers = Kind("layers", doc="Layer classes, or functions that build layers", check=is_layer_factory)
