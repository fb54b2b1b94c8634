"""Optimization (``model.optimization``): the optimizers of a Model (one or several by
name), their learning rates, the variables each updates and ``optimize``; the figures named
after them."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import Dense, regression_data, regression_model, weights

import tensorweave as tw
import tensorweave_train as twt


def test_optimizer_by_registered_name():
    tw.plugins.refresh()
    x = tw.Input(n_units=2, name="x")
    d = Dense(x, 1)
    loss = tw.Lambda(tf.reduce_mean, d)
    model = twt.Model(inputs=x, outputs=d, loss=loss, optimizer="Adagrad.v1")
    assert isinstance(model.optimizer, twt.Adagrad)


def test_learning_rate_changed_during_training_without_retracing():
    model = regression_model()
    data = regression_data(n=16)

    def freeze(ev, st):
        if st.epoch == 0:
            model.optimizer.learning_rate.assign(0.0)

    snapshots = []
    cbs = [
        twt.LambdaCallback(freeze, twt.on_epoch()),
        twt.LambdaCallback(lambda ev, st: snapshots.append(weights(model)), twt.on_epoch()),
    ]
    h = model.train(data, epochs=3, batch_size=8, callbacks=cbs)
    assert [e["learning_rate"] for e in h] == pytest.approx([0.05, 0.0, 0.0])
    for a, b in zip(snapshots[0], snapshots[2]):
        np.testing.assert_array_equal(a, b)
    assert model.train_trace_count == 1


def test_model_refuses_an_optimizer_it_cannot_use():
    with pytest.raises(tw.ArgumentError, match="Model 'model': optimizer must be an Optimizer"):
        regression_model(optimizer=3)


def _two_optimizers():
    """x -> body -> head, a loss; "body" trains the body, "head" the head."""
    x = tw.Input(n_units=2, name="x")
    body = Dense(x, 3)
    head = Dense(body, 1)
    optimizers = {"body": twt.SGD(0.1), "head": twt.SGD(0.2)}
    model = twt.Model(
        inputs=x,
        outputs=head,
        loss=tw.Lambda(tf.reduce_mean, head),
        optimizer=optimizers,
        trains={"body": body},
    )
    return model, body, head


def test_several_optimizers_are_named_and_report_their_learning_rates():
    model, body, head = _two_optimizers()
    assert list(model.optimizers) == ["body", "head"]
    assert model.learning_rates() == {"body_learning_rate": 0.1, "head_learning_rate": 0.2}
    assert {v.ref() for v in model.variables_of("head")} == {v.ref() for v in head.variables}
    assert {v.ref() for v in model.variables} == {v.ref() for v in body.variables + head.variables}
    with pytest.raises(AttributeError, match=r"several optimizers \(body, head\)"):
        _ = model.optimizer
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = model.nope


def test_optimize_applies_one_optimizer_by_name_and_refuses_an_unknown_one():
    model, body, head = _two_optimizers()
    x = np.ones((4, 2), "float32")
    before = [v.numpy() for v in body.variables]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(head.graph.compute(x))
    model.optimize(tape, loss, model.variables_of("head"), "head")
    assert all(np.array_equal(a, v.numpy()) for a, v in zip(before, body.variables))
    assert int(model.optimizers["head"].iterations) == 1
    assert int(model.optimizers["body"].iterations) == 0
    with pytest.raises(tw.ArgumentError, match="no optimizer 'tail'; it has body, head"):
        model.optimize(tape, loss, model.variables_of("head"), "tail")
