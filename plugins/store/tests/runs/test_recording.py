"""Recording through the train pack's hooks, in this process: a job, its resume (the same
run), a job that fails while training, and a plain ``Model.train`` that asks for it."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def recording(store, tmp_path, monkeypatch):
    """Jobs in this test record into ``store``."""
    monkeypatch.setenv("TENSORWEAVE_STORE", store.url)
    monkeypatch.setenv("TENSORWEAVE_STORE_BLOBS", str(store.blobs.root))
    monkeypatch.setenv("TENSORWEAVE_STORE_RECORD", "1")
    monkeypatch.setenv("TENSORWEAVE_STORE_TAGS", "unit")
    return store


@pytest.mark.slow
def test_a_job_and_its_resume_are_one_run(recording, tmp_path):
    import tensorweave_train as twt

    where = tmp_path / "run"
    cfg = twt.load_config("digits", ["--train.epochs=1", "--train.limit=200", "--dims.hidden=8"])
    twt.train_job(cfg, run_dir=where, out=None, progress=False)
    (run,) = recording.runs(tags=["unit"])
    assert (run.status, run.kind, run.epochs_done) == ("finished", "train", 1)
    assert run.config["@versions"]["tensorflow"] and run.providers["optimizer"]["provider"]
    twt.resume_job(where, ["--train.epochs=2"], out=None, progress=False)
    (again,) = recording.runs(tags=["unit"])
    assert (again.id, again.status, again.kind, again.epochs_done) == (
        run.id,
        "finished",
        "resume",
        2,
    )
    assert [e for e, _ in recording.metrics(run.id)["loss"]] == [0, 1]


def test_a_job_that_fails_while_training_is_recorded_as_failed(recording, tmp_path):
    import tensorweave as tw
    import tensorweave_train as twt

    def explode() -> twt.Callback:
        def fail(event, state):
            raise RuntimeError("the disk is full")

        return twt.LambdaCallback(fail)

    cfg = twt.load_config("digits", ["--train.epochs=2", "--train.limit=64"])
    cfg["callbacks"] = [{"@callbacks": "test_explode.v1"}]
    with tw.callbacks.scoped():
        tw.callbacks.register("test_explode.v1", explode)
        with pytest.raises(RuntimeError, match="the disk is full"):
            twt.train_job(cfg, run_dir=tmp_path / "bad", out=None, progress=False)
    (run,) = recording.runs(tags=["unit"])
    assert run.status == "failed" and "the disk is full" in run.error


def test_a_config_refused_before_training_records_no_run(recording, tmp_path):
    import tensorweave.config as twc
    import tensorweave_train as twt
    from tensorweave_store.datasets import versions as D

    x = np.zeros((8, 64), "float32")
    D.register_arrays(recording, "no_labels", {"train": {"x": x}, "valid": {"x": x}})
    cfg = twt.load_config("digits", ["--train.epochs=1"])
    cfg["data"] = {"@datasets": "store.v1", "dataset": "no_labels@1"}  # the fixture's store
    with pytest.raises(twc.ConfigError, match="no field 'y'"):
        twt.train_job(cfg, run_dir=tmp_path / "bad", out=None, progress=False)
    assert recording.runs(tags=["unit"]) == [] and not (tmp_path / "bad").exists()


def _tiny_model():
    import tensorweave as tw
    import tensorweave_train as twt

    x = tw.Input(n_units=4, name="x")
    t = tw.Input(n_units=2, name="t")
    y = tw.layers["Linear.v1"](x, n_units=2)
    return twt.Model(
        inputs=x,
        outputs=y,
        targets=t,
        loss=tw.losses["mse.v1"](t, y),
        optimizer=tw.optimizers["Adam.v1"](learning_rate=1e-2),
    )


@pytest.mark.parametrize(
    ("error", "status", "message"),
    [
        (RuntimeError("the disk is full"), "failed", "RuntimeError: the disk is full"),
        (KeyboardInterrupt(), "interrupted", "interrupted (Ctrl-C)"),
    ],
)
def test_model_train_that_raises_closes_its_run(recording, error, status, message):
    """``RecordRun.v1`` on a plain ``Model.train`` that raises in its second epoch: the run
    is closed as the CLI closes a job's (failed with the error, or interrupted), keeps its
    first epoch, and its heartbeat stops."""
    import threading

    import tensorweave_train as twt

    def boom(event, state):
        if state.epoch == 1:
            raise error

    xs = np.random.default_rng(0).random((32, 4)).astype("float32")
    data = {"x": xs, "t": xs[:, :2]}
    callbacks = [
        ("RecordRun.v1", {"name": "boom", "tags": ["py-fail"]}),
        twt.LambdaCallback(boom, twt.on_epoch(at="start")),
    ]
    with pytest.raises(type(error)):
        _tiny_model().train(data, epochs=3, batch_size=16, callbacks=callbacks)
    (run,) = recording.runs(tags=["py-fail"])
    assert (run.name, run.kind, run.status, run.error) == ("boom", "model.train", status, message)
    assert run.epochs_done == 1 and run.ended_at is not None
    assert [e for e, _ in recording.metrics(run.id)["loss"]] == [0]
    beating = [t for t in threading.enumerate() if t.name == f"tw-store-heartbeat-{run.id}"]
    assert not any(t.is_alive() for t in beating)


def test_model_train_records_when_asked(recording):
    import tensorweave as tw
    import tensorweave_train as twt

    x = tw.Input(n_units=4, name="x")
    t = tw.Input(n_units=2, name="t")
    y = tw.layers["Linear.v1"](x, n_units=2)
    model = twt.Model(
        inputs=x,
        outputs=y,
        targets=t,
        loss=tw.losses["mse.v1"](t, y),
        optimizer=tw.optimizers["Adam.v1"](learning_rate=1e-2),
    )
    xs = np.random.default_rng(0).random((32, 4)).astype("float32")
    data = {"x": xs, "t": xs[:, :2] * 2}
    model.train(data, epochs=3, batch_size=16, validation=data)  # not asked: nothing recorded
    assert recording.runs() == []
    model.train(
        data,
        epochs=3,
        batch_size=16,
        validation=data,
        callbacks=[("RecordRun.v1", {"name": "adhoc", "tags": ["py"]})],
    )
    (run,) = recording.runs(tags=["py"])
    assert (run.name, run.kind, run.status, run.epochs_done) == (
        "adhoc",
        "model.train",
        "finished",
        3,
    )
    assert set(recording.metrics(run.id)) >= {"loss", "val_loss"}
