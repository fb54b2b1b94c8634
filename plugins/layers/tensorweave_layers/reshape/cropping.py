"""``Cropping``: remove steps from both ends of each spatial axis of ``[batch, *spatial,
channels]``, which ``Cropping1D``/``Cropping2D``/``Cropping3D`` set to a rank (Keras's
``cropping`` amounts: an int, one per axis, or one ``(before, after)`` pair per axis).
Sizes may be dynamic; a known size too small for the crop fails at construction.

>>> import numpy as np, tensorweave as tw
>>> class Cropping1D(Cropping):
...     spatial_rank = 1
>>> seq = tw.Input(shape=(5, 1), value=np.arange(5.0).reshape(1, 5, 1))
>>> Cropping1D(seq, (1, 2))().numpy()[0, :, 0].tolist()
[1.0, 2.0]

``Cropping1D``: remove steps from both ends of each spatial axis of sequences ``[batch, time, channels]``
(see ``Cropping``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 2), name="x")
>>> cropped = Cropping1D(x, (1, 2))
>>> cropped.shape, cropped.compute(tf.ones((1, 6, 2))).shape.as_list()
((None, None, 2), [1, 3, 2])

``Cropping2D``: remove steps from both ends of each spatial axis of images ``[batch, height, width, channels]``
(see ``Cropping``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(6, 6, 3), name="x")
>>> cropped = Cropping2D(x, ((1, 0), 2))
>>> cropped.shape, cropped.compute(tf.ones((1, 6, 6, 3))).shape.as_list()
((None, 5, 2, 3), [1, 5, 2, 3])

``Cropping3D``: remove steps from both ends of each spatial axis of volumes ``[batch, depth, height, width, channels]``
(see ``Cropping``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 4, 4, 1), name="x")
>>> cropped = Cropping3D(x, 1)
>>> cropped.shape, cropped.compute(tf.ones((1, 4, 4, 4, 1))).shape.as_list()
((None, 2, 2, 2, 1), [1, 2, 2, 2, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import SpatialLayer, describe, pairs_per_axis

__all__ = ["Cropping", "Cropping1D", "Cropping2D", "Cropping3D"]


class Cropping(SpatialLayer):
    """Crop the spatial axes.

    Args:
        x: the input, ``[batch, *spatial, channels]`` (dense, known channels).
        cropping: an int (both ends of every spatial axis), one int per spatial axis, or
            one ``(before, after)`` pair per spatial axis.
    """

    def __init__(
        self,
        x: tw.Layer,
        cropping: int | Sequence[int | Sequence[int]] = 1,
        *,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = name_owner(type(self).__name__, name)
        self.check_input(x, who)
        self.cropping = pairs_per_axis(cropping, self.spatial_rank, "cropping", who)
        spatial = []
        for axis, ((before, after), length) in enumerate(zip(self.cropping, x.shape[1:-1])):
            if length is not None and length - before - after < 1:
                raise tw.ShapeError(
                    f"{who}: cropping ({before}, {after}) leaves nothing of spatial axis {axis} "
                    f"of input {describe(x)}. Fix: crop less."
                )
            spatial.append(None if length is None else length - before - after)
        super().__init__(x, spatial, name=name, share_state_with=share_state_with)

    def compute(self, x: Any) -> tf.Tensor:
        """``x[:, b0:-a0, b1:-a1, ..., :]``."""
        spatial = tuple(slice(before, -after or None) for before, after in self.cropping)
        return tf.convert_to_tensor(x)[(slice(None), *spatial, slice(None))]


class Cropping1D(Cropping):
    """Cropping of 1 spatial axis; see ``Cropping`` for ``cropping``."""

    spatial_rank = 1


class Cropping2D(Cropping):
    """Cropping of 2 spatial axes; see ``Cropping`` for ``cropping`` (by default none, as
    Keras's ``Cropping2D``)."""

    spatial_rank = 2

    def __init__(
        self,
        x: tw.Layer,
        cropping: int | Sequence[int | Sequence[int]] = 0,
        *,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        super().__init__(x, cropping, name=name, share_state_with=share_state_with)


class Cropping3D(Cropping):
    """Cropping of 3 spatial axes; see ``Cropping`` for ``cropping``."""

    spatial_rank = 3
