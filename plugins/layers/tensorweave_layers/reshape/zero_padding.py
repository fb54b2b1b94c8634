"""``ZeroPadding``: zeros around the spatial axes of ``[batch, *spatial, channels]`` (never the
channels), which ``ZeroPadding1D``/``ZeroPadding2D``/``ZeroPadding3D`` set to a rank; a
``Pad`` with Keras's ``padding`` of the spatial axes only.

>>> import tensorweave as tw
>>> class ZeroPadding2D(ZeroPadding):
...     spatial_rank = 2
>>> ZeroPadding2D(tw.Input(shape=(4, 4, 3)), ((1, 0), 2)).shape
(None, 5, 8, 3)

``ZeroPadding1D``: zeros around sequences ``[batch, time, channels]``
(see ``ZeroPadding``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 2), name="x")
>>> padded = ZeroPadding1D(x, (1, 2))
>>> padded.shape, padded.compute(tf.ones((1, 4, 2))).shape.as_list()
((None, None, 2), [1, 7, 2])

``ZeroPadding2D``: zeros around images ``[batch, height, width, channels]``
(see ``ZeroPadding``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(4, 4, 3), name="x")
>>> padded = ZeroPadding2D(x, 1)
>>> padded.shape, padded.compute(tf.ones((1, 4, 4, 3))).shape.as_list()
((None, 6, 6, 3), [1, 6, 6, 3])

``ZeroPadding3D``: zeros around volumes ``[batch, depth, height, width, channels]``
(see ``ZeroPadding``).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(2, 4, 4, 1), name="x")
>>> padded = ZeroPadding3D(x, (1, 0, (2, 1)))
>>> padded.shape, padded.compute(tf.ones((1, 2, 4, 4, 1))).shape.as_list()
((None, 4, 4, 7, 1), [1, 4, 4, 7, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import tensorweave as tw
from tensorweave_layers._shapes import owner
from tensorweave_layers._spatial import LAYOUTS, check_rank, pairs_per_axis, rank_fix
from tensorweave_layers.reshape.pad import Pad

__all__ = ["ZeroPadding", "ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D"]


class ZeroPadding(Pad):
    """Pad the spatial axes with zeros.

    Args:
        x: the input, ``[batch, *spatial, channels]`` (dense, known channels).
        padding: an int (both sides of every spatial axis), one int per spatial axis, or
            one ``(before, after)`` pair per spatial axis.
    """

    spatial_rank: ClassVar[int] = 2

    def __init__(
        self,
        x: tw.Layer,
        padding: int | Sequence[int | Sequence[int]] = 1,
        *,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        rank = self.spatial_rank
        who = owner(type(self).__name__, name)
        layout = LAYOUTS.get(rank, f"[batch, {rank} spatial axes, channels]")
        fix = rank_fix(type(self).__name__, rank)
        check_rank(x, rank + 2, layout, who, f"{fix[:-1]}; Pad pads any axes.")
        spatial = pairs_per_axis(padding, rank, "padding", who)
        super().__init__(x, (*spatial, (0, 0)), name=name, share_state_with=share_state_with)


class ZeroPadding1D(ZeroPadding):
    """Zero padding of 1 spatial axis; see ``ZeroPadding`` for ``padding``."""

    spatial_rank = 1


class ZeroPadding2D(ZeroPadding):
    """Zero padding of 2 spatial axes; see ``ZeroPadding`` for ``padding``."""

    spatial_rank = 2


class ZeroPadding3D(ZeroPadding):
    """Zero padding of 3 spatial axes; see ``ZeroPadding`` for ``padding``."""

    spatial_rank = 3
