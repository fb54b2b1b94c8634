"""``Conv2D``: 2-d convolution over images ``[batch, height, width, channels]``.

>>> x = tw.Input(shape=(None, 8, 8, 3), name="img")
>>> conv = Conv2D(x, n_units=4, kernel_size=(3, 3), stride=2)
>>> conv.shape
(None, 4, 4, 4)
>>> conv.compute(tf.ones((2, 8, 8, 3))).shape.as_list()
[2, 4, 4, 4]
>>> conv.reuse_with(tw.Input(shape=(None, 6, 6, 3)), padding="valid").shape  # same kernel
(None, 2, 2, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import tensorweave as tw

from ._conv import Conv
from ._param_init import Initializer

__all__ = ["Conv2D"]


class Conv2D(Conv):
    """2-d convolution; see ``Conv`` for the options (``n_units`` filters, ``kernel_size``…)."""

    spatial_rank: ClassVar[int] = 2
    layout: ClassVar[str] = "[batch, height, width, channels]"

    def __init__(
        self,
        x: tw.Layer,
        n_units: int,
        kernel_size: int | Sequence[int] = 3,
        *,
        stride: int | Sequence[int] = 1,
        dilation: int | Sequence[int] = 1,
        padding: str = "same",
        add_bias: bool = True,
        w_init: Initializer = "glorot_uniform",
        b_init: Initializer = "zeros",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        super().__init__(
            x,
            n_units,
            kernel_size,
            stride=stride,
            dilation=dilation,
            padding=padding,
            add_bias=add_bias,
            w_init=w_init,
            b_init=b_init,
            name=name,
            share_state_with=share_state_with,
        )
