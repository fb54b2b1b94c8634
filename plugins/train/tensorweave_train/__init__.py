"""tensorweave-train: train, evaluate, checkpoint, export and distribute tensorweave models.

``Model`` bundles inference, training (loss) and evaluation (metrics) graphs; ``Trainer``
runs the event-driven loop; optimizers, schedules and callbacks are registered by
versioned name (``tw.optimizers["Adam.v1"]``, ``tw.callbacks["EarlyStopping.v1"]``…);
``Checkpointer`` writes crash-safe checkpoints; ``export_saved_model`` and ``Predictor``
serve a model with TensorFlow alone. See the pack's README.md.

>>> import tensorweave_train as twt
>>> twt.SGD(0.1).learning_rate.numpy().round(2)
np.float32(0.1)
"""

from tensorweave_train.callbacks import (
    CSVLogger,
    EarlyStopping,
    ProgressBar,
    ReduceLROnPlateau,
    StopOnNaN,
    TensorBoard,
)
from tensorweave_train.checkpoint import CheckpointCallback, Checkpointer, CorruptCheckpointWarning
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
from tensorweave_train.schedules import (
    Constant,
    CosineDecay,
    ExponentialDecay,
    Schedule,
    StepDecay,
    WarmUp,
)
from tensorweave_train.trainer import History, Trainer

__all__ = [
    "Model",
    "Trainer",
    "History",
    "Batches",
    "as_batches",
    # optimizers
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "clip_gradients",
    # schedules
    "Schedule",
    "Constant",
    "StepDecay",
    "ExponentialDecay",
    "CosineDecay",
    "WarmUp",
    # events and callbacks
    "Event",
    "Trigger",
    "TrainState",
    "Callback",
    "LambdaCallback",
    "on_train",
    "on_epoch",
    "on_step",
    "on_change",
    "EarlyStopping",
    "StopOnNaN",
    "CSVLogger",
    "ProgressBar",
    "TensorBoard",
    "ReduceLROnPlateau",
    "Checkpointer",
    "CheckpointCallback",
    "CorruptCheckpointWarning",
    # export
    "export_saved_model",
    "Predictor",
]
