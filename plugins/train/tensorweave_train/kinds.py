"""The component kinds this pack introduces: optimizers, schedules, trainers, callbacks,
voters, jobs (built-in job configs, ``tensorweave train NAME``) and exporters (the formats of
``tensorweave export --format``).

Declared in the pack's ``pyproject.toml`` (entry-point group ``tensorweave.kinds``), so any
pack may offer components of these kinds, each checked when it loads. Light on purpose (no
TensorFlow): it is imported whenever a component of these kinds loads.

>>> optimizers.check(dict), callbacks.check(None)
(None, 'a callback must be a Callback class or a function that makes one, got NoneType None')
>>> print(jobs.check("digits.toml"))
a job must be a config file packaged with its pack (an entry point naming a module attribute such as `digits = importlib.resources.files(__package__) / "digits.toml"`), got str 'digits.toml'
"""

from __future__ import annotations

from importlib.resources.abc import Traversable
from typing import Any

import tensorweave as tw

__all__ = [
    "optimizers",
    "schedules",
    "trainers",
    "callbacks",
    "voters",
    "jobs",
    "exporters",
    "JOB_SUFFIXES",
]

# The formats ``tensorweave.config.load`` reads, by file suffix.
JOB_SUFFIXES = (".toml", ".json", ".yaml", ".yml")


optimizers = tw.Kind.of_callables(
    "optimizers",
    doc="Optimizer classes (SGD, Adam…): Name(learning_rate, ...) updates variables",
    expected="an optimizer must be an Optimizer class or a function that makes one",
)
schedules = tw.Kind.of_callables(
    "schedules",
    doc="learning-rate schedules: callables step -> factor of the base learning rate",
    expected="a schedule must be a Schedule class or a function step -> factor",
)
trainers = tw.Kind.of_callables(
    "trainers",
    doc="how a model trains: the loop (Trainer.v1: Trainer(model, callbacks=...) runs the "
    "events of a training) and recipes for a job config's [trainer] section, whose "
    "build_model(graph, optimizer=...) makes the model (GANTrainer.v1)",
    expected="a trainer must be a class Trainer(model, ...) or a recipe class",
)
callbacks = tw.Kind.of_callables(
    "callbacks",
    doc="Callback classes run on training events (early stopping, CSV logs, checkpoints…)",
    expected="a callback must be a Callback class or a function that makes one",
)
voters = tw.Kind.of_callables(
    "voters",
    doc="ensemble voters: voter(outputs) -> one array, combining several models' outputs",
    expected="a voter must be a function voter(outputs) -> array",
)

exporters = tw.Kind.of_callables(
    "exporters",
    doc="export formats (`tensorweave export --format NAME`, `model.export(path, format=NAME)`): "
    "classes whose instances write a model as one artifact (see "
    "tensorweave_train.runs.export.formats.Exporter); named plainly: savedmodel, onnx, litert",
    expected="an exporter must be a class Exporter() with write(request, path) and load(path)",
)


def _is_job_config(obj: Any) -> str | None:
    """A job is a packaged config file: a ``Traversable`` (``importlib.resources.files(...)
    / "x.toml"``, a ``pathlib.Path``) of a config format that is in the installed pack."""
    if isinstance(obj, (str, bytes)) or not isinstance(obj, Traversable):
        return (
            "a job must be a config file packaged with its pack (an entry point naming a "
            "module attribute such as `digits = importlib.resources.files(__package__) / "
            f'"digits.toml"`), got {type(obj).__name__} {obj!r}'
        )
    if not obj.name.lower().endswith(JOB_SUFFIXES):
        return f"a job's config file must end in {', '.join(JOB_SUFFIXES)}, got {obj.name!r}"
    if not obj.is_file():
        return (
            f"the job's config file {obj.name!r} is not in the installed pack ({obj}). Fix: list "
            "it in the pack's [tool.setuptools.package-data] and reinstall the pack"
        )
    return None


jobs = tw.Kind(
    "jobs",
    doc="built-in job configs, run by name (`tensorweave train NAME`): packaged config "
    "files, each an entry point naming a module attribute that is the file's path",
    check=_is_job_config,
)
