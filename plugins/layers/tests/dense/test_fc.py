"""FC: activation(x @ W + b) against numpy, state sharing, inside a Module."""

import numpy as np

import tensorweave as tw

rng = np.random.default_rng(1)


def test_matches_numpy_and_shares_state():
    x = tw.Input(n_units=3)
    fc = tw.layers["tensorweave-layers:FC.v1"](x, 4, activation="tanh", b_init="normal")
    v = rng.standard_normal((5, 3)).astype("float32")
    want = np.tanh(v @ fc.linear.weights.numpy() + fc.linear.bias.numpy())
    np.testing.assert_allclose(fc(v).numpy(), want, rtol=1e-5, atol=1e-6)
    assert len(fc.trainable_variables) == 2
    again = fc.reuse_with(tw.Input(n_units=3))
    assert {id(v) for v in again.variables} == {id(v) for v in fc.variables}
    np.testing.assert_allclose(again(v).numpy(), want, rtol=1e-5, atol=1e-6)


def test_stacked_in_a_module_and_named():
    x = tw.Input(n_units=3)
    h = tw.layers["tensorweave-layers:FC.v1"](x, 5, name="h", activation="relu")
    y = tw.layers["tensorweave-layers:FC.v1"](h, 2, activation=None)
    block = tw.Module(x, y)
    assert h.linear.name == "h/linear"
    assert len(block.trainable_variables) == 4
    v = rng.standard_normal((2, 3)).astype("float32")
    w1, b1 = h.linear.weights.numpy(), h.linear.bias.numpy()
    w2, b2 = y.linear.weights.numpy(), y.linear.bias.numpy()
    want = np.maximum(v @ w1 + b1, 0) @ w2 + b2
    np.testing.assert_allclose(block.compute(v).numpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tw.compile(y)(v).numpy(), want, rtol=1e-5, atol=1e-5)
