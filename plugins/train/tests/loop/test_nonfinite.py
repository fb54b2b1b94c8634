"""The one NaN/inf check (``loop.nonfinite``): the data, the epoch's loss and the weights,
and the warning ``Trainer`` gives once."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import regression_data, regression_model

from tensorweave_train import NonFiniteWarning
from tensorweave_train.loop.nonfinite import non_finite, non_finite_weights


class _Holder:
    def __init__(self, *variables):
        self.trainable_variables = list(variables)


def test_names_exactly_the_variables_holding_nan_or_inf():
    ok = tf.Variable([1.0, 2.0], name="ok")
    nan = tf.Variable([[1.0, np.nan]], name="nan")
    inf = tf.Variable([-np.inf], dtype=tf.float64, name="inf")
    ids = tf.Variable([1, 2], name="ids")  # not float: not looked at
    assert non_finite_weights(_Holder(ok, nan, ids, inf)) == ["nan:0", "inf:0"]
    assert non_finite_weights(_Holder(ok, ids)) == []
    assert non_finite_weights(_Holder(ids)) == []


def test_finite_weights_whose_sum_overflows_are_not_reported():
    big = tf.Variable(np.full(4, 3e38, "float32"), name="big")
    half = tf.Variable(np.full(4, 60000.0, "float16"), name="half")
    assert non_finite_weights(_Holder(big, half)) == []


def test_the_check_reads_the_weights_of_now_not_of_its_first_call():
    model = regression_model()
    model.train(regression_data(n=16), epochs=1, batch_size=8, verbose=0)
    assert non_finite_weights(model) == []
    weight = model.trainable_variables[0]
    weight.assign(weight * np.nan)
    assert non_finite_weights(model) == [weight.name]


def test_nan_weights_warn_once_after_the_first_epoch():
    model = regression_model()
    model.build()
    weight = model.trainable_variables[0]
    weight.assign(weight * np.nan)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model.train(regression_data(n=16), epochs=3, batch_size=8, verbose=0)
    messages = [str(w.message) for w in record if issubclass(w.category, NonFiniteWarning)]
    assert len(messages) == 1 and "after epoch 1 (step 2)" in messages[0]
    assert "nan" in messages[0] or "NaN" in messages[0]


def test_finite_training_gives_no_warning():
    model = regression_model()
    with warnings.catch_warnings():
        warnings.simplefilter("error", NonFiniteWarning)
        model.train(regression_data(n=16), epochs=2, batch_size=8, verbose=0)


@pytest.mark.parametrize("steps_per_execution", [1, 4])
def test_weights_gone_nan_under_a_finite_loss_are_reported(steps_per_execution):
    """A NaN can vanish from the loss (``relu(NaN)`` is 0 on some kernels; here a
    ``where``) while a weight holds it: the weights are looked at, not only the loss."""
    import tensorweave as tw
    from tensorweave_train import Model

    tw.reset_names()
    x = tw.Input(n_units=1, name="x")
    w = tf.Variable([[1.0]], name="w")
    hidden = tf.Variable([np.nan], name="hidden")

    def loss_of(a):
        masked = tf.where(tf.math.is_finite(hidden), hidden, 0.0)
        return tf.reduce_mean(a @ w) + tf.reduce_sum(masked)

    loss = tw.Lambda(loss_of, x, variables=[w, hidden])
    model = Model(inputs=x, outputs=x, loss=loss, steps_per_execution=steps_per_execution)
    with pytest.warns(NonFiniteWarning, match=r"\['hidden:0'\] hold NaN/inf after epoch 1") as rec:
        h = model.train({"x": np.ones((8, 1), "float32")}, epochs=2, batch_size=2, verbose=0)
    assert np.isfinite(h.history["loss"]).all()
    assert len([w for w in rec if issubclass(w.category, NonFiniteWarning)]) == 1


def test_the_data_is_looked_at_only_when_it_is_arrays():
    assert non_finite({"x": np.ones((2, 2)), "y": np.array([0.0, np.inf])}) == (
        "field 'y' has NaN or inf values (first at example 1)"
    )
    assert non_finite((np.zeros(3),)) is None
    assert non_finite(iter([{"x": np.array([np.nan])}])) is None  # not consumed
