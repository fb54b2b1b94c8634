"""The event model, the standard callbacks, registry names and the pluggy hook."""

from __future__ import annotations

import csv
import io
import math

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import regression_data, regression_model

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_train.events import Event


def test_triggers_every_n_start_end_and_priorities():
    log = []

    def rec(tag):
        return lambda ev, st: log.append((tag, ev.value, st.epoch, st.step))

    cbs = [
        twt.LambdaCallback(rec("late"), twt.on_epoch(), priority=5),
        twt.LambdaCallback(rec("early"), twt.on_epoch(), priority=-5),
        twt.LambdaCallback(rec("step3"), twt.on_step(every=3)),
        twt.LambdaCallback(rec("start"), twt.on_train("start"), twt.on_epoch(every=2, at="start")),
        twt.LambdaCallback(rec("end"), twt.on_train("end")),
    ]
    model = regression_model()
    model.train(regression_data(n=32), epochs=3, batch_size=8, callbacks=cbs)  # 4 steps/epoch
    assert [e for e in log if e[0] == "step3"] == [
        ("step3", "step_end", 0, 3),
        ("step3", "step_end", 1, 6),
        ("step3", "step_end", 2, 9),
        ("step3", "step_end", 2, 12),
    ]
    assert [e for e in log if e[0] == "start"] == [
        ("start", "train_start", 0, 0),
        ("start", "epoch_start", 1, 4),
    ]
    epoch_ends = [e[0] for e in log if e[1] == "epoch_end"]
    assert epoch_ends == ["early", "late"] * 3
    assert log[-1] == ("end", "train_end", 3, 12)


def test_value_change_events():
    changes = []
    cb = twt.LambdaCallback(
        lambda ev, st: changes.append((st.changed, st.values[st.changed])), twt.on_change("val_mae")
    )
    model = regression_model()
    data = regression_data(n=16)
    model.train(data, epochs=2, batch_size=8, validation=data, callbacks=[cb])
    assert [c[0] for c in changes] == ["val_mae", "val_mae"]
    assert changes[1][1] == model.evaluate(data, batch_size=8)["mae"]


def test_early_stopping_stops_and_restores_best():
    model = regression_model(optimizer=twt.SGD(5.0))  # diverges: loss gets worse
    data = regression_data(n=32)
    es = twt.EarlyStopping(monitor="loss", patience=2, restore_best_weights=True)
    h = model.train(data, epochs=30, batch_size=8, callbacks=[es])
    assert len(h) < 30 and "EarlyStopping" in h.state.stop_reason
    assert h.state.stop


def test_stop_on_nan():
    model = regression_model(optimizer=twt.SGD(1e6))
    data = regression_data(n=32)
    data["x"] = data["x"] * 1e3
    h = model.train(data, epochs=50, batch_size=8, callbacks=[twt.StopOnNaN()])
    assert "StopOnNaN" in h.state.stop_reason
    assert not math.isfinite(float(h.state.loss))
    assert h.state.step < 50 * 4


def test_csv_logger_appends_rows(tmp_path):
    path = tmp_path / "log.csv"
    model = regression_model()
    data = regression_data(n=16)
    model.train(data, epochs=2, batch_size=8, validation=data, callbacks=[twt.CSVLogger(path)])
    model.train(data, epochs=1, batch_size=8, validation=data, callbacks=[twt.CSVLogger(path)])
    with open(path) as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["1", "2", "1"]  # numbered from 1
    assert {"loss", "val_loss", "val_mae", "learning_rate", "step"} <= set(rows[0])
    assert float(rows[1]["step"]) == 4


def test_csv_logger_flushes_each_row_and_syncs_at_the_end(tmp_path, monkeypatch):
    import os

    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    path = tmp_path / "log.csv"
    seen = []

    def read_rows(ev, st):  # at each epoch end, after the logger (priority 50 < 90)
        with open(path) as f:
            seen.append(len(list(csv.DictReader(f))))

    reader = twt.LambdaCallback(read_rows, twt.on_epoch(), priority=90)
    model = regression_model()
    model.train(
        regression_data(n=16),
        epochs=3,
        batch_size=8,
        verbose=0,
        callbacks=[twt.CSVLogger(path), reader],
    )
    assert seen == [1, 2, 3]  # every row readable at once (flushed): a crash loses none
    assert len(synced) == 1  # one fsync, when training ended (not one per epoch)


def test_progress_bar_writes_and_is_off_without_terminal():
    out = io.StringIO()
    model = regression_model()
    data = regression_data(n=16)
    model.train(
        data, epochs=2, batch_size=4, callbacks=[twt.ProgressBar(every=2, enabled=True, file=out)]
    )
    text = out.getvalue()
    assert "epoch 2/2" in text and "loss=" in text
    assert twt.ProgressBar().enabled is False  # pytest captures stderr: not a terminal


def test_tensorboard_scalars(tmp_path):
    model = regression_model()
    data = regression_data(n=16)
    model.train(data, epochs=2, batch_size=8, callbacks=[twt.TensorBoard(tmp_path, update_freq=1)])
    tags = {}
    for f in tmp_path.iterdir():
        for ev in tf.compat.v1.train.summary_iterator(str(f)):
            for v in ev.summary.value:
                tags.setdefault(v.tag, []).append(ev.step)
    assert tags["step/loss"] == [1, 2, 3, 4]
    assert tags["epoch/loss"] == [2, 4]
    graphs = [
        ev
        for f in tmp_path.iterdir()
        for ev in tf.compat.v1.train.summary_iterator(str(f))
        if ev.graph_def
    ]
    assert graphs  # the train step's graph
    assert model.train_trace_count == 1


def test_tensorboard_writes_a_models_graph_once(tmp_path):
    model = regression_model()
    data = regression_data(n=16)
    board = twt.TensorBoard(tmp_path)
    for _ in range(3):  # the same callback over several train calls (as a sweep or a notebook)
        model.train(data, epochs=1, batch_size=8, verbose=0, callbacks=[board])
    graphs = [
        ev
        for f in tmp_path.iterdir()
        for ev in tf.compat.v1.train.summary_iterator(str(f))
        if ev.graph_def
    ]
    assert len(graphs) == 1


def test_reduce_lr_on_plateau():
    model = regression_model(optimizer=twt.SGD(5.0))  # loss gets worse each epoch
    cb = twt.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_lr=1.0)
    h = model.train(regression_data(n=32), epochs=6, batch_size=8, callbacks=[cb])
    lrs = [e["learning_rate"] for e in h]
    assert lrs[0] == 5.0 and min(lrs) >= 1.0 and lrs[-1] < 5.0
    assert float(model.optimizer.learning_rate) == lrs[-1]


def test_callbacks_by_registered_name():
    tw.plugins.refresh()
    for name in (
        "EarlyStopping.v1",
        "StopOnNaN.v1",
        "CSVLogger.v1",
        "ProgressBar.v1",
        "TensorBoard.v1",
        "ReduceLROnPlateau.v1",
        "Checkpoint.v1",
        "LambdaCallback.v1",
    ):
        assert name in tw.callbacks, name
    model = regression_model()
    h = model.train(
        regression_data(n=16),
        epochs=5,
        batch_size=8,
        callbacks=["StopOnNaN.v1", ("EarlyStopping.v1", {"monitor": "loss", "patience": 100})],
    )
    assert len(h) == 5
    with pytest.raises(TypeError, match="Callback"):
        model.train(regression_data(n=16), epochs=1, callbacks=[print])


class _ThirdParty:
    calls: list = []

    @tw.hookimpl
    def tensorweave_train_callbacks(self, model):
        return [
            twt.LambdaCallback(lambda ev, st: _ThirdParty.calls.append(st.epoch), twt.on_epoch())
        ]


def test_pluggy_hook_adds_callbacks():
    tw.plugins.refresh()
    names = [n for n, _ in tw.plugins.manager.list_name_plugin()]
    assert any(n.endswith(":train") for n in names)  # our hook module is installed
    # published by our tensorweave_add_hookspecs implementation, replayed by the core
    assert tw.plugins.manager.hook.tensorweave_train_callbacks.spec is not None
    plugin = _ThirdParty()
    tw.plugins.register(plugin, name="third-party-test")
    try:
        regression_model().train(regression_data(n=16), epochs=2, batch_size=8)
    finally:
        tw.plugins.unregister(plugin)
    assert _ThirdParty.calls == [0, 1]
    assert [f for f in tw.plugins.failures() if f.distribution != _BROKEN] == []


_BROKEN = "broken-callbacks-test"


class _Raising:
    @tw.hookimpl
    def tensorweave_train_callbacks(self, model):
        raise RuntimeError("broken on purpose")


class _Counting:
    def __init__(self):
        self.epochs = []

    @tw.hookimpl
    def tensorweave_train_callbacks(self, model):
        return [twt.LambdaCallback(lambda ev, st: self.epochs.append(st.epoch), twt.on_epoch())]


def test_a_raising_callbacks_hook_is_contained_recorded_and_training_goes_on():
    """The hook is called through tw.plugins.call: a third-party implementation that raises
    is recorded against its distribution with a warning; the others' callbacks still run."""
    tw.plugins.refresh()
    bad, good = _Raising(), _Counting()
    tw.plugins.register(bad, name=f"{_BROKEN}:hooks")
    tw.plugins.register(good, name="counting-test")
    try:
        with pytest.warns(RuntimeWarning, match=f"(?s)tensorweave_train_callbacks.*{_BROKEN}"):
            history = regression_model().train(regression_data(n=16), epochs=2, batch_size=8)
    finally:
        tw.plugins.unregister(bad)
        tw.plugins.unregister(good)
    assert len(history) == 2 and good.epochs == [0, 1]
    (failure,) = [f for f in tw.plugins.failures() if f.distribution == _BROKEN]
    assert "broken on purpose" in str(failure) and isinstance(failure, tw.PluginLoadError)


def test_state_roundtrip_of_monitor_callbacks():
    es = twt.EarlyStopping(patience=4)
    st = twt.TrainState(values={"val_loss": 1.0})
    es(Event.EPOCH_END, st)
    es2 = twt.EarlyStopping(patience=4)
    es2.load_state_dict(es.state_dict())
    assert es2.best == 1.0 and es2.wait == 0
    assert np.isclose(float(regression_model().optimizer.current_learning_rate()), 0.05)


def test_hookspec_is_published_through_tensorweave_add_hookspecs():
    import pluggy

    from tensorweave_train import hooks

    pm = pluggy.PluginManager("tensorweave")
    hooks.tensorweave_add_hookspecs(plugin_manager=pm)
    assert pm.hook.tensorweave_train_callbacks.spec is not None
    hooks.tensorweave_add_hookspecs(plugin_manager=pm)  # idempotent


def test_step_start_trigger_sees_the_step_about_to_run():
    seen = []
    cb = twt.LambdaCallback(lambda ev, st: seen.append(st.step), twt.on_step(every=2, at="start"))
    regression_model().train(regression_data(n=32), epochs=1, batch_size=8, callbacks=[cb])
    assert seen == [1, 3]  # before steps 2 and 4 (state.step counts finished steps)


def test_third_party_callback_by_registered_name_and_trainer_name():
    calls = []

    class Mine(twt.Callback):
        triggers = (twt.on_train("end"),)

        def __init__(self, tag="x"):
            self.tag = tag

        def __call__(self, event, state):
            calls.append((self.tag, state.step))

    with tw.callbacks.scoped():
        tw.callbacks.register("Mine.v1", Mine)
        regression_model().train(
            regression_data(n=16), epochs=1, batch_size=8, callbacks=[("Mine.v1", {"tag": "t"})]
        )
    assert calls == [("t", 2)]
    tw.plugins.refresh()
    assert tw.trainers["Trainer.v1"] is twt.Trainer
    h = tw.trainers["Trainer.v1"](regression_model()).run(regression_data(n=16), 1, batch_size=8)
    assert len(h) == 1
