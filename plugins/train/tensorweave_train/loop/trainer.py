"""``Trainer``: the training loop of a ``Model``, driven by events, resumable after a crash.

The loop (per epoch: batches in a seeded order, one compiled step each, then validation)
emits the events of ``events.Event``; callbacks subscribe with triggers and priorities.
Callbacks come as objects, as registered names (``"EarlyStopping.v1"`` or
``("EarlyStopping.v1", {"patience": 2})``, looked up in ``tw.callbacks``), and from every
plugin implementing the ``tensorweave_train_callbacks(model)`` hook.

Per epoch: ``loop.execution.run_epoch`` runs the steps (several per compiled call), then
the epoch's mean loss and the training metrics (``Model.train_metrics``, streamed by the
compiled step) are set, NaN/inf is warned about once (``loop.nonfinite``; not when a
callback such as ``StopOnNaN`` is the NaN policy: ``Callback.guards_non_finite``), validation runs
(between ``VALIDATION_START`` and ``VALIDATION_END``) and the epoch's record joins the
history. Every value is a float32 as its shortest decimal (``loop.metrics.figure``). When
training ends (unless stopped mid-epoch, to be resumed), an optimizer's weight averages
(``ema=``) become the weights, as Keras's ``finalize_variable_values``. ``resume=run_dir`` restores the newest valid
checkpoint in ``run_dir`` (variables, optimizer slots, step, epoch, data position, RNG,
callback memory) and continues where it stopped; ``epochs`` is the total, not "more".

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> from tensorweave_train import LambdaCallback, Model, on_epoch
>>> x = tw.Input(n_units=1, name="x"); w = tf.Variable([[1.0]])
>>> loss = tw.Lambda(lambda a: tf.reduce_mean(a @ w), x, variables=[w])
>>> m = Model(inputs=x, outputs=x, loss=loss)
>>> log = []
>>> cb = LambdaCallback(lambda ev, st: log.append(st.epoch), on_epoch())
>>> h = Trainer(m, callbacks=[cb]).run({"x": np.ones((4, 1))}, 2, batch_size=2)
>>> log, [round(e["loss"], 2) for e in h]
([0, 1], [1.0, 1.0])
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_train.loop.checkpoints import Checkpointer
from tensorweave_train.loop.data import Batches
from tensorweave_train.loop.distribute import restore, shard_mode, worker_batches
from tensorweave_train.loop.events import Callback, Event, TrainedModel, TrainState
from tensorweave_train.loop.execution import Executed, run_epoch
from tensorweave_train.loop.history import History
from tensorweave_train.loop.metrics import figure
from tensorweave_train.loop.nonfinite import NonFiniteWarning, epoch_problem, non_finite

if TYPE_CHECKING:
    from tensorweave_train.loop.metrics import Metrics, StepMeans

__all__ = ["Trained", "Trainer", "History", "resolve_callbacks"]


class Trained(TrainedModel, Executed, Protocol):
    """What the ``Trainer`` reads of a ``Model`` (it trains any object that has these)."""

    @property
    def distributed(self) -> bool: ...

    @property
    def loss_figures(self) -> StepMeans | None: ...

    @property
    def train_metrics(self) -> Metrics: ...

    def batches(self, data: Any, *, batch_size: int | None = None, **kw: Any) -> Batches: ...

    def build(self) -> None: ...

    def evaluate(
        self, x: Any, y: Any = None, *, batch_size: int | None = None
    ) -> dict[str, float]: ...

    def variables_of(self, optimizer: str) -> tuple[tf.Variable, ...]: ...


_SUM_EVERY = 1024  # at most this many step losses wait to be summed


def _joined(losses: list[tf.Tensor]) -> tf.Tensor:
    """Step losses (scalars) and chunks' losses (vectors) as one tensor, in step order: one
    eager op, so that summing them costs one transfer to the host, not one per step."""
    if len(losses) == 1:
        return losses[0]
    ranks = {loss.shape.rank for loss in losses}
    if ranks == {0}:
        return tf.stack(losses)
    return tf.concat(
        [loss if loss.shape.rank == 1 else tf.reshape(loss, [-1]) for loss in losses], 0
    )


def _is_keras(obj: Any) -> bool:
    """Whether ``obj`` is a Keras callback (``keras.callbacks.*``, ``tf.keras`` too)."""
    return any(
        (getattr(k, "__module__", "") or "").partition(".")[0] in ("keras", "tf_keras")
        or (getattr(k, "__module__", "") or "").startswith("tensorflow.python.keras")
        for k in type(obj).__mro__
    )


def _keras_callback(cb: Any) -> str:
    """The message for a Keras callback given to ``train``: the registered callback that
    does the same, when a pack declares one (its counterparts), with Keras's arguments."""
    name = type(cb).__name__
    rows = tw.registries.known_as("callbacks", name)
    if rows:
        ours = rows[0].describe()
        fix = (
            f"use tw.callbacks[{ours!r}](...) (tensorweave_train.{ours.split('.')[0]}), which "
            "takes Keras's arguments"
        )
    else:
        fix = (
            "subclass tensorweave_train.Callback, or wrap a function with "
            "LambdaCallback(fn, on_epoch()); `tensorweave list callbacks` lists the registered ones"
        )
    return (
        f"Model.train: callbacks holds a Keras callback, keras.callbacks.{name}; tensorweave "
        f"runs its own callbacks, not Keras's. Fix: {fix}."
    )


def resolve_callbacks(callbacks: Sequence[Any]) -> list[Callback]:
    """Callbacks from objects, registered names or ``(name, params)`` pairs."""
    out: list[Callback] = []
    for cb in callbacks:
        if isinstance(cb, str):
            cb = tw.resolve("callbacks", cb, owner="Model.train", option="callbacks")()
        elif isinstance(cb, tuple) and len(cb) == 2 and isinstance(cb[0], str):
            make = tw.resolve("callbacks", cb[0], owner="Model.train", option="callbacks")
            cb = make(**dict(cb[1]))
        if not isinstance(cb, Callback) and _is_keras(cb):
            raise tw.ArgumentError(_keras_callback(cb))
        if not isinstance(cb, Callback):
            raise tw.ArgumentError(
                f"callback {cb!r} is a {type(cb).__name__}, not a tensorweave_train Callback. "
                "Fix: subclass tensorweave_train.Callback, or wrap a function with "
                "LambdaCallback(fn, on_epoch())."
            )
        out.append(cb)
    return out


class Trainer:
    """Runs ``model``'s training with ``callbacks`` (see the module docstring)."""

    def __init__(
        self, model: Trained, *, callbacks: Sequence[Any] = (), use_hooks: bool = True
    ) -> None:
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
        # one NaN policy: a callback guarding against NaN/inf (StopOnNaN), else the
        # NonFiniteWarning of the data and (once) of an epoch's loss or weights
        self._warned = any(c.guards_non_finite for c in self.callbacks)
        self.batches: Batches | None = None  # the data being trained on (run)

    @property
    def stopped(self) -> bool:
        """Whether a callback asked to stop (``state.stop``)."""
        return self.state.stop

    def listeners(self, event: Event) -> list[Callback]:
        """The callbacks with a trigger on ``event``, by priority."""
        return self._by_event[event]

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
        one eager add per step, and brings them to the host in one transfer (one ``concat``,
        one ``.numpy()``), not one per step. The sum runs left to right in the loss dtype, so
        it is the same number as adding after every step, wherever the summing points fall.
        """
        losses, self._losses = self._losses, []
        total = self.state.loss_sum
        dtype = losses[0].dtype
        if dtype in (tf.float16, tf.float32, tf.float64):
            acc = np.asarray(total, dtype.as_numpy_dtype)[()]
            values = np.ravel(_joined(losses).numpy())  # in step order
            with np.errstate(all="ignore"):  # inf/NaN losses: as quiet as TensorFlow's adds
                for value in values:
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
        shard: str = "auto",
    ) -> History:
        """Train until ``epochs`` epochs are done or a callback stops the loop.

        Args:
            data: training data (see ``loop.data.as_batches``).
            epochs: the total number of epochs.
            batch_size: for array data.
            validation: data evaluated at each epoch's end (values ``val_loss``,
                ``val_<metric>``).
            shuffle: shuffle array data, in an order that depends only on ``(seed, epoch)``.
            seed: the data-order seed (set ``tf.random.set_seed`` yourself before building
                layers for identical initial weights).
            resume: a run directory (or ``True``: the ``Checkpoint`` callback's) whose newest
                valid checkpoint to continue from; nothing happens if it has none. On
                several workers the chief reads it and sends it to the others.
            shard: how the workers of a strategy share the data: ``"auto"``, ``"data"``
                or ``"off"`` (``loop.distribute``).
        """
        model = self.model
        state = self.state
        state.epochs = int(epochs)
        state.seed = int(seed)
        state.emit = self.emit
        bad = None if self._warned else non_finite(data)
        if bad is not None:
            warnings.warn(f"the training data's {bad}", NonFiniteWarning, stacklevel=3)
        if model.distributed:  # a file dataset: each worker reads its own share
            batches, model.steps.shard = worker_batches(
                model, data, shard, batch_size=batch_size, shuffle=shuffle, seed=seed
            )
        else:
            batches = model.batches(data, batch_size=batch_size, shuffle=shuffle, seed=seed)
            model.steps.shard = shard_mode(None, shard)
        state.steps_per_epoch = batches.length
        self.batches = batches  # the input position a checkpoint saves (snapshot)
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
                model.train_metrics.reset()
                if model.loss_figures is not None:
                    model.loss_figures.reset()
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
            if getattr(model, "reports_loss", True):  # a step of its own may return none
                state.set("loss", figure(float(state.loss_sum) / state.epoch_step))
            if model.loss_figures is not None:  # <name>_loss, regularization_loss
                for name, value in model.loss_figures.results(state.epoch_step).items():
                    state.set(name, value)
            for name, value in model.train_metrics.results().items():
                state.set(name, value)  # streamed over the epoch by the compiled step
            if not self._warned:
                self._warn_non_finite()
            if validation is not None:
                self.emit(Event.VALIDATION_START)
                for name, value in model.evaluate(validation, batch_size=batch_size).items():
                    state.set(f"val_{name}", value)
                self.emit(Event.VALIDATION_END)
            for name, rate in model.learning_rates().items():
                state.set(name, rate)
            # numbered from 1, as the display, log.csv and TensorBoard
            record = {"epoch": float(state.epoch + 1), "step": float(state.step), **state.values}
            state.history.append(record)
            self.emit(Event.EPOCH_END)
            state.epoch += 1
            state.epoch_step = 0
        if state.epoch_step == 0:  # not stopped mid-epoch (to be resumed): weights final
            for owner, optimizer in model.optimizers.items():
                finalize = getattr(optimizer, "finalize_variable_values", None)
                if finalize is not None:  # the averages (ema=), as Keras
                    finalize(model.variables_of(owner))
        self.emit(Event.TRAIN_END)
        history[:] = state.history
        return history

    def _warn_non_finite(self) -> None:
        """Say so (once) when the epoch's loss or the weights went NaN/inf."""
        s = self.state
        what = epoch_problem(s)
        if what is not None:
            self._warned = True
            warnings.warn(
                f"{what} after epoch {s.epoch + 1} (step {s.step}): NaN/inf in the data, or a "
                "learning rate too high? The StopOnNaN.v1 callback stops at the first such step.",
                NonFiniteWarning,
                stacklevel=4,
            )

    # -- checkpoints ----------------------------------------------------------------------
    def snapshot(self, *, epoch_end: bool = False) -> dict[str, Any]:
        """The loop's resumable state (JSON-able), saved with each checkpoint. With
        ``epoch_end`` (the epoch's work, validation included, is done) it is the state at
        the start of the next epoch: its number, no batch consumed, the input's position
        there."""
        if self._losses:
            self._sum_losses()
        s = self.state
        epoch, epoch_step = (s.epoch + 1, 0) if epoch_end else (s.epoch, s.epoch_step)
        return {
            "epoch": epoch,
            "step": s.step,
            "epoch_step": epoch_step,
            "epoch_done": not epoch_end
            and s.steps_per_epoch is not None
            and s.epoch_step >= s.steps_per_epoch,
            "loss_sum": 0.0 if epoch_end else float(s.loss_sum),
            "train_metrics": self.model.train_metrics.snapshot(),
            "values": dict(s.values),
            "history": list(s.history),
            "seed": s.seed,
            "input": (None if self.batches is None else self.batches.position(epoch, epoch_step)),
            "callbacks": {
                f"{i}:{type(c).__name__}": c.state_dict() for i, c in enumerate(self.callbacks)
            },
        }

    def _resume(self, where: str | Path | bool) -> None:
        if where is True:  # the directory of a callback that writes checkpoints
            found = [
                getattr(c, "checkpointer")  # noqa: B009  (not every Callback has one)
                for c in self.callbacks
                if isinstance(getattr(c, "checkpointer", None), Checkpointer)
            ]
            if not found:
                raise ValueError("resume=True needs a Checkpoint callback to name the run dir.")
            checkpointer: Checkpointer = found[0]
        else:
            checkpointer = Checkpointer(where)  # type: ignore[arg-type]  # not False here
        snap = restore(checkpointer, self.model)  # on several workers: the chief's, shared
        if snap is None:
            return
        s = self.state
        s.epoch, s.step, s.epoch_step = snap["epoch"], snap["step"], snap["epoch_step"]
        if self.batches is not None and not snap.get("epoch_done"):
            self.batches.check(snap.get("input"), s.epoch, s.epoch_step)
        s.loss_sum = tf.constant(snap["loss_sum"], tf.float32)
        self.model.train_metrics.restore(snap.get("train_metrics", {}))
        s.values = dict(snap["values"])
        s.history = list(snap["history"])
        if snap.get("epoch_done"):
            # saved after the last batch: the epoch-end work ran (or is lost); move on
            if not s.history or s.history[-1].get("epoch") != float(s.epoch + 1):
                if s.epoch_step:
                    s.values["loss"] = figure(snap["loss_sum"] / s.epoch_step)
                s.history.append({"epoch": float(s.epoch + 1), "step": float(s.step), **s.values})
            s.epoch += 1
            s.epoch_step = 0
        saved = snap.get("callbacks", {})
        for i, c in enumerate(self.callbacks):
            key = f"{i}:{type(c).__name__}"
            if key in saved:
                c.load_state_dict(saved[key])
