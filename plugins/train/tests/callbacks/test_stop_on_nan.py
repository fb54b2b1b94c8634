"""``StopOnNaN``: the one NaN guard, on step losses and at epoch ends."""

from __future__ import annotations

import math

import pytest
from twtrain_helpers import regression_data, regression_model

import tensorweave_train as twt


def test_stop_on_nan():
    model = regression_model(optimizer=twt.SGD(1e6))
    data = regression_data(n=32)
    data["x"] = data["x"] * 1e3
    with pytest.warns(twt.NonFiniteWarning, match="training loss is (nan|inf)"):
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
