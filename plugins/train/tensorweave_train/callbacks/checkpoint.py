"""``CheckpointCallback`` (``Checkpoint.v1``): crash-safe checkpoints while training.

Every ``every_steps`` steps and/or every ``every_epochs`` epochs (and at the end) it writes
the model, its optimizer, the random generator and the loop's resumable state with a
``loop.checkpoints.Checkpointer``; ``model.train(..., resume=directory)`` continues from the
newest valid one. Under a multi-worker strategy only the chief writes.

>>> import tempfile
>>> CheckpointCallback(tempfile.mkdtemp(), every_steps=50).triggers[0].every
50
"""

from __future__ import annotations

import os
from pathlib import Path

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

__all__ = ["CheckpointCallback"]


class CheckpointCallback(Callback):
    """Save a checkpoint every ``every_steps`` steps and/or every ``every_epochs`` epochs
    (and at the end of training) into ``directory``; resume with
    ``model.train(..., resume=directory)`` (or ``resume=True``).
    """

    priority = 100

    def __init__(
        self,
        directory: str | os.PathLike[str],
        every_steps: int | None = None,
        every_epochs: int | None = 1,
        keep: int = 3,
        at_end: bool = True,
    ) -> None:
        self.checkpointer = Checkpointer(directory, keep=keep)
        triggers = []
        if every_steps:
            triggers.append(on_step(every=every_steps))
        if every_epochs:
            triggers.append(on_epoch(every=every_epochs))
        if at_end:
            triggers.append(on_train())
        self.triggers = tuple(triggers)
        self.last_saved: Path | None = None

    def __call__(self, event: Event, state: TrainState) -> None:
        if state.model is None or state.trainer is None:
            return  # not in a training loop
        if not is_chief(state.model.strategy):
            return  # multi-worker: only the chief writes (restore shares it with the others)
        snapshot = state.trainer.snapshot()
        if event is Event.EPOCH_END:  # the epoch's work is done: resume at the next one
            snapshot.update(epoch=state.epoch + 1, epoch_step=0, epoch_done=False, loss_sum=0.0)
        self.last_saved = self.checkpointer.save(state.model, snapshot)
