"""The component kinds this pack introduces: optimizers, schedules, trainers, callbacks.

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``), so any
pack may offer components of these kinds, each checked when it loads. Light on purpose (no
TensorFlow): it is imported whenever a component of these kinds loads.

>>> optimizers.check(dict), callbacks.check(None)
(None, 'a callback must be a Callback class or a function that makes one, got NoneType None')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorweave as tw

__all__ = ["optimizers", "schedules", "trainers", "callbacks"]


def _callable(what: str) -> Callable[[Any], str | None]:
    def check(obj: Any) -> str | None:
        return None if callable(obj) else f"{what}, got {type(obj).__name__} {obj!r}"

    return check


optimizers = tw.Kind(
    "optimizers",
    doc="Optimizer classes (SGD, Adam…): Name(learning_rate, ...) updates variables",
    check=_callable("an optimizer must be an Optimizer class or a function that makes one"),
)
schedules = tw.Kind(
    "schedules",
    doc="learning-rate schedules: callables step -> factor of the base learning rate",
    check=_callable("a schedule must be a Schedule class or a function step -> factor"),
)
trainers = tw.Kind(
    "trainers",
    doc="training loops: Trainer(model, callbacks=...) runs the events of a training",
    check=_callable("a trainer must be a class Trainer(model, ...)"),
)
callbacks = tw.Kind(
    "callbacks",
    doc="Callback classes run on training events (early stopping, CSV logs, checkpoints…)",
    check=_callable("a callback must be a Callback class or a function that makes one"),
)
