"""The main job: train, evaluate, predict and resume a model described by a config file.

A job config (TOML, JSON or YAML; see ``configs/digits.toml``) has these sections:

- ``[data]``: a dataset promise (``"@datasets" = "digits.v1"``) giving ``train`` and
  ``valid`` arrays by field; the fields feed the model's input and target nodes of the
  same name;
- ``[model]``: a graph block (``nodes`` wired by name) naming its ``inputs``, ``targets``,
  ``outputs``, ``loss`` and ``metrics`` nodes;
- ``[optimizer]``: an optimizer promise (default Adam);
- ``[train]``: ``epochs``, ``batch_size``, ``seed``, ``shuffle``, ``limit`` (train on the
  first N examples, for smoke runs), ``checkpoint_every`` (epochs);
- ``callbacks``: a list of callback promises, added to the job's own (checkpoints,
  CSV log, progress);
- ``[run]``: ``name`` (a plain name: no path separators or ``..``) and ``dir`` (default
  a new ``runs/<name>-<time>``, never one that exists; see ``rundir``);
- other top-level tables hold plain values for ``${...}`` variables (``[dims]``); one that
  looks like a misspelled section or holds a component is refused.

A run directory holds ``config.json`` (the config with every default filled in, the
provider of every component and the library versions: it alone reproduces the run),
``source.toml`` (the file as given), ``checkpoints/``, ``log.csv``, ``processors.json``
(the data steps a predictor applies) and ``summary.json``.

>>> sorted(DEFAULTS)
['chars', 'digits']
>>> for path, problem in check_settings({"train": {"epochs": "x", "bogus": 1}}):
...     print(f"{path}: {problem}")
train.epochs: expected int, got 'x'
train.bogus: unknown setting; settings: epochs, batch_size, seed, shuffle, limit, checkpoint_every, jit_compile
data: a job config needs a [data] section
model: a job config needs a [model] section
"""

from __future__ import annotations

from tensorweave_train.guards import Interrupted, PredictInputError
from tensorweave_train.job_config import (
    DEFAULTS,
    FILLED,
    SECTIONS,
    Job,
    RunSettings,
    TrainSettings,
    build_job,
    check_settings,
    config_path,
    load_config,
    settings_dict,
    validate_job,
)
from tensorweave_train.restore import evaluate, load_model, predict
from tensorweave_train.training import resume, train

__all__ = [
    "DEFAULTS",
    "FILLED",
    "SECTIONS",
    "TrainSettings",
    "RunSettings",
    "Job",
    "config_path",
    "load_config",
    "check_settings",
    "validate_job",
    "build_job",
    "settings_dict",
    "train",
    "evaluate",
    "predict",
    "resume",
    "Interrupted",
    "PredictInputError",
    "load_model",
]
