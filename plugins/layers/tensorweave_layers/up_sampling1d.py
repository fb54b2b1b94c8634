"""``UpSampling1D``: enlarge sequences ``[batch, time, channels]`` by an integer factor per axis,
repeating or interpolating (see ``UpSampling``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 2), name="x")
>>> up = UpSampling1D(x, 2)
>>> up.shape, up.compute(tf.ones((1, 3, 2))).shape.as_list()
((None, None, 2), [1, 6, 2])
"""

from __future__ import annotations

from ._up_sampling import UpSampling

__all__ = ["UpSampling1D"]


class UpSampling1D(UpSampling):
    """Upsampling over 1 spatial axis; see ``UpSampling`` for the options (``size``,
    ``interpolation``)."""

    spatial_rank = 1
