"""UpSampling1D/2D/3D: repetition and linear interpolation, dynamic sizes, errors."""

import numpy as np
import pytest

import tensorweave as tw


def test_linear_interpolation_keeps_constants_and_the_mean_of_a_ramp():
    x = tw.Input(batch_shape=(None, None, None, 1))
    up = tw.compile(tw.layers["UpSampling2D.v1"](x, 3, interpolation="bilinear"))
    flat = up(np.full((1, 2, 3, 1), 2.5, "float32")).numpy()
    assert flat.shape == (1, 6, 9, 1) and np.allclose(flat, 2.5)
    ramp = np.arange(4.0, dtype="float32").reshape(1, 4, 1, 1)
    out = up(np.repeat(ramp, 2, axis=2)).numpy()[0, :, 0, 0]
    assert np.all(np.diff(out) >= 0) and out.mean() == pytest.approx(ramp.mean())


def test_nearest_repeats_each_step():
    x = tw.Input(shape=(2, 2, 2, 1), value=np.arange(8.0).reshape(1, 2, 2, 2, 1))
    out = tw.layers["UpSampling3D.v1"](x, (1, 2, 1))().numpy()[0, ..., 0]
    assert out.shape == (2, 4, 2) and out[0].tolist() == [[0, 1], [0, 1], [2, 3], [2, 3]]


def test_errors():
    x = tw.Input(shape=(4, 2))
    with pytest.raises(tw.ArgumentError, match=r"interpolation must be one of.*Resizing"):
        tw.layers["UpSampling1D.v1"](x, interpolation="bicubic")
    with pytest.raises(tw.ArgumentError, match="float input"):
        tw.layers["UpSampling1D.v1"](
            tw.Input(shape=(4, 2), dtype="int32"), interpolation="bilinear"
        )
    with pytest.raises(tw.ShapeError, match=r"UpSampling2D.*rank 4.*UpSampling1D"):
        tw.layers["UpSampling2D.v1"](x)
