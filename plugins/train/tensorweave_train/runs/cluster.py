"""Where this process stands in a training cluster: ``TF_CONFIG``, read and written.

TensorFlow's multi-worker strategies read the cluster (every task's ``host:port``) and this
process's task from the ``TF_CONFIG`` environment variable, a JSON object::

    {"cluster": {"worker": ["10.0.0.1:12345", "10.0.0.2:12345"]},
     "task": {"type": "worker", "index": 0}}

``Cluster.from_env()`` reads it (``None`` when it is unset); ``cluster_config(workers, task)``
makes one from ``tensorweave train --workers HOST:PORT,HOST:PORT --task N`` (and ``--ps``,
``--chief`` for a parameter-server cluster), and ``Cluster.export()`` writes it for
TensorFlow. The chief is the ``chief`` task when the cluster has one, else worker 0: the
one process that writes the run directory, the store record and TensorBoard. Light (no
TensorFlow): the command line reads it before TensorFlow starts.

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
from dataclasses import dataclass
from typing import Any

import tensorweave as tw

__all__ = ["TF_CONFIG", "Cluster", "ClusterError", "cluster_config"]

TF_CONFIG = "TF_CONFIG"
_JOBS = ("chief", "worker", "ps")  # the task types tensorweave runs


class ClusterError(tw.TensorweaveError):
    """``TF_CONFIG`` or ``--workers``/``--task`` do not describe a cluster this process
    can join: a usage error (exit code 2)."""

    exit_code = 2


def _address(text: str, what: str) -> str:
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(
            f"{what}: {text.strip()!r} is not HOST:PORT. Fix: give each task as host:port, "
            "e.g. --workers 10.0.0.1:12345,10.0.0.2:12345."
        )
    return f"{host}:{int(port)}"


def _addresses(value: str | Sequence[str], what: str) -> list[str]:
    items = value.split(",") if isinstance(value, str) else list(value)
    return [_address(a, what) for a in items if a.strip()]


def cluster_config(
    workers: str | Sequence[str],
    task: str | int,
    *,
    ps: str | Sequence[str] = (),
    chief: str | None = None,
) -> dict[str, Any]:
    """The ``TF_CONFIG`` (as a dict) of ``--workers A,B --task N`` (``--ps``, ``--chief``).

    ``task`` is this process's worker index (``1``), or ``TYPE:INDEX`` (``ps:0``,
    ``chief``). Every address is checked, and the task must be one of the cluster's.

    >>> cluster_config("h1:1,h2:2", "1")["task"]
    {'type': 'worker', 'index': 1}
    """
    jobs: dict[str, list[str]] = {}
    if chief:
        jobs["chief"] = [_address(chief, "--chief")]
    jobs["worker"] = _addresses(workers, "--workers")
    if ps:
        jobs["ps"] = _addresses(ps, "--ps")
    if not jobs["worker"]:
        raise ClusterError("--workers lists no worker. Fix: --workers HOST:PORT,HOST:PORT.")
    every = [a for tasks in jobs.values() for a in tasks]
    twice = sorted({a for a in every if every.count(a) > 1})
    if twice:
        raise ClusterError(
            f"the cluster lists {', '.join(twice)} twice. Fix: give each task its own "
            "host:port (one port per worker on one host)."
        )
    kind, _, index = str(task).strip().rpartition(":")
    kind = kind or ("chief" if index == "chief" else "worker")
    index = "0" if index == "chief" else index
    if not index.isdigit() or kind not in jobs or int(index) >= len(jobs[kind]):
        known = ", ".join(f"{k}:0..{len(v) - 1}" for k, v in jobs.items())
        raise ClusterError(
            f"--task {task}: not a task of this cluster ({known}). Fix: --task N for worker "
            "N (counted from 0), or TYPE:N (chief, ps:0)."
        )
    return {"cluster": jobs, "task": {"type": kind, "index": int(index)}}


@dataclass(frozen=True)
class Cluster:
    """A cluster and this process's task in it (see the module docstring)."""

    jobs: Mapping[str, tuple[str, ...]]
    task_type: str
    task_index: int

    @classmethod
    def of(cls, config: Mapping[str, Any] | str) -> Cluster:
        """The cluster a ``TF_CONFIG`` (a dict or its JSON text) describes."""
        try:
            data = json.loads(config) if isinstance(config, str) else dict(config)
            jobs = {str(k): tuple(str(a) for a in v) for k, v in data["cluster"].items()}
            task = data["task"]
            kind, index = str(task["type"]), int(task.get("index", 0))
        except (ValueError, TypeError, KeyError, AttributeError) as err:
            raise ClusterError(
                f"{TF_CONFIG} is not a cluster description ({type(err).__name__}: {err}). "
                'Fix: {"cluster": {"worker": ["host:port", ...]}, "task": {"type": "worker", '
                '"index": 0}}, or tensorweave train --workers HOST:PORT,... --task N.'
            ) from err
        unknown = sorted(set(jobs) - set(_JOBS) - {"evaluator"})
        if unknown or kind not in jobs or not 0 <= index < len(jobs[kind]):
            raise ClusterError(
                f"{TF_CONFIG}: task {kind}:{index} is not in its cluster "
                f"{ {k: list(v) for k, v in jobs.items()} }"
                + (f" (unknown task types: {', '.join(unknown)})" if unknown else "")
                + ". Fix: name a task of the cluster (types chief, worker, ps)."
            )
        return cls(jobs, kind, index)

    @classmethod
    def from_env(cls) -> Cluster | None:
        """The cluster ``TF_CONFIG`` describes, or ``None`` when it is unset or empty."""
        text = os.environ.get(TF_CONFIG, "").strip()
        return cls.of(text) if text else None

    def export(self) -> None:
        """Write this cluster into ``TF_CONFIG`` (what TensorFlow's strategies read)."""
        os.environ[TF_CONFIG] = json.dumps(self.config())

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
