"""The public door of Model.train/evaluate/predict (``loop.model_arguments``): Keras's
``fit(x, y)`` spelling, and sizes that cannot mean anything refused by name."""

from __future__ import annotations

import numpy as np
import pytest
from twtrain_helpers import regression_data, regression_model, weights

import tensorweave as tw


def test_train_takes_x_and_y_positionally_as_keras_fit():
    data = regression_data(n=32)
    by_dict, by_xy = regression_model(seed=2), regression_model(seed=2)
    by_dict.train(data, epochs=2, batch_size=8, verbose=0)
    history = by_xy.train(data["x"], data["t"], epochs=2, batch_size=8, verbose=0)
    assert len(history) == 2
    for a, b in zip(weights(by_dict), weights(by_xy), strict=True):
        np.testing.assert_array_equal(a, b)
    assert by_xy.evaluate(data["x"], data["t"]) == by_dict.evaluate(data)
    assert by_xy.evaluate([data["x"]], {"t": data["t"]}) == by_dict.evaluate(data)
    np.testing.assert_array_equal(by_xy.predict(data["x"]), by_dict.predict({"x": data["x"]}))


def test_a_number_where_the_targets_go_says_epochs():
    model = regression_model()
    with pytest.raises(tw.ArgumentError, match=r"y is the targets.*Fix: write epochs=2 "):
        model.train(regression_data(n=16), 2, batch_size=8, verbose=0)
    assert model.optimizer.iterations.numpy() == 0  # nothing ran


@pytest.mark.parametrize("bad", [0, -4, 2.5, "8", True])
def test_sizes_that_cannot_mean_anything_name_their_argument(bad):
    model, data = regression_model(), regression_data(n=16)
    calls = {
        "batch_size": [
            lambda: model.train(data, batch_size=bad, verbose=0),
            lambda: model.evaluate(data, batch_size=bad),
            lambda: model.predict({"x": data["x"]}, batch_size=bad),
        ],
        "epochs": [lambda: model.train(data, epochs=bad, verbose=0)],
    }
    for arg, fns in calls.items():
        for fn in fns:
            with pytest.raises(tw.ArgumentError, match=rf"{arg} must be a positive integer"):
                fn()
    model.steps_per_execution = bad
    with pytest.raises(tw.ArgumentError, match="steps_per_execution must be"):
        model.train(data, verbose=0)
    assert model.optimizer.iterations.numpy() == 0  # nothing ran


def test_x_and_y_that_do_not_fit_the_model_say_how():
    model, data = regression_model(), regression_data(n=16)
    with pytest.raises(tw.ArgumentError, match=r"x holds 2 array\(s\), the model has 1 inputs"):
        model.train([data["x"], data["x"]], data["t"], verbose=0)
    with pytest.raises(tw.ArgumentError, match=r"y names \['z'\].*\['t'\]"):
        model.train(data["x"], {"z": data["t"]}, verbose=0)
