"""``RMSprop``, optionally centered and with momentum, as Keras 3."""

from __future__ import annotations

import tensorflow as tf

from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike, scatter_rows

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, optionally centered and with momentum, as Keras 3.

    >>> import tensorflow as tf
    >>> v = tf.Variable([1.0]); RMSprop(0.01).apply_gradients([(tf.constant([1.0]), v)])
    >>> round(float(v[0]), 4)  # 1 - 0.01 / sqrt(0.1)
    0.9684
    """

    tracked = (*Optimizer.tracked, "rho", "momentum", "epsilon")

    def __init__(
        self,
        learning_rate: float = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
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
        self.momentum = self._hyper("momentum", momentum)
        self.epsilon = self._hyper("epsilon", epsilon)
        self.centered = bool(centered)
        self.use_momentum = momentum > 0
        names = ["velocity"]
        if self.use_momentum:
            names.append("momentum")
        if centered:
            names.append("average_gradient")
        self.slot_names = tuple(names)

    def _increment(self, g, vel, avg, lr, dtype):  # type: ignore[no-untyped-def]
        rho, eps = tf.cast(self.rho, dtype), tf.cast(self.epsilon, dtype)
        vel = rho * vel + (1 - rho) * tf.square(g)
        if avg is not None:
            avg = rho * avg + (1 - rho) * g
            denom = vel - tf.square(avg) + eps
        else:
            denom = vel + eps
        return vel, avg, lr * g / tf.sqrt(denom)

    def _split(self, slots):  # type: ignore[no-untyped-def]
        names = dict(zip(self.slot_names, slots))
        return names["velocity"], names.get("momentum"), names.get("average_gradient")

    def _dense(self, var, g, lr, *slots):  # type: ignore[no-untyped-def]
        vel, mom, avg = self._split(slots)
        new_vel, new_avg, inc = self._increment(g, vel, avg, lr, var.dtype)
        vel.assign(new_vel)
        if avg is not None:
            avg.assign(new_avg)
        if mom is not None:
            mom.assign(tf.cast(self.momentum, var.dtype) * mom + inc)
            var.assign_sub(mom)
        else:
            var.assign_sub(inc)

    def _sparse(self, var, g, idx, lr, *slots):  # type: ignore[no-untyped-def]
        vel, mom, avg = self._split(slots)
        avg_rows = None if avg is None else tf.gather(avg, idx)
        new_vel, new_avg, inc = self._increment(g, tf.gather(vel, idx), avg_rows, lr, var.dtype)
        scatter_rows(vel, idx, new_vel)
        if avg is not None:
            scatter_rows(avg, idx, new_avg)
        if mom is not None:
            inc = tf.cast(self.momentum, var.dtype) * tf.gather(mom, idx) + inc
            scatter_rows(mom, idx, inc)
        var.scatter_sub(tf.IndexedSlices(inc, idx))
