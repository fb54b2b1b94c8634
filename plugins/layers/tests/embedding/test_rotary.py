"""RotaryEmbedding: rotated queries and keys score by relative position; shapes; errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_layers.embedding.rotary import rotate


@given(shift=st.integers(0, 6), heads=st.integers(1, 2), half=st.integers(1, 3))
def test_rotated_dot_products_depend_on_the_distance_only(shift, heads, half):
    rng = np.random.default_rng(shift)
    q, k = (rng.standard_normal((1, 1, heads, 2 * half)).astype("float32") for _ in range(2))
    steps = 2 + shift + 1

    def at(vector, position):  # the vector placed at one step of a zero sequence
        seq = np.zeros((1, steps, heads, 2 * half), "float32")
        seq[:, position] = vector[:, 0]
        return rotate(seq)[:, position].numpy()

    near = (at(q, 2) * at(k, 0)).sum(-1)
    far = (at(q, 2 + shift) * at(k, shift)).sum(-1)
    np.testing.assert_allclose(near, far, rtol=1e-4, atol=1e-5)


def test_position_zero_is_left_as_it_is_and_norms_are_kept():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    layer = tw.layers["RotaryEmbedding.v1"](x)
    value = np.random.default_rng(0).standard_normal((2, 5, 4)).astype("float32")
    out = layer.compute(value).numpy()
    np.testing.assert_allclose(out[:, 0], value[:, 0], rtol=1e-6)
    np.testing.assert_allclose(
        np.linalg.norm(out, axis=-1), np.linalg.norm(value, axis=-1), rtol=1e-5
    )


def test_an_odd_width_cannot_be_paired():
    with pytest.raises(tw.ShapeError, match=r"(?s)an even width.*divisible by 2"):
        tw.layers["RotaryEmbedding.v1"](tw.Input(batch_shape=(None, None, 3)))
    with pytest.raises(tw.ArgumentError, match="scaling_factor"):
        tw.layers["RotaryEmbedding.v1"](tw.Input(batch_shape=(None, None, 4)), scaling_factor=0)
