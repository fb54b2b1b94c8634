"""Run records: what is stored, filters, tags, heartbeat, removal."""

from __future__ import annotations

import time

import pytest

from tensorweave_store.errors import RunNotFoundError, StoreError
from tensorweave_store.runs.records import providers_of

CONFIG = {
    "run": {"name": "exp"},
    "optimizer": {
        "@optimizers": "Adam.v1",
        "learning_rate": 0.01,
        "@provider": "tensorweave-train 0.1.0",
    },
    "@versions": {"tensorweave": "0.1.0", "tensorflow": "2.21.0"},
}


def _run(store, lr, acc, tags=(), name="exp"):
    cfg = {**CONFIG, "optimizer": {**CONFIG["optimizer"], "learning_rate": lr}}
    run = store.start_run(cfg, name=name, tags=tags, heartbeat=False)
    for epoch in range(3):
        run.log_epoch(epoch, {"loss": 1.0 / (epoch + 1), "val_accuracy": acc * (epoch + 1) / 3})
    run.finish("finished", summary={"valid": {"accuracy": acc}, "history": [{"x": 1}]})
    return run.id


def test_a_run_keeps_config_providers_versions_metrics_and_figures(store):
    rid = _run(store, 0.01, 0.9, tags=["base"])
    r = store.run(rid)
    assert r.status == "finished" and r.epochs_done == 3 and r.tags == ["base"]
    assert r.config["optimizer"]["learning_rate"] == 0.01
    assert r.providers == {
        "optimizer": {"component": "optimizers:Adam.v1", "provider": "tensorweave-train 0.1.0"}
    }
    assert r.versions["tensorflow"] == "2.21.0"
    assert "history" not in r.summary
    assert r.figures == pytest.approx({"loss": 1 / 3, "val_accuracy": 0.9})
    assert store.metrics(rid)["loss"] == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]
    assert r.ended_at is not None and r.ended_at >= r.created_at


def test_filters_by_figure_config_value_tag_status_and_name(store):
    a = _run(store, 0.01, 0.97, tags=["sweep", "good"])
    b = _run(store, 0.1, 0.80, tags=["sweep"])
    c = _run(store, 0.01, 0.60, name="other")
    ids = lambda **kw: [r.id for r in store.runs(**kw)]  # noqa: E731
    assert ids() == [c, b, a]  # newest first
    assert ids(where=["val_accuracy>0.95"]) == [a]
    assert ids(where=["val_accuracy>=0.6", "val_accuracy<0.9"]) == [c, b]
    assert ids(where=["optimizer.learning_rate=0.01"]) == [c, a]
    assert ids(where=["optimizer.@optimizers=Adam.v1"]) == [c, b, a]
    assert ids(tags=["sweep"]) == [b, a]
    assert ids(tags=["sweep", "good"]) == [a]
    assert ids(name="other") == [c]
    assert ids(status="failed") == []
    assert ids(where=["no_such_metric>0"]) == []
    with pytest.raises(StoreError, match="KEY OP VALUE"):
        store.runs(where=["val_accuracy"])


def test_a_run_is_found_by_id_directory_or_name(store, tmp_path):
    run = store.start_run(CONFIG, run_dir=tmp_path / "r1", name="named", heartbeat=False)
    assert store.run(run.id).id == store.run(str(tmp_path / "r1")).id == store.run("named").id
    with pytest.raises(RunNotFoundError, match="runs list"):
        store.run("999")


def test_failed_and_interrupted_runs_say_so(store):
    failed = store.start_run(CONFIG, heartbeat=False)
    failed.finish("failed", error="ValueError: boom")
    assert store.run(failed.id).status == "failed"
    assert store.run(failed.id).error == "ValueError: boom"
    with pytest.raises(ValueError):
        failed.finish("exploded")


def test_a_run_whose_heartbeat_stopped_is_seen_as_interrupted(store, monkeypatch):
    monkeypatch.setenv("TENSORWEAVE_STORE_HEARTBEAT", "0.2")
    alive = store.start_run(CONFIG)  # beats every 0.2 s from a thread
    dead = store.start_run(CONFIG, heartbeat=False)  # as after kill -9: no more beats
    time.sleep(1.0)
    assert store.run(dead.id).status == "interrupted"
    assert "no heartbeat" in store.run(dead.id).error
    assert store.run(alive.id).status == "running"
    alive.finish("finished")
    assert store.run(alive.id).status == "finished"
    dead.log_epoch(0, {"loss": 1.0})  # it was only slow: a new beat revives it
    assert store.run(dead.id).status == "running" and store.run(dead.id).error is None


def test_a_resumed_epoch_replaces_its_record(store):
    run = store.start_run(CONFIG, heartbeat=False)
    run.log_epoch(0, {"loss": 2.0})
    run.log_epoch(0, {"loss": 1.5, "val_loss": float("nan")})
    assert store.metrics(run.id) == {"loss": [(0, 1.5)]}


def test_tags_and_removal(store, tmp_path):
    keep = _run(store, 0.01, 0.9)
    gone = _run(store, 0.02, 0.8)
    store.tag_run(gone, ["x", "y"])
    store.tag_run(gone, ["x"])
    assert store.run(gone).tags == ["x", "y"]
    store.delete_run(gone)
    assert [r.id for r in store.runs()] == [keep]
    assert store.metrics(keep)


def test_providers_of_walks_lists_and_nested_tables():
    cfg = {
        "callbacks": [{"@callbacks": "EarlyStopping.v1", "@provider": "tensorweave-train 0.1"}],
        "model": {"nodes": {"h": {"@layers": "FC.v1", "@provider": "tensorweave-layers 0.1"}}},
    }
    assert providers_of(cfg) == {
        "callbacks.0": {
            "component": "callbacks:EarlyStopping.v1",
            "provider": "tensorweave-train 0.1",
        },
        "model.nodes.h": {"component": "layers:FC.v1", "provider": "tensorweave-layers 0.1"},
    }
