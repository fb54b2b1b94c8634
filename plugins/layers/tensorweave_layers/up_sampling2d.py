"""``UpSampling2D``: enlarge images ``[batch, height, width, channels]`` by an integer
factor per axis, repeating or interpolating (see ``UpSampling``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 5, 2), name="x")
>>> up = UpSampling2D(x, 2, interpolation="bilinear")
>>> up.shape, up.compute(tf.ones((1, 4, 5, 2))).shape.as_list()
((None, 8, 10, 2), [1, 8, 10, 2])
"""

from __future__ import annotations

from ._up_sampling import UpSampling

__all__ = ["UpSampling2D"]


class UpSampling2D(UpSampling):
    """Upsampling over 2 spatial axes; see ``UpSampling`` for the options (``size``,
    ``interpolation``)."""

    spatial_rank = 2
