"""Merge: each merge function with weights against numpy; traced shapes; errors."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

rng = np.random.default_rng(3)
VA, VB = (rng.standard_normal((2, 3)).astype("float32") for _ in range(2))


@pytest.mark.parametrize(
    ("merge_fn", "oracle"),
    [
        ("sum", lambda a, b: a + b),
        ("mean", lambda a, b: (a + b) / 2),
        ("max", np.maximum),
        ("concat", lambda a, b: np.concatenate([a, b], -1)),
        (lambda ts: ts[0] * ts[1], lambda a, b: a * b),
    ],
)
def test_weighted_merge(merge_fn, oracle):
    a, b = tw.Input(n_units=3), tw.Input(n_units=3)
    layer = tw.layers["tensorweave-layers:Merge.v1"](a, b, weights=[2.0, -1.0], merge_fn=merge_fn)
    want = oracle(2 * VA, -VB)
    assert layer.shape == (None, want.shape[-1])
    np.testing.assert_allclose(layer(VA, VB).numpy(), want, rtol=1e-5, atol=1e-6)


def test_shape_found_by_tracing():
    a, b = tw.Input(n_units=3), tw.Input(n_units=3)
    stacked = tw.layers["tensorweave-layers:Merge.v1"](
        a, b, merge_fn=lambda ts: tf.stack(ts, axis=1)
    )
    assert stacked.shape == (None, 2, 3)


def test_errors():
    a, b = tw.Input(n_units=3, name="a"), tw.Input(n_units=4, name="b")
    with pytest.raises(tw.ShapeError, match=r"(?s)Merge 'm'.*'a' \(None, 3\).*'b' \(None, 4\)"):
        tw.layers["tensorweave-layers:Merge.v1"](a, b, name="m")
    with pytest.raises(ValueError, match="unknown merge_fn 'avg'"):
        tw.layers["tensorweave-layers:Merge.v1"](a, a, merge_fn="avg")
