"""Loggers: ``CSVLogger`` (a row per epoch in a CSV file) and ``TensorBoard`` (scalars and
the train step's graph), with Keras's argument names. Under a multi-worker strategy only
the chief writes (the other workers' values are the same).

>>> import os, tempfile
>>> CSVLogger(os.path.join(tempfile.mkdtemp(), "log.csv")).priority
50
"""

from __future__ import annotations

import csv
import os
import weakref
from typing import Any

import tensorflow as tf

from tensorweave_train.loop.distribute import is_chief
from tensorweave_train.loop.events import Callback, Event, TrainState, on_epoch, on_step, on_train
from tensorweave_train.runs.output_paths import OutputPath

__all__ = ["CSVLogger", "TensorBoard"]


class CSVLogger(Callback):
    """Append one row per epoch (epoch numbered from 1, step and every value) to the CSV
    file ``filename``. Its folder is made when missing; in a config run by ``tensorweave
    train``, ``filename`` is relative to the run directory (``OutputPath``).

    Resuming appends to the same file; the header is written once, and a new value
    appearing later adds no column (it is left out). Rows of the epochs a resumed run
    redoes (those after its checkpoint) are dropped first, so no epoch appears twice.

    Each row is flushed to the operating system at once (a killed or crashed process
    loses none); the file is synced to the disk when training ends or fails, not every
    epoch (an ``fsync`` costs milliseconds, as much as a dozen short steps).
    """

    priority = 50

    def __init__(self, filename: OutputPath) -> None:
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
        if not _writes(state):
            return
        if event is Event.TRAIN_END:
            self._sync()
            return
        row = {"epoch": state.epoch + 1, "step": state.step, **state.values}  # from 1
        exists = os.path.exists(self.path) and os.path.getsize(self.path) > 0
        if not exists and os.path.dirname(self.path):
            os.makedirs(os.path.dirname(self.path), exist_ok=True)  # logs/x.csv in a run
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


def _writes(state: TrainState) -> bool:
    """Whether this process writes: one process, or the chief of several workers."""
    return state.model is None or is_chief(state.model.strategy)


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
    the ``tensorboard`` package (only viewing the logs needs it). Keras's names. In a
    config run by ``tensorweave train``, ``log_dir`` is relative to the run directory
    (``OutputPath``).
    """

    priority = 50
    exact_steps = False  # writes each step's logged values: replayed after a multi-step call

    def __init__(
        self,
        log_dir: OutputPath = "logs",
        update_freq: int | str | None = "epoch",
        write_graph: bool = True,
    ) -> None:
        self.log_dir = os.fspath(log_dir)
        self.write_graph = write_graph
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
        if not _writes(state):
            return
        if self._writer is None:
            self._writer = tf.summary.create_file_writer(self.log_dir)
        with self._writer.as_default(step=state.step):
            if event is Event.TRAIN_START and self.write_graph and state.model is not None:
                if self._graph_of is None or self._graph_of() is not state.model:
                    self._graph_of = weakref.ref(state.model)  # once per model: serialising is slow
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
