"""The ``tensorweave train``/``resume`` jobs in progress, as the train pack's job hooks tell
them (``hooks.py`` remembers each by its model), for the loggers in their trainings: a
callback sees ``state.model``, and through it the job's run directory and filled config.

Light: no TensorFlow, no MLflow.

>>> model = object()
>>> remember(model, JobContext(Path("runs/r"), {"train": {"epochs": 2}}, "train"))
>>> job_of(model).config["train"]["epochs"], forget(model).kind, job_of(model)
(2, 'train', None)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["JobContext", "remember", "job_of", "forget"]


@dataclass
class JobContext:
    """A ``tensorweave train``/``resume`` job in progress, as the job hooks tell it."""

    run_dir: Path
    config: Any
    kind: str
    name: str | None = None
    loggers: list[Any] = field(default_factory=list)


_jobs: dict[int, JobContext] = {}  # id(job.model) -> its job


def remember(model: Any, job: JobContext) -> None:
    """``job`` trains ``model`` (``tensorweave_job_started``)."""
    _jobs[id(model)] = job


def job_of(model: Any) -> JobContext | None:
    """The job training ``model``, if a ``tensorweave`` job is (else ``None``)."""
    return _jobs.get(id(model))


def forget(model: Any) -> JobContext | None:
    """The job of ``model`` ended (``tensorweave_job_ended``): its context, no longer kept."""
    return _jobs.pop(id(model), None)
