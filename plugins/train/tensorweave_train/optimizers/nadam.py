"""``Nadam``: Adam with Nesterov momentum (Dozat), with Keras 3's momentum schedule."""

from __future__ import annotations

import tensorflow as tf

from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike, scatter_rows

__all__ = ["Nadam"]


class Nadam(Optimizer):
    """Nadam: Adam whose momentum looks one step ahead, ``beta_1`` scheduled by
    ``u_t = beta_1 * (1 - 0.5 * 0.96 ** t)``, as Keras 3 (the product of the ``u_t`` is
    saved state, ``u_product``).

    >>> import tensorflow as tf
    >>> v = tf.Variable([1.0]); Nadam(0.1).apply_gradients([(tf.constant([2.0]), v)])
    >>> round(float(v[0]), 4)  # a little more than lr: the momentum looks ahead
    0.8937
    """

    tracked = (*Optimizer.tracked, "beta_1", "beta_2", "epsilon", "u_product")
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
        self.u_product = tf.Variable(1.0, trainable=False, name="u_product")

    def _u(self, step: tf.Tensor) -> tf.Tensor:
        return tf.convert_to_tensor(self.beta_1) * (1.0 - 0.5 * tf.pow(0.96, step))

    def _before_updates(self, update):  # type: ignore[no-untyped-def]
        u_t = self._u(self._step(tf.float32))
        update(self.u_product, lambda u, f: u.assign(u * f), u_t)

    def _coefficients(self, dtype: tf.DType) -> tuple[tf.Tensor, ...]:
        t = self._step(dtype)
        b1, b2 = tf.cast(self.beta_1, dtype), tf.cast(self.beta_2, dtype)
        u_t = b1 * (1.0 - 0.5 * tf.pow(tf.cast(0.96, dtype), t))
        u_next = b1 * (1.0 - 0.5 * tf.pow(tf.cast(0.96, dtype), t + 1))
        u_product = tf.cast(self.u_product, dtype)
        return b1, b2, u_t, u_next, u_product, u_product * u_next, tf.pow(b2, t)

    def _step_of(self, g, m, v, lr, dtype):  # type: ignore[no-untyped-def]
        b1, b2, u_t, u_next, u_prod, u_prod_next, b2_power = self._coefficients(dtype)
        m = m + (g - m) * (1 - b1)
        v = v + (tf.square(g) - v) * (1 - b2)
        m_hat = u_next * m / (1 - u_prod_next) + (1 - u_t) * g / (1 - u_prod)
        v_hat = v / (1 - b2_power)
        return m, v, m_hat * lr / (tf.sqrt(v_hat) + tf.cast(self.epsilon, dtype))

    def _dense(self, var, g, lr, m, v):  # type: ignore[no-untyped-def]
        new_m, new_v, step = self._step_of(g, m, v, lr, var.dtype)
        m.assign(new_m)
        v.assign(new_v)
        var.assign_sub(step)

    def _sparse(self, var, g, idx, lr, m, v):  # type: ignore[no-untyped-def]
        new_m, new_v, step = self._step_of(g, tf.gather(m, idx), tf.gather(v, idx), lr, var.dtype)
        scatter_rows(m, idx, new_m)
        scatter_rows(v, idx, new_v)
        var.scatter_sub(tf.IndexedSlices(step, idx))
