"""``StopOnNaN``: the one NaN guard, on step losses and at epoch ends."""

from __future__ import annotations

import math
import warnings

import numpy as np
from twtrain_helpers import regression_data, regression_model

import tensorweave_train as twt


def test_stop_on_nan():
    model = regression_model(optimizer=twt.SGD(1e6))
    data = regression_data(n=32)
    data["x"] = data["x"] * 1e3
    with warnings.catch_warnings():
        warnings.simplefilter("error", twt.NonFiniteWarning)  # the one policy: the callback's
        h = model.train(data, epochs=50, batch_size=8, callbacks=[twt.StopOnNaN()])
    assert "StopOnNaN" in h.state.stop_reason
    assert not math.isfinite(float(h.state.loss))
    assert h.state.step < 50 * 4


def test_at_epoch_end_it_stops_on_weights_gone_nan_under_a_finite_loss():
    model = regression_model()
    model.build()
    guard = twt.StopOnNaN(every=None, at_epoch_end=True)
    state = twt.TrainState(epoch=2, step=12, model=model, values={"loss": 0.25})
    guard(twt.Event.EPOCH_END, state)
    assert not state.stop and guard.reason is None
    weight = model.trainable_variables[0]
    weight.assign(weight * float("nan"))
    guard(twt.Event.EPOCH_END, state)
    assert state.stop and guard.reason is not None
    assert f"the weights ['{weight.name}'] hold NaN/inf at epoch 3 (step 12)" in guard.reason
    assert "Fix: " in guard.reason
    assert [t.event for t in guard.triggers] == [twt.Event.EPOCH_END]  # no per-step cost


def test_with_the_guard_the_trainer_neither_checks_the_data_nor_warns_at_epoch_ends():
    model = regression_model()
    data = regression_data(n=16)
    data["x"][3, 0] = np.nan
    guard = twt.StopOnNaN(every=None, at_epoch_end=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", twt.NonFiniteWarning)
        h = model.train(data, epochs=3, batch_size=8, callbacks=[guard], verbose=0)
    assert guard.reason is not None and "at epoch 1" in guard.reason and len(h) == 1
