"""``Adadelta``: steps scaled by running averages of squared gradients and updates."""

from __future__ import annotations

import tensorflow as tf

from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike, scatter_rows

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (Zeiler): ``delta = -sqrt(D + eps) / sqrt(G + eps) * g`` from the running
    means ``G`` of ``g²`` and ``D`` of ``delta²`` (decay ``rho``), ``var += lr * delta``, as
    Keras 3 (whose default ``learning_rate`` is 0.001; the paper's rule is ``1.0``).

    >>> import tensorflow as tf
    >>> v = tf.Variable([1.0]); Adadelta(1.0).apply_gradients([(tf.constant([1.0]), v)])
    >>> round(float(v[0]), 5)  # 1 - sqrt(1e-7) / sqrt(0.05 + 1e-7)
    0.99859
    """

    tracked = (*Optimizer.tracked, "rho", "epsilon")
    slot_names = ("accumulated_grad", "accumulated_delta")

    def __init__(
        self,
        learning_rate: float = 0.001,
        rho: float = 0.95,
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
        self.rho = self._hyper("rho", rho)
        self.epsilon = self._hyper("epsilon", epsilon)

    def _step_of(self, g, grads, deltas, dtype):  # type: ignore[no-untyped-def]
        rho, eps = tf.cast(self.rho, dtype), tf.cast(self.epsilon, dtype)
        grads = rho * grads + (1 - rho) * tf.square(g)
        delta = -(tf.sqrt(deltas + eps) * g) / tf.sqrt(grads + eps)
        deltas = rho * deltas + (1 - rho) * tf.square(delta)
        return grads, deltas, delta

    def _dense(self, var, g, lr, grads, deltas):  # type: ignore[no-untyped-def]
        new_grads, new_deltas, delta = self._step_of(g, grads, deltas, var.dtype)
        grads.assign(new_grads)
        deltas.assign(new_deltas)
        var.assign_add(lr * delta)

    def _sparse(self, var, g, idx, lr, grads, deltas):  # type: ignore[no-untyped-def]
        rows = self._step_of(g, tf.gather(grads, idx), tf.gather(deltas, idx), var.dtype)
        scatter_rows(grads, idx, rows[0])
        scatter_rows(deltas, idx, rows[1])
        var.scatter_add(tf.IndexedSlices(lr * rows[2], idx))
