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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw

from ._shapes import owner as name_owner
from ._spatial import SpatialLayer, describe, pairs_per_axis

__all__ = ["Cropping"]


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
