"""``DepthToSpace``: rearrange channels into space, ``[batch, h, w, c * r * r] -> [batch,
h * r, w * r, c]``, with an optional activation: the subpixel convolution's upsampling step
(Shi et al., 2016; TensorLayer's ``SubpixelConv2d`` with ``scale=r``). Put a convolution
with ``c * r * r`` filters before it to learn the upsampling. It is
``tf.nn.depth_to_space``: the ``r x r`` block at output ``(i, j)`` comes from the channels
of input ``(i // r, j // r)``, in row-major order.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(1, 1, 4), name="x", value=np.arange(4.0).reshape(1, 1, 1, 4))
>>> up = DepthToSpace(x, block_size=2)
>>> up.shape, up().numpy()[0, :, :, 0].tolist()
((None, 2, 2, 1), [[0.0, 1.0], [2.0, 3.0]])
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner
from tensorweave_layers._spatial import LAYOUTS, check_rank, describe
from tensorweave_layers.options.weights import ActivationLike, activation_fn

__all__ = ["DepthToSpace"]


class DepthToSpace(tw.Layer):
    """Move ``block_size ** 2`` groups of channels into ``block_size x block_size`` blocks.

    Args:
        x: the input images ``[batch, height, width, channels]`` (dense); the channels
            divide by ``block_size ** 2``.
        block_size: the upsampling factor ``r`` (TensorLayer's ``scale``).
        activation: applied after the rearrangement (name or callable; ``None``: none).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    def __init__(
        self,
        x: tw.Layer,
        block_size: int = 2,
        *,
        activation: ActivationLike = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = owner("DepthToSpace", name)
        check_rank(x, 4, LAYOUTS[2], who, f"reshape the input to {LAYOUTS[2]}.")
        self.block_size = r = tw.positive_int(block_size, "block_size", who)
        channels = int(x.shape[-1])  # type: ignore[arg-type]
        if r < 2 or channels % (r * r):
            raise tw.ShapeError(
                f"{who}: block_size={r} needs >= 2 and input channels divisible by {r * r}, "
                f"got {describe(x)}. Fix: make the convolution before it output "
                f"{r * r} x (the channels you want) channels."
            )
        self.activation = activation_fn(activation, who)
        height, width = (None if d is None else d * r for d in x.shape[1:3])
        super().__init__(
            x,
            shape=(x.shape[0], height, width, channels // (r * r)),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, x: Any) -> tf.Tensor:
        """``activation(tf.nn.depth_to_space(x, block_size))``."""
        return self.activation(tf.nn.depth_to_space(x, self.block_size))
