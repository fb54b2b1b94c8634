"""Forming a cluster: a worker waits for its peers, names a missing one after the timeout,
and names a taken port; the timeout's own checks."""

from __future__ import annotations

import socket
import time

import pytest

from tensorweave_train import Cluster, ClusterError, cluster_config
from tensorweave_train.runs.cluster.forming import (
    CLUSTER_TIMEOUT_ENV,
    ClusterTimeout,
    cluster_timeout,
    wait_for_peers,
)


def _ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def test_a_worker_waits_for_its_peers_then_goes_on() -> None:
    me, peer = _ports(2)
    listening = socket.create_server(("127.0.0.1", peer))
    try:
        cluster = Cluster.of(cluster_config(f"127.0.0.1:{me},127.0.0.1:{peer}", "0"))
        left = wait_for_peers(cluster, 30, say=lambda _: None)
    finally:
        listening.close()
    assert 0 < left <= 30
    with socket.create_server(("127.0.0.1", me)):  # its own port is free again for TensorFlow
        pass


def test_a_missing_peer_is_named_after_the_timeout() -> None:
    me, missing = _ports(2)
    cluster = Cluster.of(cluster_config(f"127.0.0.1:{me},127.0.0.1:{missing}", "0"))
    said: list[str] = []
    start = time.monotonic()
    with pytest.raises(ClusterTimeout, match=r"did not form within 0.5s") as caught:
        wait_for_peers(cluster, 0.5, say=said.append)
    assert time.monotonic() - start < 5
    assert f"never reached worker 1 (127.0.0.1:{missing})" in str(caught.value)
    assert caught.value.exit_code == 75


def test_a_taken_port_is_named() -> None:
    taken, peer = _ports(2)
    with socket.create_server(("127.0.0.1", taken)):
        cluster = Cluster.of(cluster_config(f"127.0.0.1:{taken},127.0.0.1:{peer}", "0"))
        with pytest.raises(ClusterError, match=f"port {taken} on 127.0.0.1 is in use by another"):
            wait_for_peers(cluster, 5)


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf", "nan"])
def test_a_bad_cluster_timeout_is_refused(value: str) -> None:
    with pytest.raises(ClusterError, match="Fix: --cluster-timeout 300"):
        cluster_timeout(value)


def test_the_cluster_timeout_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CLUSTER_TIMEOUT_ENV, raising=False)
    assert cluster_timeout() == 300
    monkeypatch.setenv(CLUSTER_TIMEOUT_ENV, "7.5")
    assert cluster_timeout() == 7.5
