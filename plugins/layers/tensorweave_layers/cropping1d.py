"""``Cropping1D``: remove steps from both ends of each spatial axis of sequences ``[batch, time, channels]``
(see ``Cropping``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 2), name="x")
>>> cropped = Cropping1D(x, (1, 2))
>>> cropped.shape, cropped.compute(tf.ones((1, 6, 2))).shape.as_list()
((None, None, 2), [1, 3, 2])
"""

from __future__ import annotations

from ._cropping import Cropping

__all__ = ["Cropping1D"]


class Cropping1D(Cropping):
    """Cropping of 1 spatial axis; see ``Cropping`` for ``cropping``."""

    spatial_rank = 1
