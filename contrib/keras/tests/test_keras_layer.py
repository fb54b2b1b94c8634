"""``KerasLayer``: the same numbers as Keras, gradients and training reach the Keras
weights, checkpoints restore them, and ``reuse_with`` shares them."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_keras import KerasLayer

RNG = np.random.default_rng(0)


def _functional():
    inputs = keras.Input((6,))
    h = keras.layers.Dense(5, activation="relu")(inputs)
    skip = keras.layers.Dense(5)(inputs)
    out = keras.layers.Dense(2)(keras.layers.Concatenate()([h, skip]))
    return keras.Model(inputs, out)


MODELS = {
    "dense": (lambda: keras.layers.Dense(4, activation="relu"), (None, 3)),
    "conv2d": (lambda: keras.layers.Conv2D(3, 3, padding="same"), (None, 6, 6, 2)),
    "lstm": (lambda: keras.layers.LSTM(4, return_sequences=True), (None, None, 3)),
    "functional": (_functional, (None, 6)),
}


def _value(shape, batch=3):
    return RNG.standard_normal([batch] + [5 if d is None else d for d in shape[1:]]).astype(
        "float32"
    )


@pytest.fixture(params=sorted(MODELS))
def wrapped(request):
    make, shape = MODELS[request.param]
    obj = make()
    layer = tw.layers["KerasLayer.v1"](tw.Input(batch_shape=shape), layer=obj)
    return obj, layer, _value(shape)


def test_outputs_equal_keras_own_call(wrapped):
    obj, layer, x = wrapped
    expected = obj(x).numpy()
    np.testing.assert_allclose(layer.compute(x), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tw.compile(layer)(x), expected, rtol=1e-5, atol=1e-5)
    assert len(layer.shape) == expected.ndim
    assert all(want in (None, got) for want, got in zip(layer.shape, expected.shape))


def test_variables_are_the_keras_weights(wrapped):
    obj, layer, _ = wrapped
    assert {id(v) for v in layer.trainable_variables} == {
        id(w.value) for w in obj.trainable_weights
    }
    assert len(layer.trainable_variables) == len(obj.trainable_weights) > 0


def test_gradients_reach_every_keras_weight_and_train(wrapped):
    obj, layer, x = wrapped
    before = [w.numpy().copy() for w in obj.trainable_weights]
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tw.compile(layer)(x) ** 2)
    grads = tape.gradient(loss, layer.trainable_variables)
    assert all(g is not None for g in grads)
    keras.optimizers.SGD(0.1).apply_gradients(zip(grads, layer.trainable_variables))
    after = [w.numpy() for w in obj.trainable_weights]
    assert any(not np.allclose(a, b) for a, b in zip(before, after))
    np.testing.assert_allclose(layer.compute(x), obj(x), rtol=1e-5, atol=1e-6)


def test_checkpoint_round_trip(wrapped, tmp_path):
    obj, layer, x = wrapped
    expected = layer.compute(x).numpy()
    path = tf.train.Checkpoint(layer=layer).write(str(tmp_path / "ckpt"))
    obj.set_weights([np.zeros_like(w) for w in obj.get_weights()])
    assert not np.allclose(layer.compute(x), expected)
    tf.train.Checkpoint(layer=layer).read(path).assert_consumed()
    np.testing.assert_allclose(layer.compute(x), expected, rtol=1e-6)
    np.testing.assert_allclose(obj(x), expected, rtol=1e-6)


def test_reuse_shares_the_keras_object():
    a = KerasLayer(tw.Input(n_units=3), layer=keras.layers.Dense(2))
    b = a.reuse_with(tw.Input(n_units=3))
    assert b.keras_layer is a.keras_layer and b.shares_state_with(a)
    x = _value((None, 3))
    np.testing.assert_allclose(a.compute(x), b.compute(x))


def test_factories_give_distinct_weights():
    x = tw.Input(n_units=3)
    a = KerasLayer(x, layer=lambda: keras.layers.Dense(4))
    b = KerasLayer(x, layer=lambda: keras.layers.Dense(4))
    assert not np.allclose(a.keras_layer.kernel.numpy(), b.keras_layer.kernel.numpy())


def test_training_option_reaches_keras():
    x = tw.Input(n_units=200)
    infer = KerasLayer(x, layer=keras.layers.Dropout(0.5))
    train = infer.reuse_with(x, training=True)
    ones = np.ones((2, 200), "float32")
    np.testing.assert_allclose(infer.compute(ones), ones)
    dropped = train.compute(ones).numpy()
    assert (dropped == 0).any() and np.allclose(dropped[dropped != 0], 2.0)


def test_frozen_keras_layer_has_no_trainable_variables():
    dense = keras.layers.Dense(2)
    layer = KerasLayer(tw.Input(n_units=3), layer=dense)
    dense.trainable = False
    assert layer.trainable_variables == () and len(layer.variables) == 2


def test_batch_norm_moving_statistics_are_tracked(tmp_path):
    norm = keras.layers.BatchNormalization()
    layer = KerasLayer(tw.Input(n_units=3), layer=norm, training=True)
    assert len(layer.variables) == 4 and len(layer.trainable_variables) == 2
    layer.compute(_value((None, 3), batch=8) + 5.0)
    assert not np.allclose(norm.moving_mean.numpy(), 0.0)


def test_errors_name_the_keras_object_and_shapes():
    with pytest.raises(tw.ShapeError, match=r"conv2d.*does not fit"):
        KerasLayer(tw.Input(n_units=3), layer=keras.layers.Conv2D(2, 3))
    with pytest.raises(TypeError, match=r"layer= must be a keras\.Layer"):
        KerasLayer(tw.Input(n_units=3), layer=lambda: "not a layer")
    two = keras.Input((3,))
    model = keras.Model(two, [keras.layers.Dense(1)(two), keras.layers.Dense(2)(two)])
    with pytest.raises(tw.ShapeError, match="one output"):
        KerasLayer(tw.Input(n_units=3), layer=model)
