"""The accumulators of a streaming metric: the base class every streaming state shares.

A streaming metric is a ``tf.Module`` whose accumulators are non-trainable variables created
at construction, so ``update`` works eagerly and inside ``tf.function``, checkpoints with
``tf.train.Checkpoint``, and the result over several batches equals the metric function on
all of them at once (the accumulators are the sums those functions divide).

>>> from tensorweave_losses.streaming.accumulators import StreamingMetric, mean_parts
>>> class RunningMean(StreamingMetric):
...     def parts(self, values):
...         return mean_parts(values)
>>> metric = RunningMean()
>>> _ = metric.update([1.0, 2.0]); float(metric.update([6.0]))
3.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tensorweave_losses.base import float_tensor, weights_like

__all__ = ["StreamingMetric", "mean_parts", "ratio"]


def ratio(total: tf.Tensor, count: tf.Tensor) -> tf.Tensor:
    """``total / count``, 0 when the count is 0."""
    return tf.math.divide_no_nan(total, count)


def mean_parts(values: Any, *, sample_weight: Any = None) -> tuple[tf.Tensor, tf.Tensor]:
    """(weighted sum, total weight) of ``values``."""
    values = float_tensor(values)
    if sample_weight is None:
        return tf.reduce_sum(values), tf.cast(tf.size(values), values.dtype)
    w = tf.broadcast_to(weights_like("mean", sample_weight, values), tf.shape(values))
    return tf.reduce_sum(values * w), tf.reduce_sum(w)


class StreamingMetric(tf.Module):
    """Base class: subclasses define ``shapes``, ``parts(*batch)`` and ``finish(*totals)``.

    ``update(*batch, **options)`` adds one batch's parts to the accumulators and returns
    the running result; ``result()`` reads it; ``reset()`` zeroes the accumulators.
    """

    shapes: Sequence[tuple[int, ...]] = ((), ())
    #: whether ``update`` compiles with XLA (fixed-size accumulators do)
    jit_compatible = True

    def __init__(self, *, name: str | None = None) -> None:
        super().__init__(name=name or _snake(type(self).__name__))
        self.totals = [
            tf.Variable(tf.zeros(shape, tf.float32), trainable=False, name=f"total_{i}")
            for i, shape in enumerate(self._shapes())
        ]

    def _shapes(self) -> Sequence[tuple[int, ...]]:
        return self.shapes

    def parts(self, *args: Any, **kwargs: Any) -> Sequence[tf.Tensor]:
        """The sums one batch contributes."""
        raise NotImplementedError

    def finish(self, *totals: tf.Tensor) -> tf.Tensor:
        """The metric from the accumulated sums (default: a ratio of two sums)."""
        return ratio(*totals)

    def accumulate(self, *args: Any, **kwargs: Any) -> None:
        """Accumulate one batch (``update`` without computing the result)."""
        for variable, part in zip(self.totals, self.parts(*args, **kwargs), strict=True):
            variable.assign_add(tf.cast(part, variable.dtype))

    def update(self, *args: Any, **kwargs: Any) -> tf.Tensor:
        """Accumulate one batch; returns the running result."""
        self.accumulate(*args, **kwargs)
        return self.result()

    def result(self) -> tf.Tensor:
        """The metric over every batch since the last reset."""
        return self.finish(*[v.read_value() for v in self.totals])

    def reset(self) -> None:
        """Forget every batch seen."""
        for variable in self.totals:
            variable.assign(tf.zeros_like(variable))

    update_state = update
    reset_state = reset

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def _snake(name: str) -> str:
    out = [("_" + c.lower()) if c.isupper() and i else c.lower() for i, c in enumerate(name)]
    return "".join(out).replace("a_u_c", "auc").replace("f1", "f1")
