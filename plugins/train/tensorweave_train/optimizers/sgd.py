"""``SGD``: stochastic gradient descent, with optional (Nesterov) momentum, as Keras 3."""

from __future__ import annotations

from collections.abc import Sequence

import tensorflow as tf

from tensorweave_train.optimizers.optimizer import Optimizer, ScheduleLike, scatter_rows

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, with optional (Nesterov) momentum.

    ``m = momentum*m - lr*g; var += m`` (Nesterov: ``var += momentum*m - lr*g``), as Keras 3.

    >>> import tensorflow as tf
    >>> v = tf.Variable([1.0]); opt = SGD(0.1, momentum=0.9)
    >>> for _ in range(2): opt.apply_gradients([(tf.constant([1.0]), v)])
    >>> round(float(v[0]), 4)  # 1 - 0.1 - (0.09 + 0.1)
    0.71
    """

    tracked = (*Optimizer.tracked, "momentum")

    def __init__(
        self,
        learning_rate: float = 0.01,
        momentum: float = 0.0,
        nesterov: bool = False,
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
        self.momentum = self._hyper("momentum", momentum)
        self.nesterov = bool(nesterov)
        self.slot_names = ("momentum",) if momentum or nesterov else ()

    def _dense(self, var, g, lr, *slots):  # type: ignore[no-untyped-def]
        if not slots:
            var.assign_sub(lr * g)
            return
        (m,) = slots
        mu = tf.cast(self.momentum, var.dtype)
        m.assign(mu * m - lr * g)
        var.assign_add(mu * m - lr * g if self.nesterov else m)

    def _sparse_sums_duplicates(self, slots: Sequence[tf.Variable]) -> bool:
        return not slots  # without momentum the update is one scatter_sub

    def _sparse(self, var, g, idx, lr, *slots):  # type: ignore[no-untyped-def]
        if not slots:
            var.scatter_sub(tf.IndexedSlices(lr * g, idx))
            return
        (m,) = slots
        mu = tf.cast(self.momentum, var.dtype)
        m_rows = mu * tf.gather(m, idx) - lr * g
        scatter_rows(m, idx, m_rows)
        var.scatter_add(tf.IndexedSlices(mu * m_rows - lr * g if self.nesterov else m_rows, idx))
