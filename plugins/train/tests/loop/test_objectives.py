"""Several losses with weights, several optimizers each owning its variables, the layers'
regularization (``loop.objectives``), checked against Keras 3 and hand-written steps."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import Dense, mse, regression_data

import tensorweave as tw
import tensorweave_train as twt

RNG = np.random.default_rng(4)
X = RNG.normal(size=(16, 3)).astype("float32")
A = RNG.normal(size=(16, 2)).astype("float32")
B = RNG.normal(size=(16, 1)).astype("float32")


def _two_heads(seed=0, **kw):
    """x(3) -> Linear(4, l2 on its weights) -> relu -> heads a(2), b(1); mse on each."""
    tw.reset_names()
    tf.random.set_seed(seed)
    x, ta = tw.Input(n_units=3, name="x"), tw.Input(n_units=2, name="ta")
    tb = tw.Input(n_units=1, name="tb")
    h = tw.layers["Linear.v1"](x, n_units=4, w_regularizer=kw.pop("reg", None), name="h")
    h = tw.layers["Activation.v1"](h, activation="relu")
    ya = tw.layers["Linear.v1"](h, n_units=2, name="ya")
    yb = tw.layers["Linear.v1"](h, n_units=1, name="yb")
    losses = {"a": tw.losses["mse.v1"](ta, ya), "b": tw.losses["mse.v1"](tb, yb)}
    head = kw.pop("head", None)  # the optimizer that trains the head ya (the other: the rest)
    if head is not None:
        kw["trains"] = {head: [ya]}
    model = twt.Model(inputs=x, outputs=[ya, yb], targets=[ta, tb], loss=losses, **kw)
    return model, (h, ya, yb)


def _kernels(layers):
    """Each Linear's weights then bias, as Keras orders a Dense layer's."""
    h, ya, yb = layers
    return [v.numpy() for layer in (h.inputs[0], ya, yb) for v in (layer.weights, layer.bias)]


def _keras_twin(layers, reg):
    inp = keras.Input((3,))
    regularizer = keras.regularizers.L2(0.01) if reg else None
    kh = keras.layers.Dense(4, activation="relu", kernel_regularizer=regularizer)(inp)
    model = keras.Model(inp, [keras.layers.Dense(2)(kh), keras.layers.Dense(1)(kh)])
    model.set_weights(_kernels(layers))
    return model


@pytest.mark.parametrize("reg", [None, "l2"])
def test_weighted_losses_and_regularization_train_as_keras(reg):
    """One SGD step on ``loss={"a", "b"}, loss_weights={"b": 0.5}`` (and an l2 on the
    hidden weights, which needs nothing else) gives Keras 3's weights and loss."""
    model, layers = _two_heads(
        reg=reg, loss_weights={"b": 0.5}, optimizer=twt.SGD(0.1), steps_per_execution=1
    )
    ref = _keras_twin(layers, reg)
    ref.compile(keras.optimizers.SGD(0.1), loss=["mse", "mse"], loss_weights=[1.0, 0.5])
    history = model.train(X, [A, B], epochs=1, batch_size=16, shuffle=False, verbose=0)
    keras_loss = ref.train_on_batch(X, [A, B])
    keras_loss = keras_loss[0] if isinstance(keras_loss, list) else keras_loss
    assert history[-1]["loss"] == pytest.approx(float(keras_loss), rel=1e-5)
    for mine, theirs in zip(_kernels(layers), ref.get_weights(), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)
    record = history[-1]
    assert set(record) >= {"a_loss", "b_loss"}
    penalty = record.get("regularization_loss", 0.0)
    assert ("regularization_loss" in record) == (reg is not None)
    assert record["loss"] == pytest.approx(
        record["a_loss"] + 0.5 * record["b_loss"] + penalty, rel=1e-6
    )
    figures = model.evaluate(X, [A, B])
    assert set(figures) == {"loss", "a_loss", "b_loss"}


def _hand_step(model, shares, goals, rates):
    """What each optimizer does by hand: SGD on the gradient of its goal."""
    x, ta, tb = (tf.constant(v) for v in (X, A, B))
    with tf.GradientTape(persistent=True) as tape:
        out = model.loss_graph.compute(feed=dict(zip(model.feeds, (x, ta, tb), strict=True)))
        losses = dict(zip(["loss", "a", "b"], out, strict=True))
    for name, variables in shares.items():
        for v, g in zip(variables, tape.gradient(losses[goals[name]], variables), strict=True):
            v.assign_sub(rates[name] * g)


@pytest.mark.parametrize("paired", [False, True])
def test_each_optimizer_updates_its_share_with_its_goal(paired):
    """Optimizers named after the losses minimise their own loss over their variables
    (``trains``; the one left out trains the rest); other names minimise the total."""
    names = ("a", "b") if paired else ("head", "rest")
    model, (h, ya, yb) = _two_heads(
        optimizer={names[0]: twt.SGD(0.1), names[1]: twt.SGD(0.02)},
        head=names[0],
        steps_per_execution=1,
    )
    twin, _ = _two_heads(steps_per_execution=1)
    ours = {names[0]: ya.variables, names[1]: (*h.inputs[0].variables, *yb.variables)}
    assert {n: {v.ref() for v in model.variables_of(n)} for n in names} == {
        n: {v.ref() for v in vs} for n, vs in ours.items()
    }
    mirror = {v.ref(): w for v, w in zip(model.variables, twin.variables, strict=True)}
    shares = {n: [mirror[v.ref()] for v in vs] for n, vs in ours.items()}
    goals = {names[0]: "a", names[1]: "b"} if paired else {n: "loss" for n in names}
    _hand_step(twin, shares, goals, {names[0]: 0.1, names[1]: 0.02})
    model.train(X, [A, B], epochs=1, batch_size=16, shuffle=False, verbose=0)
    for mine, hand in zip(model.variables, twin.variables, strict=True):
        np.testing.assert_allclose(mine.numpy(), hand.numpy(), rtol=1e-6, atol=1e-7)
    assert [int(o.iterations) for o in model.optimizers.values()] == [1, 1]
    with pytest.raises(AttributeError, match=r"several optimizers .*model.optimizers\["):
        _ = model.optimizer


def test_several_optimizers_resume_exactly_from_a_checkpoint(tmp_path):
    """Every optimizer's slots and step count are in the checkpoint, by name."""
    data = regression_data(n=32)

    def make():
        x, t = tw.Input(n_units=4, name="x"), tw.Input(n_units=1, name="t")
        tf.random.set_seed(2)
        h = Dense(x, 8, name="h")
        y = Dense(tw.Lambda(tf.tanh, h), 1, name="y")
        return twt.Model(
            inputs=x,
            outputs=y,
            targets=t,
            loss=tw.Lambda(mse, y, t),
            optimizer={"body": twt.Adam(0.01), "head": twt.RMSprop(0.01)},
            trains={"body": h},
        )

    whole = make()
    whole.train(data, epochs=4, batch_size=8, seed=3, verbose=0)
    cut = make()
    ckpt = twt.CheckpointCallback(tmp_path, every_epochs=1)
    cut.train(data, epochs=2, batch_size=8, seed=3, callbacks=[ckpt], verbose=0)
    resumed = make()
    resumed.train(data, epochs=4, batch_size=8, seed=3, resume=tmp_path, verbose=0)
    for a, b in zip(whole.variables, resumed.variables, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert int(resumed.optimizers["head"].iterations) == 16


def test_objective_mistakes_are_argument_errors():
    x = tw.Input(n_units=1, name="x")
    a, b = tw.ops.reduce_mean(x), tw.ops.reduce_sum(x)
    h1, h2 = Dense(x, 1), Dense(x, 1)
    two = {"g": twt.SGD(0.1), "d": twt.SGD(0.1)}

    def model(**kw):
        return twt.Model(inputs=x, outputs=x, **kw)

    cases = [
        (dict(loss=a, loss_weights={"a": 2.0}), "needs named losses"),
        (dict(loss={"a": a}, loss_weights={"aa": 2.0}), "Did you mean 'a'"),
        (dict(loss={"a": a}, loss_weights={"a": float("nan")}), "finite number"),
        (dict(loss={"loss": a}), "other than 'loss'"),
        (dict(loss=a, optimizer=two), r"the optimizers \['g', 'd'\] do not say"),
        (dict(loss=a, optimizer=two, trains={"gg": h1}), "Did you mean 'g'"),
        (dict(loss=a, optimizer=two, trains={"g": [h1, h1.variables[0]], "d": h1}), "both"),
        (dict(loss=a, optimizer=two, trains={"g": "h1"}), "holds a str"),
        (dict(loss={"g": a, "x": b}, optimizer=two, trains={"g": h1}), "share some names"),
        (dict(loss=a, optimizer={"g": (o := twt.SGD(0.1)), "d": o}), "same object"),
        (dict(loss=a, metrics={"loss": b}), "name of a loss figure"),
        (dict(loss={"a": a}, metrics={"a_loss": b}), "name of a loss figure"),
    ]
    for kw, match in cases:
        with pytest.raises(tw.ArgumentError, match=match):
            model(**kw)
    with pytest.raises(tw.ArgumentError, match="no optimizer 'x'; it has g, d"):
        model(loss=tw.ops.reduce_sum(h1 - h2), optimizer=two, trains={"g": h1}).variables_of("x")


class _UnknownFigure(twt.Model):
    def train_step(self, batch):
        return {"loss": self.compute_loss(batch), "gp": tf.constant(0.0)}


def test_a_step_returning_a_figure_of_its_own_reports_it_under_its_name():
    """Keras 3: the history holds what ``train_step`` returns (it was refused)."""
    x, t = tw.Input(n_units=4, name="x"), tw.Input(n_units=1, name="t")
    y = Dense(x, 1)
    model = _UnknownFigure(inputs=x, outputs=y, targets=t, loss=tw.Lambda(mse, y, t))
    history = model.train(regression_data(n=8), epochs=1, batch_size=8, verbose=0)
    assert sorted(history.history) == ["gp", "learning_rate", "loss"]
    assert history.history["gp"] == [0.0]
