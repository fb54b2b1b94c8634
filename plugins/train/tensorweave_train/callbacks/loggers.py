"""Loggers: ``CSVLogger`` (a row per epoch in a CSV file) and ``TensorBoard`` (scalars, the
train step's graph, the profiler's trace, weight histograms and the HParams record), with
Keras's argument names. Under a multi-worker strategy only
the chief writes (the other workers' values are the same).

>>> import os, tempfile
>>> CSVLogger(os.path.join(tempfile.mkdtemp(), "log.csv")).priority
50
"""

from __future__ import annotations

import csv
import os
import time
import warnings
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.callbacks.board_summaries import (
    flat_scalars,
    profile_window,
    run_config_near,
    write_histogram,
    write_hparams,
)
from tensorweave_train.loop.distribute import is_chief
from tensorweave_train.loop.events import (
    Callback,
    Event,
    TrainState,
    Trigger,
    on_epoch,
    on_step,
    on_train,
)
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
    """Write what TensorBoard shows into ``log_dir`` with ``tf.summary``: the epoch values
    and step loss as scalars, the train step's graph, the HParams record of the run, and on
    request the profiler's trace of some batches and weight histograms.

    - scalars: every value at each epoch end (``epoch/<name>``, at the step count, plus
      ``epoch/epoch``), the step loss every ``update_freq`` steps when it is a number
      (Keras: ``"epoch"``, the default, writes per epoch only);
    - the train step's graph at the start (``write_graph``);
    - ``profile_batch``: the profiler's trace (``tf.profiler.experimental``) of those
      batches, numbered from 1 over the whole training: ``(10, 20)`` (both included), one
      batch ``N``, or ``0`` (off, the default); the trace lands in
      ``log_dir/plugins/profile/<time>/`` for TensorBoard's Profile page (the
      ``tensorboard-plugin-profile`` package). The loop's multi-step calls end at the
      window's edges, so the trace holds exactly those batches;
    - ``histograms=N``: a histogram of every weight every ``N`` epochs (``0``: none);
    - ``hparams``: the HParams dashboard's record of the run (``True``, the default):
      the flattened scalar settings of the run's filled config when ``log_dir`` is inside a
      run directory (``tensorweave train``, a sweep's trial), else the training's epochs,
      seed and learning rate; or a mapping ``{name: number | bool | str}`` given here.
      The epoch values are its metrics, so runs and sweep trials compare side by side;
      its trial is named after the run (``digits-mlp-20261128-101500``,
      ``sweep-x-trial-3/trial-0003``).

    Works without the ``tensorboard`` package (only viewing the logs needs it). Keras's
    names. In a config run by ``tensorweave train``, ``log_dir`` is relative to the run
    directory (``OutputPath``); ``tensorweave runs tensorboard RUN...`` shows the runs.

    >>> board = TensorBoard("logs", profile_batch=(2, 3), histograms=1)
    >>> board.profile, board.histograms, board.exact_steps
    ((2, 3), 1, True)
    """

    priority = 50
    exact_steps = False  # writes each step's logged values: replayed after a multi-step call

    def __init__(
        self,
        log_dir: OutputPath = "logs",
        update_freq: int | str | None = "epoch",
        write_graph: bool = True,
        profile_batch: int | str | Sequence[int] = 0,
        histograms: int = 0,
        hparams: bool | Mapping[str, float | int | bool | str] = True,
    ) -> None:
        self.log_dir = os.fspath(log_dir)
        self.write_graph = write_graph
        every_steps = None if update_freq in (None, "epoch") else update_freq
        if every_steps is not None and (isinstance(every_steps, str) or int(every_steps) < 1):
            raise ValueError(
                f"TensorBoard: update_freq must be 'epoch' or a positive number of steps, got "
                f"{update_freq!r}."
            )
        if isinstance(histograms, bool) or not isinstance(histograms, int) or histograms < 0:
            raise tw.ArgumentError(
                f"TensorBoard: histograms must be a number of epochs (0: none), got "
                f"{histograms!r}. Fix: e.g. histograms = 1 (every epoch)."
            )
        self.profile = profile_window(profile_batch)
        self._every_steps = int(every_steps) if every_steps else 0
        self.histograms = histograms
        self.hparams = hparams
        triggers = [on_train(at="start"), on_epoch(), on_train()]
        if every_steps:
            triggers.append(on_step(every=int(every_steps)))
        if self.profile is not None:  # the loop stops exactly before and after the window
            first, last = self.profile
            triggers += [
                Trigger(Event.STEP_START, every=first),
                Trigger(Event.STEP_END, every=last),
            ]
            self.exact_steps = True
        self.triggers = tuple(triggers)
        self._writer: Any = None
        self._graph_of: Any = None  # the model whose graph is written (once per model)
        self._profiling = False
        self._hparams_written = False

    def __call__(self, event: Event, state: TrainState) -> None:
        if not _writes(state):
            return
        if self._writer is None:
            self._writer = tf.summary.create_file_writer(self.log_dir)
        if self.profile is not None and event in (Event.STEP_START, Event.STEP_END):
            self._profile(event, state)
            if event is Event.STEP_START:
                return
        with self._writer.as_default(step=state.step):
            if event is Event.TRAIN_START:
                if self.hparams is not False and not self._hparams_written:
                    self._hparams_written = True  # once per log (a sweep's or notebook's calls)
                    hparams, trial = self._hparams_of(state)
                    write_hparams(hparams, time.time(), trial)
                model = state.model
                if self.write_graph and model is not None and not self._wrote_graph_of(model):
                    self._graph_of = weakref.ref(model)  # once per model: serialising is slow
                    tf.summary.graph(model.train_function.get_concrete_function().graph)
            elif event is Event.STEP_END:
                if self._every_steps and state.step % self._every_steps == 0:
                    _scalar("step/loss", state.loss, state.step)
            elif event is Event.EPOCH_END:
                for name, value in state.values.items():
                    _scalar(f"epoch/{name}", value, state.step)
                _scalar("epoch/epoch", state.epoch + 1, state.step)  # numbered from 1
                if self.histograms and (state.epoch + 1) % self.histograms == 0:
                    self._write_histograms(state)
            elif event is Event.TRAIN_END:
                self._stop_profiler()
                self._writer.flush()

    def _wrote_graph_of(self, model: Any) -> bool:
        return self._graph_of is not None and self._graph_of() is model

    def on_failure(self, error: BaseException, state: TrainState) -> None:
        self._stop_profiler()
        if self._writer is not None:
            self._writer.flush()

    # -- the profiler ---------------------------------------------------------------------
    def _profile(self, event: Event, state: TrainState) -> None:
        assert self.profile is not None
        first, last = self.profile
        if event is Event.STEP_START and state.step + 1 == first and not self._profiling:
            try:
                tf.profiler.experimental.start(self.log_dir)
            except (tf.errors.AlreadyExistsError, tf.errors.UnavailableError) as err:
                warnings.warn(
                    f"TensorBoard: no profile of batches {first}-{last}: another profiler "
                    f"is running in this process ({str(err).strip()[:200]}).",
                    stacklevel=2,
                )
                return
            self._profiling = True
        elif event is Event.STEP_END and state.step == last:
            self._stop_profiler()

    def _stop_profiler(self) -> None:
        if self._profiling:
            self._profiling = False
            tf.profiler.experimental.stop()  # writes log_dir/plugins/profile/<time>/

    # -- histograms and hparams -------------------------------------------------------------
    def _write_histograms(self, state: TrainState) -> None:
        if state.model is None:
            return
        for variable in state.model.variables:
            name = str(getattr(variable, "path", None) or variable.name).split(":")[0]
            write_histogram(f"weights/{name}", tf.convert_to_tensor(variable).numpy(), state.step)

    def _hparams_of(self, state: TrainState) -> tuple[dict[str, Any], str | None]:
        """The hyperparameters and the trial's name (from the run directory's)."""
        if isinstance(self.hparams, Mapping):
            return dict(self.hparams), None
        found = run_config_near(self.log_dir)
        if found is not None:
            folder, config = found[0].name, found[1]
            name = str((config.get("run") or {}).get("name") or "")
            # runs/digits-mlp-20261128-101500 as it is; a sweep's trial-0003 or an explicit
            # --run-dir with the run's name, which tells them apart across studies
            trial = folder if not name or folder.startswith(name) else f"{name}/{folder}"
            return flat_scalars(config), trial
        values: dict[str, Any] = {"train.epochs": state.epochs, "train.seed": state.seed}
        if state.model is not None:
            rates = state.model.learning_rates()
            for name, rate in rates.items():
                key = "learning_rate" if len(rates) == 1 else f"learning_rate.{name}"
                values[key] = float(rate)
        return values, None
