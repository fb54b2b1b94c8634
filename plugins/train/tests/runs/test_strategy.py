"""``distribution``: the strategy ``[train] strategy`` names, refused with the fix when the
cluster or the devices do not fit; ``peer_failure`` tells a lost worker from other errors.
(The strategies training for real, in worker processes: tests/integration/test_multi_worker.py.)"""

from __future__ import annotations

import json

import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_train import ClusterError, cluster_config, distribution
from tensorweave_train.runs.strategy import peer_failure


def test_default_is_one_process_that_writes() -> None:
    d = distribution("default")
    assert d.strategy is tf.distribute.get_strategy()
    assert d.is_chief and not d.serves and d.workers == [] and d.replicas == 1
    assert d.summary() == {"strategy": "default", "replicas": 1}
    assert d.describe() == "strategy default: 1 replica(s)"


def test_mirrored_on_this_machine_mirrors_its_devices() -> None:
    d = distribution("mirrored", ["/cpu:0"])
    assert isinstance(d.strategy, tf.distribute.MirroredStrategy)
    assert d.replicas == 1 and d.is_chief
    with d.scope():
        assert tf.distribute.get_strategy() is d.strategy


@pytest.mark.parametrize(
    ("name", "devices", "error", "message"),
    [
        ("mirroed", None, tw.ArgumentError, "unknown strategy 'mirroed'. Fix:"),
        ("default", ["/cpu:0"], tw.ArgumentError, "Fix: --train.strategy=mirrored"),
        ("multi_worker", ["/cpu:0"], tw.ArgumentError, "devices is for the mirrored"),
        ("multi_worker", None, ClusterError, "TF_CONFIG is not set. Fix: run every worker"),
        ("parameter_server", None, ClusterError, "TF_CONFIG is not set"),
    ],
)
def test_a_strategy_that_cannot_start_says_how_to_fix_it(
    monkeypatch: pytest.MonkeyPatch, name: str, devices: list[str] | None, error: type, message: str
) -> None:
    monkeypatch.delenv("TF_CONFIG", raising=False)
    with pytest.raises(error, match="Fix:") as caught:
        distribution(name, devices)
    assert message in str(caught.value)


def test_a_cluster_of_the_wrong_shape_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with_ps = cluster_config("a:1,b:2", "0", ps="p:1")
    monkeypatch.setenv("TF_CONFIG", json.dumps(with_ps))
    with pytest.raises(ClusterError, match="multi_worker: the cluster has ps tasks"):
        distribution("multi_worker")
    monkeypatch.setenv("TF_CONFIG", json.dumps(cluster_config("a:1,b:2", "0")))
    with pytest.raises(ClusterError, match="parameter_server needs a chief, workers and ps"):
        distribution("parameter_server")


def test_peer_failure_names_the_lost_worker_only() -> None:
    grpc = "Error from remote target /job:worker/replica:0/task:1 while calling RecvBuf"
    assert peer_failure(tf.errors.UnavailableError(None, None, grpc)) == "worker:1"
    health = "/job:worker/replica:0/task:0: peers are unhealthy: /job:worker/replica:0/task:2"
    assert peer_failure(tf.errors.UnknownError(None, None, health)) == "worker:2"
    assert peer_failure(tf.errors.AbortedError(None, None, "peer restarted")) == "a peer"
    assert peer_failure(tf.errors.InvalidArgumentError(None, None, "bad shape")) is None
    assert peer_failure(ValueError("Collective ops is aborted")) is None


def test_a_cluster_run_records_what_its_servers_exposed() -> None:
    from tensorweave_train import Cluster
    from tensorweave_train.runs.strategy import Distribution

    cluster = Cluster.of(cluster_config("10.0.0.1:2222,10.0.0.2:2223", "1"))
    summary = Distribution("multi_worker", tf.distribute.get_strategy(), cluster).summary()
    assert summary["network"] == (
        "TensorFlow servers listened on port(s) 2222, 2223 of every interface of each host, "
        "unauthenticated"
    )
