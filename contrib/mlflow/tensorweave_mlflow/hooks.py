"""This pack's hooks: ``tensorweave train/resume --mlflow URI``, the logger added to those
jobs, and the ``tensorweave mlflow sync RUN`` command.

How a run reaches MLflow with no code, through tensorweave-train's public hooks:

- ``tensorweave_train_arguments`` adds ``--mlflow URI`` to ``train`` and ``resume`` (the
  environment's ``TENSORWEAVE_MLFLOW`` is the default); ``tensorweave_train_options`` reads it;
- ``tensorweave_job_started`` remembers each job's run directory and filled config, by model;
- ``tensorweave_train_callbacks`` adds an ``MLflowLogger`` to that model's training when a
  URI was given (unless the config lists one already); a logger in a job, from the option
  or the config, logs the job's config as params;
- ``tensorweave_job_ended`` hands the loggers the summary: they upload the run directory's
  files (and the exported model) and end the MLflow run.

Imported to build every ``tensorweave`` command line: light, no TensorFlow, no MLflow.

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> tensorweave_train_arguments(parser, "train")
>>> parser.parse_args(["--mlflow", "http://127.0.0.1:5000"]).mlflow
'http://127.0.0.1:5000'
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

import tensorweave as tw
from tensorweave_mlflow.jobs import JobContext, forget, job_of, remember

__all__ = [
    "TRACKING_ENV",
    "tracking_uri",
    "tensorweave_train_arguments",
    "tensorweave_train_options",
    "tensorweave_job_started",
    "tensorweave_train_callbacks",
    "tensorweave_job_ended",
    "tensorweave_add_commands",
]

TRACKING_ENV = "TENSORWEAVE_MLFLOW"  # the default of --mlflow
COMMANDS = ("train", "resume")
_selected: list[str | None] = [None]  # the --mlflow of this process's command


def tracking_uri() -> str | None:
    """The URI of ``--mlflow``, else ``$TENSORWEAVE_MLFLOW``, else ``None`` (no logging)."""
    return _selected[0] or os.environ.get(TRACKING_ENV) or None


@tw.hookimpl
def tensorweave_train_arguments(parser: Any, command: str) -> None:
    """``--mlflow URI`` on ``tensorweave train`` and ``resume``."""
    if command in COMMANDS:
        parser.add_argument(
            "--mlflow",
            metavar="URI",
            help="log the run to this MLflow tracking server, e.g. http://127.0.0.1:5000 "
            f"(default: ${TRACKING_ENV}; none: no MLflow logging) (tensorweave-mlflow)",
        )


@tw.hookimpl
def tensorweave_train_options(options: Any, command: str) -> None:
    """Remember ``--mlflow`` for the jobs this command runs."""
    if command in COMMANDS:
        _selected[0] = getattr(options, "mlflow", None) or None


@tw.hookimpl
def tensorweave_job_started(job: Any, run_dir: Path, config: Any, kind: str) -> None:
    """Remember the job's run directory and filled config, for its loggers."""
    name = getattr(getattr(job, "run", None), "name", None)
    remember(job.model, JobContext(Path(run_dir), config, kind, name))


def _listed_in(config: Any) -> bool:
    callbacks = config.get("callbacks", []) if hasattr(config, "get") else []
    return any(
        "MLflowLogger" in str(c.get("@callbacks", "")) for c in callbacks if hasattr(c, "get")
    )


@tw.hookimpl
def tensorweave_train_callbacks(model: Any) -> list[Any]:
    """An ``MLflowLogger`` for a job run with ``--mlflow URI`` (or ``$TENSORWEAVE_MLFLOW``)."""
    job, uri = job_of(model), tracking_uri()
    if job is None or uri is None or _listed_in(job.config):
        return []
    from tensorweave_mlflow.logger import MLflowLogger

    return [MLflowLogger(tracking_uri=uri)]


@tw.hookimpl
def tensorweave_job_ended(
    job: Any, run_dir: Path, kind: str, summary: Any, error: BaseException | None
) -> None:
    """The job's loggers upload its files and end their MLflow runs."""
    context = forget(job.model)
    for logger in context.loggers if context is not None else ():
        logger.finish_job(context, summary, error)


@tw.hookimpl
def tensorweave_add_commands(subparsers: Any) -> None:
    """``tensorweave mlflow sync RUN [--to URI]``."""
    cmd = subparsers.add_parser("mlflow", help="MLflow tracking of tensorweave runs")
    actions = cmd.add_subparsers(dest="mlflow_command", required=True)
    what = "send what a run could not send to its MLflow server (RUN/mlflow-pending.json)"
    sync = actions.add_parser("sync", help=what, description=what)
    sync.add_argument("run", help="the run directory")
    sync.add_argument("--to", metavar="URI", help="another tracking server than the run's")
    sync.set_defaults(func=_sync)


def _sync(args: argparse.Namespace) -> int:
    from tensorweave_mlflow.resend import sync

    return sync(args.run, tracking_uri=args.to)
