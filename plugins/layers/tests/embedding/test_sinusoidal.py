"""SinusoidalPositionEmbedding: the paper's table, odd widths, any length, errors."""

import numpy as np
import pytest

import tensorweave as tw


@pytest.mark.parametrize("width", [4, 5])
def test_the_transformer_table(width):
    layer = tw.layers["SinusoidalPositionEmbedding.v1"](tw.Input(batch_shape=(None, None, width)))
    out = layer.compute(np.zeros((1, 9, width), "float32")).numpy()[0]
    position, unit = np.arange(9)[:, None], np.arange(width)[None, :]
    angle = position / 10_000 ** (2 * (unit // 2) / width)
    np.testing.assert_allclose(out, np.where(unit % 2, np.cos(angle), np.sin(angle)), atol=1e-5)


def test_errors():
    with pytest.raises(tw.ShapeError, match="dense sequence"):
        tw.layers["SinusoidalPositionEmbedding.v1"](tw.Input(n_units=4))
    with pytest.raises(tw.ArgumentError, match="max_wavelength"):
        tw.layers["SinusoidalPositionEmbedding.v1"](
            tw.Input(batch_shape=(None, None, 4)), max_wavelength=1
        )
