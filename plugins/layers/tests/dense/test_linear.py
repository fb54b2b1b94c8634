"""Linear: numpy oracle, ranks, sparse input, tied and shared weights, errors, shapes."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_layers.dense.linear import Linear

rng = np.random.default_rng(0)


def test_matches_numpy():
    x = tw.Input(n_units=3, name="x")
    layer = tw.layers["tensorweave-layers:Linear.v1"](x, 4, b_init="normal")
    v = rng.standard_normal((5, 3)).astype("float32")
    want = v @ layer.weights.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(layer(v).numpy(), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tw.compile(layer)(v).numpy(), want, rtol=1e-5, atol=1e-6)


def test_no_bias_and_rank3_uses_the_last_axis():
    x = tw.Input(batch_shape=(None, None, 3))
    layer = Linear(x, 2, add_bias=False)
    assert layer.shape == (None, None, 2)
    assert [v.name for v in layer.variables] == [f"{layer.name}/weights:0"]
    v = rng.standard_normal((2, 5, 3)).astype("float32")
    np.testing.assert_allclose(
        layer(v).numpy(), np.einsum("btd,dn->btn", v, layer.weights.numpy()), rtol=1e-5, atol=1e-6
    )


def test_sparse_input_equals_dense_in_value_and_gradient():
    dense_in = tw.Input(n_units=6)
    sparse_in = tw.Input(n_units=6, sparse=True)
    dense = Linear(dense_in, 3)
    sparse = dense.reuse_with(sparse_in)
    assert sparse.sparse is False and sparse.shape == (None, 3)
    v = rng.standard_normal((4, 6)).astype("float32") * (rng.random((4, 6)) > 0.6)
    sv = tf.sparse.from_dense(v)
    grads = []
    for layer, value in [(dense, v), (sparse, sv)]:
        with tf.GradientTape() as tape:
            out = layer(value)
            loss = tf.reduce_sum(out**2)
        grads.append(tape.gradient(loss, dense.trainable_variables))
        np.testing.assert_allclose(
            out.numpy(), v @ dense.weights.numpy() + dense.bias.numpy(), atol=1e-5
        )
    for a, b in zip(*grads):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


def test_tied_transpose_shares_the_variable_and_computes_x_wt():
    x = tw.Input(n_units=5)
    enc = Linear(x, 2)
    dec = enc.reuse_with(enc, transpose_weights=True)
    assert dec.shape == (None, 5) and dec.transpose_weights
    assert dec.weights is enc.weights and dec.bias is not enc.bias
    v = rng.standard_normal((3, 5)).astype("float32")
    w, b1, b2 = enc.weights.numpy(), enc.bias.numpy(), dec.bias.numpy()
    np.testing.assert_allclose(dec(v).numpy(), (v @ w + b1) @ w.T + b2, rtol=1e-5, atol=1e-5)
    # a gradient through the decoder reaches the one shared W
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(dec(v))
    assert tape.gradient(loss, enc.weights) is not None
    # reusing the decoder without flipping shares its whole state
    again = dec.reuse_with(tw.Input(n_units=2))
    assert again.state is dec.state and again.transpose_weights


def test_shared_weights_parameter():
    x = tw.Input(n_units=4)
    first = Linear(x, 3)
    tied = Linear(tw.Input(n_units=3), shared_weights=first, transpose_weights=True)
    assert tied.shape == (None, 4) and tied.weights is first.weights
    var = tf.Variable(tf.ones([4, 2]))
    by_var = Linear(x, shared_weights=var, add_bias=False)
    assert by_var.n_units == 2 and by_var.weights is var
    np.testing.assert_allclose(by_var(np.ones((1, 4), "float32")).numpy(), [[4.0, 4.0]])


def test_reuse_shares_weights_in_a_graph():
    x1, x2 = tw.Input(n_units=3), tw.Input(n_units=3)
    a = Linear(x1, 2)
    b = a.reuse_with(x2)
    assert b.state is a.state
    v = rng.standard_normal((2, 3)).astype("float32")
    np.testing.assert_allclose(a(v).numpy(), b(v).numpy())


@given(
    batch=st.integers(1, 4),
    lead=st.lists(st.integers(1, 3), max_size=2),
    width=st.integers(1, 5),
    units=st.integers(1, 5),
)
def test_output_shape_property(batch, lead, width, units):
    x = tw.Input(batch_shape=(None, *lead, width))
    layer = Linear(x, units)
    assert layer.shape == (None, *lead, units)
    out = layer(np.zeros((batch, *lead, width), "float32"))
    assert out.shape.as_list() == [batch, *lead, units]


def test_errors_name_the_layer_shapes_and_fix():
    x = tw.Input(n_units=3, name="x")
    with pytest.raises(tw.ShapeError, match=r"(?s)Linear 'enc'.*width 4.*'x' \(None, 3\).*Fix"):
        Linear(x, shared_weights=tf.Variable(tf.ones([4, 2])), name="enc")
    with pytest.raises(tw.ShapeError, match="no known last dimension"):
        Linear(tw.Input(batch_shape=(None, None)), 2)
    with pytest.raises(tw.ShapeError, match=r"(?s)rank 1.*Reshape"):
        Linear(tw.Input(shape=()), 2)
    with pytest.raises(TypeError, match=r"(?s)int64.*Lookup"):
        Linear(tw.Input(n_units=3, dtype=tf.int64), 2)
    with pytest.raises(tw.ShapeError, match=r"(?s)sparse input.*rank 2"):
        Linear(tw.Input(shape=(2, 3), sparse=True), 2)
    with pytest.raises(
        tw.UnknownComponentError, match=r"(?s)w_init=.glorot_unifrom..*glorot_uniform"
    ):
        Linear(x, 2, w_init="glorot_unifrom")
    with pytest.raises(ValueError, match="n_units"):
        Linear(x)
    with pytest.raises(tw.ShapeError, match="n_units=3 but the shared weights give 2"):
        Linear(x, 3, shared_weights=tf.Variable(tf.ones([3, 2])))
    with pytest.raises(tw.ShapeError, match="expects shape"):
        Linear(x, 2)(np.ones((2, 4), "float32"))


def test_variable_dtype_and_module_reuse_with_foreign_options():
    x = tw.Input(n_units=3)
    wide = Linear(x, 2, dtype=tf.float64)
    assert wide.dtype == tf.float64 and wide.weights.dtype == tf.float64
    assert wide(np.ones((1, 3), "float32")).dtype == tf.float64
    # Module.reuse_with passes options such as training=False to the layers that take them
    h = Linear(x, 4)
    block = tw.Module(
        x,
        tw.layers["tensorweave-layers:Add.v1"](
            tw.layers["tensorweave-layers:FC.v1"](h, 4, activation="relu"), h
        ),
    )
    x2 = tw.Input(n_units=3)
    again = block.reuse_with(x2, training=False)
    assert {id(v) for v in again.variables} == {id(v) for v in block.variables}
    v = rng.standard_normal((2, 3)).astype("float32")
    np.testing.assert_allclose(again.compute(v).numpy(), block.compute(v).numpy(), rtol=1e-6)


@pytest.mark.parametrize("bad", [2.5, 0, -3, "8", True])
def test_n_units_that_is_not_a_positive_integer_is_refused(bad):
    x = tw.Input(n_units=3, name="x")
    with pytest.raises(tw.ArgumentError, match="Linear 'h': n_units must be a positive integer"):
        Linear(x, bad, name="h")
