"""Runs: a run directory and everything that makes, opens and uses one.

``job`` (a job config: its sections and settings, validated once; built-in jobs by name,
the ``jobs`` kind, and reading a config; ``build_model``, the one place a config becomes a
``Model``, and ``build_job``), ``directory`` (unique run directories, and ``resolve_run``,
the one resolver of references), ``lock`` (``RunLock``), ``marker`` (what tensorweave
wrote, and so may delete), ``output_paths`` (``OutputPath``), ``run`` (``Run``: one opened
run), ``processors`` (the saved data steps and their one runner), ``training``
(``train_job``), ``resuming`` (``resume_job``), ``fitting`` (the fit both share),
``cluster`` (``TF_CONFIG`` and forming a cluster), ``export`` (SavedModel and
``Predictor``), ``ensemble`` (several runs voting), ``warm_start`` (weights of a trained
run into a new model). Names are imported on first use.

>>> from tensorweave_train.runs import Run
>>> Run("runs/demo").path.name
'demo'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tensorweave as tw

if TYPE_CHECKING:
    from tensorweave_train.runs.directory import resolve_run
    from tensorweave_train.runs.ensemble import Ensemble, majority_vote, mean_probabilities
    from tensorweave_train.runs.export import Predictor, export_saved_model
    from tensorweave_train.runs.fitting import Interrupted
    from tensorweave_train.runs.job import (
        Job,
        RunSettings,
        TrainSettings,
        build_job,
        build_model,
        check_settings,
        config_path,
        job_names,
        load_config,
        validate_config,
    )
    from tensorweave_train.runs.lock import RunDirError, RunLock
    from tensorweave_train.runs.processors import PredictInputError, Processors
    from tensorweave_train.runs.resuming import resume_job
    from tensorweave_train.runs.run import Run, export_run, load_model, load_run
    from tensorweave_train.runs.training import train_job
    from tensorweave_train.runs.warm_start import WarmStart, WarmStartReport

_EXPORTS = {
    "Job": "job",
    "RunSettings": "job",
    "TrainSettings": "job",
    "build_job": "job",
    "build_model": "job",
    "check_settings": "job",
    "config_path": "job",
    "job_names": "job",
    "load_config": "job",
    "validate_config": "job",
    "RunDirError": "lock",
    "RunLock": "lock",
    "resolve_run": "directory",
    "Ensemble": "ensemble",
    "majority_vote": "ensemble",
    "mean_probabilities": "ensemble",
    "Predictor": "export",
    "export_saved_model": "export",
    "PredictInputError": "processors",
    "Processors": "processors",
    "Run": "run",
    "export_run": "run",
    "load_model": "run",
    "load_run": "run",
    "Interrupted": "fitting",
    "resume_job": "resuming",
    "train_job": "training",
    "WarmStart": "warm_start",
    "WarmStartReport": "warm_start",
}
__all__ = [
    "Job",
    "RunSettings",
    "TrainSettings",
    "build_job",
    "build_model",
    "check_settings",
    "config_path",
    "job_names",
    "load_config",
    "validate_config",
    "RunDirError",
    "RunLock",
    "resolve_run",
    "Ensemble",
    "majority_vote",
    "mean_probabilities",
    "Predictor",
    "export_saved_model",
    "PredictInputError",
    "Processors",
    "Run",
    "export_run",
    "load_model",
    "load_run",
    "Interrupted",
    "resume_job",
    "train_job",
    "WarmStart",
    "WarmStartReport",
]

__getattr__, __dir__ = tw.lazy_exports(__name__, _EXPORTS)
