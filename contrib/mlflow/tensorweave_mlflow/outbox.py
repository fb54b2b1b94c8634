"""What goes to an MLflow tracking server, kept until the server has taken it.

An ``Outbox`` holds one MLflow run's params, tags, metric values (with the time and step
they were measured at), artifacts and end status. ``flush()`` sends what it holds in
batches within MLflow's limits and forgets each batch the server took; when the server
cannot be reached it keeps everything and tries again on a later ``flush`` (after
``retry_seconds``), so a server that comes back before the end loses nothing. What is
still unsent at the end is written by ``save(path)`` to a JSON file that ``Outbox.load`` (and
``tensorweave mlflow sync RUN``) sends later.

MLflow's client retries a failed request up to 7 times with a backoff of minutes; the outbox
does its own retrying instead, so its requests use ``MLFLOW_HTTP_REQUEST_MAX_RETRIES=0`` and
a 10-second timeout, unless those variables are set in the environment.

No network here, no TensorFlow:

>>> box = Outbox("http://127.0.0.1:9", experiment="demo", run_name="r")
>>> box.log_metric("loss", 0.5, step=1)
>>> box.log_params({"lr": "0.1"}); box.set_tags({"tensorweave.kind": "train"})
>>> box.pending()
3
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Outbox", "PENDING_FILE", "PENDING_FILES", "RUN_FILE", "record_run"]

PENDING_FILE = "mlflow-pending.json"  # in a run directory: what the server did not take
PENDING_FILES = "mlflow-pending-files"  # beside it: the curves and model made for the upload
RUN_FILE = "mlflow.json"  # in a run directory: the MLflow run it was logged to
_PER_BATCH = 100  # params or tags per log_batch (MLflow's limit)
_METRICS_PER_BATCH = 1000
EXPERIMENT_TAGS = {"mlflow.experimentKind": "custom_model_development"}
_QUICK = {"MLFLOW_HTTP_REQUEST_MAX_RETRIES": "0", "MLFLOW_HTTP_REQUEST_TIMEOUT": "10"}


@contextlib.contextmanager
def _quick_requests() -> Iterator[None]:
    """MLflow's HTTP settings for one call: no retries of its own (the outbox retries)."""
    saved = {k: os.environ.get(k) for k in _QUICK}
    for key, value in _QUICK.items():
        if saved[key] is None:
            os.environ[key] = value
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)


@dataclass
class Outbox:
    """One MLflow run's values, sent to ``tracking_uri`` in batches, kept while it is down.

    Attributes:
        run_id: the MLflow run (``None`` until the server has created it).
        failures: how many sends failed; ``last_error`` the latest reason.
    """

    tracking_uri: str | None
    experiment: str = "tensorweave"
    run_name: str | None = None
    run_id: str | None = None
    experiment_id: str | None = None
    retry_seconds: float = 5.0
    params: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    metrics: list[tuple[str, float, int, int]] = field(default_factory=list)
    artifacts: list[tuple[str, str | None]] = field(default_factory=list)
    status: str | None = None  # FINISHED, FAILED, KILLED: sent last
    failures: int = 0
    last_error: str = ""
    sent_metrics: int = 0
    _next_try: float = 0.0

    # -- what to send -------------------------------------------------------------------
    def log_metric(self, key: str, value: float, step: int, timestamp: int | None = None) -> None:
        """A metric value at ``step``, timed now (milliseconds, as MLflow's)."""
        stamp = int(time.time() * 1000) if timestamp is None else int(timestamp)
        self.metrics.append((key, float(value), stamp, int(step)))

    def log_params(self, params: Mapping[str, str]) -> None:
        self.params.update(params)

    def set_tags(self, tags: Mapping[str, str]) -> None:
        self.tags.update(tags)

    def log_artifact(self, path: str | os.PathLike[str], artifact_path: str | None = None) -> None:
        """A file or a folder (its contents under ``artifact_path``) to upload."""
        self.artifacts.append((os.fspath(path), artifact_path))

    def pending(self) -> int:
        """How many values (params, tags, metric values, artifacts, the end status) are unsent."""
        status = 1 if self.status is not None else 0
        return len(self.params) + len(self.tags) + len(self.metrics) + len(self.artifacts) + status

    # -- sending ------------------------------------------------------------------------
    def client(self) -> Any:
        from mlflow.tracking import MlflowClient

        return MlflowClient(tracking_uri=self.tracking_uri)

    def flush(self, *, force: bool = False) -> bool:
        """Send everything held; ``True`` when nothing is left. After a failure, waits
        ``retry_seconds`` before trying again unless ``force``."""
        if not self.pending() and self.run_id is not None:
            return True
        if not force and time.monotonic() < self._next_try:
            return False
        try:
            with _quick_requests():
                self._send()
        except Exception as err:  # any failure of the server or the network: keep it all
            self.failures += 1
            self.last_error = (
                f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            )
            self._next_try = time.monotonic() + self.retry_seconds
            return False
        self._next_try = 0.0
        return True

    def _send(self) -> None:
        client = self.client()
        if self.run_id is None:
            self._create_run(client)
        from mlflow.entities import Metric, Param, RunTag

        assert self.run_id is not None
        while self.params:
            keys = list(self.params)[:_PER_BATCH]
            client.log_batch(self.run_id, params=[Param(k, self.params[k]) for k in keys])
            for key in keys:
                del self.params[key]
        while self.tags:
            keys = list(self.tags)[:_PER_BATCH]
            client.log_batch(self.run_id, tags=[RunTag(k, self.tags[k]) for k in keys])
            for key in keys:
                del self.tags[key]
        while self.metrics:
            chunk = self.metrics[:_METRICS_PER_BATCH]
            client.log_batch(self.run_id, metrics=[Metric(k, v, t, s) for k, v, t, s in chunk])
            del self.metrics[: len(chunk)]
            self.sent_metrics += len(chunk)
        while self.artifacts:
            path, under = self.artifacts[0]
            if os.path.isdir(path):
                client.log_artifacts(self.run_id, path, under)
            elif os.path.exists(path):
                client.log_artifact(self.run_id, path, under)
            del self.artifacts[0]  # a file gone since is nothing to send
        if self.status is not None:
            client.set_terminated(self.run_id, self.status)
            self.status = None

    def _create_run(self, client: Any) -> None:
        found = client.get_experiment_by_name(self.experiment)
        if found is None:  # tagged a model-training experiment (mlflow.experimentKind)
            self.experiment_id = client.create_experiment(self.experiment, tags=EXPERIMENT_TAGS)
        else:
            self.experiment_id = found.experiment_id
        run = client.create_run(self.experiment_id, run_name=self.run_name)
        self.run_id = run.info.run_id

    # -- what is left, on disk ----------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write what is unsent to ``path`` (JSON), for ``Outbox.load`` / ``tensorweave
        mlflow sync``."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "tracking_uri": self.tracking_uri,
            "experiment": self.experiment,
            "run_name": self.run_name,
            "run_id": self.run_id,
            "experiment_id": self.experiment_id,
            "params": self.params,
            "tags": self.tags,
            "metrics": [list(m) for m in self.metrics],
            "artifacts": [list(a) for a in self.artifacts],
            "status": self.status,
            "last_error": self.last_error,
        }
        out.write_text(json.dumps(record, indent=1) + "\n")
        return out

    @classmethod
    def load(cls, path: str | os.PathLike[str], tracking_uri: str | None = None) -> Outbox:
        """The outbox ``save`` wrote (to the server it names, or ``tracking_uri``).

        >>> import tempfile
        >>> box = Outbox("http://127.0.0.1:9", run_id="abc")
        >>> box.log_metric("loss", 0.25, step=3, timestamp=1000)
        >>> again = Outbox.load(box.save(Path(tempfile.mkdtemp()) / "p.json"))
        >>> again.run_id, again.metrics
        ('abc', [('loss', 0.25, 1000, 3)])
        """
        record = json.loads(Path(path).read_text())
        return cls(
            tracking_uri=tracking_uri or record["tracking_uri"],
            experiment=record["experiment"],
            run_name=record["run_name"],
            run_id=record["run_id"],
            experiment_id=record.get("experiment_id"),
            params=dict(record["params"]),
            tags=dict(record["tags"]),
            metrics=[(str(k), float(v), int(t), int(s)) for k, v, t, s in record["metrics"]],
            artifacts=[(str(p), a) for p, a in record["artifacts"]],
            status=record["status"],
        )


def record_run(run_dir: Path, outbox: Outbox) -> Path:
    """Write ``RUN/mlflow.json``: the tracking server, experiment and run of ``run_dir``."""
    record = {
        "tracking_uri": outbox.tracking_uri,
        "experiment_id": outbox.experiment_id,
        "run_id": outbox.run_id,
    }
    path = Path(run_dir) / RUN_FILE
    path.write_text(json.dumps(record, indent=1) + "\n")
    return path
