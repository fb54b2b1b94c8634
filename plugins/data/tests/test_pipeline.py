"""Pipeline: parallel workers, deterministic order, errors naming sample and step, JSON."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

Pipeline = tw.registry("pipelines")["Pipeline.v1"]


def _boom(value, at: int = 3):
    if int(np.asarray(value["x"]).sum()) == at:
        raise ValueError(f"cannot process {at}")
    return value


_BARRIER = None


def _pid(value):
    import os

    if _BARRIER is not None:  # inherited by the forked workers
        _BARRIER.wait(timeout=30)
    return {**value, "pid": os.getpid()}


@pytest.fixture
def local_steps():
    with tw.processors.scoped():
        tw.processors.register("test_boom.v1", _boom)
        tw.processors.register("test_pid.v1", _pid)
        yield


STEPS = [
    {"@processors": "normalize.v1", "field": "x", "mean": 1.0, "std": 2.0},
    {"@processors": "window.v1", "field": "x", "size": 2},
    {"@processors": "shuffle.v1", "seed": 7},
    {"@processors": "cast.v1", "field": "x", "dtype": "float64"},
]


def _samples(n: int = 40) -> list[dict]:
    return [{"x": np.arange(4) + i, "y": i} for i in range(n)]


def test_same_output_for_any_number_of_workers() -> None:
    outs = [Pipeline(STEPS, workers=w, chunk_size=3).run(_samples()) for w in (0, 1, 2)]
    assert len(outs[0]) == 80  # each sample windowed in two
    for other in outs[1:]:
        assert [(s["y"], s["x"].tolist()) for s in other] == [
            (s["y"], s["x"].tolist()) for s in outs[0]
        ]
    assert outs[0][0]["x"].dtype == np.float64


def test_oracle_without_shuffle() -> None:
    out = Pipeline(STEPS[:2], workers=2).run(_samples(3))
    want = []
    for i in range(3):
        x = (np.arange(4, dtype="float32") + i - 1.0) / 2.0
        want += [x[:2].tolist(), x[2:].tolist()]
    assert [s["x"].tolist() for s in out] == want


def test_runs_in_two_worker_processes(local_steps) -> None:
    import multiprocessing as mp
    import os

    global _BARRIER
    # both workers must meet at the barrier: a single process would time out
    _BARRIER = mp.get_context("fork").Barrier(2)
    try:
        out = Pipeline([{"@processors": "test_pid.v1"}], workers=2, chunk_size=1).run(_samples(8))
    finally:
        _BARRIER = None
    pids = {s["pid"] for s in out}
    assert os.getpid() not in pids and len(pids) == 2


def test_failing_worker_reports_sample_and_step(local_steps) -> None:
    from tensorweave_data.pipeline import ProcessingError

    steps = [
        {"@processors": "normalize.v1", "field": "x", "std": 1.0},
        {"@processors": "test_boom.v1", "at": 18},
    ]
    with pytest.raises(ProcessingError) as info:
        Pipeline(steps, workers=2, chunk_size=2).run(_samples(10))
    err = info.value
    # sample i has x = [i, i+1, i+2, i+3], whose sum is 4i + 6 == 18 for i = 3
    assert err.index == 3 and err.step == "test_boom.v1"
    assert "ValueError: cannot process 18" in str(err) and "sample 3" in str(err)
    assert isinstance(err, tw.TensorweaveError)


def test_steps_checked_when_built() -> None:
    with pytest.raises(
        tw.config.ConfigError, match=r"steps\[0\]\.@processors: unknown .*'normalise.v1'"
    ):
        Pipeline([{"@processors": "normalise.v1"}])
    with pytest.raises(
        tw.TensorweaveError,
        match=r"steps\[0\]\.sdt: 'sdt' is not a parameter of normalize.v1\. Did you mean 'std'\?",
    ):
        Pipeline([{"@processors": "normalize.v1", "sdt": 2.0}])
    with pytest.raises(
        tw.TensorweaveError, match=r"num_classes: missing required parameter of one_hot.v1"
    ):
        Pipeline([{"@processors": "one_hot.v1"}])
    with pytest.raises(tw.TensorweaveError, match="'@processors' block"):
        Pipeline([{"name": "x"}])


def test_json_roundtrip_rebuilds_from_registry() -> None:
    p = Pipeline(STEPS, workers=0)
    text = p.to_json()
    assert "normalize.v1" in text and "pickle" not in text
    q = Pipeline.from_json(text, workers=2)
    assert q.steps == p.steps
    assert [s["x"].tolist() for s in q.run(_samples(5))] == [
        s["x"].tolist() for s in p.run(_samples(5))
    ]


def test_call_applies_per_sample_steps_to_one_value() -> None:
    p = Pipeline(
        [{"@processors": "normalize.v1", "std": 2.0}, {"@processors": "shuffle.v1"}], workers=0
    )
    assert p(np.array([[2.0, 4.0]])).tolist() == [[1.0, 2.0]]


def test_feeds_tf_data() -> None:
    p = Pipeline(STEPS[:1], workers=2)
    ds = p.dataset(_samples(10), ["x", "y"], batch_size=4)
    assert isinstance(ds, tf.data.Dataset)
    batches = list(ds.as_numpy_iterator())
    assert [len(b["y"]) for b in batches] == [4, 4, 2]
    np.testing.assert_allclose(batches[0]["x"][1], (np.arange(4) + 1 - 1.0) / 2.0)
