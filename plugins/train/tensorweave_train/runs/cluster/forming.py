"""Forming a training cluster: a taken port named, a deadline, signals that stop a waiting worker.

Before TensorFlow starts its server (whose own wait holds the interpreter and ignores
Ctrl-C), a worker listens on its port (``claim_port``: a port in use is named) and waits
until every peer accepts a TCP connection (``wait_for_peers``), for at most
``--cluster-timeout`` seconds (``cluster_timeout``; ``ClusterTimeout``, exit 75, names
the peers that never answered); Ctrl-C and SIGTERM stop the wait at once
(``stop_on_signals``). ``warn_exposure`` says once that TensorFlow's server accepts
unauthenticated connections. What the cluster is (``TF_CONFIG``, checked) is
``runs.cluster.spec``; this module starts it.

>>> cluster_timeout("5"), reachable("127.0.0.1:1", 0.1)
(5.0, False)
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import tensorweave as tw
from tensorweave_train.runs.cluster.spec import Cluster, ClusterError

__all__ = [
    "CLUSTER_TIMEOUT_ENV",
    "DEFAULT_CLUSTER_TIMEOUT",
    "EXIT_CLUSTER_TIMEOUT",
    "ClusterTimeout",
    "WorkerInterrupted",
    "WorkerTerminated",
    "claim_port",
    "cluster_timeout",
    "reachable",
    "stop_on_signals",
    "wait_for_peers",
    "warn_exposure",
]


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
