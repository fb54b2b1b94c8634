"""Where this process stands in a training cluster: ``TF_CONFIG``, read, checked and written.

TensorFlow's multi-worker strategies read the cluster (every task's ``host:port``) and this
process's task from the ``TF_CONFIG`` environment variable, a JSON object::

    {"cluster": {"worker": ["10.0.0.1:12345", "10.0.0.2:12345"]},
     "task": {"type": "worker", "index": 0}}

``Cluster.from_env()`` reads it (``None`` when it is unset); ``cluster_config(workers, task)``
makes one from ``tensorweave train --workers HOST:PORT,HOST:PORT --task N`` (and ``--ps``,
``--chief`` for a parameter-server cluster), and ``Cluster.export()`` writes it for
TensorFlow. The chief is the ``chief`` task when the cluster has one, else worker 0: the
one process that writes the run directory, the store record and TensorBoard. Light (no
TensorFlow): the command line reads it before TensorFlow starts. Forming the cluster
(waiting for the peers) is ``runs.cluster.forming``: this module only says what the cluster
is, and checks it.

>>> c = Cluster.of(cluster_config("127.0.0.1:2222,127.0.0.1:2223", 1))
>>> c.task, c.is_chief, c.workers, c.chief_address
('worker:1', False, ['127.0.0.1:2222', '127.0.0.1:2223'], '127.0.0.1:2222')
>>> print(c.describe())
worker 1 of 2 (127.0.0.1:2223); the chief is worker 0 (127.0.0.1:2222)
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import tensorweave as tw

__all__ = [
    "TF_CONFIG",
    "Cluster",
    "ClusterError",
    "cluster_config",
    "validate_cluster",
]

TF_CONFIG = "TF_CONFIG"
_JOBS = ("chief", "worker", "ps")  # the task types tensorweave runs
_WRITTEN = "TENSORWEAVE_CLUSTER_FROM_WORKERS"  # the TF_CONFIG that --workers wrote


class ClusterError(tw.TensorweaveError):
    """``TF_CONFIG`` or ``--workers``/``--task`` do not describe a cluster this process
    can join: a usage error (exit code 2)."""

    exit_code = 2


_FIX = {
    "--workers": "Fix: --workers HOST:PORT,HOST:PORT --task N (one port per worker), "
    "--ps HOST:PORT,... and --chief HOST:PORT for a parameter-server cluster.",
    TF_CONFIG: 'Fix: TF_CONFIG=\'{"cluster": {"worker": ["host:port", "host:port"]}, '
    '"task": {"type": "worker", "index": 0}}\' (task types chief, worker, ps), or '
    "tensorweave train --workers HOST:PORT,... --task N instead.",
}


def _refuse(source: str, problem: str) -> ClusterError:
    return ClusterError(f"{source}: {problem}. {_FIX[source]}")


def _address(text: Any, where: str, source: str) -> str:
    if not isinstance(text, str):
        raise _refuse(source, f"{where} is {text!r}, not a HOST:PORT string")
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit():
        raise _refuse(source, f"{where} {text.strip()!r} is not HOST:PORT (no port)")
    if not 0 < int(port) < 65536:
        raise _refuse(source, f"{where} {text.strip()!r}: port {port} is not in 1..65535")
    return f"{host}:{int(port)}"


def validate_cluster(
    jobs: Any, task_type: Any, task_index: Any, *, source: str = TF_CONFIG
) -> tuple[dict[str, tuple[str, ...]], str, int]:
    """The one check of a cluster, whatever its ``source`` (``"TF_CONFIG"`` or
    ``"--workers"``): every job a list of ``HOST:PORT`` strings with a port in 1..65535,
    no address twice, known task types (chief, worker, ps, evaluator), and this task one of
    the cluster's. Returns ``(jobs, task_type, task_index)`` with the addresses normalised;
    raises a ``ClusterError`` naming the source and the fix.

    >>> validate_cluster({"worker": ["a:1", "a:1"]}, "worker", 0)
    Traceback (most recent call last):
    ...
    tensorweave_train.runs.cluster.spec.ClusterError: TF_CONFIG: the cluster lists a:1 twice ...
    """
    if not isinstance(jobs, Mapping) or not jobs:
        raise _refuse(source, f"the cluster is {jobs!r}, not a mapping of task types to lists")
    unknown = sorted(str(k) for k in jobs if k not in (*_JOBS, "evaluator"))
    if unknown:
        raise _refuse(source, f"unknown task type(s) {', '.join(unknown)} in the cluster")
    checked: dict[str, tuple[str, ...]] = {}
    for kind, tasks in jobs.items():
        if isinstance(tasks, str) or not isinstance(tasks, Sequence):
            raise _refuse(
                source, f"cluster.{kind} is {tasks!r}: a list of HOST:PORT is needed, not a string"
            )
        checked[kind] = tuple(
            _address(a, f"cluster.{kind}[{i}]", source) for i, a in enumerate(tasks)
        )
    if not checked.get("worker") and not checked.get("chief"):
        raise _refuse(source, "the cluster lists no worker")
    every = [a for tasks in checked.values() for a in tasks]
    twice = sorted({a for a in every if every.count(a) > 1})
    if twice:
        raise _refuse(
            source,
            f"the cluster lists {', '.join(twice)} twice (give each task its own host:port, "
            "one port per worker on one host)",
        )
    known = ", ".join(f"{k}:0..{len(v) - 1}" for k, v in checked.items())
    ok_index = isinstance(task_index, int) and not isinstance(task_index, bool)
    if isinstance(task_index, str) and task_index.strip().isdigit():
        task_index, ok_index = int(task_index), True
    if (
        not isinstance(task_type, str)
        or task_type not in checked
        or not ok_index
        or not 0 <= task_index < len(checked[task_type])
    ):
        if source == "--workers":
            given = task_index if task_type == "worker" else f"{task_type}:{task_index}"
            raise _refuse(
                source,
                f"--task {given}: not a task of this cluster ({known}); --task N is worker N "
                "(counted from 0), or TYPE:N (chief, ps:0)",
            )
        raise _refuse(
            source,
            f"task {task_type}:{task_index} is not a task of this cluster ({known}); "
            "task.type is one of the cluster's task types, task.index counts from 0",
        )
    return checked, task_type, int(task_index)


def cluster_config(
    workers: str | Sequence[str],
    task: str | int,
    *,
    ps: str | Sequence[str] = (),
    chief: str | None = None,
) -> dict[str, Any]:
    """The ``TF_CONFIG`` (as a dict) of ``--workers A,B --task N`` (``--ps``, ``--chief``).

    ``task`` is this process's worker index (``1``), or ``TYPE:INDEX`` (``ps:0``,
    ``chief``). Checked by ``validate_cluster``, as a ``TF_CONFIG`` is.

    >>> cluster_config("h1:1,h2:2", "1")["task"]
    {'type': 'worker', 'index': 1}
    """

    def split(value: str | Sequence[str]) -> list[str]:
        items = value.split(",") if isinstance(value, str) else list(value)
        return [a.strip() for a in items if a.strip()]

    jobs: dict[str, list[str]] = {}
    if chief:
        jobs["chief"] = [chief.strip()]
    jobs["worker"] = split(workers)
    if ps:
        jobs["ps"] = split(ps)
    if not jobs["worker"]:
        raise _refuse("--workers", "lists no worker")
    kind, _, index = str(task).strip().rpartition(":")
    kind = kind or ("chief" if index == "chief" else "worker")
    index = "0" if index == "chief" else index
    checked, kind, number = validate_cluster(
        jobs, kind, index if index.isdigit() else f"{index!r}", source="--workers"
    )
    return {
        "cluster": {k: list(v) for k, v in checked.items()},
        "task": {"type": kind, "index": number},
    }


@dataclass(frozen=True)
class Cluster:
    """A cluster and this process's task in it (see the module docstring)."""

    jobs: Mapping[str, tuple[str, ...]]
    task_type: str
    task_index: int
    source: str = field(default=TF_CONFIG, compare=False)  # in errors: TF_CONFIG or --workers

    @classmethod
    def of(cls, config: Mapping[str, Any] | str, *, source: str = TF_CONFIG) -> Cluster:
        """The cluster a ``TF_CONFIG`` (a dict or its JSON text) describes, checked by
        ``validate_cluster`` (``source`` names where it came from, in its errors)."""
        if isinstance(config, str):
            try:
                config = json.loads(config)
            except ValueError as err:
                raise _refuse(source, f"not valid JSON ({err})") from err
        if not isinstance(config, Mapping) or not isinstance(config.get("task"), Mapping):
            raise _refuse(
                source, 'not a cluster description: it needs "cluster" and "task" objects'
            )
        task = config["task"]
        jobs, kind, index = validate_cluster(
            config.get("cluster"), task.get("type"), task.get("index", 0), source=source
        )
        return cls(jobs, kind, index, source)

    @classmethod
    def from_env(cls) -> Cluster | None:
        """The cluster ``TF_CONFIG`` describes, or ``None`` when it is unset or empty."""
        text = os.environ.get(TF_CONFIG, "").strip()
        if not text:
            return None
        written = os.environ.get(_WRITTEN, "").strip() == text  # by --workers, unchanged
        return cls.of(text, source="--workers" if written else TF_CONFIG)

    def export(self) -> None:
        """Write this cluster into ``TF_CONFIG`` (what TensorFlow's strategies read)."""
        text = json.dumps(self.config())
        os.environ[TF_CONFIG] = text
        if self.source == "--workers":
            os.environ[_WRITTEN] = text
        else:
            os.environ.pop(_WRITTEN, None)

    def config(self) -> dict[str, Any]:
        """This cluster as ``TF_CONFIG`` holds it."""
        return {
            "cluster": {k: list(v) for k, v in self.jobs.items()},
            "task": {"type": self.task_type, "index": self.task_index},
        }

    @property
    def task(self) -> str:
        """This process's task, ``TYPE:INDEX``."""
        return f"{self.task_type}:{self.task_index}"

    @property
    def address(self) -> str:
        """This process's ``host:port``."""
        return self.jobs[self.task_type][self.task_index]

    @property
    def chief_task(self) -> tuple[str, int]:
        """The chief's task: the ``chief`` task, else worker 0."""
        return ("chief", 0) if self.jobs.get("chief") else ("worker", 0)

    @property
    def chief_address(self) -> str:
        """The chief's ``host:port``."""
        kind, index = self.chief_task
        return self.jobs[kind][index]

    @property
    def is_chief(self) -> bool:
        """Whether this process is the chief (the one that writes)."""
        return (self.task_type, self.task_index) == self.chief_task

    @property
    def workers(self) -> list[str]:
        """The addresses of the tasks that train, the chief first (chief, then workers)."""
        return [*self.jobs.get("chief", ()), *self.jobs.get("worker", ())]

    def describe(self) -> str:
        """One line: this task, and the chief."""
        kind, index = self.chief_task
        count = len(self.jobs[self.task_type])
        me = f"{self.task_type} {self.task_index} of {count} ({self.address})"
        if self.is_chief:
            return f"{me}, the chief"
        return f"{me}; the chief is {kind} {index} ({self.chief_address})"
