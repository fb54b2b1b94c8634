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
- scale the learning rate by an optional schedule of the step (``tensorweave_train.optimizers.schedules``);
- apply each variable's ``constraint`` (``tf.Variable(constraint=...)``, what the layers'
  ``w_constraint=`` sets) after each update;
- keep an exponential moving average of the weights (``ema=``) and accumulate gradients
  over several steps (``accumulate_steps=``), both as Keras 3 and both saved state
  (``optimizers.averaging``, ``optimizers.accumulation``);
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
from tensorweave_train.optimizers import accumulation, averaging
from tensorweave_train.optimizers.clipping import Gradient, clip_gradients

__all__ = ["Optimizer", "scatter_rows", "Update", "ScheduleLike"]

#: a learning-rate schedule: ``schedule(step) -> factor`` of the base rate (``schedules``)
ScheduleLike = Callable[[Any], Any]

#: how an update reaches a variable: ``update(var, fn, *args)`` runs ``fn(var, *args)``
#: (directly, or through ``strategy.extended.update`` under ``tf.distribute``)
Update = Callable[..., Any]


def _dedup(g: tf.IndexedSlices) -> tuple[tf.Tensor, tf.Tensor]:
    """Sum the rows of an IndexedSlices that share an index; returns (values, indices)."""
    unique, positions = tf.unique(g.indices)
    values = tf.math.unsorted_segment_sum(g.values, positions, tf.shape(unique)[0])
    return values, unique


def _local(var: Any, fn: Callable[..., Any], *args: Any) -> Any:
    return fn(var, *args)


class Optimizer(twc.Configurable, tw.Stateful):
    """Base class: hyperparameters as variables, lazy slots, clipping, constraints, weight
    averaging, gradient accumulation, sparse and distributed application. Subclasses
    define ``slot_names``, ``_init_slot`` and ``_dense``/``_sparse``. An optimizer
    remembers the arguments it was made with (``twc.Configurable``), so a saved model
    names it in its config (``Model.save``).

    Args:
        learning_rate: the base learning rate (a ``tf.Variable`` afterwards).
        schedule: a callable ``step -> factor`` (see ``schedules``); the rate used at step
            ``t`` is ``learning_rate * schedule(t)`` (``t`` counts every ``apply_gradients``,
            accumulating ones included, as Keras).
        clip_value, clip_norm, clip_global_norm: gradient clipping, applied in that order
            (to the summed gradients under ``tf.distribute``, to the mean gradient when
            accumulating).
        weight_decay: decoupled weight decay (``var -= var * weight_decay * lr``), as
            Keras 3 applies it before the update.
        ema: keep an exponential moving average of the weights (Keras's ``use_ema``):
            ``True`` with momentum 0.99 (Keras's ``ema_momentum``), or the momentum itself
            (a float in ``[0, 1)``). ``Model.train`` puts the averages into the weights when
            training ends (as Keras's ``finalize_variable_values``), so ``evaluate``,
            export and the final checkpoint use them; the ``SwapEMAWeights.v1`` callback
            also swaps them in for validation.
        ema_overwrite_frequency: with ``ema``, copy the averages into the weights every
            this many updates (Keras's name; ``None`` never does).
        accumulate_steps: update every this many steps with the mean of their gradients
            (Keras's ``gradient_accumulation_steps``); 1 updates at every step.
        name: the optimizer's name (default its class name, lower case).
    """

    slot_names: tuple[str, ...] = ()
    # Saved state (subclasses add their hyperparameter variables); the rest is plain Python.
    tracked: ClassVar[tuple[str, ...]] = (
        "iterations",
        "learning_rate",
        "weight_decay",
        "slots",
        "ema_momentum",
        "averages_in_model",
    )

    def __init__(
        self,
        learning_rate: float = 0.01,
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
        owner = type(self).__name__
        super().__init__(name=name or owner.lower())
        self.iterations = tf.Variable(0, dtype=tf.int64, trainable=False, name="iterations")
        self.learning_rate = self._hyper("learning_rate", learning_rate)
        self.weight_decay = (
            None if weight_decay is None else self._hyper("weight_decay", weight_decay)
        )
        self.schedule = schedule
        self.clip_value = clip_value
        self.clip_norm = clip_norm
        self.clip_global_norm = clip_global_norm
        self.accumulate_steps = tw.positive_int(accumulate_steps, "accumulate_steps", owner)
        momentum = averaging.ema_momentum(ema, ema_overwrite_frequency, owner)
        self.ema_overwrite_frequency = ema_overwrite_frequency
        # With ema: the averages' momentum, and whether the weights now hold the averages
        # (``swap_averages``), both saved; ``None`` without (older checkpoints have neither).
        self.ema_momentum = None if momentum is None else self._hyper("ema_momentum", momentum)
        self.averages_in_model = (
            None
            if momentum is None
            else tf.Variable(False, trainable=False, name="averages_in_model")
        )
        # Slots, one dict per variable in build order (tracked, so checkpoints hold them):
        # the rule's ``slot_names``, plus "average" (ema) and "accumulator" (accumulating).
        self.slots: list[dict[str, tf.Variable]] = []
        self._slot_index: dict[Any, int] = {}
        self._variables: list[tf.Variable] = []  # in build order (plain: the model's)

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
            names = [*self.slot_names]
            if self.ema_momentum is not None:
                names.append("average")
            if self.accumulate_steps > 1:
                names.append("accumulator")
            with tf.init_scope():
                slots = {
                    n: tf.Variable(
                        self._init_slot(n, var), trainable=False, name=f"{_base(var)}_{n}"
                    )
                    for n in names
                }
            self._slot_index[key] = len(self.slots)
            self.slots.append(slots)
            self._variables.append(var)

    def slot(self, var: tf.Variable, name: str) -> tf.Variable:
        """The slot ``name`` (``"m"``, ``"v"``, ``"momentum"``, ``"average"``…) of ``var``."""
        return self.slots[self._slot_index[var.ref()]][name]

    def _init_slot(self, name: str, var: tf.Variable) -> tf.Tensor:
        if name == "average":
            return tf.identity(var.read_value())
        return tf.zeros(var.shape, var.dtype)

    # -- the update ---------------------------------------------------------------------
    def current_learning_rate(self) -> tf.Tensor:
        """The learning rate this step uses (the base rate times the schedule)."""
        lr = tf.convert_to_tensor(self.learning_rate)
        if self.schedule is not None:
            lr = lr * tf.cast(self.schedule(self.iterations), tf.float32)
        return lr

    @property
    def updates(self) -> tf.Tensor:
        """How many updates were applied: ``iterations`` divided by ``accumulate_steps``
        (Keras's ``iterations`` when accumulating); bias corrections count these."""
        if self.accumulate_steps == 1:
            return tf.convert_to_tensor(self.iterations)
        return self.iterations // self.accumulate_steps

    def apply_gradients(
        self, grads_and_vars: Iterable[tuple[Gradient | None, tf.Variable]]
    ) -> None:
        """Update the variables (clipped gradients, the rule, constraints, averages), or
        accumulate the gradients until the ``accumulate_steps``-th call; ``None`` gradients
        are skipped."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        self.build(v for _, v in pairs)
        if tf.distribute.has_strategy() and not tf.distribute.in_cross_replica_context():
            ctx = tf.distribute.get_replica_context()
            # each replica's gradients are its share of the batch's: sum them, then update
            summed = ctx.all_reduce(tf.distribute.ReduceOp.SUM, [g for g, _ in pairs])
            pairs = [(g, v) for g, (_, v) in zip(summed, pairs, strict=True)]
            ctx.merge_call(self._distributed_apply, args=(pairs,))
            return
        self._apply(pairs, _local)

    def minimize(
        self, loss_fn: Callable[[], tf.Tensor], variables: Sequence[tf.Variable]
    ) -> tf.Tensor:
        """Compute ``loss_fn()``, its gradients and apply them; returns the loss."""
        with tf.GradientTape() as tape:
            loss = loss_fn()
        self.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    def _distributed_apply(
        self, strategy: tf.distribute.Strategy, pairs: list[tuple[Any, tf.Variable]]
    ) -> None:
        def update(var: Any, fn: Callable[..., Any], *args: Any) -> Any:
            return strategy.extended.update(var, fn, args=args, group=False)

        self._apply(pairs, update)

    def _apply(self, pairs: list[tuple[Any, tf.Variable]], update: Update) -> None:
        """One call of ``apply_gradients``: the update (or the accumulation), the averages,
        then the step count."""
        if self.accumulate_steps > 1:
            accumulation.accumulate_or_update(self, pairs, update, self._update)
        else:
            self._update(pairs, update)
        if self.ema_momentum is not None:
            averaging.update_averages(self, [v for _, v in pairs], update)
        update(self.iterations, lambda it: it.assign_add(1))

    def _update(self, pairs: list[tuple[Any, tf.Variable]], update: Update) -> None:
        """Clip the gradients, apply the rule to every variable, then its constraint."""
        grads = clip_gradients(
            [g for g, _ in pairs],
            clip_value=self.clip_value,
            clip_norm=self.clip_norm,
            clip_global_norm=self.clip_global_norm,
        )
        lr = self.current_learning_rate()
        self._before_updates(update)
        for g, (_, v) in zip(grads, pairs, strict=True):
            update(v, self._apply_one, g, lr, *self._slots_of(v))
            if getattr(v, "constraint", None) is not None:
                update(v, lambda x: x.assign(x.constraint(x)))

    def _before_updates(self, update: Update) -> None:
        """Once per update, before the variables' (Nadam's momentum schedule)."""
        del update  # most rules prepare nothing

    def _slots_of(self, var: tf.Variable) -> list[tf.Variable]:
        slots = self.slots[self._slot_index[var.ref()]]
        return [slots[n] for n in self.slot_names]

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
        """The update of the rows ``idx`` (each once) by ``g``. This default is for rules
        without a row-wise form (Lamb's trust ratio and Adafactor's factored moments read
        the whole variable): the dense update of the gradient's dense form."""
        dense = tf.scatter_nd(idx[:, None], g, tf.shape(var, out_type=idx.dtype))
        self._dense(var, dense, lr, *slots)

    def _step(self, dtype: tf.DType) -> tf.Tensor:
        """The number of this update, from 1 (what bias corrections raise betas to)."""
        return tf.cast(self.updates + 1, dtype)

    # -- the averages (ema) ---------------------------------------------------------------
    def swap_averages(self, variables: Iterable[tf.Variable] | None = None) -> None:
        """Swap the weights and their averages (``ema``) in place, so that evaluating uses
        the averages; a second call swaps them back (``averages_in_model`` says which way
        round they are). ``variables`` default to every variable built."""
        averaging.swap(self, self._variables if variables is None else list(variables))

    def finalize_variable_values(self, variables: Iterable[tf.Variable] | None = None) -> None:
        """Put the averages into the weights for good (Keras's name), what ``Model.train``
        does when training ends; without ``ema`` nothing happens."""
        averaging.finalize(self, self._variables if variables is None else list(variables))

    def get_config(self) -> dict[str, Any]:
        """The hyperparameters' current values."""
        return {
            k: float(v.numpy())
            for k, v in vars(self).items()
            if isinstance(v, tf.Variable) and v.dtype.is_floating
        }


def _base(var: tf.Variable) -> str:
    return var.name.split(":")[0].replace("/", "_")


def scatter_rows(var: tf.Variable, idx: tf.Tensor, values: tf.Tensor) -> None:
    """Set the rows ``idx`` of ``var`` (a slot, in a sparse update rule) to ``values``."""
    var.scatter_update(tf.IndexedSlices(values, idx))
