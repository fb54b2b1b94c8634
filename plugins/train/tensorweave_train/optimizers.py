"""The optimizers: SGD (momentum, Nesterov), Adam, AdamW, RMSprop and Adagrad.

Each implements ``_dense`` and ``_sparse`` update rules on top of ``Optimizer``
(``tensorweave_train.optimizer``), which owns hyperparameter variables, lazy slots,
clipping, schedules and ``tf.distribute``. The rules match Keras 3 (tested against it).

>>> import tensorflow as tf
>>> v = tf.Variable([1.0, 2.0])
>>> opt = Adam(learning_rate=0.1)
>>> opt.apply_gradients([(tf.constant([1.0, -1.0]), v)])
>>> [round(x, 4) for x in v.numpy().tolist()]
[0.9, 2.1]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

from tensorweave_train.clipping import clip_gradients
from tensorweave_train.optimizer import Optimizer, _scatter

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "clip_gradients"]


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
        self, learning_rate: float = 0.01, momentum: float = 0.0, nesterov: bool = False, **kw: Any
    ) -> None:
        super().__init__(learning_rate, **kw)
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
        _scatter(m, idx, m_rows)
        var.scatter_add(tf.IndexedSlices(mu * m_rows - lr * g if self.nesterov else m_rows, idx))


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
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, **kw)
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
        _scatter(m, idx, m_rows)
        _scatter(v, idx, v_rows)
        if self.amsgrad:
            v_rows = tf.maximum(tf.gather(slots[2], idx), v_rows)
            _scatter(slots[2], idx, v_rows)
        var.scatter_sub(tf.IndexedSlices(m_rows * alpha / (tf.sqrt(v_rows) + eps), idx))


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.004, as Keras 3).

    >>> AdamW(0.01).weight_decay.numpy().round(4)
    np.float32(0.004)
    """

    def __init__(
        self, learning_rate: float = 0.001, weight_decay: float = 0.004, **kw: Any
    ) -> None:
        super().__init__(learning_rate, weight_decay=weight_decay, **kw)


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
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, **kw)
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
        _scatter(vel, idx, new_vel)
        if avg is not None:
            _scatter(avg, idx, new_avg)
        if mom is not None:
            inc = tf.cast(self.momentum, var.dtype) * tf.gather(mom, idx) + inc
            _scatter(mom, idx, inc)
        var.scatter_sub(tf.IndexedSlices(inc, idx))


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
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, **kw)
        self.initial_accumulator_value = float(initial_accumulator_value)
        self.epsilon = self._hyper("epsilon", epsilon)

    def _init_slot(self, name: str, var: tf.Variable) -> tf.Tensor:
        return tf.fill(var.shape, tf.cast(self.initial_accumulator_value, var.dtype))

    def _dense(self, var, g, lr, acc):  # type: ignore[no-untyped-def]
        acc.assign_add(tf.square(g))
        var.assign_sub(lr * g / tf.sqrt(acc + tf.cast(self.epsilon, var.dtype)))

    def _sparse(self, var, g, idx, lr, acc):  # type: ignore[no-untyped-def]
        rows = tf.gather(acc, idx) + tf.square(g)
        _scatter(acc, idx, rows)
        var.scatter_sub(
            tf.IndexedSlices(lr * g / tf.sqrt(rows + tf.cast(self.epsilon, var.dtype)), idx)
        )
