"""``Adagrad``: per-coordinate rates from the sum of squared gradients, as Keras 3."""

from __future__ import annotations

import tensorflow as tf

from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike, scatter_rows

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: ``acc += g²; var -= lr * g / sqrt(acc + eps)``, accumulators start at 0.1.

    >>> import tensorflow as tf
    >>> v = tf.Variable([1.0]); Adagrad(0.1).apply_gradients([(tf.constant([1.0]), v)])
    >>> round(float(v[0]), 4)  # 1 - 0.1 / sqrt(1.1)
    0.9047
    """

    tracked = (*Optimizer.tracked, "epsilon")
    slot_names = ("accumulator",)

    def __init__(
        self,
        learning_rate: float = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        *,
        schedule: ScheduleLike | None = None,
        clip_value: float | None = None,
        clip_norm: float | None = None,
        clip_global_norm: float | None = None,
        weight_decay: float | None = None,
        ema: bool | float = False,
        ema_overwrite_frequency: int | None = None,
        accumulate_steps: int = 1,
        name: str | None = None,
    ) -> None:
        super().__init__(
            learning_rate,
            schedule=schedule,
            clip_value=clip_value,
            clip_norm=clip_norm,
            clip_global_norm=clip_global_norm,
            weight_decay=weight_decay,
            ema=ema,
            ema_overwrite_frequency=ema_overwrite_frequency,
            accumulate_steps=accumulate_steps,
            name=name,
        )
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = self._hyper("epsilon", epsilon)

    def _init_slot(self, name: str, var: tf.Variable) -> tf.Tensor:
        return tf.fill(var.shape, tf.cast(self.initial_accumulator_value, var.dtype))

    def _dense(self, var, g, lr, acc):  # type: ignore[no-untyped-def]
        acc.assign_add(tf.square(g))
        var.assign_sub(lr * g / tf.sqrt(acc + tf.cast(self.epsilon, var.dtype)))

    def _sparse(self, var, g, idx, lr, acc):  # type: ignore[no-untyped-def]
        rows = tf.gather(acc, idx) + tf.square(g)
        scatter_rows(acc, idx, rows)
        var.scatter_sub(
            tf.IndexedSlices(lr * g / tf.sqrt(rows + tf.cast(self.epsilon, var.dtype)), idx)
        )
