"""``Cropping2D``: remove steps from both ends of each spatial axis of images ``[batch, height, width, channels]``
(see ``Cropping``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(6, 6, 3), name="x")
>>> cropped = Cropping2D(x, ((1, 0), 2))
>>> cropped.shape, cropped.compute(tf.ones((1, 6, 6, 3))).shape.as_list()
((None, 5, 2, 3), [1, 5, 2, 3])
"""

from __future__ import annotations

from ._cropping import Cropping

__all__ = ["Cropping2D"]


class Cropping2D(Cropping):
    """Cropping of 2 spatial axes; see ``Cropping`` for ``cropping``."""

    spatial_rank = 2
