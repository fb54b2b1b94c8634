"""DropConnect: dropped weights in training, the plain linear map in inference."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

DropConnect = tw.layers["DropConnect.v1"]
Linear = tw.layers["Linear.v1"]
RNG = np.random.default_rng(4)


def test_inference_is_the_linear_map():
    x = tw.Input(n_units=4, name="x")
    dc = DropConnect(x, 3, rate=0.5)
    dc.bias.assign([1.0, 2.0, 3.0])
    infer = dc.reuse_with(x, training=False)
    assert infer.weights is dc.weights
    value = RNG.standard_normal((5, 4)).astype("float32")
    want = value @ dc.weights.numpy() + [1.0, 2.0, 3.0]
    np.testing.assert_allclose(tw.compile(infer)(value).numpy(), want, rtol=1e-5, atol=1e-5)


def test_training_drops_weights_not_inputs_and_keeps_bias():
    tf.random.set_seed(5)
    x = tw.Input(n_units=40, name="x")
    dc = DropConnect(x, 30, rate=0.25)
    run = tw.compile(dc)
    rows = run(np.eye(40, dtype="float32")).numpy()  # x = I and b = 0: the rows are dropped W
    w = dc.weights.numpy()
    dropped = rows == 0.0
    np.testing.assert_allclose(rows[~dropped], w[~dropped] / 0.75, rtol=1e-5)
    assert 0.18 < dropped.mean() < 0.32
    dc.bias.assign(tf.fill([30], 7.0))
    np.testing.assert_array_equal(run(np.zeros((3, 40), "float32")).numpy(), 7.0)  # b kept


def test_gradients_only_reach_kept_weights():
    x = tw.Input(n_units=20)
    dc = DropConnect(x, 10, rate=0.5, add_bias=False)
    value = tf.ones((3, 20))
    with tf.GradientTape() as tape:
        w_used = dc.dropped_weights()
        y = tf.reduce_sum(tf.matmul(value, w_used))
    grad = tape.gradient(y, dc.weights).numpy()
    np.testing.assert_array_equal(grad == 0, w_used.numpy() == 0)


def test_sparse_input_equals_dense():
    x = tw.Input(n_units=6, sparse=True)
    dc = DropConnect(x, 2, training=False)
    dense = RNG.standard_normal((3, 6)).astype("float32") * (RNG.random((3, 6)) > 0.5)
    got = dc.compute(tf.sparse.from_dense(dense)).numpy()
    np.testing.assert_allclose(
        got, dense @ dc.weights.numpy() + dc.bias.numpy(), rtol=1e-5, atol=1e-6
    )


def test_wraps_an_existing_linear_and_inference_is_that_linear():
    x = tw.Input(n_units=4, name="x")
    lin = Linear(x, 3, name="lin")
    lin.bias.assign([1.0, -1.0, 0.5])
    dc = DropConnect(x, linear=lin, rate=0.5)
    assert dc.weights is lin.weights and dc.bias is lin.bias and dc.shape == (None, 3)
    infer = dc.reuse_with(x, training=False)
    value = RNG.standard_normal((5, 4)).astype("float32")
    np.testing.assert_allclose(tw.compile(infer)(value), tw.compile(lin)(value), rtol=1e-6)
    # training drops entries of the Linear's own W, and gradients reach that variable
    rows = tw.compile(DropConnect(x, linear=lin, rate=0.5, add_bias=False))(np.eye(4))
    w = lin.weights.numpy()
    assert np.all((rows == 0) | np.isclose(rows, 2 * w))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(dc(value))
    assert tape.gradient(loss, lin.weights) is not None


def test_wraps_a_tied_transposed_linear():
    x = tw.Input(n_units=4, name="x")
    enc = Linear(x, 2, name="enc")
    dec = enc.reuse_with(enc, transpose_weights=True, name="dec")  # x @ W.T, W (4, 2)
    dc = DropConnect(enc, linear=dec, rate=0.5, add_bias=False)
    assert dc.shape == (None, 4) and dc.weights is enc.weights and dc.mask.shape == (4, 2)
    code = RNG.standard_normal((3, 2)).astype("float32")
    infer = DropConnect(enc, linear=dec, training=False)
    np.testing.assert_allclose(
        infer.compute(tf.constant(code)).numpy(),
        code @ enc.weights.numpy().T + dec.bias.numpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    rows = dc.compute(tf.eye(2), dc.mask.compute()).numpy()  # the dropped W.T
    w_t = enc.weights.numpy().T
    assert np.all((rows == 0) | np.isclose(rows, 2 * w_t))
    with pytest.raises(tw.ShapeError, match=r"'dec' \(transposed\).*2 features"):
        DropConnect(x, linear=dec)


def test_shared_mask_drops_the_same_weights_in_one_evaluation():
    tf.random.set_seed(11)
    a, b = tw.Input(n_units=30, name="a"), tw.Input(n_units=30, name="b")
    dc = DropConnect(a, 20, rate=0.5, add_bias=False)
    shared = dc.reuse_with(b, share_mask=True)
    own = dc.reuse_with(b)
    assert shared.mask is dc.mask and own.mask is not dc.mask
    assert own.mask.shares_state_with(dc.mask)  # one random generator, separate draws
    run = tw.compile(tw.Graph.build(inputs=[a, b], outputs=[dc, shared, own]))
    eye = np.eye(30, dtype="float32")
    first, second, third = (t.numpy() for t in run(eye, eye))
    np.testing.assert_array_equal(first == 0, second == 0)  # the same weights dropped
    assert np.any((first == 0) != (third == 0))  # an unshared reuse draws its own mask
    again = run(eye, eye)[0].numpy()
    assert np.any((again == 0) != (first == 0))  # a new evaluation, a new mask
    also = DropConnect(b, 20, mask_from=dc, add_bias=False)
    assert also.mask is dc.mask and also.rate == 0.5
    with pytest.raises(ValueError, match=r"(?s)mask_from='.*'.*\(30, 20\).*\(30, 5\)"):
        DropConnect(b, 5, mask_from=dc)
    with pytest.raises(ValueError, match=r"no mask \(training=False\)"):
        DropConnect(b, 20, mask_from=dc.reuse_with(b, training=False))


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"DropConnect.*\(None, 2, 3\).*SeqMap"):
        DropConnect(tw.Input(shape=(2, 3)), 4)
    dc = DropConnect(tw.Input(n_units=3), 4)
    with pytest.raises(tw.ShapeError, match="3 features"):
        dc.reuse_with(tw.Input(n_units=5))
    with pytest.raises(ValueError, match="rate"):
        DropConnect(tw.Input(n_units=3), 4, rate=-0.1)
    with pytest.raises(TypeError, match="linear must be a Linear"):
        DropConnect(tw.Input(n_units=3), linear=tw.Input(n_units=3))
    with pytest.raises(tw.ShapeError, match="n_units=5 but the weights"):
        x = tw.Input(n_units=3)
        DropConnect(x, 5, linear=Linear(x, 4))


def test_with_options_keeps_shared_masks_and_switches_training_off():
    a = tw.Input(n_units=6, name="a")
    dc = DropConnect(a, 4, rate=0.5)
    twin = dc.reuse_with(a, share_mask=True)
    b = tw.Input(n_units=6, name="b")
    assert dc.reuse_with(b, *twin.inputs[1:]).mask is dc.mask  # how a rebuild passes it back
    new_dc, new_twin = tw.with_options([dc, twin], rate=0.25)
    assert new_dc.mask.rate == new_twin.mask.rate == 0.25
    assert new_dc.shares_state_with(dc) and new_twin.shares_state_with(dc)
    off = tw.with_options([dc, twin], training=False)
    assert [o.mask for o in off] == [None, None]
    value = RNG.standard_normal((2, 6)).astype("float32")
    want = value @ dc.weights.numpy() + dc.bias.numpy()
    for out in tw.compile(tw.Graph.build(inputs=[a], outputs=off))(value):
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="no mask"):
        off[0].reuse_with(a, training=True, share_mask=True)
