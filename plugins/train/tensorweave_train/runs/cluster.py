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

import contextlib
import errno
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import tensorweave as tw

__all__ = [
    "TF_CONFIG",
    "CLUSTER_TIMEOUT_ENV",
    "DEFAULT_CLUSTER_TIMEOUT",
    "EXIT_CLUSTER_TIMEOUT",
    "Cluster",
    "ClusterError",
    "ClusterTimeout",
    "WorkerInterrupted",
    "WorkerTerminated",
    "cluster_config",
    "cluster_timeout",
    "claim_port",
    "reachable",
    "stop_on_signals",
    "validate_cluster",
    "wait_for_peers",
    "warn_exposure",
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
    tensorweave_train.runs.cluster.ClusterError: TF_CONFIG: the cluster lists a:1 twice ...
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


# -- forming the cluster: a taken port named, a deadline, signals that stop a waiting worker

CLUSTER_TIMEOUT_ENV = "TENSORWEAVE_CLUSTER_TIMEOUT"  # what --cluster-timeout writes
DEFAULT_CLUSTER_TIMEOUT = 300.0  # seconds a worker waits for its peers
EXIT_CLUSTER_TIMEOUT = 75  # sysexits' EX_TEMPFAIL: the cluster did not form; try again
_POLL = 0.25  # seconds between looks at the missing peers
_SAY_AFTER = 3.0  # a worker still waiting after this long says whom it waits for


class ClusterTimeout(tw.TensorweaveError):
    """The cluster did not form within ``--cluster-timeout`` seconds: some peers never
    answered (exit code 75)."""

    exit_code = EXIT_CLUSTER_TIMEOUT


class WorkerInterrupted(tw.TensorweaveError):
    """Ctrl-C (SIGINT) stopped a worker waiting for its peers (exit code 130)."""

    exit_code = 130


class WorkerTerminated(tw.TensorweaveError):
    """SIGTERM stopped a worker waiting for its peers (exit code 143)."""

    exit_code = 143


def cluster_timeout(value: float | str | None = None) -> float:
    """The start-up deadline in seconds: ``value``, else ``$TENSORWEAVE_CLUSTER_TIMEOUT``
    (what ``--cluster-timeout`` writes), else 300.

    >>> cluster_timeout("5"), cluster_timeout(None) > 0
    (5.0, True)
    """
    raw = value if value is not None else os.environ.get(CLUSTER_TIMEOUT_ENV, "").strip()
    if raw in (None, ""):
        return DEFAULT_CLUSTER_TIMEOUT
    try:
        seconds = float(raw)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise ClusterError(
            f"--cluster-timeout {raw!r} ({CLUSTER_TIMEOUT_ENV}) is not a number of seconds "
            "above 0. Fix: --cluster-timeout 300 (how long a worker waits for its peers)."
        )
    return seconds


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


def reachable(address: str, timeout: float = 1.0) -> bool:
    """Whether something accepts a TCP connection at ``host:port``."""
    try:
        with socket.create_connection(_split(address), timeout=timeout):
            return True
    except OSError:
        return False


def _describe_task(cluster: Cluster, kind: str, index: int) -> str:
    return f"{kind} {index} ({cluster.jobs[kind][index]})"


def claim_port(cluster: Cluster) -> socket.socket:
    """A socket listening on this task's port, on every interface as TensorFlow's server
    will (so a port any process holds is found): peers see this task is up before
    TensorFlow starts. Raises a ``ClusterError`` naming the port when it is taken."""
    host, port = _split(cluster.address)
    families = [socket.AF_INET6, socket.AF_INET] if socket.has_ipv6 else [socket.AF_INET]
    error: OSError | None = None
    for family in families:
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", port))
            sock.listen(64)
            return sock
        except OSError as err:
            sock.close()
            if err.errno == errno.EADDRINUSE:
                me = _describe_task(cluster, cluster.task_type, cluster.task_index)
                raise ClusterError(
                    f"port {port} on {host} is in use by another process ({me} of "
                    f"{cluster.source}: {cluster.address}): choose a free port for this task "
                    "(or stop what holds it: ss -ltnp 'sport = :" + str(port) + "')."
                ) from err
            error = err
    raise ClusterError(
        f"cannot listen on port {port} for {cluster.task} ({cluster.address}): {error}. "
        "Fix: choose a port this host may listen on (1024..65535)."
    )


def _peers(cluster: Cluster) -> list[tuple[str, int]]:
    return [
        (kind, i)
        for kind, tasks in cluster.jobs.items()
        if kind != "evaluator"
        for i in range(len(tasks))
        if (kind, i) != (cluster.task_type, cluster.task_index)
    ]


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Ctrl-C (SIGINT) and SIGTERM raise ``WorkerInterrupted`` / ``WorkerTerminated``
    (exit 130 / 143) in here; the handlers before are restored after. Main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, _frame: Any) -> None:
        kind = WorkerInterrupted if signum == signal.SIGINT else WorkerTerminated
        name = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        raise kind(f"{name}: stopped while waiting for the cluster to form; nothing was written.")

    before = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


def wait_for_peers(
    cluster: Cluster,
    timeout: float | None = None,
    *,
    say: Callable[[str], None] | None = None,
) -> float:
    """Listen on this task's port (``claim_port``: a taken port is named) and wait until
    every other task of ``cluster`` accepts a TCP connection; return the seconds left of
    the ``timeout`` (``cluster_timeout()``). After ``timeout`` seconds raise a
    ``ClusterTimeout`` naming the peers that never answered. Ctrl-C and SIGTERM stop the
    wait at once (``stop_on_signals``). TensorFlow's own wait for its peers holds the
    interpreter and ignores both: this wait, before it, is the one a worker spends."""
    seconds = cluster_timeout(timeout)
    say = say if say is not None else _stderr
    deadline = time.monotonic() + seconds
    said = time.monotonic() + _SAY_AFTER
    with stop_on_signals():
        listener = claim_port(cluster)
        try:
            missing = _peers(cluster)
            while missing:
                missing = [t for t in missing if not reachable(cluster.jobs[t[0]][t[1]], 0.5)]
                now = time.monotonic()
                if not missing:
                    break
                names = ", ".join(_describe_task(cluster, k, i) for k, i in missing)
                if now >= deadline:
                    raise ClusterTimeout(
                        f"the cluster did not form within {seconds:g}s (--cluster-timeout): "
                        f"{cluster.task} ({cluster.address}) never reached {names}. Fix: start "
                        "every worker with the same --workers (each with its own --task), "
                        "check that these hosts and ports are reachable from here (firewall), "
                        "or give them longer: --cluster-timeout SECONDS."
                    )
                if now >= said:
                    say(
                        f"{cluster.task}: waiting for {names} (at most {deadline - now:.0f}s "
                        "more; --cluster-timeout)"
                    )
                    said = now + 30.0
                time.sleep(_POLL)
        finally:
            listener.close()
    return max(0.0, deadline - time.monotonic())


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


EXPOSURE_WARNING = (
    "warning: the worker's TensorFlow server on port {port} accepts unauthenticated "
    "connections from every network interface; run the cluster on a trusted network or "
    "firewall the ports: see docs/security.md"
)
_WARNED = "TENSORWEAVE_CLUSTER_WARNED"  # a worker restarting itself does not say it again


def warn_exposure(cluster: Cluster, say: Callable[[str], None] | None = None) -> None:
    """Say, once per worker, that TensorFlow's server listens on every interface with no
    authentication (TensorFlow offers no bind address nor credentials for it)."""
    if os.environ.get(_WARNED) == cluster.address:
        return
    os.environ[_WARNED] = cluster.address
    (say or _stderr)(EXPOSURE_WARNING.format(port=_split(cluster.address)[1]))
