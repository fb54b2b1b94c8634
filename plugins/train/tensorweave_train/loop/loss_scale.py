"""``LossScale``: dynamic loss scaling for float16 training (``precision="mixed_float16"``).

float16 holds nothing below about 6e-8: small gradients computed in float16 vanish. As
Keras's ``LossScaleOptimizer``, the gradients are taken of the loss times a large factor
(``2**15`` at first) and divided by it before the update; a step whose gradients are not
all finite is skipped and halves the factor, and ``growth_interval`` finite steps in a row
double it. The factor and the count are variables, saved with the model's checkpoints.
``mixed_bfloat16`` needs none (bfloat16 has float32's range): ``Model`` makes a
``LossScale`` only under ``mixed_float16``, and ``Model.optimize`` uses it.

>>> import tensorflow as tf
>>> from tensorweave_train import SGD
>>> w = tf.Variable([1.0])
>>> scale = LossScale(initial=8.0)
>>> with tf.GradientTape() as tape:
...     loss = tf.reduce_sum(w * 3.0)
>>> scale.apply(tape, loss, [w], SGD(0.1))
>>> round(float(w[0]), 6), float(scale.scale)      # the update of the unscaled gradient
(0.7, 8.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = ["LossScale"]


class LossScale(tw.Stateful):
    """A dynamic loss scale: ``scale`` (float32) and ``good_steps``, the count of finite
    steps since it last changed.

    Args:
        initial: the first factor (Keras's default, ``2**15``).
        growth_interval: finite steps in a row after which the factor doubles.
    """

    tracked = ("scale", "good_steps")

    def __init__(
        self, initial: float = 2.0**15, growth_interval: int = 2000, name: str = "loss_scale"
    ) -> None:
        super().__init__(name=name)
        if initial <= 0 or growth_interval < 1:
            raise tw.ArgumentError(
                f"LossScale: initial must be positive and growth_interval at least 1, got "
                f"{initial!r} and {growth_interval!r}."
            )
        self.growth_interval = int(growth_interval)
        self.scale = tf.Variable(float(initial), trainable=False, name="scale")
        self.good_steps = tf.Variable(0, dtype=tf.int64, trainable=False, name="good_steps")

    def gradients(
        self, tape: tf.GradientTape, loss: tf.Tensor, variables: Sequence[tf.Variable]
    ) -> tuple[list[Any], tf.Tensor]:
        """The gradients of ``loss`` on ``tape`` (of ``loss * scale``, divided by
        ``scale``), and whether they are all finite."""
        scale = tf.convert_to_tensor(self.scale)
        scaled = tape.gradient(loss, variables, output_gradients=tf.cast(scale, loss.dtype))
        grads = [_divided(g, scale) for g in scaled]
        parts = [g.values if isinstance(g, tf.IndexedSlices) else g for g in grads if g is not None]
        finite = tf.reduce_all([tf.reduce_all(tf.math.is_finite(p)) for p in parts] or [True])
        return grads, finite

    def apply(
        self,
        tape: tf.GradientTape,
        loss: tf.Tensor,
        variables: Sequence[tf.Variable],
        optimizer: Any,
    ) -> None:
        """Update ``variables`` with ``optimizer`` from the unscaled gradients, or skip the
        step when one is not finite; then adjust the factor."""
        grads, finite = self.gradients(tape, loss, variables)

        def update() -> tf.Tensor:
            optimizer.apply_gradients(zip(grads, variables))
            return tf.constant(True)

        tf.cond(finite, update, lambda: tf.constant(False))
        grown = self.good_steps + 1 >= self.growth_interval
        self.scale.assign(
            tf.where(finite, tf.where(grown, self.scale * 2.0, self.scale), self.scale / 2.0)
        )
        self.good_steps.assign(
            tf.where(finite & ~grown, self.good_steps + 1, tf.zeros([], tf.int64))
        )


def _divided(grad: Any, scale: tf.Tensor) -> Any:
    if grad is None:
        return None
    if isinstance(grad, tf.IndexedSlices):
        values = grad.values / tf.cast(scale, grad.values.dtype)
        return tf.IndexedSlices(values, grad.indices, grad.dense_shape)
    return grad / tf.cast(scale, grad.dtype)
