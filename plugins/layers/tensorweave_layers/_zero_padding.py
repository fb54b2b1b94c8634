"""``ZeroPadding``: zeros around the spatial axes of ``[batch, *spatial, channels]`` (never the
channels), which ``ZeroPadding1D``/``ZeroPadding2D``/``ZeroPadding3D`` set to a rank; a
``Pad`` with Keras's ``padding`` of the spatial axes only.

>>> import tensorweave as tw
>>> class ZeroPadding2D(ZeroPadding):
...     spatial_rank = 2
>>> ZeroPadding2D(tw.Input(shape=(4, 4, 3)), ((1, 0), 2)).shape
(None, 5, 8, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import tensorweave as tw

from ._shapes import owner
from ._spatial import LAYOUTS, check_rank, pairs_per_axis, rank_fix
from .pad import Pad

__all__ = ["ZeroPadding"]


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
