"""Activation layer: by name (latest version), by callable, options, errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

V = np.array([[-2.0, -0.5, 0.0, 1.5]], "float32")


@pytest.mark.parametrize(
    ("fn", "oracle"),
    [
        ("relu", lambda v: np.maximum(v, 0)),
        ("relu.v1", lambda v: np.maximum(v, 0)),
        ("tanh", np.tanh),
        (tf.math.square, np.square),
        (None, lambda v: v),
    ],
)
def test_matches_oracle(fn, oracle):
    x = tw.Input(n_units=4)
    layer = tw.layers["tensorweave-layers:Activation.v1"](x, fn)
    assert layer.shape == (None, 4) and not layer.variables
    np.testing.assert_allclose(layer(V).numpy(), oracle(V), rtol=1e-6)


def test_options_reach_the_function():
    x = tw.Input(n_units=4)
    layer = tw.layers["tensorweave-layers:Activation.v1"](x, "leaky_relu", alpha=0.5)
    np.testing.assert_allclose(layer(V).numpy(), np.where(V > 0, V, 0.5 * V))
    again = layer.reuse_with(tw.Input(n_units=4))
    np.testing.assert_allclose(again(V).numpy(), layer(V).numpy())


def test_softmax_over_last_axis_on_sequences():
    x = tw.Input(batch_shape=(None, None, 3))
    v = np.random.default_rng(0).standard_normal((2, 4, 3)).astype("float32")
    out = tw.layers["tensorweave-layers:Activation.v1"](x, "softmax")(v).numpy()
    e = np.exp(v - v.max(-1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(-1, keepdims=True), rtol=1e-5)


def test_unknown_name_names_the_layer_and_close_matches():
    x = tw.Input(n_units=4)
    # resolved by tw.resolve: the error names the layer, the option and close matches
    with pytest.raises(
        tw.UnknownComponentError, match=r"(?s)Activation 'act': activation='reluu'.*relu\.v1"
    ):
        tw.layers["tensorweave-layers:Activation.v1"](x, "reluu", name="act")
    with pytest.raises(TypeError, match="activation must be"):
        tw.layers["tensorweave-layers:Activation.v1"](x, 3)
    with pytest.raises(tw.ShapeError, match=r"(?s)sparse.*ToDense"):
        tw.layers["tensorweave-layers:Activation.v1"](tw.Input(n_units=4, sparse=True), "relu")


def test_shape_changing_or_failing_callables_are_refused():
    x = tw.Input(n_units=4, name="x")
    with pytest.raises(tw.ShapeError, match=r"(?s)'x' \(None, 4\) into.*tw.Lambda"):
        tw.layers["tensorweave-layers:Activation.v1"](x, tf.reduce_sum)
    with pytest.raises(tw.ShapeError, match="fails on input"):
        tw.layers["tensorweave-layers:Activation.v1"](x, "relu", alpha=0.1)
