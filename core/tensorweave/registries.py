"""The registry of each component kind, and the check each kind applies on load.

``tw.layers``, ``tw.cells``, ``tw.losses``, ``tw.metrics``, ``tw.optimizers``,
``tw.schedules``, ``tw.trainers``, ``tw.callbacks``, ``tw.initializers``,
``tw.activations`` and ``tw.processors`` read the entry-point groups
``tensorweave.<kind>``. ``registry("my_kind")`` returns (and creates on first use) the
registry of any other kind a plugin wants to introduce.

>>> import tensorweave as tw
>>> tw.registry("layers") is tw.layers
True
>>> tw.layers.group
'tensorweave.layers'
"""

from __future__ import annotations

import inspect
from typing import Any

from tensorweave.layer import Layer
from tensorweave.registry import Registry

__all__ = [
    "registry",
    "kinds",
    "layers",
    "cells",
    "losses",
    "metrics",
    "optimizers",
    "schedules",
    "trainers",
    "callbacks",
    "initializers",
    "activations",
    "processors",
]


def _callable(obj: Any) -> str | None:
    return None if callable(obj) else f"expected a class or function, got {type(obj).__name__}"


def _layer_factory(obj: Any) -> str | None:
    if inspect.isclass(obj):
        if issubclass(obj, Layer):
            return None
        return f"the class {obj.__qualname__} does not subclass tensorweave.Layer"
    return _callable(obj)


def _cell(obj: Any) -> str | None:
    if inspect.isclass(obj) and issubclass(obj, Layer):
        return None
    if inspect.isclass(obj):
        return f"the class {obj.__qualname__} does not subclass tensorweave.Layer"
    return _callable(obj)


_KINDS: dict[str, Registry[Any]] = {}


def registry(kind: str) -> Registry[Any]:
    """The registry of ``kind`` (created with a callable-check on first use)."""
    found = _KINDS.get(kind)
    if found is None:
        found = _KINDS[kind] = Registry(kind, validate=_callable)
    return found


def kinds() -> dict[str, Registry[Any]]:
    """Every registry created so far, by kind."""
    return dict(_KINDS)


def _make(kind: str, validate: Any, doc: str) -> Registry[Any]:
    reg: Registry[Any] = Registry(kind, validate=validate, doc=doc)
    _KINDS[kind] = reg
    return reg


layers = _make("layers", _layer_factory, "Layer classes or functions that build layers")
cells = _make("cells", _cell, "recurrent cells: layers with explicit previous-state inputs")
losses = _make("losses", _callable, "loss functions and loss layers")
metrics = _make("metrics", _callable, "metric functions and streaming metrics")
optimizers = _make("optimizers", _callable, "optimizers over layers' variables")
schedules = _make("schedules", _callable, "learning-rate and hyperparameter schedules")
trainers = _make("trainers", _callable, "training loops")
callbacks = _make("callbacks", _callable, "training callbacks")
initializers = _make("initializers", _callable, "variable initializers")
activations = _make("activations", _callable, "activation functions")
processors = _make("processors", _callable, "data pre- and post-processing steps")
