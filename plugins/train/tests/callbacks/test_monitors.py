"""``EarlyStopping`` and ``ReduceLROnPlateau``: when they act, what they say, their memory in
checkpoints, and the Keras argument names of the callbacks."""

from __future__ import annotations

import numpy as np
import pytest
from twtrain_helpers import regression_data, regression_model

import tensorweave_train as twt
from tensorweave_train import Event


def test_early_stopping_stops_and_restores_best():
    model = regression_model(optimizer=twt.SGD(5.0))  # diverges: loss gets worse
    data = regression_data(n=32)
    es = twt.EarlyStopping(monitor="loss", patience=2, restore_best_weights=True)
    h = model.train(data, epochs=30, batch_size=8, callbacks=[es])
    assert len(h) < 30 and "EarlyStopping" in h.state.stop_reason
    assert h.state.stop


@pytest.mark.filterwarnings("ignore::tensorweave_train.NonFiniteWarning")  # it diverges
def test_reduce_lr_on_plateau():
    model = regression_model(optimizer=twt.SGD(5.0))  # loss gets worse each epoch
    cb = twt.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_lr=1.0)
    h = model.train(regression_data(n=32), epochs=6, batch_size=8, callbacks=[cb])
    lrs = [e["learning_rate"] for e in h]
    assert lrs[0] == 5.0 and min(lrs) >= 1.0 and lrs[-1] < 5.0
    assert float(model.optimizer.learning_rate) == lrs[-1]


def test_state_roundtrip_of_monitor_callbacks():
    es = twt.EarlyStopping(patience=4)
    st = twt.TrainState(values={"val_loss": 1.0})
    es(Event.EPOCH_END, st)
    es2 = twt.EarlyStopping(patience=4)
    es2.load_state_dict(es.state_dict())
    assert es2.best == 1.0 and es2.wait == 0
    assert np.isclose(float(regression_model().optimizer.current_learning_rate()), 0.05)


def test_early_stop_is_announced_with_epoch_value_and_restore(capsys) -> None:
    model = regression_model(optimizer=twt.SGD(0.5))
    data = regression_data(n=32)
    es = twt.EarlyStopping(monitor="loss", patience=1, restore_best_weights=True, min_delta=10.0)
    h = model.train(data, epochs=10, batch_size=8, callbacks=[es], verbose=2)
    out = capsys.readouterr().out
    assert len(h) == 2  # epoch 1 is the best (nothing improves by 10), epoch 2 stops
    assert "Stopped after epoch 2: EarlyStopping: loss did not improve on" in out
    assert "(epoch 1)" in out and "restored the weights of epoch 1" in out


@pytest.mark.parametrize(
    ("make", "old"),
    [
        (twt.EarlyStopping, "restore_best"),
        (twt.TensorBoard, "logdir"),
        (twt.TensorBoard, "every_steps"),
        (twt.TensorBoard, "graph"),
        (twt.CSVLogger, "path"),
    ],
)
def test_the_old_callback_argument_names_are_gone(make, old) -> None:
    first = {"filename": "x.csv"} if make is twt.CSVLogger and old != "path" else {}
    with pytest.raises(TypeError, match=old):
        make(**first, **{old: "x"})


def test_keras_defaults() -> None:
    es, plateau = twt.EarlyStopping(), twt.ReduceLROnPlateau()
    assert (es.monitor, es.patience, es.min_delta, es.mode) == ("val_loss", 0, 0.0, "min")
    assert (plateau.factor, plateau.patience, plateau.min_delta, plateau.cooldown) == (
        0.1,
        10,
        1e-4,
        0,
    )
    assert plateau.min_lr == 0.0 and twt.EarlyStopping(monitor="val_accuracy").mode == "max"


def test_restore_best_weights_restores_at_the_end_even_without_stopping(capsys) -> None:
    model = regression_model(optimizer=twt.SGD(5.0))  # diverges: epoch 1 is the best
    data = regression_data(n=32)
    es = twt.EarlyStopping(monitor="loss", patience=100, restore_best_weights=True, verbose=1)
    seen: list[list[np.ndarray]] = []
    keep = twt.LambdaCallback(
        lambda ev, st: seen.append([v.numpy() for v in model.variables]), twt.on_epoch()
    )
    h = model.train(data, epochs=3, batch_size=8, callbacks=[es, keep], verbose=0)
    assert not h.state.stop and es.best_epoch == 1
    for now, best in zip(model.variables, seen[0], strict=True):  # epoch 1's weights
        np.testing.assert_array_equal(now.numpy(), best)
    assert "Restoring model weights from the end of the best epoch: 1." in capsys.readouterr().out


@pytest.mark.filterwarnings("ignore::tensorweave_train.NonFiniteWarning")
def test_reduce_lr_on_plateau_verbose_prints_as_keras(capsys) -> None:
    model = regression_model(optimizer=twt.SGD(5.0))
    cb = twt.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, verbose=1)
    model.train(regression_data(n=32), epochs=3, batch_size=8, callbacks=[cb], verbose=0)
    assert "Epoch 2: ReduceLROnPlateau reducing learning rate to 2.5." in capsys.readouterr().out
