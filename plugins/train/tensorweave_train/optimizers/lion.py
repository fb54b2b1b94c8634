"""``Lion``: the sign of an interpolated momentum (Chen et al., 2023), as Keras 3."""

from __future__ import annotations

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike, scatter_rows

__all__ = ["Lion"]


class Lion(Optimizer):
    """Lion: ``var -= lr * sign(beta_1 * m + (1 - beta_1) * g)``, then
    ``m = beta_2 * m + (1 - beta_2) * g``, as Keras 3. Every step moves each weight by
    exactly ``lr``: use a rate 3-10x smaller than Adam's.

    >>> import tensorflow as tf
    >>> v = tf.Variable([1.0, 1.0]); Lion(0.1).apply_gradients([(tf.constant([2.0, -0.5]), v)])
    >>> [round(x, 4) for x in v.numpy().tolist()]
    [0.9, 1.1]
    """

    tracked = (*Optimizer.tracked, "beta_1", "beta_2")
    slot_names = ("m",)

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.99,
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
        if not 0.0 < beta_1 <= 1.0:
            raise tw.ArgumentError(
                f"Lion: beta_1 must be in (0, 1], got {beta_1!r} (at 0 Lion is sign SGD). "
                "Fix: beta_1=0.9, the default."
            )
        self.beta_1 = self._hyper("beta_1", beta_1)
        self.beta_2 = self._hyper("beta_2", beta_2)

    def _step_of(self, g, m, lr, dtype):  # type: ignore[no-untyped-def]
        b1, b2 = tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        step = lr * tf.sign(m * b1 + g * (1.0 - b1))
        return m * b2 + g * (1.0 - b2), step

    def _dense(self, var, g, lr, m):  # type: ignore[no-untyped-def]
        new_m, step = self._step_of(g, m, lr, var.dtype)
        var.assign_sub(step)
        m.assign(new_m)

    def _sparse(self, var, g, idx, lr, m):  # type: ignore[no-untyped-def]
        new_m, step = self._step_of(g, tf.gather(m, idx), lr, var.dtype)
        var.scatter_sub(tf.IndexedSlices(step, idx))
        scatter_rows(m, idx, new_m)
