"""The training loop: ``Model``, its compiled steps, multi-step execution and ``Trainer``.

Layered bottom up: ``events`` (what the loop emits and ``Callback``), ``data`` (batches in
a resumable order), ``metrics`` (figures over many batches), ``steps`` (the model's step
methods compiled), ``model`` (``Model``, with its parts ``optimization`` and
``model_running``), ``execution`` (an epoch, several steps per call),
``trainer`` (``Trainer``: epochs, validation, resume), ``checkpoints`` (crash-safe
``Checkpointer``), ``nonfinite`` (the NaN/inf check), ``history``, ``summary``,
``loss_scale`` (dynamic loss scaling for ``mixed_float16``), ``services`` (what the
layers above do for the loop: saving, exporting, the progress display). The loop imports
nothing above it; the parts read the model through protocols (``steps.Stepped``,
``trainer.Trained``, ``events.TrainedModel``). Names are imported on first use.

>>> from tensorweave_train.loop import Trainer
>>> Trainer.__name__
'Trainer'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:
    from tensorweave_train.loop.checkpoints import Checkpointer, CorruptCheckpointWarning
    from tensorweave_train.loop.data import Batches, as_batches, split_validation
    from tensorweave_train.loop.events import (
        Callback,
        Event,
        LambdaCallback,
        TrainState,
        Trigger,
        on_change,
        on_epoch,
        on_step,
        on_train,
    )
    from tensorweave_train.loop.history import History
    from tensorweave_train.loop.loss_scale import LossScale
    from tensorweave_train.loop.metrics import ExampleMean, Metrics, figure
    from tensorweave_train.loop.model import Model
    from tensorweave_train.loop.nonfinite import NonFiniteWarning, non_finite, non_finite_weights
    from tensorweave_train.loop.steps import Steps
    from tensorweave_train.loop.trainer import Trainer, resolve_callbacks

_EXPORTS = {
    "Checkpointer": "checkpoints",
    "CorruptCheckpointWarning": "checkpoints",
    "Batches": "data",
    "as_batches": "data",
    "split_validation": "data",
    "Callback": "events",
    "Event": "events",
    "LambdaCallback": "events",
    "TrainState": "events",
    "Trigger": "events",
    "on_change": "events",
    "on_epoch": "events",
    "on_step": "events",
    "on_train": "events",
    "History": "history",
    "LossScale": "loss_scale",
    "ExampleMean": "metrics",
    "Metrics": "metrics",
    "figure": "metrics",
    "Model": "model",
    "NonFiniteWarning": "nonfinite",
    "non_finite": "nonfinite",
    "non_finite_weights": "nonfinite",
    "Steps": "steps",
    "Trainer": "trainer",
    "resolve_callbacks": "trainer",
}
__all__ = [
    "Checkpointer",
    "CorruptCheckpointWarning",
    "Batches",
    "as_batches",
    "split_validation",
    "Callback",
    "Event",
    "LambdaCallback",
    "TrainState",
    "Trigger",
    "on_change",
    "on_epoch",
    "on_step",
    "on_train",
    "History",
    "LossScale",
    "ExampleMean",
    "Metrics",
    "figure",
    "Model",
    "NonFiniteWarning",
    "non_finite",
    "non_finite_weights",
    "Steps",
    "Trainer",
    "resolve_callbacks",
]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
