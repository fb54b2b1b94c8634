"""``UpSampling3D``: enlarge volumes ``[batch, depth, height, width, channels]`` by an
integer factor per axis, repeating or interpolating (see ``UpSampling``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(2, 3, 3, 1), name="x")
>>> up = UpSampling3D(x, 2)
>>> up.shape, up.compute(tf.ones((1, 2, 3, 3, 1))).shape.as_list()
((None, 4, 6, 6, 1), [1, 4, 6, 6, 1])
"""

from __future__ import annotations

from ._up_sampling import UpSampling

__all__ = ["UpSampling3D"]


class UpSampling3D(UpSampling):
    """Upsampling over 3 spatial axes; see ``UpSampling`` for the options (``size``,
    ``interpolation``)."""

    spatial_rank = 3
