"""``DepthwiseConv2D``: each input channel convolved with its own ``depth_multiplier``
filters, no mixing across channels (MobileNet's depthwise step).

The kernel is ``[kh, kw, in_channels, depth_multiplier]`` (as Keras's); the output has
``in_channels * depth_multiplier`` channels, channel ``c * depth_multiplier + m`` from
input channel ``c``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(8, 8, 3), name="img")
>>> dw = DepthwiseConv2D(x, 3, depth_multiplier=2, strides=2, activation="relu", padding="same")
>>> dw.shape, dw.kernel.shape.as_list()
((None, 4, 4, 6), [3, 3, 3, 2])
>>> dw.compute(tf.ones((2, 8, 8, 3))).shape.as_list()
[2, 4, 4, 6]
"""

from __future__ import annotations

from typing import ClassVar

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers.conv.conv import ConvBase, IntOrInts
from tensorweave_layers.options.weights import (
    ActivationLike,
    ConstraintLike,
    Initializer,
    RegularizerLike,
)

__all__ = ["DepthwiseConv2D"]


class DepthwiseConv2D(ConvBase):
    """Depthwise 2-d convolution; see ``ConvBase`` for the options shared by every
    convolution (it has no ``n_units``: the output width is ``in_channels *
    depth_multiplier``).

    Args:
        depth_multiplier: filters per input channel.
    """

    spatial_rank: ClassVar[int] = 2

    def __init__(
        self,
        x: tw.Layer,
        kernel_size: IntOrInts = 3,
        *,
        strides: IntOrInts = 1,
        dilation_rate: IntOrInts = 1,
        padding: str = "valid",
        depth_multiplier: int = 1,
        activation: ActivationLike = None,
        add_bias: bool = True,
        w_init: Initializer = "tensorweave-layers:glorot_uniform",
        b_init: Initializer = "tensorweave-layers:zeros",
        w_regularizer: RegularizerLike = None,
        b_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        b_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("DepthwiseConv2D", name)
        self.depth_multiplier = tw.positive_int(depth_multiplier, "depth_multiplier", owner)
        channels = x.shape[-1] if x.shape else None
        super().__init__(
            x,
            (channels or 1) * self.depth_multiplier,  # an unknown width is refused below
            kernel_size,
            strides=strides,
            dilation_rate=dilation_rate,
            padding=padding,
            activation=activation,
            add_bias=add_bias,
            w_init=w_init,
            b_init=b_init,
            w_regularizer=w_regularizer,
            b_regularizer=b_regularizer,
            w_constraint=w_constraint,
            b_constraint=b_constraint,
            name=name,
            share_state_with=share_state_with,
        )

    def kernel_shapes(self) -> dict[str, tuple[int, ...]]:
        """``kernel`` ``[*kernel_size, in_channels, depth_multiplier]``."""
        return {"kernel": (*self.kernel_size, self.in_channels, self.depth_multiplier)}

    def convolve(self, x: tf.Tensor) -> tf.Tensor:
        """``tf.nn.depthwise_conv2d``."""
        return tf.nn.depthwise_conv2d(
            x,
            self.state.kernel,
            strides=(1, *self.strides, 1),
            padding=self.padding,
            dilations=self.dilation_rate,
        )
