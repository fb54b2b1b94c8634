"""Weight averaging (``ema=``): an exponential moving average of the weights, kept by the
optimizer, as Keras 3's ``use_ema``.

After each ``apply_gradients`` the average of each variable moves towards its new value:
``average = momentum * average + (1 - momentum) * weight``, with momentum 0 before the first
update is counted (so the average starts at the weights, as Keras). The averages are slots
of the optimizer (``opt.slot(var, "average")``), saved in checkpoints with it. They reach the
weights three ways: ``ema_overwrite_frequency`` (every N updates, as Keras), ``swap``
(``Optimizer.swap_averages``: in place and back, what the ``SwapEMAWeights.v1`` callback
does around validation) and ``finalize`` (``Optimizer.finalize_variable_values``: for good,
what ``Model.train`` does when training ends).

>>> import tensorflow as tf
>>> from tensorweave_train import SGD
>>> v = tf.Variable([0.0]); opt = SGD(1.0, ema=0.5)
>>> for _ in range(3): opt.apply_gradients([(tf.constant([-1.0]), v)])
>>> float(v[0]), float(opt.slot(v, "average")[0])  # 1, then (1+2)/2, then (1.5+3)/2
(3.0, 2.25)
>>> opt.swap_averages([v]); float(v[0]), bool(opt.averages_in_model)
(2.25, True)
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import tensorflow as tf

import tensorweave as tw

__all__ = ["Averaging", "ema_momentum", "update_averages", "swap", "finalize", "DEFAULT_MOMENTUM"]

DEFAULT_MOMENTUM = 0.99  # Keras's ema_momentum


class Averaging(Protocol):
    """What averaging reads of an ``Optimizer``."""

    name: str
    ema_momentum: tf.Variable | None
    ema_overwrite_frequency: int | None
    averages_in_model: tf.Variable | None

    @property
    def updates(self) -> tf.Tensor: ...

    def slot(self, var: tf.Variable, name: str) -> tf.Variable: ...


def ema_momentum(ema: Any, overwrite_frequency: Any, owner: str) -> float | None:
    """The momentum ``ema=`` asks for (``None``: no averaging); a clear error otherwise.

    >>> ema_momentum(True, None, "SGD"), ema_momentum(0.9, 10, "SGD"), ema_momentum(False, None, "SGD")
    (0.99, 0.9, None)
    """
    if isinstance(ema, bool):
        momentum = DEFAULT_MOMENTUM if ema else None
    elif isinstance(ema, numbers.Real) and 0.0 <= float(ema) <= 1.0:
        momentum = float(ema)
    else:
        raise tw.ArgumentError(
            f"{owner}: ema must be True/False or a momentum in [0, 1], got {ema!r}. "
            f"Fix: ema=True (momentum {DEFAULT_MOMENTUM}) or e.g. ema=0.999."
        )
    if overwrite_frequency is not None:
        tw.positive_int(overwrite_frequency, "ema_overwrite_frequency", owner)
        if momentum is None:
            raise tw.ArgumentError(
                f"{owner}: ema_overwrite_frequency={overwrite_frequency!r} needs averages. "
                "Fix: pass ema=True too, or leave ema_overwrite_frequency out."
            )
    return momentum


def _blend(average: tf.Variable, weight: Any, momentum: tf.Tensor) -> Any:
    m = tf.cast(momentum, average.dtype)
    return average.assign(m * average + (1 - m) * weight)


def _copy(target: tf.Variable, source: Any) -> Any:
    return target.assign(source)


def update_averages(
    opt: Averaging, variables: Sequence[tf.Variable], update: Callable[..., Any]
) -> None:
    """Move the averages of ``variables`` towards their values (inside the step), and copy
    them into the weights every ``ema_overwrite_frequency`` updates."""
    assert opt.ema_momentum is not None
    updates = opt.updates
    momentum = tf.where(updates != 0, tf.convert_to_tensor(opt.ema_momentum), 0.0)
    averages = [opt.slot(v, "average") for v in variables]
    for v, average in zip(variables, averages, strict=True):
        update(average, _blend, v, momentum)
    every = opt.ema_overwrite_frequency
    if every:

        def overwrite() -> None:
            for v, average in zip(variables, averages, strict=True):
                update(v, _copy, average)

        tf.cond(tf.equal((updates + 1) % every, 0), overwrite, lambda: None)


def _require(opt: Averaging) -> tf.Variable:
    if opt.averages_in_model is None:
        raise tw.ArgumentError(
            f"{type(opt).__name__} {opt.name!r} keeps no weight averages. Fix: build it with "
            "ema=True (or a momentum, e.g. ema=0.999)."
        )
    return opt.averages_in_model


def swap(opt: Averaging, variables: Sequence[tf.Variable]) -> None:
    """Exchange the values of ``variables`` and their averages (eagerly, between steps)."""
    flag = _require(opt)
    for v in variables:
        average = opt.slot(v, "average")
        weight = tf.identity(v.read_value())
        v.assign(average.read_value())
        average.assign(weight)
    flag.assign(tf.logical_not(flag))


def finalize(opt: Averaging, variables: Sequence[tf.Variable]) -> None:
    """Leave the averages in the weights, with the averages equal to them (so training may
    go on from there); nothing without ``ema``."""
    if opt.averages_in_model is None:
        return
    swapped = bool(opt.averages_in_model.numpy())
    for v in variables:
        average = opt.slot(v, "average")
        if swapped:  # the weights hold the averages already (SwapEMAWeights)
            average.assign(v.read_value())
        else:
            v.assign(average.read_value())
    opt.averages_in_model.assign(False)
