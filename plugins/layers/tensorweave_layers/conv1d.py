"""``Conv1D``: 1-d convolution over sequences ``[batch, time, channels]``.

>>> x = tw.Input(shape=(None, None, 3), name="x")
>>> conv = Conv1D(x, n_units=4, kernel_size=3, stride=2)
>>> conv.shape
(None, None, 4)
>>> conv.compute(tf.ones((2, 5, 3))).shape.as_list()
[2, 3, 4]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import tensorweave as tw

from ._conv import Conv
from ._param_init import Initializer

__all__ = ["Conv1D"]


class Conv1D(Conv):
    """1-d convolution; see ``Conv`` for the options (``n_units`` filters, ``kernel_size``…)."""

    spatial_rank: ClassVar[int] = 1
    layout: ClassVar[str] = "[batch, time, channels]"

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
