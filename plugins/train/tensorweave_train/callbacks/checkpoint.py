"""``CheckpointCallback`` (``Checkpoint.v1``): crash-safe checkpoints while training.

Every ``every_steps`` steps and/or every ``every_epochs`` epochs (and at the end) it writes
the model, its optimizer, the random generator and the loop's resumable state with a
``loop.checkpoints.Checkpointer``; ``model.train(..., resume=directory)`` continues from the
newest valid one. Under a multi-worker strategy only the chief writes.

With ``save_best_only=True`` it is Keras's ``ModelCheckpoint(save_best_only=True)``: at
each epoch's end it saves only when the figure ``monitor`` improved (``mode``: ``"min"``,
``"max"``, or ``"auto"``, as Keras: ``"max"`` for a name holding ``acc`` or starting with
``fmeasure``, else ``"min"``); a ``monitor`` the training does not report is an error
listing the figures it does. The best value so far is kept in the checkpoints, so a
resumed run compares with it.

>>> import tempfile
>>> CheckpointCallback(tempfile.mkdtemp(), every_steps=50).triggers[0].every
50
>>> CheckpointCallback(tempfile.mkdtemp(), save_best_only=True, monitor="val_accuracy").mode
'max'
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal

import tensorweave as tw
from tensorweave_train.loop.checkpoints import Checkpointer
from tensorweave_train.loop.distribute import is_chief
from tensorweave_train.loop.events import (
    Callback,
    Event,
    TrainState,
    on_epoch,
    on_step,
    on_train,
)
from tensorweave_train.runs.output_paths import OutputPath

__all__ = ["CheckpointCallback"]


class CheckpointCallback(Callback):
    """Save a checkpoint every ``every_steps`` steps and/or every ``every_epochs`` epochs
    (and at the end of training) into ``directory``; resume with
    ``model.train(..., resume=directory)`` (or ``resume=True``).

    Args:
        directory: the folder (its ``checkpoints/`` holds them); in a config run by
            ``tensorweave train``, relative to the run directory.
        every_steps: save every N steps.
        every_epochs: save every N epochs.
        keep: how many checkpoints to keep (this run's oldest are deleted).
        at_end: save at the end of training too.
        save_best_only: save, at an epoch's end, only when ``monitor`` improved on its
            best (Keras's ``ModelCheckpoint``); ``every_steps`` and ``at_end`` do not
            apply (``keep=1`` keeps the best alone).
        monitor: the figure compared (``"val_loss"``, ``"loss"``, ``"val_<metric>"``).
        mode: ``"min"``, ``"max"`` or ``"auto"`` (Keras's rule, see the module).
    """

    priority = 100

    def __init__(
        self,
        directory: OutputPath,
        every_steps: int | None = None,
        every_epochs: int | None = 1,
        keep: int = 3,
        at_end: bool = True,
        save_best_only: bool = False,
        monitor: str = "val_loss",
        mode: Literal["auto", "min", "max"] = "auto",
    ) -> None:
        if mode not in ("auto", "min", "max"):
            raise tw.ArgumentError(
                f"Checkpoint.v1: mode must be 'auto', 'min' or 'max', got {mode!r}."
            )
        if save_best_only and every_steps:
            raise tw.ArgumentError(
                "Checkpoint.v1: save_best_only=True compares the figures of epochs, so it "
                f"saves at epoch ends; every_steps={every_steps} does not apply. Fix: drop "
                "every_steps (or use a second Checkpoint.v1 for periodic checkpoints)."
            )
        self.checkpointer = Checkpointer(directory, keep=keep)
        self.save_best_only = save_best_only
        self.monitor = monitor
        if mode == "auto":  # Keras's ModelCheckpoint rule
            mode = "max" if "acc" in monitor or monitor.startswith("fmeasure") else "min"
        self.mode: str = mode
        self.best: float | None = None
        triggers = []
        if every_steps:
            triggers.append(on_step(every=every_steps))
        if every_epochs or save_best_only:
            triggers.append(on_epoch(every=every_epochs or 1))
        if at_end and not save_best_only:
            triggers.append(on_train())
        self.triggers = tuple(triggers)
        self.last_saved: Path | None = None

    def _improved(self, state: TrainState) -> bool:
        """Whether ``monitor`` improved on the best (and remember it); an error naming the
        figures the training reports when it reports no ``monitor``."""
        value: Any = state.values.get(self.monitor)
        if value is None:
            figures = ", ".join(sorted(state.values)) or "none"
            hint = (
                " (val_* figures need validation data: train(..., validation=...) or a "
                "config's valid split)"
                if self.monitor.startswith("val_")
                else ""
            )
            raise tw.ArgumentError(
                f"Checkpoint.v1: monitor={self.monitor!r} is not a figure of this training; "
                f"its figures: {figures}{hint}. Fix: monitor one of them."
            )
        value = float(value)
        if math.isnan(value):
            return False
        if self.best is None or (value < self.best if self.mode == "min" else value > self.best):
            self.best = value
            return True
        return False

    def __call__(self, event: Event, state: TrainState) -> None:
        if state.model is None or state.trainer is None:
            return  # not in a training loop
        if self.save_best_only and not self._improved(state):
            return
        if not is_chief(state.model.strategy):
            return  # multi-worker: only the chief writes (restore shares it with the others)
        # at an epoch's end its work is done: the checkpoint resumes at the next one
        snapshot = state.trainer.snapshot(epoch_end=event is Event.EPOCH_END)
        self.last_saved = self.checkpointer.save(state.model, snapshot)

    def state_dict(self) -> dict[str, Any]:
        return {"best": self.best} if self.save_best_only else {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        if self.save_best_only and state.get("best") is not None:
            self.best = float(state["best"])
