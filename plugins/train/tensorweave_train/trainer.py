"""``Trainer``: the training loop of a ``Model``, driven by events, resumable after a crash.

The loop (per epoch: batches in a seeded order, one compiled step each, then validation)
emits the events of ``events.Event``; callbacks subscribe with triggers and priorities.
Callbacks come as objects, as registered names (``"EarlyStopping.v1"`` or
``("EarlyStopping.v1", {"patience": 2})``, looked up in ``tw.callbacks``), and from every
plugin implementing the ``tensorweave_train_callbacks(model)`` hook.

``resume=run_dir`` restores the newest valid checkpoint in ``run_dir`` (variables,
optimizer slots, step, epoch, data position, RNG, callback memory) and continues where it
stopped; ``epochs`` is the total, not "more".

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> from tensorweave_train.events import LambdaCallback, on_epoch
>>> x = tw.Input(n_units=1, name="x"); w = tf.Variable([[1.0]])
>>> loss = tw.Lambda(lambda a: tf.reduce_mean(a @ w), x, variables=[w])
>>> from tensorweave_train.model import Model
>>> m = Model(inputs=x, outputs=x, loss=loss)
>>> log = []
>>> cb = LambdaCallback(lambda ev, st: log.append(st.epoch), on_epoch())
>>> h = Trainer(m, callbacks=[cb]).run({"x": np.ones((4, 1))}, 2, batch_size=2)
>>> log, [round(e["loss"], 2) for e in h]
([0, 1], [1.0, 1.0])
"""

from __future__ import annotations

import contextlib
import warnings
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.events import Callback, Event, TrainState
from tensorweave_train.execution import run_epoch
from tensorweave_train.history import History

__all__ = [
    "Trainer",
    "History",
    "resolve_callbacks",
    "NonFiniteWarning",
    "non_finite",
    "non_finite_weights",
]


class NonFiniteWarning(RuntimeWarning):
    """NaN or infinite values in the training data, an epoch's loss or the weights."""


def non_finite(data: Any) -> str | None:
    """Where array ``data`` (``{name: array}`` or a tuple) first holds NaN/inf, or ``None``
    (one pass over float arrays; other data is not looked at).

    >>> import numpy as np
    >>> non_finite({"x": np.array([[0.0], [np.nan]])})
    "field 'x' has NaN or inf values (first at example 1)"
    """
    if not isinstance(data, (dict, tuple)):
        return None  # datasets, generators, lists of batches: not looked at (or consumed)
    items = data.items() if isinstance(data, dict) else enumerate(data)
    for key, value in items:
        if isinstance(value, np.ndarray) and value.dtype.kind in "fc":
            bad = ~np.isfinite(value)
            if bad.any():
                first = int(np.argwhere(bad)[0][0])
                return f"field {key!r} has NaN or inf values (first at example {first})"
    return None


def _sums(variables: list[tf.Variable]) -> tf.Tensor:
    return tf.stack([tf.cast(tf.reduce_sum(v), tf.float32) for v in variables])


# model -> (its loss graph, its float trainable variables, the compiled ``_sums`` of them)
_WEIGHT_SUMS: weakref.WeakKeyDictionary[Any, tuple[Any, list[tf.Variable], Any]] = (
    weakref.WeakKeyDictionary()
)


def _float_variables(model: Any) -> tuple[list[tf.Variable], Any]:
    """The float trainable variables of ``model`` and the traced ``_sums`` over them, found
    once per model: its variables are fixed once its train step has run, and walking its
    layers for them (0.3 ms on the CIFAR CNN) and binding a ``tf.function``'s arguments
    cost more than the sums themselves. A model whose loss graph changed is looked up again."""
    graph = getattr(model, "_loss_graph", None)
    try:
        found = _WEIGHT_SUMS.get(model)
    except TypeError:  # not weak-referenceable or not hashable: no cache
        found = None
    if found is not None and found[0] is graph:
        return found[1], found[2]
    variables = [v for v in getattr(model, "trainable_variables", ()) if v.dtype.is_floating]
    sums = tf.function(_sums).get_concrete_function(variables) if variables else None
    with contextlib.suppress(TypeError):
        _WEIGHT_SUMS[model] = (graph, variables, sums)
    return variables, sums


def non_finite_weights(model: Any) -> list[str]:
    """Names of the float trainable variables holding NaN/inf.

    One compiled call sums each variable in place (copying them all to numpy cost
    word2vec's 51 MB of embeddings 24 ms an epoch, as much as 40 of its steps): a sum is
    finite unless the variable holds NaN/inf, or its finite values overflow the sum, so
    only a variable whose sum is not finite is looked at element by element. One sum per
    variable reads the weights once, without ``is_finite``'s boolean copy of them.

    >>> import tensorflow as tf
    >>> class M:  # anything with trainable_variables
    ...     trainable_variables = [tf.Variable([1.0, float("nan")], name="w"),
    ...                            tf.Variable([3e38, 3e38], name="big")]
    >>> non_finite_weights(M())
    ['w:0']
    """
    variables, sums = _float_variables(model)
    if not variables:
        return []
    totals = sums(variables).numpy()
    return [
        v.name
        for v, total in zip(variables, totals, strict=True)
        if not np.isfinite(total) and not bool(tf.reduce_all(tf.math.is_finite(v)))
    ]


_SUM_EVERY = 1024  # at most this many step losses wait to be summed


def resolve_callbacks(callbacks: Sequence[Any]) -> list[Callback]:
    """Callbacks from objects, registered names or ``(name, params)`` pairs."""
    out: list[Callback] = []
    for cb in callbacks:
        if isinstance(cb, str):
            cb = tw.callbacks[cb]()
        elif isinstance(cb, tuple) and len(cb) == 2 and isinstance(cb[0], str):
            cb = tw.callbacks[cb[0]](**dict(cb[1]))
        if not isinstance(cb, Callback):
            raise TypeError(
                f"callback {cb!r} is a {type(cb).__name__}, not a tensorweave_train Callback. "
                "Fix: subclass tensorweave_train.Callback, or wrap a function with "
                "LambdaCallback(fn, on_epoch())."
            )
        out.append(cb)
    return out


class Trainer:
    """Runs ``model``'s training with ``callbacks`` (see the module docstring)."""

    def __init__(self, model: Any, *, callbacks: Sequence[Any] = (), use_hooks: bool = True):
        from tensorweave_train.hooks import hook_callbacks

        self.model = model
        found = resolve_callbacks(callbacks)
        if use_hooks:
            found += resolve_callbacks(hook_callbacks(model))
        order = {id(c): i for i, c in enumerate(found)}
        self.callbacks = sorted(found, key=lambda c: (c.priority, order[id(c)]))
        self._by_event: dict[Event, list[Callback]] = {
            ev: [c for c in self.callbacks if any(t.event is ev for t in c.triggers)]
            for ev in Event
        }
        self.state = TrainState(model=model, trainer=self)
        self._losses: list[tf.Tensor] = []  # step losses not yet in state.loss_sum
        self._warned = False  # NonFiniteWarning given

    @property
    def stopped(self) -> bool:
        """Whether a callback asked to stop (``state.stop``)."""
        return self.state.stop

    def emit(self, event: Event, changed: str | None = None) -> None:
        """Run the callbacks whose triggers match ``event``, by priority."""
        for cb in self._by_event[event]:
            if cb.wants(event, self.state, changed):
                if self._losses:
                    self._sum_losses()
                cb(event, self.state)

    def add_losses(self, losses: tf.Tensor) -> None:
        """Keep a step's loss (a scalar) or a chunk's losses (a vector) for the epoch sum."""
        self._losses.append(losses)
        if len(self._losses) >= _SUM_EVERY:
            self._sum_losses()

    def _sum_losses(self) -> None:
        """Add the step losses not yet summed to ``state.loss_sum``.

        The loop keeps each step's loss tensor and sums them only when the sum is read (a
        callback runs, a snapshot, the epoch's end, or every ``_SUM_EVERY`` steps), instead of
        one eager add per step. The sum runs left to right in the loss dtype, so it is the
        same number as adding after every step, wherever the summing points fall.
        """
        losses, self._losses = self._losses, []
        total = self.state.loss_sum
        dtype = losses[0].dtype
        if dtype in (tf.float16, tf.float32, tf.float64):
            acc = np.asarray(total, dtype.as_numpy_dtype)[()]
            with np.errstate(all="ignore"):  # inf/NaN losses: as quiet as TensorFlow's adds
                for loss in losses:
                    for value in np.ravel(loss.numpy()):  # a chunk's losses in step order
                        acc = acc + value
            self.state.loss_sum = tf.constant(acc, dtype)
            return
        for loss in losses:  # other dtypes (bfloat16): TensorFlow's own adds
            for value in tf.unstack(tf.reshape(loss, [-1])):
                total = total + value
        self.state.loss_sum = total

    def run(
        self,
        data: Any,
        epochs: int,
        *,
        batch_size: int | None = None,
        validation: Any = None,
        shuffle: bool = True,
        seed: int = 0,
        resume: Any = None,
    ) -> History:
        """Train until ``epochs`` epochs are done or a callback stops the loop.

        Args:
            data: training data (see ``data.as_batches``).
            epochs: the total number of epochs.
            batch_size: for array data.
            validation: data evaluated at each epoch's end (values ``val_loss``,
                ``val_<metric>``).
            shuffle: shuffle array data, in an order that depends only on ``(seed, epoch)``.
            seed: the data-order seed (set ``tf.random.set_seed`` yourself before building
                layers for identical initial weights).
            resume: a run directory (or ``True``: the ``Checkpoint`` callback's) whose newest
                valid checkpoint to continue from; nothing happens if it has none.
        """
        model = self.model
        state = self.state
        state.epochs = int(epochs)
        state.seed = int(seed)
        state.emit = self.emit
        bad = non_finite(data)
        if bad is not None:
            warnings.warn(f"the training data's {bad}", NonFiniteWarning, stacklevel=3)
        batches = model.batches(data, batch_size=batch_size, shuffle=shuffle, seed=seed)
        state.steps_per_epoch = batches.length
        model.build()
        if resume is not None and resume is not False:
            self._resume(resume)
        history = History(state.history)
        history.state = state
        history.params = {"epochs": state.epochs, "steps": state.steps_per_epoch}
        self.emit(Event.TRAIN_START)
        while state.epoch < state.epochs and not state.stop:
            if state.epoch_step == 0:
                state.loss_sum = 0.0
            self.emit(Event.EPOCH_START)
            run_epoch(self, batches)
            if self._losses:
                self._sum_losses()
            if self.stopped and state.steps_per_epoch not in (None, state.epoch_step):
                break  # stopped mid-epoch: no epoch-end values for a partial epoch
            if state.epoch_step == 0:
                raise ValueError(
                    f"epoch {state.epoch} had no batches. Fix: pass non-empty data (a one-shot "
                    "generator serves only one epoch)."
                )
            state.set("loss", float(state.loss_sum) / state.epoch_step)
            if not self._warned:
                self._warn_non_finite()
            if validation is not None:
                for name, value in model.evaluate(validation, batch_size=batch_size).items():
                    state.set(f"val_{name}", value)
            state.set("learning_rate", float(model.optimizer.current_learning_rate()))
            # numbered from 1, as the display, log.csv and TensorBoard
            record = {"epoch": float(state.epoch + 1), "step": float(state.step), **state.values}
            state.history.append(record)
            self.emit(Event.EPOCH_END)
            state.epoch += 1
            state.epoch_step = 0
        self.emit(Event.TRAIN_END)
        history[:] = state.history
        return history

    def _warn_non_finite(self) -> None:
        """Say so (once) when the epoch's loss or the weights went NaN/inf: a NaN can
        vanish from the loss (``relu(NaN)`` is 0 on some kernels) while the weights rot."""
        s = self.state
        loss = s.values.get("loss", 0.0)
        what = f"the training loss is {loss}" if not np.isfinite(loss) else None
        if what is None:
            bad = non_finite_weights(self.model)
            if bad:
                what = f"weights {bad[:3]} hold NaN/inf"
        if what is not None:
            self._warned = True
            warnings.warn(
                f"{what} after epoch {s.epoch + 1} (step {s.step}): NaN/inf in the data, or a "
                "learning rate too high? The StopOnNaN.v1 callback stops at the first such step.",
                NonFiniteWarning,
                stacklevel=4,
            )

    # -- checkpoints ----------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The loop's resumable state (JSON-able), saved with each checkpoint."""
        if self._losses:
            self._sum_losses()
        s = self.state
        return {
            "epoch": s.epoch,
            "step": s.step,
            "epoch_step": s.epoch_step,
            "epoch_done": s.steps_per_epoch is not None and s.epoch_step >= s.steps_per_epoch,
            "loss_sum": float(s.loss_sum),
            "values": dict(s.values),
            "history": list(s.history),
            "seed": s.seed,
            "callbacks": {
                f"{i}:{type(c).__name__}": c.state_dict() for i, c in enumerate(self.callbacks)
            },
        }

    def _resume(self, where: Any) -> None:
        from tensorweave_train.checkpoint import CheckpointCallback, Checkpointer

        if where is True:
            found = [c for c in self.callbacks if isinstance(c, CheckpointCallback)]
            if not found:
                raise ValueError("resume=True needs a Checkpoint callback to name the run dir.")
            checkpointer = found[0].checkpointer
        else:
            checkpointer = Checkpointer(where)
        snap = checkpointer.restore(self.model)
        if snap is None:
            return
        s = self.state
        s.epoch, s.step, s.epoch_step = snap["epoch"], snap["step"], snap["epoch_step"]
        s.loss_sum = tf.constant(snap["loss_sum"], tf.float32)
        s.values = dict(snap["values"])
        s.history = list(snap["history"])
        if snap.get("epoch_done"):
            # saved after the last batch: the epoch-end work ran (or is lost); move on
            if not s.history or s.history[-1].get("epoch") != float(s.epoch + 1):
                if s.epoch_step:
                    s.values["loss"] = snap["loss_sum"] / s.epoch_step
                s.history.append({"epoch": float(s.epoch + 1), "step": float(s.step), **s.values})
            s.epoch += 1
            s.epoch_step = 0
        saved = snap.get("callbacks", {})
        for i, c in enumerate(self.callbacks):
            key = f"{i}:{type(c).__name__}"
            if key in saved:
                c.load_state_dict(saved[key])
