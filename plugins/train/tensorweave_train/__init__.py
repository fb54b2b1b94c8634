"""tensorweave-train: train, evaluate, checkpoint, export and distribute tensorweave models.

``Model`` bundles inference, training (loss) and evaluation (metrics) graphs; ``Trainer``
runs the event-driven loop; optimizers, schedules and callbacks are registered by
versioned name (``tw.optimizers["Adam.v1"]``, ``tw.callbacks["EarlyStopping.v1"]``…);
``Checkpointer`` writes crash-safe checkpoints; ``export_saved_model`` and ``Predictor``
serve a model with TensorFlow alone. This pack declares the ``optimizers``, ``schedules``,
``trainers`` and ``callbacks`` kinds (``tensorweave_train.kinds``). Importing the package
is cheap: each name's module is imported when the name is first used. See the README.md.

>>> import tensorweave_train as twt
>>> twt.SGD(0.1).learning_rate.numpy().round(2)
np.float32(0.1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_train import kinds
    from tensorweave_train.callbacks import (
        CSVLogger,
        EarlyStopping,
        ProgressBar,
        ReduceLROnPlateau,
        StopOnNaN,
        TensorBoard,
    )
    from tensorweave_train.checkpoint import (
        CheckpointCallback,
        Checkpointer,
        CorruptCheckpointWarning,
    )
    from tensorweave_train.data import Batches, as_batches
    from tensorweave_train.events import (
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
    from tensorweave_train.export import Predictor, export_saved_model
    from tensorweave_train.model import Model
    from tensorweave_train.optimizers import (
        SGD,
        Adagrad,
        Adam,
        AdamW,
        Optimizer,
        RMSprop,
        clip_gradients,
    )
    from tensorweave_train.restore import export_run, load_run
    from tensorweave_train.schedules import (
        Constant,
        CosineDecay,
        ExponentialDecay,
        Schedule,
        StepDecay,
        WarmUp,
    )
    from tensorweave_train.trainer import History, Trainer

__version__ = "0.1.0"

# Public name -> the submodule that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    "CSVLogger": "callbacks",
    "EarlyStopping": "callbacks",
    "ProgressBar": "callbacks",
    "ReduceLROnPlateau": "callbacks",
    "StopOnNaN": "callbacks",
    "TensorBoard": "callbacks",
    "CheckpointCallback": "checkpoint",
    "Checkpointer": "checkpoint",
    "CorruptCheckpointWarning": "checkpoint",
    "Batches": "data",
    "as_batches": "data",
    "Callback": "events",
    "Event": "events",
    "LambdaCallback": "events",
    "TrainState": "events",
    "Trigger": "events",
    "on_change": "events",
    "on_epoch": "events",
    "on_step": "events",
    "on_train": "events",
    "Predictor": "export",
    "export_saved_model": "export",
    "Model": "model",
    "load_run": "restore",
    "export_run": "restore",
    "SGD": "optimizers",
    "Adagrad": "optimizers",
    "Adam": "optimizers",
    "AdamW": "optimizers",
    "Optimizer": "optimizers",
    "RMSprop": "optimizers",
    "clip_gradients": "optimizers",
    "Constant": "schedules",
    "CosineDecay": "schedules",
    "ExponentialDecay": "schedules",
    "Schedule": "schedules",
    "StepDecay": "schedules",
    "WarmUp": "schedules",
    "History": "trainer",
    "Trainer": "trainer",
    "kinds": "kinds",
}

__all__ = [
    "CSVLogger",
    "EarlyStopping",
    "ProgressBar",
    "ReduceLROnPlateau",
    "StopOnNaN",
    "TensorBoard",
    "CheckpointCallback",
    "Checkpointer",
    "CorruptCheckpointWarning",
    "Batches",
    "as_batches",
    "Callback",
    "Event",
    "LambdaCallback",
    "TrainState",
    "Trigger",
    "on_change",
    "on_epoch",
    "on_step",
    "on_train",
    "Predictor",
    "export_saved_model",
    "Model",
    "load_run",
    "export_run",
    "SGD",
    "Adagrad",
    "Adam",
    "AdamW",
    "Optimizer",
    "RMSprop",
    "clip_gradients",
    "Constant",
    "CosineDecay",
    "ExponentialDecay",
    "Schedule",
    "StepDecay",
    "WarmUp",
    "History",
    "Trainer",
    "kinds",
    "__version__",
]


__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
