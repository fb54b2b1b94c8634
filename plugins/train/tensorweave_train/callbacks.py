"""Standard callbacks: early stopping, stop on NaN, CSV log, progress bar, TensorBoard,
learning-rate decay on plateau. Checkpointing is ``checkpoint.CheckpointCallback``.

Default priorities (lower runs first on the same event): ``StopOnNaN`` -100, ``EarlyStopping``
and ``ReduceLROnPlateau`` 10, loggers 50, progress bar 60, checkpoint 100 (last, so it saves
what the others decided).

>>> es = EarlyStopping(monitor="loss", patience=1)
>>> st = TrainState()
>>> for v in (1.0, 0.5, 0.7):
...     st.values["loss"] = v; es(Event.EPOCH_END, st)
>>> st.stop, st.stop_reason
(True, 'EarlyStopping: loss did not improve on 0.5 (epoch 1) for 1 epoch(s); weights not restored (restore_best_weights=False)')
"""

from __future__ import annotations

import csv
import math
import os
import sys
import weakref
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.events import (
    Callback,
    Event,
    LambdaCallback,
    TrainState,
    on_epoch,
    on_step,
    on_train,
)
from tensorweave_train.progress import open_epoch_bar

__all__ = [
    "LambdaCallback",
    "EarlyStopping",
    "StopOnNaN",
    "CSVLogger",
    "ProgressBar",
    "TensorBoard",
    "ReduceLROnPlateau",
]


class _Monitor(Callback):
    """Shared logic: watch ``monitor`` for improvement by ``min_delta`` in ``mode``."""

    def __init__(self, monitor: str, mode: str, min_delta: float, patience: int) -> None:
        if mode not in ("min", "max"):
            raise ValueError(f"{type(self).__name__}: mode must be 'min' or 'max', got {mode!r}.")
        self.monitor, self.mode, self.min_delta, self.patience = monitor, mode, min_delta, patience
        self.best: float | None = None
        self.wait = 0

    def _improved(self, value: float) -> bool:
        if self.best is None:
            return True
        if self.mode == "min":
            return value < self.best - self.min_delta
        return value > self.best + self.min_delta

    def _value(self, state: TrainState) -> float | None:
        value = state.values.get(self.monitor)
        return None if value is None else float(value)

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best, "wait": self.wait}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.best, self.wait = state.get("best"), int(state.get("wait", 0))


class EarlyStopping(_Monitor):
    """Stop when ``monitor`` has not improved for ``patience`` epochs.

    Args:
        monitor: a value name (``"val_loss"``, ``"loss"``, ``"val_<metric>"``).
        patience: epochs without improvement to tolerate.
        min_delta: the smallest change that counts as improvement.
        mode: ``"min"`` or ``"max"``.
        restore_best_weights: put back the variables of the best epoch when stopping
            (Keras's name; ``restore_best`` is its deprecated alias).

    The stop reason (``state.stop_reason``, shown by ``Model.train`` and the CLI) says
    which value, its best and at which epoch, and whether the weights were restored.
    """

    priority = 10

    @tw.renamed_arguments({"restore_best": "restore_best_weights"})
    def __init__(
        self,
        monitor: str = "val_loss",
        patience: int = 3,
        min_delta: float = 0.0,
        mode: str = "min",
        restore_best_weights: bool = False,
    ) -> None:
        super().__init__(monitor, mode, min_delta, patience)
        self.restore_best_weights = restore_best_weights
        self.best_epoch: int | None = None
        self._best_weights: list[Any] | None = None
        self.triggers = (on_epoch(),)

    @property
    def restore_best(self) -> bool:
        """Deprecated: ``restore_best_weights``."""
        return self.restore_best_weights

    def __call__(self, event: Event, state: TrainState) -> None:
        value = self._value(state)
        if value is None:
            return
        if self._improved(value):
            self.best, self.wait, self.best_epoch = value, 0, state.epoch + 1
            if self.restore_best_weights and state.model is not None:
                self._best_weights = [v.numpy() for v in state.model.variables]
            return
        self.wait += 1
        if self.wait >= self.patience:
            restored = "; weights not restored (restore_best_weights=False)"
            if self._best_weights is not None:
                for var, val in zip(state.model.variables, self._best_weights):
                    var.assign(val)
                restored = f"; restored the weights of epoch {self.best_epoch}"
            since = f" (epoch {self.best_epoch})" if self.best_epoch is not None else ""
            state.request_stop(
                f"EarlyStopping: {self.monitor} did not improve on {self.best:g}{since} for "
                f"{self.wait} epoch(s){restored}"
            )

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "best_epoch": self.best_epoch}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self.best_epoch = state.get("best_epoch")


class StopOnNaN(Callback):
    """Stop as soon as the step loss is NaN or infinite (checked every ``every`` steps).

    Reading the loss syncs with the device; raise ``every`` on fast loops.
    """

    priority = -100

    def __init__(self, every: int = 1) -> None:
        self.triggers = (on_step(every=every),)

    def __call__(self, event: Event, state: TrainState) -> None:
        value = float(state.loss)
        if not math.isfinite(value):
            state.request_stop(f"StopOnNaN: the loss is {value} at step {state.step}")


class CSVLogger(Callback):
    """Append one row per epoch (epoch numbered from 1, step and every value) to the CSV
    file ``filename`` (Keras's name; ``path`` is its deprecated alias).

    Resuming appends to the same file; the header is written once, and a new value
    appearing later adds no column (it is left out). Rows of the epochs a resumed run
    redoes (those after its checkpoint) are dropped first, so no epoch appears twice.

    Each row is flushed to the operating system at once (a killed or crashed process
    loses none); the file is synced to the disk when training ends or fails, not every
    epoch (an ``fsync`` costs milliseconds, as much as a dozen short steps).
    """

    priority = 50

    @tw.renamed_arguments({"path": "filename"})
    def __init__(self, filename: str | os.PathLike[str]) -> None:
        self.path = os.fspath(filename)
        self.triggers = (on_epoch(), on_train())
        self._fields: list[str] | None = None

    def _sync(self) -> None:
        if os.path.exists(self.path):
            with open(self.path, "rb") as f:
                os.fsync(f.fileno())

    def on_failure(self, error: BaseException, state: TrainState) -> None:
        self._sync()

    def __call__(self, event: Event, state: TrainState) -> None:
        if event is Event.TRAIN_END:
            self._sync()
            return
        row = {"epoch": state.epoch + 1, "step": state.step, **state.values}  # from 1
        exists = os.path.exists(self.path) and os.path.getsize(self.path) > 0
        if self._fields is None:
            if exists:
                self._fields = self._drop_rows_from(state.epoch + 1) or list(row)
            else:
                self._fields = list(row)
        with open(self.path, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=self._fields, extrasaction="ignore")
            if not exists:
                writer.writeheader()
            writer.writerow(row)
            f.flush()

    def _drop_rows_from(self, epoch: int) -> list[str]:
        """A resumed run (first epoch-end numbered ``epoch`` > 1) redoes the epochs after
        its checkpoint: drop the trailing rows of epochs ``>= epoch`` so none appears twice.
        Returns the header."""
        with open(self.path, newline="") as f:
            rows = list(csv.reader(f))
        if not rows:
            return []
        header, body = rows[0], rows[1:]
        if epoch <= 1 or "epoch" not in header:
            return header
        col = header.index("epoch")

        def redone(r: list[str]) -> bool:
            try:
                return float(r[col]) >= epoch
            except (ValueError, IndexError):
                return False

        keep = len(body)
        while keep and redone(body[keep - 1]):
            keep -= 1
        if keep != len(body):
            tmp = f"{self.path}.tmp-{os.getpid()}"
            with open(tmp, "w", newline="") as f:
                csv.writer(f).writerows([header, *body[:keep]])
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        return header


class ProgressBar(Callback):
    """A tqdm bar per epoch, the loss shown every ``every`` steps.

    Off when stderr is not a terminal, unless ``enabled=True``.
    """

    priority = 60
    exact_steps = False  # counts steps: may get them after a multi-step call (execution)

    def __init__(self, every: int = 10, enabled: bool | None = None, file: Any = None) -> None:
        self.every = every
        self.file = file
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.triggers = (on_epoch(at="start"), on_step(), on_epoch(), on_train())
        self._bar: Any = None

    def __call__(self, event: Event, state: TrainState) -> None:
        if not self.enabled:
            return
        if event is Event.EPOCH_START:
            self._close()
            self._bar = open_epoch_bar(state, self.file, "epoch")
        elif event is Event.STEP_END and self._bar is not None:
            self._bar.update(1)
            if state.step % self.every == 0:
                self._bar.set_postfix(loss=f"{float(state.loss):.4g}", refresh=False)
        elif event is Event.EPOCH_END and self._bar is not None:
            self._bar.set_postfix({k: f"{v:.4g}" for k, v in state.values.items()})
            self._close()
        elif event is Event.TRAIN_END:
            self._close()

    def _close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


_SCALAR_META: Any = None  # the scalars plugin's metadata, serialised once


def _scalar(tag: str, value: Any, step: int) -> None:
    """``tf.summary.scalar`` without needing the ``tensorboard`` package installed."""
    global _SCALAR_META
    if _SCALAR_META is None:
        _SCALAR_META = tf.compat.v1.SummaryMetadata(
            plugin_data=tf.compat.v1.SummaryMetadata.PluginData(plugin_name="scalars"),
            data_class=1,  # DATA_CLASS_SCALAR
        ).SerializeToString()
    if isinstance(value, tf.Tensor):
        value = tf.cast(value, tf.float32)
    else:  # a Python or numpy number: one constant, no cast op
        value = tf.constant(float(value), tf.float32)
    tf.summary.write(tag, value, step=step, metadata=_SCALAR_META)


class TensorBoard(Callback):
    """Write scalars with ``tf.summary`` into ``log_dir``: every value at each epoch end
    (``epoch/<name>``, at the step count, plus ``epoch/epoch``), the step loss every
    ``update_freq`` steps when it is a number (Keras: ``"epoch"``, the default, writes per
    epoch only), and the train step's graph at the start (``write_graph``). Works without
    the ``tensorboard`` package (only viewing the logs needs it). Keras's names; the old
    ``logdir``, ``every_steps`` and ``graph`` still work and warn.
    """

    priority = 50
    exact_steps = False  # writes each step's logged values: replayed after a multi-step call

    @tw.renamed_arguments(
        {"logdir": "log_dir", "every_steps": "update_freq", "graph": "write_graph"}
    )
    def __init__(
        self,
        log_dir: str | os.PathLike[str] = "logs",
        update_freq: int | str | None = "epoch",
        write_graph: bool = True,
    ) -> None:
        self.logdir = os.fspath(log_dir)
        self.graph = write_graph
        every_steps = None if update_freq in (None, "epoch") else update_freq
        if every_steps is not None and (isinstance(every_steps, str) or int(every_steps) < 1):
            raise ValueError(
                f"TensorBoard: update_freq must be 'epoch' or a positive number of steps, got "
                f"{update_freq!r}."
            )
        triggers = [on_train(at="start"), on_epoch(), on_train()]
        if every_steps:
            triggers.append(on_step(every=int(every_steps)))
        self.triggers = tuple(triggers)
        self._writer: Any = None
        self._graph_of: Any = None  # the model whose graph is written (once per model)

    def __call__(self, event: Event, state: TrainState) -> None:
        if self._writer is None:
            self._writer = tf.summary.create_file_writer(self.logdir)
        with self._writer.as_default(step=state.step):
            if event is Event.TRAIN_START and self.graph and state.model is not None:
                if self._graph_of is None or self._graph_of() is not state.model:
                    self._graph_of = weakref.ref(state.model)  # once: serialising costs ~10 ms
                    fn = state.model.train_function
                    tf.summary.graph(fn.get_concrete_function().graph)
            elif event is Event.STEP_END:
                _scalar("step/loss", state.loss, state.step)
            elif event is Event.EPOCH_END:
                for name, value in state.values.items():
                    _scalar(f"epoch/{name}", value, state.step)
                _scalar("epoch/epoch", state.epoch + 1, state.step)  # numbered from 1
            elif event is Event.TRAIN_END:
                self._writer.flush()


class ReduceLROnPlateau(_Monitor):
    """Multiply the optimizer's base learning rate by ``factor`` when ``monitor`` has not
    improved for ``patience`` epochs (not below ``min_lr``; then wait ``cooldown`` epochs).
    """

    priority = 10

    def __init__(
        self,
        monitor: str = "val_loss",
        factor: float = 0.1,
        patience: int = 2,
        min_lr: float = 0.0,
        cooldown: int = 0,
        min_delta: float = 0.0,
        mode: str = "min",
    ) -> None:
        super().__init__(monitor, mode, min_delta, patience)
        self.factor, self.min_lr, self.cooldown = factor, min_lr, cooldown
        self._cooling = 0
        self.triggers = (on_epoch(),)

    def __call__(self, event: Event, state: TrainState) -> None:
        value = self._value(state)
        if value is None:
            return
        if self._cooling > 0:
            self._cooling -= 1
            self.wait = 0
        if self._improved(value):
            self.best, self.wait = value, 0
            return
        self.wait += 1
        if self.wait >= self.patience:
            lr = state.model.optimizer.learning_rate
            new = max(float(lr.numpy()) * self.factor, self.min_lr)
            lr.assign(new)
            state.set("learning_rate", float(state.model.optimizer.current_learning_rate()))
            self.wait, self._cooling = 0, self.cooldown

    def state_dict(self) -> dict[str, Any]:
        return {**super().state_dict(), "cooling": self._cooling}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        super().load_state_dict(state)
        self._cooling = int(state.get("cooling", 0))
