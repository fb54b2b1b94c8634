"""The new pooling layers against Keras 3: the same outputs and input gradients, to 1e-5."""

import keras
import numpy as np
import pytest

import tensorweave as tw

CASES = [
    ("MaxPool3D.v1", {"pool_size": 2}, keras.layers.MaxPooling3D(pool_size=2), (2, 4, 4, 5, 2)),
    ("AvgPool3D.v1", {"pool_size": (2, 3, 2), "strides": 1, "padding": "same"},
     keras.layers.AveragePooling3D((2, 3, 2), strides=1, padding="same"), (2, 3, 4, 4, 2)),
    ("AdaptiveAvgPool2D.v1", {"output_size": (3, 2)},
     keras.layers.AdaptiveAveragePooling2D((3, 2), data_format="channels_last"), (2, 7, 5, 3)),
    ("AdaptiveMaxPool2D.v1", {"output_size": 3},
     keras.layers.AdaptiveMaxPooling2D(3, data_format="channels_last"), (2, 8, 5, 3)),
]  # fmt: skip


@pytest.mark.parametrize(("name", "options", "ref", "shape"), CASES, ids=[c[0] for c in CASES])
def test_pooling_matches_keras(parity, randn, name, options, ref, shape):
    ours = tw.layers[name](tw.Input(shape=shape[1:]), **options)
    parity(ours, ref, [randn(*shape)])
    assert ours.shape[1:] == tuple(ref.compute_output_shape(shape)[1:])


def test_adaptive_pooling_windows_match_a_numpy_reference(randn):
    """Dynamic sizes (Keras needs static ones): windows [floor(i n / m), ceil((i + 1) n / m))."""
    x = tw.Input(batch_shape=(None, None, None, 2))
    value = randn(1, 7, 4, 2)
    for name, reduce in (("AdaptiveAvgPool2D.v1", np.mean), ("AdaptiveMaxPool2D.v1", np.max)):
        got = tw.compile(tw.layers[name](x, (3, 3)))(value).numpy()
        want = np.empty((1, 3, 3, 2), "float32")
        for i in range(3):
            for j in range(3):
                rows = slice(i * 7 // 3, -(-(i + 1) * 7 // 3))
                cols = slice(j * 4 // 3, -(-(j + 1) * 4 // 3))
                want[0, i, j] = reduce(value[0, rows, cols], axis=(0, 1))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
