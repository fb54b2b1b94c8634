"""``Cluster`` and ``cluster_config``: ``--workers``/``--task`` into ``TF_CONFIG``, the chief,
and a message with the fix for every malformed cluster."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tensorweave_train import Cluster, ClusterError, cluster_config


def test_workers_and_task_make_tf_config() -> None:
    config = cluster_config("a:1, b:2", "1")
    assert config == {
        "cluster": {"worker": ["a:1", "b:2"]},
        "task": {"type": "worker", "index": 1},
    }
    cluster = Cluster.of(json.dumps(config))
    assert cluster.task == "worker:1" and cluster.address == "b:2"
    assert not cluster.is_chief and cluster.chief_address == "a:1"
    assert cluster.workers == ["a:1", "b:2"]
    assert "the chief is worker 0 (a:1)" in cluster.describe()


def test_a_chief_task_is_the_chief_else_worker_0() -> None:
    ps = Cluster.of(cluster_config("w:1", "chief", ps="p:1", chief="c:1"))
    assert ps.is_chief and ps.chief_task == ("chief", 0) and ps.workers == ["c:1", "w:1"]
    assert Cluster.of(cluster_config("w:1,w:2", "0")).is_chief


@given(st.integers(1, 5), st.data())
def test_every_task_of_a_cluster_round_trips_through_tf_config(n: int, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, n - 1))
    workers = ",".join(f"h{i}:{1000 + i}" for i in range(n))
    cluster = Cluster.of(cluster_config(workers, str(index)))
    assert Cluster.of(json.dumps(cluster.config())) == cluster
    assert cluster.is_chief == (index == 0)
    assert sum(Cluster.of(cluster_config(workers, str(i))).is_chief for i in range(n)) == 1


@pytest.mark.parametrize(
    ("workers", "task", "message"),
    [
        ("a:1,b:2", "2", "--task 2: not a task of this cluster (worker:0..1)"),
        ("a:1,a:1", "0", "lists a:1 twice"),
        ("a", "0", "Fix:"),
        ("", "0", "Fix:"),
    ],
)
def test_a_malformed_cluster_is_refused_with_the_fix(workers: str, task: str, message: str) -> None:
    with pytest.raises(ClusterError, match="Fix:") as caught:
        cluster_config(workers, task)
    assert message in str(caught.value)


def test_a_malformed_tf_config_is_refused_with_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ClusterError, match=r"TF_CONFIG is not a cluster description.*Fix:"):
        Cluster.of("{not json")
    with pytest.raises(ClusterError, match="task worker:3 is not in its cluster"):
        Cluster.of({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 3}})
    monkeypatch.setenv("TF_CONFIG", " ")
    assert Cluster.from_env() is None
    cluster = Cluster.of(cluster_config("a:1,b:2", "0"))
    cluster.export()
    assert Cluster.from_env() == cluster
