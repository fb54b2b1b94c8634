"""``MLflowLogger.v1``: a training's params, metrics, tags and files in an MLflow run.

A tensorweave-train callback. When training starts it creates an MLflow run in
``experiment`` on the tracking server ``tracking_uri`` (``None``: MLflow's own default,
``$MLFLOW_TRACKING_URI`` or ``./mlruns``) and logs:

- **params**: in a ``tensorweave train`` job the filled config, flattened (``model.nodes.h.n_units``;
  values cut to 500 characters: ``params.flatten``); in ``Model.train`` the loop's settings;
- **metrics**: ``step_loss`` every ``every_n_steps`` steps (at the global step), and every value
  of each epoch (``loss``, ``val_loss``, ``accuracy``, ``learning_rate``…, at the epoch number
  from 1, as ``log.csv``);
- **tags**: ``tensorweave.provider.<distribution>`` (the version) for every pack that provided
  a component of the config, ``tensorweave.run_dir``, ``tensorweave.kind``, ``tensorweave.version``;
- **artifacts** (in a job, when it ends): ``config.json``, ``summary.json``, ``log.csv``,
  ``source.toml``, the curves (``curves.svg``, as ``tensorweave plot``), and with
  ``log_model`` the exported model (``model/``, as ``tensorweave export``).

The run's id is written to ``RUN/mlflow.json``; ``tensorweave resume RUN`` goes on logging
to the same MLflow run. The training never fails because of MLflow: when the server does not
answer, the logger warns once, keeps every value and sends them when it answers again;
whatever is still unsent at the end is saved to ``mlflow-pending.json`` in the run directory
(``pending_file``), and ``tensorweave mlflow sync RUN`` sends it later.

>>> logger = MLflowLogger(tracking_uri="http://127.0.0.1:5000", every_n_steps=5)
>>> [t.event.name for t in logger.triggers]
['TRAIN_START', 'STEP_END', 'EPOCH_END', 'TRAIN_END']
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_mlflow.jobs import JobContext, job_of
from tensorweave_mlflow.outbox import PENDING_FILE, PENDING_FILES, RUN_FILE, Outbox, record_run
from tensorweave_mlflow.params import flatten, mlflow_key, provider_tags

__all__ = ["MLflowLogger", "MLflowUnreachableWarning", "previous_run"]

RUN_FILES = ("config.json", "summary.json", "log.csv", "source.toml", "processors.json")


class MLflowUnreachableWarning(UserWarning):
    """The MLflow tracking server did not take what the logger sent (training goes on)."""


class MLflowLogger(twt.Callback):
    """Log the training to an MLflow run: params, metrics per step and epoch, tags, files.

    Args:
        tracking_uri: the tracking server (``http://HOST:PORT``, ``sqlite:///mlflow.db``, a
            folder); ``None``: MLflow's default (``$MLFLOW_TRACKING_URI``, else ``./mlruns``).
        experiment: the MLflow experiment's name (made when missing).
        run_name: the MLflow run's name (default: the job's ``[run] name``, else MLflow's).
        log_model: upload the exported model (``tensorweave export``) when a job ends.
        every_n_steps: log the step's loss as ``step_loss`` every this many steps (``0``: never).
        pending_file: where unsent values are saved when the server is down at the end
            (default ``mlflow-pending.json`` in the run directory, or the working directory
            outside a ``tensorweave`` job).
    """

    priority = 60  # after the loop's own loggers (CSVLogger: 50)
    retry_seconds = 5.0  # after a failed send, the next try waits at least this long

    def __init__(
        self,
        tracking_uri: str | None = None,
        experiment: str = "tensorweave",
        run_name: str | None = None,
        log_model: bool = True,
        every_n_steps: int = 10,
        pending_file: twt.OutputPath | None = None,
    ) -> None:
        self.tracking_uri = tracking_uri
        self.experiment = str(experiment)
        self.run_name = run_name
        self.log_model = bool(log_model)
        self.every_n_steps = (
            tw.positive_int(every_n_steps, "every_n_steps", "MLflowLogger") if every_n_steps else 0
        )
        self.pending_file = pending_file
        steps = (twt.on_step(every=self.every_n_steps),) if self.every_n_steps else ()
        self.triggers = (twt.on_train("start"), *steps, twt.on_epoch(), twt.on_train("end"))
        self.outbox: Outbox | None = None
        self.job: JobContext | None = None
        self.warned = False
        self.recorded = False
        self.made: Path | None = None  # the curves and exported model made for the upload

    # -- the loop's events --------------------------------------------------------------
    def __call__(self, event: twt.Event, state: twt.TrainState) -> None:
        if not _writes(state):
            return
        if event is twt.Event.TRAIN_START:
            self.start(state)
            return
        if self.outbox is None:
            return
        if event is twt.Event.STEP_END and state.loss is not None:
            self.outbox.log_metric("step_loss", float(state.loss), step=state.step)
        elif event is twt.Event.EPOCH_END:
            for key, value in state.values.items():
                with contextlib.suppress(TypeError, ValueError):
                    self.outbox.log_metric(mlflow_key(key), float(value), step=state.epoch + 1)
        elif event is twt.Event.TRAIN_END and self.job is None:
            self.finish("FINISHED")  # in a job, tensorweave_job_ended finishes (with files)
            return
        self.send()

    def on_failure(self, error: BaseException, state: twt.TrainState) -> None:
        if self.outbox is not None and self.job is None:
            self.finish("KILLED" if isinstance(error, KeyboardInterrupt) else "FAILED")

    # -- the MLflow run -----------------------------------------------------------------
    def start(self, state: twt.TrainState) -> None:
        """Make the outbox of this training's MLflow run (resuming a job's run), with its
        params and tags, and try to send them."""
        self.job = job = job_of(state.model)
        if job is not None:
            job.loggers.append(self)
        name = self.run_name or _name(job, state)
        outbox = Outbox(self.tracking_uri, self.experiment, name, retry_seconds=self.retry_seconds)
        previous = previous_run(job, self.tracking_uri)
        if previous is not None:
            outbox.run_id, outbox.experiment_id = previous
        tags = {"tensorweave.version": tw.__version__}
        if job is not None:
            outbox.log_params(flatten(job.config))
            tags.update(provider_tags(job.config))
            tags.update({"tensorweave.run_dir": str(job.run_dir), "tensorweave.kind": job.kind})
        else:
            outbox.log_params({"epochs": str(state.epochs), "seed": str(state.seed)})
        outbox.set_tags(tags)
        self.outbox = outbox
        self.send()

    def send(self, *, force: bool = False) -> bool:
        """Send what the outbox holds; warn the first time the server does not take it."""
        assert self.outbox is not None
        sent = self.outbox.flush(force=force)
        if self.job is not None and self.outbox.run_id is not None and not self.recorded:
            self.recorded = True  # RUN/mlflow.json: the MLflow run of this run directory
            record_run(self.job.run_dir, self.outbox)
        if not sent and not self.warned:
            self.warned = True
            warnings.warn(
                f"tensorweave-mlflow: the MLflow tracking server {self.outbox.tracking_uri} did "
                f"not take the run's values ({self.outbox.last_error}). Training goes on; the "
                "logger keeps every value and sends them when the server answers again.",
                MLflowUnreachableWarning,
                stacklevel=2,
            )
        return sent

    def finish_job(self, job: JobContext, summary: Any, error: BaseException | None) -> None:
        """The job ended (``tensorweave_job_ended``): upload its files, end the MLflow run."""
        if self.outbox is None:
            return
        if error is None:
            if summary:
                for key, value in (summary.get("valid") or {}).items():
                    self.outbox.log_metric(mlflow_key(f"final_val_{key}"), value, step=0)
            self.add_files(job.run_dir)
        stopped = isinstance(error, KeyboardInterrupt | twt.Interrupted)  # Ctrl-C
        self.finish("FINISHED" if error is None else "KILLED" if stopped else "FAILED")

    def add_files(self, run_dir: Path) -> None:
        """Queue the run directory's files, its curves and (``log_model``) the exported model."""
        assert self.outbox is not None
        for name in RUN_FILES:
            if (run_dir / name).is_file():
                self.outbox.log_artifact(run_dir / name)
        made = self.made = Path(tempfile.mkdtemp(prefix="tensorweave-mlflow-"))
        curves = made / "curves.svg"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            from tensorweave.cli import main

            plotted = main(["plot", str(run_dir), "-o", str(curves)]) == 0
        if plotted and curves.is_file():
            self.outbox.log_artifact(curves)
        if self.log_model:
            try:
                exported = twt.export_run(run_dir, made / "model")
            except Exception as err:  # a model that does not export still gets its run logged
                warnings.warn(
                    f"tensorweave-mlflow: the model of {run_dir} was not exported ({err}); the "
                    "MLflow run has its other files.",
                    stacklevel=2,
                )
            else:
                self.outbox.log_artifact(exported, "model")

    def finish(self, status: str) -> None:
        """End the MLflow run with ``status``; save what the server did not take."""
        assert self.outbox is not None
        self.outbox.status = status
        if self.send(force=True):
            if self.made is not None:
                shutil.rmtree(self.made, ignore_errors=True)
            return
        path = self.pending_path()
        if self.made is not None:  # keep what was made for the upload beside the file
            kept = path.parent / PENDING_FILES
            shutil.rmtree(kept, ignore_errors=True)
            shutil.move(self.made, kept)
            made = str(self.made)
            self.outbox.artifacts = [
                (str(kept) + p[len(made) :] if p.startswith(made) else p, under)
                for p, under in self.outbox.artifacts
            ]
        count = self.outbox.pending()
        self.outbox.save(path)
        where = self.job.run_dir if self.job is not None else path
        warnings.warn(
            f"tensorweave-mlflow: {count} values (params, tags, metric values, files, the "
            f"run's end) were not sent to the MLflow tracking server {self.outbox.tracking_uri} "
            f"({self.outbox.last_error}); they are saved in {path}. Send them when the server "
            f"is back: tensorweave mlflow sync {where}",
            MLflowUnreachableWarning,
            stacklevel=2,
        )

    def pending_path(self) -> Path:
        """Where unsent values are saved (``pending_file``)."""
        base = self.job.run_dir if self.job is not None else Path.cwd()
        return base / (os.fspath(self.pending_file) if self.pending_file else PENDING_FILE)


def _writes(state: twt.TrainState) -> bool:
    """One process, or the chief of several workers (the others' values are the same)."""
    return state.model is None or twt.is_chief(state.model.strategy)


def _name(job: JobContext | None, state: twt.TrainState) -> str | None:
    if job is not None and job.name:
        return job.name
    return getattr(state.model, "name", None) or None


def previous_run(job: JobContext | None, tracking_uri: str | None) -> tuple[str, str] | None:
    """A resumed job's MLflow run (``RUN/mlflow.json``, same server), to log on to it."""
    if job is None or job.kind != "resume" or not (job.run_dir / RUN_FILE).is_file():
        return None
    record = json.loads((job.run_dir / RUN_FILE).read_text())
    if record.get("tracking_uri") != tracking_uri or not record.get("run_id"):
        return None
    return str(record["run_id"]), str(record["experiment_id"])
