"""``Residual``: ``h + x``, with a learned projection of ``x`` when the widths differ.

The usual skip connection around a block: ``x`` is the block's input and ``h`` its
output. When ``h`` is wider or narrower than ``x``, ``x`` goes through a learned linear
projection ``x @ P`` first (no bias), so the sum is always defined.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=2, name="x", value=[[1.0, 2.0]])
>>> h = x * 10.0
>>> Residual(x, h)().numpy().tolist()
[[11.0, 22.0]]
>>> Residual(x, tw.Input(n_units=3)).variables[0].shape.as_list()
[2, 3]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, merge_shapes, owner, require_dense, require_width
from tensorweave_layers.dense.linear import dense_matmul
from tensorweave_layers.options.weights import (
    ConstraintLike,
    InitializerLike,
    RegularizerLike,
    WeightOptions,
    initial_value,
)

__all__ = ["Residual"]


class Residual(tw.Layer):
    """``h + x`` (or ``h + x @ P`` when ``x`` and ``h`` have different widths).

    Args:
        x: the skipped input (dense, known width).
        h: the block output (dense, known width; other axes as ``x``).
        w_init: initializer of the projection ``P`` (name or callable).
        w_regularizer, w_constraint: of the projection ``P`` (as for ``Linear``).
        name, share_state_with: see ``tw.Layer``.
    """

    keeps_padding_mask = True  # steps stay steps: a padding mask passes on

    def __init__(
        self,
        x: tw.Layer,
        h: tw.Layer,
        *,
        w_init: InitializerLike = "tensorweave-layers:glorot_uniform",
        w_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: Residual | None = None,
    ) -> None:
        who = owner("Residual", name)
        require_dense(x, who)
        require_dense(h, who)
        wx, wh = require_width(x, who), require_width(h, who)
        if len(x.shape) != len(h.shape):
            raise tw.ShapeError(
                f"{who}: x {describe(x)} and h {describe(h)} have different ranks.\n"
                "  Fix: Reshape one of them."
            )
        lead = merge_shapes(
            [x.shape[:-1], h.shape[:-1]], who, "x and h may differ only in the last axis."
        )
        if x.dtype != h.dtype or not h.dtype.is_floating:
            raise TypeError(
                f"{who}: x and h need one float dtype, got {x.dtype.name}, {h.dtype.name}."
            )
        self._widths = (wx, wh)
        self._w_init = tw.resolve("initializers", w_init, owner=who, option="w_init")
        self._weight_options = WeightOptions.resolve(who, w_regularizer, w_constraint=w_constraint)
        super().__init__(
            x, h, shape=(*lead, wh), dtype=h.dtype, name=name, share_state_with=share_state_with
        )

    @property
    def projected(self) -> bool:
        """Whether ``x`` goes through a learned projection."""
        return bool(self._widths[0] != self._widths[1])

    def init_state(self) -> None:
        """The projection ``P`` of shape ``(width(x), width(h))``, when needed."""
        if self.projected:
            value = initial_value(
                self._w_init, self._widths, self.dtype, owner=owner("Residual", self.name)
            )
            self.state.projection = self._weight_options.weight(self.state, "projection", value)

    def compute(self, x: Any, h: Any) -> tf.Tensor:
        """``h + x`` (projected)."""
        if self.projected:
            x = dense_matmul(x, self.state.projection)
        return h + x
