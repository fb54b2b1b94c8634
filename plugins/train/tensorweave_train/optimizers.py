"""Optimizers over the ``tf.Variable`` objects that layers own.

Written here rather than wrapping Keras 3 because Keras 3 optimizers reject a
``tf.Variable`` learning rate and bind to the first variable list they see. These:

- keep every hyperparameter (``learning_rate``, ``momentum``, ``beta_1``…) in a
  ``tf.Variable``: assigning a new value takes effect in the next step without retracing;
- create slots lazily per variable (``build`` is idempotent), so the variable list can grow;
- update ``tf.IndexedSlices`` gradients sparsely: only the touched rows are read and written
  (for SGD and Adagrad this equals the dense update; momentum, Adam and RMSprop use the
  "lazy" rule that leaves untouched rows' moments alone);
- clip by value, by norm (per gradient) or by global norm, keeping sparse gradients sparse;
- scale the learning rate by an optional schedule of the step (``tensorweave_train.schedules``);
- apply under ``tf.distribute`` (updates go through ``merge_call``/``extended.update``).

The update rules match Keras 3 (tested against it).

>>> v = tf.Variable([1.0, 2.0])
>>> opt = SGD(learning_rate=0.5)
>>> opt.apply_gradients([(tf.constant([1.0, 1.0]), v)])
>>> v.numpy().tolist(), int(opt.iterations)
([0.5, 1.5], 1)
>>> opt.learning_rate.assign(0.1)  # changed without retracing
<...>
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import tensorflow as tf

from tensorweave_train.clipping import Gradient, clip_gradients

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "clip_gradients"]


def _dedup(g: tf.IndexedSlices) -> tuple[tf.Tensor, tf.Tensor]:
    """Sum the rows of an IndexedSlices that share an index; returns (values, indices)."""
    unique, positions = tf.unique(g.indices)
    values = tf.math.unsorted_segment_sum(g.values, positions, tf.shape(unique)[0])
    return values, unique


class Optimizer(tf.Module):
    """Base class: hyperparameters as variables, lazy slots, clipping, sparse and distributed
    application. Subclasses define ``slot_names``, ``_init_slot`` and ``_dense``/``_sparse``.

    Args:
        learning_rate: the base learning rate (a ``tf.Variable`` afterwards).
        schedule: a callable ``step -> factor`` (see ``schedules``); the rate used at step
            ``t`` is ``learning_rate * schedule(t)``.
        clip_value, clip_norm, clip_global_norm: gradient clipping, applied in that order.
        weight_decay: decoupled weight decay (``var -= var * weight_decay * lr``), as
            Keras 3 applies it before the update.
    """

    slot_names: tuple[str, ...] = ()
    _TF_MODULE_IGNORED_PROPERTIES = tf.Module._TF_MODULE_IGNORED_PROPERTIES | frozenset(
        {"_slot_index", "schedule"}
    )

    def __init__(
        self,
        learning_rate: float = 0.01,
        *,
        schedule: Callable[[tf.Tensor], tf.Tensor] | None = None,
        clip_value: float | None = None,
        clip_norm: float | None = None,
        clip_global_norm: float | None = None,
        weight_decay: float | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name or type(self).__name__.lower())
        self.iterations = tf.Variable(0, dtype=tf.int64, trainable=False, name="iterations")
        self.learning_rate = self._hyper("learning_rate", learning_rate)
        self.weight_decay = (
            None if weight_decay is None else self._hyper("weight_decay", weight_decay)
        )
        self.schedule = schedule
        self.clip_value = clip_value
        self.clip_norm = clip_norm
        self.clip_global_norm = clip_global_norm
        # Slots, one dict per variable in build order (tracked, so checkpoints hold them).
        self.slots: list[dict[str, tf.Variable]] = []
        self._slot_index: dict[Any, int] = {}

    def _hyper(self, name: str, value: float) -> tf.Variable:
        return tf.Variable(float(value), dtype=tf.float32, trainable=False, name=name)

    # -- slots --------------------------------------------------------------------------
    def build(self, variables: Iterable[tf.Variable]) -> None:
        """Create the slots of every variable that has none yet (idempotent)."""
        for var in variables:
            key = var.ref()
            if key in self._slot_index:
                continue
            with tf.init_scope():
                slots = {
                    n: tf.Variable(
                        self._init_slot(n, var), trainable=False, name=f"{_base(var)}_{n}"
                    )
                    for n in self.slot_names
                }
            self._slot_index[key] = len(self.slots)
            self.slots.append(slots)

    def slot(self, var: tf.Variable, name: str) -> tf.Variable:
        """The slot ``name`` (``"m"``, ``"v"``, ``"momentum"``…) of ``var``."""
        return self.slots[self._slot_index[var.ref()]][name]

    def _init_slot(self, name: str, var: tf.Variable) -> tf.Tensor:
        return tf.zeros(var.shape, var.dtype)

    # -- the update ---------------------------------------------------------------------
    def current_learning_rate(self) -> tf.Tensor:
        """The learning rate this step uses (the base rate times the schedule)."""
        lr = tf.convert_to_tensor(self.learning_rate)
        if self.schedule is not None:
            lr = lr * tf.cast(self.schedule(self.iterations), tf.float32)
        return lr

    def apply_gradients(
        self, grads_and_vars: Iterable[tuple[Gradient | None, tf.Variable]]
    ) -> None:
        """Clip the gradients and update the variables; ``None`` gradients are skipped."""
        pairs = [(g, v) for g, v in grads_and_vars]
        grads = clip_gradients(
            [g for g, _ in pairs],
            clip_value=self.clip_value,
            clip_norm=self.clip_norm,
            clip_global_norm=self.clip_global_norm,
        )
        pairs = [(g, v) for g, (_, v) in zip(grads, pairs) if g is not None]
        self.build(v for _, v in pairs)
        if tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context():
            ctx = tf.distribute.get_replica_context()
            ctx.merge_call(self._distributed_apply, args=(pairs,))
            return
        lr = self.current_learning_rate()
        for g, v in pairs:
            self._apply_one(v, g, lr, *self._slots_of(v))
        self.iterations.assign_add(1)

    def minimize(
        self, loss_fn: Callable[[], tf.Tensor], variables: Sequence[tf.Variable]
    ) -> tf.Tensor:
        """Compute ``loss_fn()``, its gradients and apply them; returns the loss."""
        with tf.GradientTape() as tape:
            loss = loss_fn()
        self.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    def _slots_of(self, var: tf.Variable) -> list[tf.Variable]:
        slots = self.slots[self._slot_index[var.ref()]]
        return [slots[n] for n in self.slot_names]

    def _distributed_apply(
        self, strategy: tf.distribute.Strategy, pairs: list[tuple[Any, tf.Variable]]
    ) -> None:
        lr = self.current_learning_rate()
        for g, v in pairs:
            strategy.extended.update(
                v, self._apply_one, args=(g, lr, *self._slots_of(v)), group=False
            )
        strategy.extended.update(self.iterations, lambda it: it.assign_add(1), group=False)

    def _apply_one(
        self, var: tf.Variable, grad: Gradient, lr: tf.Tensor, *slots: tf.Variable
    ) -> None:
        lr = tf.cast(lr, var.dtype)
        if self.weight_decay is not None:
            var.assign_sub(var * tf.cast(self.weight_decay, var.dtype) * lr)
        if isinstance(grad, tf.IndexedSlices):
            if self._sparse_sums_duplicates(slots):
                values, indices = grad.values, grad.indices
            else:
                values, indices = _dedup(grad)
            self._sparse(var, tf.cast(values, var.dtype), indices, lr, *slots)
        else:
            self._dense(var, tf.cast(grad, var.dtype), lr, *slots)

    def _sparse_sums_duplicates(self, slots: Sequence[tf.Variable]) -> bool:
        """Whether ``_sparse`` is right for repeated indices without summing them first.

        A rule that only scatter-adds ``lr * g`` rows (plain SGD) is: ``scatter_sub`` adds
        the contributions of repeated indices, so ``tf.unique`` + ``unsorted_segment_sum``
        (a sort-like op and a copy of the gradient rows, every step) can be skipped. Rules
        that read slots or rows back (momentum, Adam…) need each index once.
        """
        return False

    def _dense(self, var: tf.Variable, g: tf.Tensor, lr: tf.Tensor, *slots: tf.Variable) -> None:
        raise NotImplementedError

    def _sparse(
        self, var: tf.Variable, g: tf.Tensor, idx: tf.Tensor, lr: tf.Tensor, *slots: tf.Variable
    ) -> None:
        raise NotImplementedError

    def _step(self, dtype: tf.DType) -> tf.Tensor:
        return tf.cast(self.iterations + 1, dtype)

    def get_config(self) -> dict[str, Any]:
        """The hyperparameters' current values."""
        return {
            k: float(v.numpy())
            for k, v in vars(self).items()
            if isinstance(v, tf.Variable) and k != "iterations"
        }


def _base(var: tf.Variable) -> str:
    return var.name.split(":")[0].replace("/", "_")


def _scatter(var: tf.Variable, idx: tf.Tensor, values: tf.Tensor) -> None:
    var.scatter_update(tf.IndexedSlices(values, idx))


class SGD(Optimizer):
    """Stochastic gradient descent, with optional (Nesterov) momentum.

    ``m = momentum*m - lr*g; var += m`` (Nesterov: ``var += momentum*m - lr*g``), as Keras 3.

    >>> v = tf.Variable([1.0]); opt = SGD(0.1, momentum=0.9)
    >>> for _ in range(2): opt.apply_gradients([(tf.constant([1.0]), v)])
    >>> round(float(v[0]), 4)  # 1 - 0.1 - (0.09 + 0.1)
    0.71
    """

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

    >>> v = tf.Variable([1.0]); Adam(0.1).apply_gradients([(tf.constant([2.0]), v)])
    >>> round(float(v[0]), 4)  # the first step moves by ~lr
    0.9
    """

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

    >>> v = tf.Variable([1.0]); RMSprop(0.01).apply_gradients([(tf.constant([1.0]), v)])
    >>> round(float(v[0]), 4)  # 1 - 0.01 / sqrt(0.1)
    0.9684
    """

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

    >>> v = tf.Variable([1.0]); Adagrad(0.1).apply_gradients([(tf.constant([1.0]), v)])
    >>> round(float(v[0]), 4)  # 1 - 0.1 / sqrt(1.1)
    0.9047
    """

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
