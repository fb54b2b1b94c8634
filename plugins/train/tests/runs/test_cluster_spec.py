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
    with pytest.raises(ClusterError, match=r"TF_CONFIG: not valid JSON.*Fix:"):
        Cluster.of("{not json")
    with pytest.raises(ClusterError, match="task worker:3 is not a task of this cluster"):
        Cluster.of({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 3}})
    monkeypatch.setenv("TF_CONFIG", " ")
    assert Cluster.from_env() is None
    cluster = Cluster.of(cluster_config("a:1,b:2", "0"))
    cluster.export()
    assert Cluster.from_env() == cluster


def _tf_config(workers: object, index: object = 0, kind: object = "worker") -> dict[str, object]:
    return {"cluster": {"worker": workers}, "task": {"type": kind, "index": index}}


# the same mistakes, refused by the one check whether --workers or TF_CONFIG gives them
MISTAKES = [
    (("a:1,a:1", "0"), _tf_config(["a:1", "a:1"]), "lists a:1 twice"),
    (("a:1,b:70000", "0"), _tf_config(["a:1", "b:70000"]), "port 70000 is not in 1..65535"),
    (("a:1,b:0", "0"), _tf_config(["a:1", "b:0"]), "port 0 is not in 1..65535"),
    (("a:1,b", "0"), _tf_config(["a:1", "b"]), "'b' is not HOST:PORT (no port)"),
    (("a:1,b:2", "5"), _tf_config(["a:1", "b:2"], 5), "not a task of this cluster (worker:0..1)"),
    (("a:1,b:2", "-1"), _tf_config(["a:1", "b:2"], -1), "not a task of this cluster"),
    (("a:1,b:2", "boss:0"), _tf_config(["a:1", "b:2"], 0, "boss"), "not a task of this"),
]


@pytest.mark.parametrize(("flags", "tf_config", "message"), MISTAKES)
def test_tf_config_is_validated_exactly_as_workers_is(
    flags: tuple[str, str], tf_config: dict[str, object], message: str
) -> None:
    with pytest.raises(ClusterError) as from_flags:
        cluster_config(*flags)
    with pytest.raises(ClusterError) as from_env:
        Cluster.of(json.dumps(tf_config))
    for caught, source in ((from_flags, "--workers"), (from_env, "TF_CONFIG")):
        text = str(caught.value)
        assert text.startswith(f"{source}: ") and message in text and "Fix:" in text, text
    assert "Fix: TF_CONFIG=" in str(from_env.value)
    assert "Fix: --workers HOST:PORT" in str(from_flags.value)


@pytest.mark.parametrize(
    ("tf_config", "message"),
    [
        (_tf_config("a:1,b:2"), "cluster.worker is 'a:1,b:2': a list of HOST:PORT is needed"),
        ({"cluster": {"worker": ["a:1"], "boss": ["b:2"]}, "task": {"type": "worker"}}, "boss"),
        (_tf_config([1234]), "cluster.worker[0] is 1234, not a HOST:PORT string"),
        (_tf_config(["a:1"], "x"), "task worker:x is not a task"),
        (_tf_config(["a:1"], True), "task worker:True is not a task"),
        ({"cluster": {"worker": ["a:1"]}}, 'needs "cluster" and "task"'),
        ([1, 2], 'needs "cluster" and "task"'),
        ({"cluster": {}, "task": {"type": "worker"}}, "not a mapping of task types"),
    ],
)
def test_a_tf_config_only_a_file_can_hold_is_refused(tf_config: object, message: str) -> None:
    with pytest.raises(ClusterError, match="Fix: TF_CONFIG=") as caught:
        Cluster.of(json.dumps(tf_config))
    assert str(caught.value).startswith("TF_CONFIG: ") and message in str(caught.value)


def test_the_source_of_a_cluster_is_remembered_for_its_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TF_CONFIG", "")  # restored after the test, as the other:
    monkeypatch.setenv("TENSORWEAVE_CLUSTER_FROM_WORKERS", "")
    Cluster.of(cluster_config("a:1,b:2", "1"), source="--workers").export()
    found = Cluster.from_env()
    assert found is not None and found.source == "--workers"
    monkeypatch.setenv("TF_CONFIG", json.dumps(cluster_config("a:1,b:3", "1")))
    found = Cluster.from_env()
    assert found is not None and found.source == "TF_CONFIG"
