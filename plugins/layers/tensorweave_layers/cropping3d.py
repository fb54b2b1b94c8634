"""``Cropping3D``: remove steps from both ends of each spatial axis of volumes ``[batch, depth, height, width, channels]``
(see ``Cropping``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 4, 4, 1), name="x")
>>> cropped = Cropping3D(x, 1)
>>> cropped.shape, cropped.compute(tf.ones((1, 4, 4, 4, 1))).shape.as_list()
((None, 2, 2, 2, 1), [1, 2, 2, 2, 1])
"""

from __future__ import annotations

from ._cropping import Cropping

__all__ = ["Cropping3D"]


class Cropping3D(Cropping):
    """Cropping of 3 spatial axes; see ``Cropping`` for ``cropping``."""

    spatial_rank = 3
