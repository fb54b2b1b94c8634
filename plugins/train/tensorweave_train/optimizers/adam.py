"""``Adam`` (bias-corrected, optional ``amsgrad``) and ``AdamW`` (decoupled weight decay), as Keras 3."""

from __future__ import annotations

import tensorflow as tf

from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike, scatter_rows

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam (Kingma & Ba), bias-corrected as Keras 3; ``amsgrad`` optional.

    >>> import tensorflow as tf
    >>> v = tf.Variable([1.0]); Adam(0.1).apply_gradients([(tf.constant([2.0]), v)])
    >>> round(float(v[0]), 4)  # the first step moves by ~lr
    0.9
    """

    tracked = (*Optimizer.tracked, "beta_1", "beta_2", "epsilon")

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
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
        self.amsgrad = bool(amsgrad)
        self.slot_names = ("m", "v", "vhat") if amsgrad else ("m", "v")

    def _coefficients(self, dtype: tf.DType, lr: tf.Tensor) -> tuple[tf.Tensor, ...]:
        t = self._step(dtype)
        b1, b2 = tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        alpha = lr * tf.sqrt(1 - tf.pow(b2, t)) / (1 - tf.pow(b1, t))
        return b1, b2, alpha, tf.cast(self.epsilon, dtype)

    def _dense(self, var, g, lr, *slots):  # type: ignore[no-untyped-def]
        b1, b2, alpha, eps = self._coefficients(var.dtype, lr)
        m, v = slots[0], slots[1]
        m.assign_add((g - m) * (1 - b1))
        v.assign_add((tf.square(g) - v) * (1 - b2))
        denom_v = v
        if self.amsgrad:
            slots[2].assign(tf.maximum(slots[2], v))
            denom_v = slots[2]
        var.assign_sub(m * alpha / (tf.sqrt(denom_v) + eps))

    def _sparse(self, var, g, idx, lr, *slots):  # type: ignore[no-untyped-def]
        b1, b2, alpha, eps = self._coefficients(var.dtype, lr)
        m, v = slots[0], slots[1]
        m_rows = tf.gather(m, idx)
        m_rows = m_rows + (g - m_rows) * (1 - b1)
        v_rows = tf.gather(v, idx)
        v_rows = v_rows + (tf.square(g) - v_rows) * (1 - b2)
        scatter_rows(m, idx, m_rows)
        scatter_rows(v, idx, v_rows)
        if self.amsgrad:
            v_rows = tf.maximum(tf.gather(slots[2], idx), v_rows)
            scatter_rows(slots[2], idx, v_rows)
        var.scatter_sub(tf.IndexedSlices(m_rows * alpha / (tf.sqrt(v_rows) + eps), idx))


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.004, as Keras 3).

    >>> AdamW(0.01).weight_decay.numpy().round(4)
    np.float32(0.004)
    """

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        *,
        schedule: ScheduleLike | None = None,
        clip_value: float | None = None,
        clip_norm: float | None = None,
        clip_global_norm: float | None = None,
        weight_decay: float | None = 0.004,
        ema: bool | float = False,
        ema_overwrite_frequency: int | None = None,
        accumulate_steps: int = 1,
        name: str | None = None,
    ) -> None:
        super().__init__(
            learning_rate,
            beta_1,
            beta_2,
            epsilon,
            amsgrad,
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
