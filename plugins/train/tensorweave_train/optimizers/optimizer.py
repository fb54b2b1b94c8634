"""``Optimizer``: the base of every optimizer over the ``tf.Variable`` objects layers own.

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
- apply under ``tf.distribute``: in a replica, the gradients are summed over the replicas
  first, then the updates go through ``merge_call``/``extended.update``.

The update rules match Keras 3 (tested against it).

>>> import tensorflow as tf
>>> from tensorweave_train import SGD
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
from typing import Any, ClassVar

import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc
from tensorweave_train.optimizers.clipping import Gradient, clip_gradients

__all__ = ["Optimizer", "scatter_rows"]


def _dedup(g: tf.IndexedSlices) -> tuple[tf.Tensor, tf.Tensor]:
    """Sum the rows of an IndexedSlices that share an index; returns (values, indices)."""
    unique, positions = tf.unique(g.indices)
    values = tf.math.unsorted_segment_sum(g.values, positions, tf.shape(unique)[0])
    return values, unique


class Optimizer(twc.Configurable, tw.Stateful):
    """Base class: hyperparameters as variables, lazy slots, clipping, sparse and distributed
    application. Subclasses define ``slot_names``, ``_init_slot`` and ``_dense``/``_sparse``.
    An optimizer remembers the arguments it was made with (``twc.Configurable``), so a
    saved model names it in its config (``Model.save``).

    Args:
        learning_rate: the base learning rate (a ``tf.Variable`` afterwards).
        schedule: a callable ``step -> factor`` (see ``schedules``); the rate used at step
            ``t`` is ``learning_rate * schedule(t)``.
        clip_value, clip_norm, clip_global_norm: gradient clipping, applied in that order.
        weight_decay: decoupled weight decay (``var -= var * weight_decay * lr``), as
            Keras 3 applies it before the update.
    """

    slot_names: tuple[str, ...] = ()
    # Saved state (subclasses add their hyperparameter variables); the rest is plain Python.
    tracked: ClassVar[tuple[str, ...]] = ("iterations", "learning_rate", "weight_decay", "slots")

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
        """A hyperparameter variable for the attribute ``name``, which must be ``tracked``
        (so checkpoints hold it)."""
        if name not in type(self).tracked:
            raise TypeError(
                f"{type(self).__name__}: hyperparameter {name!r} is not saved state. Fix: "
                f"add it to the class's tracked, e.g. tracked = (*Optimizer.tracked, {name!r})."
            )
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
            # each replica's gradients are its share of the batch's: sum them, then update
            summed = ctx.all_reduce(tf.distribute.ReduceOp.SUM, [g for g, _ in pairs])
            pairs = [(g, v) for g, (_, v) in zip(summed, pairs, strict=True)]
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


def scatter_rows(var: tf.Variable, idx: tf.Tensor, values: tf.Tensor) -> None:
    """Set the rows ``idx`` of ``var`` (a slot, in a sparse update rule) to ``values``."""
    var.scatter_update(tf.IndexedSlices(values, idx))
