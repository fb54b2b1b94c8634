"""``Lamb``: Adam with a layer-wise trust ratio (You et al.), for large batches, as Keras 3."""

from __future__ import annotations

import tensorflow as tf

from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """LAMB: the bias-corrected Adam step ``u = m_hat / (sqrt(v_hat) + eps)`` scaled per
    variable by ``||var|| / ||u||`` (1 when either is 0), as Keras 3. The ratio reads the
    whole variable, so a ``tf.IndexedSlices`` gradient is applied as its dense form.

    >>> import tensorflow as tf
    >>> v = tf.Variable([3.0, 4.0]); Lamb(0.1).apply_gradients([(tf.constant([1.0, 1.0]), v)])
    >>> [round(x, 3) for x in v.numpy().tolist()]  # a step of lr * ||v|| / sqrt(2) each
    [2.646, 3.646]
    """

    tracked = (*Optimizer.tracked, "beta_1", "beta_2", "epsilon")
    slot_names = ("m", "v")

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

    def _dense(self, var, g, lr, m, v):  # type: ignore[no-untyped-def]
        dtype = var.dtype
        t = self._step(dtype)
        b1, b2 = tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        m.assign_add((g - m) * (1 - b1))
        v.assign_add((tf.square(g) - v) * (1 - b2))
        m_hat = m / (1.0 - tf.pow(b1, t))
        step = m_hat / (tf.sqrt(v / (1.0 - tf.pow(b2, t))) + tf.cast(self.epsilon, dtype))
        w_norm = tf.sqrt(tf.reduce_sum(tf.square(var)))
        u_norm = tf.sqrt(tf.reduce_sum(tf.square(step)))
        ratio = tf.where(w_norm > 0, tf.where(u_norm > 0, w_norm / u_norm, 1.0), 1.0)
        var.assign_sub(ratio * lr * step)
