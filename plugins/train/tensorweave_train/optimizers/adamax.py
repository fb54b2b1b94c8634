"""``Adamax``: Adam with the infinity norm in place of the second moment, as Keras 3."""

from __future__ import annotations

import tensorflow as tf

from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike, scatter_rows

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (Kingma & Ba): ``u = max(beta_2 * u, |g|)``, ``var -= lr * m / ((1 - beta_1^t)
    * (u + eps))``, as Keras 3.

    >>> import tensorflow as tf
    >>> v = tf.Variable([1.0]); Adamax(0.1).apply_gradients([(tf.constant([2.0]), v)])
    >>> round(float(v[0]), 4)  # the first step moves by ~lr
    0.9
    """

    tracked = (*Optimizer.tracked, "beta_1", "beta_2", "epsilon")
    slot_names = ("m", "u")

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
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
        self.beta_1 = self._hyper("beta_1", beta_1)
        self.beta_2 = self._hyper("beta_2", beta_2)
        self.epsilon = self._hyper("epsilon", epsilon)

    def _step_of(self, g, m, u, lr, dtype):  # type: ignore[no-untyped-def]
        b1, b2 = tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        m = m + (g - m) * (1 - b1)
        u = tf.maximum(b2 * u, tf.abs(g))
        correction = 1 - tf.pow(b1, self._step(dtype))
        return m, u, lr * m / (correction * (u + tf.cast(self.epsilon, dtype)))

    def _dense(self, var, g, lr, m, u):  # type: ignore[no-untyped-def]
        new_m, new_u, step = self._step_of(g, m, u, lr, var.dtype)
        m.assign(new_m)
        u.assign(new_u)
        var.assign_sub(step)

    def _sparse(self, var, g, idx, lr, m, u):  # type: ignore[no-untyped-def]
        new_m, new_u, step = self._step_of(g, tf.gather(m, idx), tf.gather(u, idx), lr, var.dtype)
        scatter_rows(m, idx, new_m)
        scatter_rows(u, idx, new_u)
        var.scatter_sub(tf.IndexedSlices(step, idx))
