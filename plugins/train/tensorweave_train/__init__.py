"""tensorweave-train: train, evaluate, checkpoint, export and distribute tensorweave models.

The public names, from the subpackage of each concept (imported on first use, so importing
the package or one of its entry points is cheap):

- ``loop``: ``Model`` (inference, training and evaluation graphs; its ``train_step`` and
  ``test_step`` compiled and run several per call), ``Trainer`` (the event-driven loop),
  ``Callback`` and the events, ``Checkpointer`` (crash-safe checkpoints), ``History``,
  ``LossScale`` (dynamic loss scaling under ``precision="mixed_float16"``);
- ``gan``: ``GAN`` (a generator and a discriminator trained in turn through
  ``Model.train``), ``GANTrainer`` (``GANTrainer.v1``, a job config's ``[trainer]``);
- ``callbacks``: ``EarlyStopping``, ``StopOnNaN``, ``CSVLogger``, ``TensorBoard``,
  ``Progress``/``ProgressBar``, ``ReduceLROnPlateau``, ``CheckpointCallback``,
  ``SwapEMAWeights``, ``LearningRateScheduler``;
- ``optimizers``: ``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``, ``Nadam``,
  ``Adamax``, ``Adadelta``, ``Ftrl``, ``Lion``, ``Lamb``, ``Adafactor``, schedules, clipping;
- ``runs``: ``Run`` (a run directory, opened), ``train_job``/``resume_job`` (a config into
  a run), ``load_model``, ``export_run``, ``Predictor``, ``Ensemble``, ``WarmStart``,
  ``distribution`` (a job's ``tf.distribute`` strategy) and ``Cluster`` (``TF_CONFIG``);
- ``commands``: ``tensorweave train|evaluate|predict|resume|export|plot|draw``.

Components are registered by versioned name (``tw.optimizers["Adam.v1"]``,
``tw.callbacks["EarlyStopping.v1"]``…); this pack declares the ``optimizers``,
``schedules``, ``trainers``, ``callbacks`` and ``voters`` kinds (``kinds``). See the
README.md.

>>> import tensorweave_train as twt
>>> twt.SGD(0.1).learning_rate.numpy().round(2)
np.float32(0.1)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tensorweave as tw
from tensorweave_train.loop import services

if TYPE_CHECKING:  # the lazily imported names, for type checkers
    from tensorweave_train import kinds
    from tensorweave_train.callbacks.averages import SwapEMAWeights
    from tensorweave_train.callbacks.checkpoint import CheckpointCallback
    from tensorweave_train.callbacks.loggers import CSVLogger, TensorBoard
    from tensorweave_train.callbacks.monitors import EarlyStopping, ReduceLROnPlateau
    from tensorweave_train.callbacks.progress import Progress, ProgressBar
    from tensorweave_train.callbacks.scheduler import LearningRateScheduler
    from tensorweave_train.callbacks.stop_on_nan import StopOnNaN
    from tensorweave_train.commands.arguments import parse_command_line
    from tensorweave_train.gan.model import GAN
    from tensorweave_train.gan.noise import LatentNoise
    from tensorweave_train.gan.trainer import GANTrainer
    from tensorweave_train.hooks import ensure_hookspecs
    from tensorweave_train.loop.checkpoints import Checkpointer, CorruptCheckpointWarning
    from tensorweave_train.loop.data import Batches, as_batches
    from tensorweave_train.loop.distribute import is_chief
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
    from tensorweave_train.loop.model import Model
    from tensorweave_train.loop.nonfinite import NonFiniteWarning
    from tensorweave_train.loop.trainer import Trainer
    from tensorweave_train.optimizers import (
        SGD,
        Adadelta,
        Adafactor,
        Adagrad,
        Adam,
        Adamax,
        AdamW,
        Constant,
        CosineDecay,
        CosineDecayRestarts,
        ExponentialDecay,
        Ftrl,
        InverseTimeDecay,
        Lamb,
        Lion,
        Nadam,
        OneCycle,
        Optimizer,
        PiecewiseConstant,
        PolynomialDecay,
        RMSprop,
        Schedule,
        StepDecay,
        WarmUp,
        clip_gradients,
    )
    from tensorweave_train.runs.cluster.spec import Cluster, ClusterError, cluster_config
    from tensorweave_train.runs.directory import resolve_run
    from tensorweave_train.runs.ensemble import Ensemble
    from tensorweave_train.runs.export.predictor import Predictor
    from tensorweave_train.runs.export.savedmodel import export_saved_model
    from tensorweave_train.runs.fitting import Interrupted
    from tensorweave_train.runs.job import (
        Job,
        build_job,
        build_model,
        config_path,
        load_config,
        validate_config,
    )
    from tensorweave_train.runs.lock import RunDirError
    from tensorweave_train.runs.output_paths import OutputPath
    from tensorweave_train.runs.processors import PredictInputError
    from tensorweave_train.runs.resuming import resume_job
    from tensorweave_train.runs.run import Run, export_run, load_model, load_run
    from tensorweave_train.runs.strategy import Distribution, distribution
    from tensorweave_train.runs.training import train_job
    from tensorweave_train.runs.warm_start import WarmStart

__version__ = "0.1.0"

_C, _L, _O, _R = "callbacks", "loop", "optimizers", "runs"

# Public name -> the module that defines it, imported on first use (PEP 562): importing
# one submodule (an entry point's target, a hook module) never imports the whole pack.
_EXPORTS = {
    # the training loop
    "Model": f"{_L}.model",
    "Trainer": f"{_L}.trainer",
    "History": f"{_L}.history",
    "LossScale": f"{_L}.loss_scale",
    "Batches": f"{_L}.data",
    "as_batches": f"{_L}.data",
    "Callback": f"{_L}.events",
    "Event": f"{_L}.events",
    "LambdaCallback": f"{_L}.events",
    "TrainState": f"{_L}.events",
    "Trigger": f"{_L}.events",
    "on_change": f"{_L}.events",
    "on_epoch": f"{_L}.events",
    "on_step": f"{_L}.events",
    "on_train": f"{_L}.events",
    "Checkpointer": f"{_L}.checkpoints",
    "CorruptCheckpointWarning": f"{_L}.checkpoints",
    "NonFiniteWarning": f"{_L}.nonfinite",
    # GANs
    "GAN": "gan.model",
    "GANTrainer": "gan.trainer",
    "LatentNoise": "gan.noise",
    # callbacks
    "CheckpointCallback": f"{_C}.checkpoint",
    "CSVLogger": f"{_C}.loggers",
    "TensorBoard": f"{_C}.loggers",
    "EarlyStopping": f"{_C}.monitors",
    "ReduceLROnPlateau": f"{_C}.monitors",
    "Progress": f"{_C}.progress",
    "ProgressBar": f"{_C}.progress",
    "StopOnNaN": f"{_C}.stop_on_nan",
    "SwapEMAWeights": f"{_C}.averages",
    "LearningRateScheduler": f"{_C}.scheduler",
    # optimizers, schedules, clipping
    "Optimizer": _O,
    "SGD": _O,
    "Adam": _O,
    "AdamW": _O,
    "RMSprop": _O,
    "Adagrad": _O,
    "Nadam": _O,
    "Adamax": _O,
    "Adadelta": _O,
    "Ftrl": _O,
    "Lion": _O,
    "Lamb": _O,
    "Adafactor": _O,
    "clip_gradients": _O,
    "Schedule": _O,
    "Constant": _O,
    "StepDecay": _O,
    "ExponentialDecay": _O,
    "CosineDecay": _O,
    "WarmUp": _O,
    "PolynomialDecay": _O,
    "PiecewiseConstant": _O,
    "CosineDecayRestarts": _O,
    "InverseTimeDecay": _O,
    "OneCycle": _O,
    # runs
    "Run": f"{_R}.run",
    "load_model": f"{_R}.run",
    "load_run": f"{_R}.run",
    "export_run": f"{_R}.run",
    "resolve_run": f"{_R}.directory",
    "RunDirError": f"{_R}.lock",
    "OutputPath": f"{_R}.output_paths",
    "Job": f"{_R}.job",
    "build_job": f"{_R}.job",
    "build_model": f"{_R}.job",
    "config_path": f"{_R}.job",
    "load_config": f"{_R}.job",
    "validate_config": f"{_R}.job",
    "train_job": f"{_R}.training",
    "resume_job": f"{_R}.resuming",
    "Interrupted": f"{_R}.fitting",
    "PredictInputError": f"{_R}.processors",
    "Predictor": f"{_R}.export",
    "export_saved_model": f"{_R}.export",
    "Ensemble": f"{_R}.ensemble",
    "WarmStart": f"{_R}.warm_start",
    # distribution: the strategy of a job, the cluster, the chief
    "Distribution": f"{_R}.strategy",
    "distribution": f"{_R}.strategy",
    "Cluster": f"{_R}.cluster.spec",
    "ClusterError": f"{_R}.cluster.spec",
    "cluster_config": f"{_R}.cluster.spec",
    "is_chief": f"{_L}.distribute",
    # for packs that add commands or hooks of their own (the store)
    "parse_command_line": "commands.arguments",
    "cmd_runs_env": "commands.reproduce",
    "ensure_hookspecs": "hooks",
    "kinds": "kinds",
}

__all__ = [
    "Model",
    "Trainer",
    "History",
    "LossScale",
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
    "Checkpointer",
    "CorruptCheckpointWarning",
    "NonFiniteWarning",
    "GAN",
    "GANTrainer",
    "LatentNoise",
    "CheckpointCallback",
    "CSVLogger",
    "TensorBoard",
    "EarlyStopping",
    "ReduceLROnPlateau",
    "Progress",
    "ProgressBar",
    "StopOnNaN",
    "SwapEMAWeights",
    "LearningRateScheduler",
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Nadam",
    "Adamax",
    "Adadelta",
    "Ftrl",
    "Lion",
    "Lamb",
    "Adafactor",
    "clip_gradients",
    "Schedule",
    "Constant",
    "StepDecay",
    "ExponentialDecay",
    "CosineDecay",
    "WarmUp",
    "PolynomialDecay",
    "PiecewiseConstant",
    "CosineDecayRestarts",
    "InverseTimeDecay",
    "OneCycle",
    "Run",
    "load_model",
    "load_run",
    "export_run",
    "resolve_run",
    "RunDirError",
    "OutputPath",
    "Job",
    "build_job",
    "build_model",
    "config_path",
    "load_config",
    "validate_config",
    "train_job",
    "resume_job",
    "Interrupted",
    "PredictInputError",
    "Predictor",
    "export_saved_model",
    "Ensemble",
    "WarmStart",
    "Distribution",
    "distribution",
    "Cluster",
    "ClusterError",
    "cluster_config",
    "is_chief",
    "parse_command_line",
    "cmd_runs_env",
    "ensure_hookspecs",
    "kinds",
    "__version__",
]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)


class PackServices:
    """What the loop delegates upward (``loop.services``), done by this pack's ``runs`` and
    ``callbacks`` layers, each imported on first use."""

    def model_config(self, model: Any) -> dict[str, Any]:
        from tensorweave_train.runs.saving import model_config

        return model_config(model)

    def job_config(self, model: Any, sections: Mapping[str, Any]) -> dict[str, Any]:
        from tensorweave_train.runs.saving import job_config

        return job_config(model, sections)

    def save_model(self, model: Any, path: str | Path, *, overwrite: bool = False) -> Path:
        from tensorweave_train.runs.saving import save_model

        return save_model(model, path, overwrite=overwrite)

    def export_model(self, model: Any, path: str | Path, **kw: Any) -> Path:
        from tensorweave_train.runs.export.writer import export_model

        return export_model(model, path, **kw)

    def progress(self, verbose: int) -> Any:
        from tensorweave_train.callbacks.progress import Progress

        return Progress(verbose)


services.provide(PackServices())
