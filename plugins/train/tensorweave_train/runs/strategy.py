"""A job's ``tf.distribute`` strategy, from ``[train] strategy``, made before anything is built.

- ``default``: one process, TensorFlow's own device placement (no strategy);
- ``mirrored``: ``tf.distribute.MirroredStrategy`` over this machine's devices (every GPU,
  else the CPU; ``[train] devices`` names them, and naming more CPUs than there are splits
  the CPU into that many logical devices, to try it on a laptop);
- ``multi_worker``: ``tf.distribute.MultiWorkerMirroredStrategy``, one process per worker,
  the cluster from ``TF_CONFIG`` (``runs.cluster.spec``); every worker must start it;
- ``parameter_server``: ``tf.distribute.ParameterServerStrategy``: the chief (the
  coordinator) trains, the ``worker`` and ``ps`` tasks serve it (``serve``) until it is done.

``distribution(name, devices)`` makes one, as a ``Distribution`` (the strategy, this
process's place in the cluster, and what a run records of them). The multi-worker
strategies must exist before TensorFlow runs anything in the process, so the job makes
its distribution first. A cluster task first waits for its peers in Python
(``runs.cluster.forming.wait_for_peers``: a taken port named, ``--cluster-timeout``, Ctrl-C and
SIGTERM obeyed), then starts TensorFlow's server inside ``tensorflow_wait`` (TensorFlow's
wait holds the interpreter). ``peer_failure(error)`` tells a lost worker (a collective that
another task stopped answering) from other errors: the command restarts such a worker.

>>> d = distribution("default")
>>> d.replicas, d.is_chief, d.summary()
(1, True, {'strategy': 'default', 'replicas': 1})
"""

from __future__ import annotations

import contextlib
import math
import re
import signal
import socket
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_train.runs.cluster.forming import wait_for_peers, warn_exposure
from tensorweave_train.runs.cluster.spec import Cluster, ClusterError

__all__ = [
    "STRATEGIES",
    "Distribution",
    "distribution",
    "split_cpu",
    "peer_failure",
    "serve",
    "tensorflow_wait",
]

STRATEGIES = ("default", "mirrored", "multi_worker", "parameter_server")
_SERVE_POLL = 1.0  # seconds between looks at the chief (a serving parameter-server task)
SERVE_GRACE = 10.0  # a serving task stops once the chief it saw has been gone this long
TF_WAIT_AT_LEAST = 60.0  # seconds TensorFlow may take to form a cluster whose peers answered


@dataclass
class Distribution:
    """A job's strategy and this process's place (see the module docstring)."""

    name: str
    strategy: tf.distribute.Strategy
    cluster: Cluster | None = None

    @property
    def is_chief(self) -> bool:
        """Whether this process writes (the run directory, the store, TensorBoard)."""
        return self.cluster is None or self.cluster.is_chief

    @property
    def serves(self) -> bool:
        """Whether this process is a ``parameter_server`` task that only serves the chief."""
        return self.name == "parameter_server" and not self.is_chief

    @property
    def replicas(self) -> int:
        """How many replicas share each global batch."""
        return int(self.strategy.num_replicas_in_sync)

    @property
    def workers(self) -> list[str]:
        """The addresses of the cluster's training tasks, the chief first (none in one process)."""
        return self.cluster.workers if self.cluster is not None else []

    def scope(self) -> contextlib.AbstractContextManager[Any]:
        """Build the model in here (variables placed by the strategy)."""
        if self.name == "default":
            return contextlib.nullcontext()
        return self.strategy.scope()

    def summary(self) -> dict[str, Any]:
        """What a run records of it: the strategy, the replicas, the workers (chief first)
        and, on a cluster, what its TensorFlow servers exposed on the network."""
        out: dict[str, Any] = {"strategy": self.name, "replicas": self.replicas}
        if self.cluster is not None:
            out["workers"] = self.workers
            out["chief"] = self.cluster.chief_address
            ports = sorted({a.rpartition(":")[2] for t in self.cluster.jobs.values() for a in t})
            out["network"] = (  # the run records what its cluster exposed (docs/security.md)
                f"TensorFlow servers listened on port(s) {', '.join(ports)} of every interface "
                "of each host, unauthenticated"
            )
        return out

    def describe(self) -> str:
        """One line for the console."""
        where = f"; {self.cluster.describe()}" if self.cluster is not None else ""
        return f"strategy {self.name}: {self.replicas} replica(s){where}"


def split_cpu(count: int) -> None:
    """Make the CPU ``count`` logical devices (``/cpu:0`` … ``/cpu:{count-1}``), as many as
    ``MirroredStrategy`` needs to mirror over them; nothing when there are enough. Must run
    before TensorFlow starts in the process."""
    cpu = tf.config.list_physical_devices("CPU")[0]
    have = tf.config.get_logical_device_configuration(cpu)  # None: the one CPU device
    if (len(have) if have else 1) >= count:
        return
    try:
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration() for _ in range(count)]
        )
    except RuntimeError as err:
        raise tw.TensorweaveError(
            f"cannot split the CPU into {count} devices: TensorFlow already started in this "
            f"process ({err}). Fix: make the distribution before building anything (a job "
            "does), or call tensorweave_train.runs.strategy.split_cpu first."
        ) from err


def _devices(devices: Sequence[str] | None) -> list[str] | None:
    if not devices:
        return None
    cpus = [d for d in devices if re.search(r"(^|/)(device:)?cpu:\d+$", d.lower())]
    if cpus:
        split_cpu(1 + max(int(d.rsplit(":", 1)[1]) for d in cpus))
    return list(devices)


def _cluster(name: str) -> Cluster:
    cluster = Cluster.from_env()
    if cluster is None:
        raise ClusterError(
            f"[train] strategy = {name!r} needs the cluster: TF_CONFIG is not set. Fix: run "
            "every worker with tensorweave train ... --workers HOST:PORT,HOST:PORT --task N "
            "(N = 0, 1, ...), or set TF_CONFIG; see docs/distributed.md."
        )
    return cluster


def distribution(
    name: str = "default", devices: Sequence[str] | None = None, *, timeout: float | None = None
) -> Distribution:
    """The ``Distribution`` of ``[train] strategy = name`` (and ``devices``, for
    ``mirrored``); see the module docstring. A multi-worker strategy waits here until every
    task of the cluster answers (``wait_for_peers``), at most ``timeout`` seconds (default
    ``cluster_timeout()``: ``--cluster-timeout``, else 300), then raises ``ClusterTimeout``
    naming the missing peers; Ctrl-C and SIGTERM stop the wait (exit 130, 143)."""
    if name == "default":
        if devices:
            raise tw.ArgumentError(
                "[train] devices needs a strategy that spreads over them. Fix: "
                "--train.strategy=mirrored (or leave devices empty)."
            )
        return Distribution(name, tf.distribute.get_strategy())
    if name == "mirrored":
        return Distribution(name, tf.distribute.MirroredStrategy(_devices(devices)))
    if name not in STRATEGIES:
        raise tw.ArgumentError(
            f"unknown strategy {name!r}. Fix: [train] strategy = one of {', '.join(STRATEGIES)}."
        )
    if devices:
        raise tw.ArgumentError(
            f"[train] devices is for the mirrored strategy; {name} uses every GPU of each "
            "worker (else its CPU). Fix: leave devices empty."
        )
    cluster = _cluster(name)
    cluster.export()  # what TensorFlow reads, the same as what was checked
    if name == "multi_worker" and cluster.jobs.get("ps"):
        raise ClusterError(
            "multi_worker: the cluster has ps tasks. Fix: --train.strategy="
            "parameter_server for a parameter-server cluster, or drop the ps tasks."
        )
    if name == "parameter_server" and (
        not cluster.jobs.get("ps") or not cluster.jobs.get("worker") or "chief" not in cluster.jobs
    ):
        raise ClusterError(
            "parameter_server needs a chief, workers and ps tasks. Fix: --chief HOST:PORT "
            "--workers HOST:PORT,... --ps HOST:PORT,... --task chief|worker:N|ps:N."
        )
    warn_exposure(cluster)
    left = wait_for_peers(cluster, timeout)  # interruptible, a deadline, a taken port named
    if name == "multi_worker":
        try:
            with tensorflow_wait(left):
                strategy = tf.distribute.MultiWorkerMirroredStrategy()
        except RuntimeError as err:  # "Collective ops must be configured at program startup"
            raise tw.TensorweaveError(
                f"multi_worker: TensorFlow already ran in this process ({err}). Fix: make the "
                "strategy before anything else runs TensorFlow (a job does, after building "
                "its [data], which must not run TensorFlow ops)."
            ) from err
        return Distribution(name, strategy, cluster)
    if not cluster.is_chief:  # a worker or ps task serves the chief; no strategy here
        return Distribution(name, tf.distribute.get_strategy(), cluster)
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    with tensorflow_wait(left):
        strategy = tf.distribute.ParameterServerStrategy(resolver)
    return Distribution(name, strategy, cluster)


@contextlib.contextmanager
def tensorflow_wait(seconds: float) -> Iterator[None]:
    """Around TensorFlow's own wait for its peers (the strategy's start), which holds the
    interpreter: Python's signal handlers cannot run, and TensorFlow takes SIGTERM for its
    preemption notice. In here Ctrl-C and SIGTERM stop the process at once (their default
    action) and SIGALRM stops it after ``seconds`` (at least ``TF_WAIT_AT_LEAST``): the
    peers answered ``wait_for_peers`` just before, so this wait is short unless one of them
    went away since. After it, the handlers before are back (SIGTERM's too, in place of
    TensorFlow's), and no alarm is left."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signals = (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)
    before = {s: signal.signal(s, signal.SIG_DFL) for s in signals}
    signal.alarm(math.ceil(max(seconds, TF_WAIT_AT_LEAST)))
    try:
        yield
    finally:
        signal.alarm(0)
        for s, handler in before.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)


def _reachable(address: str) -> bool:
    host, _, port = address.rpartition(":")
    with contextlib.suppress(OSError), socket.create_connection((host, int(port)), timeout=1.0):
        return True
    return False


def _chief_presence(cluster: Cluster) -> Iterator[bool]:
    while True:
        yield _reachable(cluster.chief_address)
        time.sleep(_SERVE_POLL)


def serve(dist: Distribution, grace: float = SERVE_GRACE) -> None:
    """Run this ``parameter_server`` worker or ps task's server until the chief, once seen,
    has been gone ``grace`` seconds (TensorFlow's servers otherwise serve forever)."""
    cluster = dist.cluster
    if cluster is None or not dist.serves:
        raise tw.ArgumentError("serve: only a parameter_server worker or ps task serves.")
    server = tf.distribute.Server(
        tf.train.ClusterSpec({k: list(v) for k, v in cluster.jobs.items()}),
        job_name=cluster.task_type,
        task_index=cluster.task_index,
        protocol="grpc",
        start=True,
    )
    seen, gone = False, 0.0
    for present in _chief_presence(cluster):
        if present:
            seen, gone = True, 0.0
        elif seen:
            gone += _SERVE_POLL
            if gone >= grace:
                break
    del server


_LOST_TASK = re.compile(r"/job:(\w+)/replica:\d+/task:(\d+)")


def peer_failure(error: BaseException) -> str | None:
    """Which task a multi-worker collective lost (``"worker:1"``, or ``"a peer"``) when
    ``error`` is such a failure (another worker stopped or restarted), else ``None``."""
    lost = isinstance(error, tf.errors.UnavailableError | tf.errors.AbortedError)
    text = str(error)
    if not lost and isinstance(error, tf.errors.OpError):
        lost = "Collective ops is aborted" in text or "unhealthy" in text
    if not lost:
        return None
    found = _LOST_TASK.search(text.split("unhealthy", 1)[-1])
    return f"{found[1]}:{found[2]}" if found else "a peer"
