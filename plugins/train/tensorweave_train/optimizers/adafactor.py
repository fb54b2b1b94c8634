"""``Adafactor``: second moments factored into row and column means (Shazeer & Stern), as Keras 3."""

from __future__ import annotations

import tensorflow as tf

from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike

__all__ = ["Adafactor"]


def _rms(x: tf.Tensor) -> tf.Tensor:
    return tf.sqrt(tf.reduce_mean(tf.square(x)))


class Adafactor(Optimizer):
    """Adafactor, as Keras 3: for a variable of rank >= 2, running means of ``g² + eps_1``
    over its last axis (``r``) and its second-last (``c``) stand for the second moment
    (``v = r / mean(r) x c``: memory of one row and one column, not the whole variable);
    rank 0 and 1 keep ``v`` itself. The step ``g / sqrt(v)`` is clipped to RMS
    ``clip_threshold`` and scaled by ``max(epsilon_2, rms(var)) * min(lr, 1 / sqrt(t))``;
    the decay is ``1 - t ** beta_2_decay``. (Keras's ``relative_step`` is left out: its
    rule caps the rate at ``1 / sqrt(t)`` either way.) A ``tf.IndexedSlices`` gradient is
    applied as its dense form (the means read every row). Where ``v`` underflows to 0 (an
    entry whose row and column both got no gradient, e.g. a never-lit pixel into a dead
    unit) the step is 0, where Keras's is NaN and poisons every weight.

    >>> import tensorflow as tf
    >>> v = tf.Variable([[1.0, 1.0]]); Adafactor(0.1).apply_gradients([(tf.constant([[1.0, 1.0]]), v)])
    >>> [round(x, 4) for x in v.numpy()[0].tolist()]  # clipped to RMS 1, scaled by 0.1
    [0.9, 0.9]
    """

    tracked = (*Optimizer.tracked, "beta_2_decay", "epsilon_1", "epsilon_2", "clip_threshold")
    slot_names = ("r", "c", "v")

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta_2_decay: float = -0.8,
        epsilon_1: float = 1e-30,
        epsilon_2: float = 1e-3,
        clip_threshold: float = 1.0,
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
        self.beta_2_decay = self._hyper("beta_2_decay", beta_2_decay)
        self.epsilon_1 = self._hyper("epsilon_1", epsilon_1)
        self.epsilon_2 = self._hyper("epsilon_2", epsilon_2)
        self.clip_threshold = self._hyper("clip_threshold", clip_threshold)

    def _init_slot(self, name: str, var: tf.Variable) -> tf.Tensor:
        shape = var.shape
        factored = shape.rank >= 2
        if name == "r":
            shape = shape[:-1] if factored else []
        elif name == "c":
            shape = shape[:-2] + shape[-1:] if factored else []
        elif name == "v" and factored:
            shape = []  # computed from r and c at each step
        return tf.zeros(shape, var.dtype)

    def _dense(self, var, g, lr, r, c, v):  # type: ignore[no-untyped-def]
        dtype = var.dtype
        t = self._step(dtype)
        rho = tf.minimum(lr, 1 / tf.sqrt(t))
        alpha = tf.maximum(tf.cast(self.epsilon_2, dtype), _rms(var)) * rho
        squared = tf.square(g) + tf.cast(self.epsilon_1, dtype)
        decay = 1 - tf.pow(t, tf.cast(self.beta_2_decay, dtype))
        if var.shape.rank >= 2:
            r.assign(decay * r + (1 - decay) * tf.reduce_mean(squared, axis=-1))
            c.assign(decay * c + (1 - decay) * tf.reduce_mean(squared, axis=-2))
            second = tf.expand_dims(r / tf.reduce_mean(r, axis=-1, keepdims=True), -1)
            second = second * tf.expand_dims(c, -2)
        else:
            second = v.assign(decay * v + (1 - decay) * squared)
        u = tf.math.divide_no_nan(g, tf.sqrt(second))  # Keras: 0 / 0 = NaN
        u = u / tf.maximum(tf.cast(1.0, dtype), _rms(u) / tf.cast(self.clip_threshold, dtype))
        var.assign_sub(alpha * u)
