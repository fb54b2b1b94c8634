"""``tensorweave mlflow sync RUN``: send what a run's logger could not send.

When the MLflow tracking server was down at the end of a training, ``MLflowLogger`` saved
the unsent params, tags, metric values (with their original steps and times), files and the
run's end to ``RUN/mlflow-pending.json``. ``sync`` sends them to the server the run used
(or ``tracking_uri``), into the same MLflow run (made now if the server never saw it), and
deletes the file (and ``RUN/mlflow-pending-files/``, the curves and exported model made for
the upload) once everything is sent. No TensorFlow.

>>> import tempfile
>>> sync(tempfile.mkdtemp())
nothing to send: ... has no mlflow-pending.json
0
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import tensorweave as tw
from tensorweave_mlflow.outbox import PENDING_FILE, PENDING_FILES, Outbox, record_run

__all__ = ["MLflowSyncError", "sync"]


class MLflowSyncError(tw.TensorweaveError):
    """``tensorweave mlflow sync`` could not send a run's pending values."""


def sync(run: str | os.PathLike[str], tracking_uri: str | None = None) -> int:
    """Send ``run``'s ``mlflow-pending.json``; 0 when sent (or nothing was pending)."""
    run_dir = Path(run)
    if not run_dir.is_dir():
        raise MLflowSyncError(
            f"tensorweave mlflow sync: {run_dir} is not a run directory (no such folder). "
            "Fix: give the run directory `tensorweave train` printed."
        )
    path = run_dir / PENDING_FILE
    if not path.is_file():
        print(f"nothing to send: {run_dir} has no {PENDING_FILE}")
        return 0
    outbox = Outbox.load(path, tracking_uri=tracking_uri)
    count = outbox.pending()
    if not outbox.flush(force=True):
        outbox.save(path)  # what was sent is no longer in it
        raise MLflowSyncError(
            f"tensorweave mlflow sync: the MLflow tracking server {outbox.tracking_uri} did not "
            f"take {run_dir}'s values ({outbox.last_error}); {outbox.pending()} of {count} are "
            f"still in {path}. Fix: start the server (or give another with --to URI) and run "
            "this again."
        )
    record_run(run_dir, outbox)
    path.unlink()
    shutil.rmtree(run_dir / PENDING_FILES, ignore_errors=True)
    print(
        f"sent {count} values of {run_dir} to {outbox.tracking_uri} "
        f"(experiment {outbox.experiment_id}, run {outbox.run_id})"
    )
    return 0
