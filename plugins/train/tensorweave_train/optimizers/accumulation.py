"""Gradient accumulation (``accumulate_steps=N``): the update every N steps with the mean of
their gradients, as Keras 3's ``gradient_accumulation_steps``.

Each ``apply_gradients`` adds its gradients to an accumulator slot per variable
(``opt.slot(var, "accumulator")``, saved in checkpoints; a ``tf.IndexedSlices`` gradient is
scattered into it); at the N-th call the mean is clipped and applied, and the accumulators
are zeroed. It runs inside the compiled step (a ``tf.cond``), so several steps per call and
resuming mid-accumulation work as without it. ``opt.iterations`` counts every call (what a
schedule reads); ``opt.updates`` the updates (what bias corrections count), as Keras.

>>> import tensorflow as tf
>>> from tensorweave_train import SGD
>>> v = tf.Variable([0.0]); opt = SGD(1.0, accumulate_steps=2)
>>> opt.apply_gradients([(tf.constant([1.0]), v)]); float(v[0])
0.0
>>> opt.apply_gradients([(tf.constant([3.0]), v)]); float(v[0]), int(opt.updates)
(-2.0, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import tensorflow as tf

__all__ = ["Accumulating", "accumulate_or_update"]


class Accumulating(Protocol):
    """What accumulating reads of an ``Optimizer``."""

    accumulate_steps: int
    iterations: tf.Variable

    def slot(self, var: tf.Variable, name: str) -> tf.Variable: ...


def _add(accumulator: tf.Variable, grad: Any) -> Any:
    if isinstance(grad, tf.IndexedSlices):
        values = tf.cast(grad.values, accumulator.dtype)
        return accumulator.scatter_add(tf.IndexedSlices(values, grad.indices, grad.dense_shape))
    return accumulator.assign_add(tf.cast(grad, accumulator.dtype))


def _zero(accumulator: tf.Variable) -> Any:
    return accumulator.assign(tf.zeros_like(accumulator))


def accumulate_or_update(
    opt: Accumulating,
    pairs: list[tuple[Any, tf.Variable]],
    update: Callable[..., Any],
    apply: Callable[[list[tuple[Any, tf.Variable]], Callable[..., Any]], None],
) -> None:
    """Add ``pairs``' gradients to the accumulators; at every ``accumulate_steps``-th call,
    ``apply`` their mean (``(accumulated + g) / N``, as Keras) and zero them."""
    n = opt.accumulate_steps
    accumulators = [opt.slot(v, "accumulator") for _, v in pairs]
    for (g, _), accumulator in zip(pairs, accumulators, strict=True):
        update(accumulator, _add, g)

    def apply_mean() -> None:
        means = [a.read_value() / tf.cast(n, a.dtype) for a in accumulators]
        apply([(m, v) for m, (_, v) in zip(means, pairs, strict=True)], update)
        for accumulator in accumulators:
            update(accumulator, _zero)

    tf.cond(tf.equal((opt.iterations + 1) % n, 0), apply_mean, lambda: None)
