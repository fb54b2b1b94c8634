"""``InstanceNorm``: normalize each channel of each example over its spatial positions
(Ulyanov et al., 2016; style transfer, image generation): a ``GroupNorm`` with one group
per channel, as Keras's ``GroupNormalization(groups=-1)``.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(3, 2), name="x", value=[[[0.0, 5.0], [1.0, 5.0], [2.0, 5.0]]])
>>> np.round(InstanceNorm(x, epsilon=0.0)().numpy()[0, :, 0].astype(float), 3).tolist()
[-1.225, 0.0, 1.225]
"""

from __future__ import annotations

import tensorweave as tw

from ._weights import ConstraintLike, RegularizerLike
from .group_norm import GroupNorm

__all__ = ["InstanceNorm"]


class InstanceNorm(GroupNorm):
    """``GroupNorm`` with ``groups`` = the channels; see ``GroupNorm`` for the options."""

    def __init__(
        self,
        x: tw.Layer,
        *,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        w_regularizer: RegularizerLike = None,
        b_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        b_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        super().__init__(
            x,
            x.shape[-1] if x.shape and x.shape[-1] else 1,  # GroupNorm refuses unknown channels
            epsilon=epsilon,
            center=center,
            scale=scale,
            w_regularizer=w_regularizer,
            b_regularizer=b_regularizer,
            w_constraint=w_constraint,
            b_constraint=b_constraint,
            name=name,
            share_state_with=share_state_with,
        )
