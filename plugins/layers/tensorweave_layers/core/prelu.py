"""``PReLU``: a leaky ReLU whose negative slope is learned, ``x`` where positive and
``alpha * x`` elsewhere (He et al., 2015; Keras's ``PReLU``). There is one ``alpha`` per
input entry (per example shape), or one shared along ``shared_axes``: with
``shared_axes=[1, 2]`` on images ``[batch, h, w, c]``, one slope per channel.

>>> import tensorweave as tw
>>> x = tw.Input(shape=(3, 2), name="x", value=[[[-1.0, 2.0]] * 3])
>>> act = PReLU(x, shared_axes=[1], w_init="tensorweave-layers:ones")
>>> act.alpha.shape.as_list()
[1, 2]
>>> act.alpha.assign([[0.5, 0.5]])
<...>
>>> act().numpy()[0, 0].tolist()
[-0.5, 2.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers.options.weights import (
    ConstraintLike,
    Initializer,
    RegularizerLike,
    WeightOptions,
    initial_value,
)

__all__ = ["PReLU"]


class PReLU(tw.Layer):
    """``max(x, 0) + alpha * min(x, 0)`` with a learned ``alpha``.

    Args:
        x: the input layer (dense, floating point); the axes not in ``shared_axes`` need a
            known size.
        w_init: initializer of ``alpha`` (Keras's default: zeros, a ReLU at first).
        shared_axes: axes (counted with the batch as 0, as in Keras) along which one slope
            is shared.
        w_regularizer, w_constraint: of ``alpha``.
        name, share_state_with: see ``tw.Layer``.
    """

    def __init__(
        self,
        x: tw.Layer,
        *,
        w_init: Initializer = "tensorweave-layers:zeros",
        shared_axes: Sequence[int] | None = None,
        w_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("PReLU", name)
        if x.sparse or len(x.shape) < 2 or not x.dtype.is_floating:
            raise tw.ShapeError(
                f"{owner}: needs a dense floating-point input [batch, ...], got {describe(x)}."
            )
        shared = sorted({int(a) for a in shared_axes or ()})
        if any(not 1 <= a < len(x.shape) for a in shared):
            raise tw.ArgumentError(
                f"{owner}: shared_axes must be axes 1..{len(x.shape) - 1} of input "
                f"{describe(x)} (0 is the batch), got {shared_axes!r}."
            )
        alpha_shape = [1 if axis in shared else d for axis, d in enumerate(x.shape) if axis]
        if None in alpha_shape:
            raise tw.ShapeError(
                f"{owner}: input {describe(x)} has a dynamic axis that is not shared, so alpha "
                "has no fixed shape. Fix: add that axis to shared_axes (e.g. the time axis)."
            )
        self.alpha_shape = tuple(int(d or 1) for d in alpha_shape)
        self.shared_axes = tuple(shared)
        self.owner = owner
        self._w_init = tw.resolve("initializers", w_init, owner=owner, option="w_init")
        self._weight_options = WeightOptions.resolve(
            owner, w_regularizer, w_constraint=w_constraint
        )
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """``alpha``, of the input's per-example shape with the shared axes of size 1."""
        value = initial_value(self._w_init, self.alpha_shape, self.dtype, owner=self.owner)
        self.state.alpha = self._weight_options.weight(self.state, "alpha", value)

    def compute(self, x: Any) -> tf.Tensor:
        """``relu(x) - alpha * relu(-x)``."""
        return tf.nn.relu(x) - self.state.alpha * tf.nn.relu(-x)
