"""Model under a precision policy: float32 weights, loss and outputs; bfloat16 layers;
loss scaling under mixed_float16; checkpoints and predict unchanged."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import Dense, regression_data, regression_model, weights

import tensorweave as tw
import tensorweave_train as twt


class Seen(Dense):
    """The helper's dense layer, recording the dtype it computes in."""

    seen: list[str] = []

    def compute(self, x):
        Seen.seen.append(x.dtype.name)
        return super().compute(x)


def test_mixed_bfloat16_trains_float32_weights_and_returns_float32():
    model = regression_model(precision="mixed_bfloat16")
    data = regression_data()
    before = model.evaluate(data)["loss"]
    model.train(data, epochs=5, batch_size=8, verbose=0)
    assert model.evaluate(data)["loss"] < before
    assert all(v.dtype == tf.float32 for v in model.variables)
    assert model.predict({"x": data["x"]}).dtype == np.float32
    assert model.precision.name == "mixed_bfloat16" and model.loss_scale is None
    assert model.train_trace_count == 1


def test_mixed_bfloat16_follows_float32_training_closely():
    data = regression_data()
    runs = []
    for precision in ("float32", "mixed_bfloat16"):
        model = regression_model(seed=2, precision=precision)
        model.train(data, epochs=3, batch_size=16, shuffle=False, verbose=0)
        runs.append(weights(model))
    for a, b in zip(*runs, strict=True):
        np.testing.assert_allclose(a, b, atol=0.05)


def test_layers_compute_in_bfloat16_inside_the_compiled_steps():
    tw.reset_names()
    x, t = tw.Input(n_units=4, name="x"), tw.Input(n_units=1, name="t")
    y = Seen(x, 1)
    loss = tw.Lambda(lambda a, b: tf.reduce_mean((a - b) ** 2), y, t)
    model = twt.Model(inputs=x, outputs=y, targets=t, loss=loss, precision="mixed_bfloat16")
    Seen.seen.clear()
    model.train(regression_data(n=16), epochs=1, batch_size=8, verbose=0)
    model.predict({"x": np.ones((2, 4), "float32")})
    assert set(Seen.seen) == {"bfloat16"}


def test_mixed_float16_scales_the_loss_and_checkpoints_the_scale(tmp_path):
    model = regression_model(precision="mixed_float16")
    data = regression_data()
    model.train(data, epochs=2, batch_size=8, verbose=0)
    assert isinstance(model.loss_scale, twt.LossScale)
    assert int(model.loss_scale.good_steps) == 16
    path = tf.train.Checkpoint(model=model).write(str(tmp_path / "ckpt"))
    other = regression_model(seed=5, precision="mixed_float16")
    other.loss_scale.scale.assign(1.0)
    tf.train.Checkpoint(model=other).read(path).expect_partial()
    assert float(other.loss_scale.scale) == float(model.loss_scale.scale)
    np.testing.assert_allclose(
        other.predict({"x": data["x"]}), model.predict({"x": data["x"]}), rtol=1e-6
    )


def test_a_float32_checkpoint_restores_into_a_mixed_model(tmp_path):
    data = regression_data()
    plain = regression_model()
    plain.train(data, epochs=1, batch_size=8, verbose=0)
    path = tf.train.Checkpoint(model=plain).write(str(tmp_path / "ckpt"))
    mixed = regression_model(seed=9, precision="mixed_bfloat16")
    tf.train.Checkpoint(model=mixed).read(path).assert_existing_objects_matched()
    for a, b in zip(weights(plain), weights(mixed), strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(
        mixed.predict({"x": data["x"]}), plain.predict({"x": data["x"]}), atol=0.05
    )


def test_a_step_of_your_own_gets_loss_scaling_through_optimize():
    class Halved(twt.Model):
        def train_step(self, batch):
            variables = self.trainable_variables
            with tf.GradientTape() as tape:
                loss = 0.5 * self.compute_loss(batch)
            self.optimize(tape, loss, variables)
            return loss

    model = regression_model(model_class=Halved, precision="mixed_float16")
    model.train(regression_data(n=16), epochs=1, batch_size=8, verbose=0)
    assert int(model.loss_scale.good_steps) == 2


def two_optimizer_model(precision, paired=False):
    tw.reset_names()
    x, t = tw.Input(n_units=4, name="x"), tw.Input(n_units=1, name="t")
    tf.random.set_seed(2)
    h = Dense(x, 8, name="h")
    y = Dense(tw.Lambda(tf.tanh, h), 1, name="y")
    mse = tw.Lambda(lambda a, b: tf.reduce_mean((a - b) ** 2), y, t)
    loss = {"body": mse, "head": tw.Lambda(lambda v: 2.0 * v, mse)} if paired else mse
    return twt.Model(
        inputs=x,
        outputs=y,
        targets=t,
        loss=loss,
        optimizer={"body": twt.SGD(0.05), "head": twt.SGD(0.05)},
        trains={"body": h},
        precision=precision,
    )


@pytest.mark.parametrize("paired", [False, True])
def test_several_optimizers_each_scale_their_own_goal_under_mixed_float16(paired):
    model = two_optimizer_model("mixed_float16", paired)
    data = regression_data(n=32)
    before = model.evaluate(data)["loss"]
    model.train(data, epochs=2, batch_size=8, verbose=0)
    assert model.evaluate(data)["loss"] < before
    assert model.loss_scale is None and sorted(model.loss_scales) == ["body", "head"]
    body, head = model.loss_scales.values()
    assert body is not head
    for name, scale in model.loss_scales.items():  # finite steps since the last halving
        assert 0 < int(scale.good_steps) <= int(model.optimizers[name].iterations) <= 8


def test_several_optimizers_under_mixed_bfloat16_follow_float32():
    data = regression_data(n=32)
    runs = []
    for precision in ("float32", "mixed_bfloat16"):
        model = two_optimizer_model(precision)
        model.train(data, epochs=2, batch_size=8, shuffle=False, verbose=0)
        runs.append(weights(model))
    assert model.loss_scales == {}
    for a, b in zip(*runs, strict=True):
        np.testing.assert_allclose(a, b, atol=0.05)


def test_an_unknown_precision_names_the_model():
    with pytest.raises(tw.ArgumentError, match="Model 'model': unknown precision 'bf16'"):
        regression_model(precision="bf16")
