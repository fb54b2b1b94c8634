"""The compiled steps (``loop.steps``): under XLA the multi-step loop stays outside the XLA
cluster; ``train_step`` is the seam a subclass overrides, and the loop runs it several
steps per call."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import regression_data, regression_model, weights

import tensorweave as tw
import tensorweave_train as twt


def _xla_calls(concrete):
    """The function calls marked for XLA anywhere in ``concrete``'s function library."""
    library = concrete.graph.as_graph_def().library.function
    return [
        node.attr["f"].func.name
        for fdef in library
        for node in fdef.node_def
        if node.op.endswith("PartitionedCall") and node.attr["_XlaMustCompile"].b
    ]


def test_xla_multi_step_loop_calls_the_one_step_xla_function():
    """XLA on the CPU turns a convolution inside a while loop into a naive kernel (the
    CIFAR CNN ran 50x slower), so only the one-step function is compiled by XLA."""
    model = regression_model(seed=3, steps_per_execution=4, jit_compile=True)
    model.train(regression_data(n=32), epochs=1, batch_size=8, shuffle=False, verbose=0)
    concrete = model.multi_step_function.get_concrete_function()
    assert not concrete.function_def.attr["_XlaMustCompile"].b  # the loop: not XLA
    assert _xla_calls(concrete), "the one-step XLA function is called in the loop"
    assert model.train_function.experimental_get_tracing_count() == 1


def test_without_xla_the_loop_runs_the_step_body_inline():
    model = regression_model(seed=3, steps_per_execution=4)
    model.train(regression_data(n=32), epochs=1, batch_size=8, shuffle=False, verbose=0)
    assert model.steps.train.trace_count == 0  # the one-step function: never traced
    assert np.isfinite(float(model.evaluate(regression_data(n=8))["loss"]))


class _ClippedStep(twt.Model):
    """A step of its own: gradients clipped by value before the update."""

    def train_step(self, batch):
        variables = self.trainable_variables
        with tf.GradientTape() as tape:
            loss = self.compute_loss(batch)
        grads = [tf.clip_by_value(g, -1e-3, 1e-3) for g in tape.gradient(loss, variables)]
        self.optimizer.apply_gradients(zip(grads, variables))
        return loss


def test_an_overridden_train_step_is_what_the_loop_runs_several_per_call():
    data = regression_data(n=32)
    plain = regression_model(seed=3, steps_per_execution=4)
    own = regression_model(seed=3, steps_per_execution=4, model_class=_ClippedStep)
    before = weights(own)
    plain.train(data, epochs=1, batch_size=8, shuffle=False, verbose=0)
    own.train(data, epochs=1, batch_size=8, shuffle=False, verbose=0)
    moved = [np.abs(a - b).max() for a, b in zip(weights(own), before, strict=True)]
    assert 0 < max(moved) <= 4 * 1e-3 * 0.05 + 1e-7  # 4 steps of lr * clipped gradients
    assert any(not np.allclose(a, b) for a, b in zip(weights(plain), weights(own), strict=True))
    assert own.steps.train_many.trace_count == 1 and own.steps.train.trace_count == 0


def test_train_on_batch_is_one_compiled_step_and_train_step_runs_eagerly_when_called():
    model = regression_model(seed=3)
    batch = [regression_data(n=8)["x"], regression_data(n=8)["t"]]
    first = float(model.train_on_batch(batch))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = float(model.train_step([tf.constant(b) for b in batch]))
    assert second < first and int(model.optimizer.iterations) == 2
    assert model.train_trace_count == 1  # the eager step traced nothing


def test_a_frozen_layer_stays_untouched_and_the_steps_are_traced_again():
    """Freezing (or unfreezing) between two ``train`` calls changes what the compiled
    steps update: they are traced again; the frozen weights do not move, even with
    momentum in the optimizer from before."""
    model = regression_model(seed=3, optimizer=twt.Adam(0.01))
    data = regression_data(n=32)
    model.train(data, epochs=1, batch_size=8, verbose=0)
    hidden = model.layers[1]  # the first Dense
    frozen = [v.numpy().copy() for v in hidden.variables]
    hidden.freeze()
    model.train(data, epochs=2, batch_size=8, verbose=0)
    for before, v in zip(frozen, hidden.variables, strict=True):
        np.testing.assert_array_equal(before, v.numpy())
    assert model.train_trace_count == 1  # the new function: traced once
    hidden.unfreeze()
    model.train_on_batch([data["x"][:8], data["t"][:8]])
    assert any(not np.array_equal(b, v.numpy()) for b, v in zip(frozen, hidden.variables))


class _OwnStep(twt.Model):
    """A ``train_step`` of its own, as Keras's: its own losses, any figures, no ``loss=``."""

    def train_step(self, batch):
        x, y = batch
        variables = self.variables_of("optimizer")
        with tf.GradientTape() as tape:
            error = tf.reduce_mean((self.outputs[0].compute(x) - y) ** 2)
        self.optimize(tape, error, variables)
        return {"mse": error, "steps_seen": tf.ones([])}


def test_a_train_step_of_its_own_needs_no_loss_and_reports_its_figures():
    x, t = tw.Input(n_units=1, name="x"), tw.Input(n_units=1, name="t")
    w = tf.Variable([[0.0]])
    y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y")
    model = _OwnStep(inputs=x, outputs=y, targets=t, optimizer=twt.SGD(0.1))
    assert model.trainable_variables == (w,) and model.variables_of("optimizer") == (w,)
    xs = np.ones((8, 1), "float32")
    history = model.train(xs, 2 * xs, epochs=3, batch_size=4, verbose=0)
    assert sorted(k for k in history[-1] if k not in ("epoch", "step", "learning_rate")) == [
        "mse",
        "steps_seen",
    ]
    assert history[-1]["steps_seen"] == 1.0 and history[-1]["mse"] < history[0]["mse"]


def _own_step_model(**model):
    x, t = tw.Input(n_units=1, name="x"), tw.Input(n_units=1, name="t")
    w = tf.Variable([[0.0]])
    y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y")
    if model.pop("with_loss", False):
        model["loss"] = tw.losses["mse.v1"](t, y)
    return _OwnStep(inputs=x, outputs=y, targets=t, optimizer=twt.SGD(0.1), **model)


@pytest.mark.parametrize("with_loss", [False, True], ids=["no-loss", "loss="])
def test_a_train_step_returning_no_loss_has_exactly_its_figures(with_loss, capsys):
    """Keras 3: the history holds what ``train_step`` returns; a step of its own that
    returns no ``"loss"`` has no ``loss`` figure, with or without ``loss=`` on the model,
    in the history and in the progress display alike (it was refused with ``loss=``)."""
    model = _own_step_model(with_loss=with_loss)
    xs = np.ones((8, 1), "float32")
    history = model.train(xs, 2 * xs, epochs=2, batch_size=4, verbose=2)
    assert sorted(history.history) == ["learning_rate", "mse", "steps_seen"]
    assert history.history["mse"][1] < history.history["mse"][0]
    shown = capsys.readouterr().out
    assert "mse: " in shown and "steps_seen: " in shown and "loss" not in shown


class _OwnStepWithLoss(twt.Model):
    def train_step(self, batch):
        losses = self.compute_losses(batch)
        return {"loss": losses["loss"], "twice": 2 * losses["loss"]}


def test_a_train_step_returning_loss_and_its_own_figures_reports_both():
    x, t = tw.Input(n_units=1, name="x"), tw.Input(n_units=1, name="t")
    y = tw.layers["Linear.v1"](x, n_units=1, name="y")
    model = _OwnStepWithLoss(
        inputs=x, outputs=y, targets=t, loss=tw.losses["mse.v1"](t, y), optimizer=twt.SGD(0.1)
    )
    xs = np.ones((8, 1), "float32")
    history = model.train(xs, 2 * xs, epochs=1, batch_size=4, verbose=0)
    assert sorted(history.history) == ["learning_rate", "loss", "twice"]
    assert history.history["twice"][0] == pytest.approx(2 * history.history["loss"][0])
