"""``TensorweaveLayer``: a tensorweave graph inside Keras, trained by ``model.fit``."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_keras import KerasLayer, TensorweaveLayer


class Affine(tw.Layer):
    """``x * w + b`` per unit: a plain tensorweave layer with two variables."""

    def __init__(self, x, *, name=None, share_state_with=None):
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self):
        self.state.w = tf.Variable(tf.random.normal([self.n_units]), name="w")
        self.state.b = tf.Variable(tf.zeros([self.n_units]), name="b")

    def compute(self, x):
        return x * self.state.w + self.state.b


def _graph():
    x = tw.Input(n_units=3, name="x")
    return x, Affine(tw.Lambda(tf.tanh, x))


def test_same_numbers_as_the_graph():
    _, y = _graph()
    layer = TensorweaveLayer(y)
    x = np.random.default_rng(0).standard_normal((4, 3)).astype("float32")
    np.testing.assert_allclose(layer(x), tw.compile(y)(x), rtol=1e-6)
    model = keras.Sequential([keras.Input((3,)), layer, keras.layers.Dense(1)])
    assert model.output_shape == (None, 1)


def test_weights_are_the_tensorweave_variables():
    _, y = _graph()
    layer = TensorweaveLayer(y)
    assert [w.value for w in layer.trainable_weights] == list(y.trainable_variables)


def test_model_fit_trains_the_tensorweave_variables():
    _, y = _graph()
    layer = TensorweaveLayer(y)
    model = keras.Sequential([keras.Input((3,)), layer])
    model.compile(optimizer=keras.optimizers.SGD(0.5), loss="mse")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 3)).astype("float32")
    target = np.tanh(x) * 2.0 + 1.0
    before = y.state.w.numpy().copy()
    history = model.fit(x, target, epochs=5, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert not np.allclose(y.state.w.numpy(), before)
    np.testing.assert_allclose(model(x), tw.compile(y)(x), rtol=1e-5)


def test_several_inputs_take_a_list():
    a, b = tw.Input(n_units=2), tw.Input(n_units=2)
    layer = TensorweaveLayer(a * b + a)
    ins = [keras.Input((2,)), keras.Input((2,))]
    model = keras.Model(ins, layer(ins))
    out = model([np.array([[2.0, 3.0]], "float32"), np.array([[4.0, 5.0]], "float32")])
    np.testing.assert_allclose(out, [[10.0, 18.0]])
    with pytest.raises(ValueError, match="takes 2 input"):
        layer(np.ones((1, 2), "float32"))


def test_keras_inside_tensorweave_inside_keras_round_trip(tmp_path):
    dense = keras.layers.Dense(2)
    y = KerasLayer(tw.Input(n_units=3), layer=dense)
    layer = TensorweaveLayer(y)
    x = np.ones((2, 3), "float32")
    np.testing.assert_allclose(layer(x), dense(x), rtol=1e-6)
    model = keras.Sequential([keras.Input((3,)), layer])
    path = str(tmp_path / "model.weights.h5")
    model.save_weights(path)
    expected = model(x).numpy()
    dense.set_weights([np.zeros_like(w) for w in dense.get_weights()])
    model.load_weights(path)
    np.testing.assert_allclose(model(x), expected, rtol=1e-6)


def test_refuses_other_targets():
    with pytest.raises(TypeError, match=r"wraps a tw\.Layer"):
        TensorweaveLayer(keras.layers.Dense(2))
