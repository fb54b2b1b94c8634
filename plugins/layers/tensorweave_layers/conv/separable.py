"""``SeparableConv``: a depthwise convolution (each channel apart) followed by a pointwise
``1 x 1`` convolution mixing the channels, which ``SeparableConv1D``/``SeparableConv2D``
set to a rank (Xception, MobileNet). It learns far fewer weights than a full convolution
of the same size.

The kernels are Keras's: ``depthwise_kernel [*kernel_size, in, depth_multiplier]`` and
``pointwise_kernel [1, ..., in * depth_multiplier, n_units]``; ``w_init``, ``w_regularizer``
and ``w_constraint`` apply to both.

>>> import tensorweave as tw
>>> class SeparableConvOnSequences(SeparableConv):
...     spatial_rank = 1
>>> seq = tw.Input(batch_shape=(None, None, 4))
>>> conv = SeparableConvOnSequences(seq, 8, 3, depth_multiplier=2, padding="same")
>>> conv.shape, conv.pointwise_kernel.shape.as_list()
((None, None, 8), [1, 8, 8])

``SeparableConv1D``: depthwise-separable convolution over sequences ``[batch, time,
channels]``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 4), name="seq")
>>> conv = SeparableConv1D(x, n_units=8, kernel_size=3, depth_multiplier=2, activation="relu", padding="same")
>>> conv.depthwise_kernel.shape.as_list(), conv.pointwise_kernel.shape.as_list()
([3, 4, 2], [1, 8, 8])
>>> conv.compute(tf.ones((2, 5, 4))).shape.as_list()
[2, 5, 8]

``SeparableConv2D``: depthwise-separable convolution over images ``[batch, height, width,
channels]`` (Xception's building block).

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(shape=(8, 8, 3), name="img")
>>> conv = SeparableConv2D(x, n_units=16, kernel_size=3, strides=2, padding="same")
>>> conv.shape, conv.depthwise_kernel.shape.as_list(), conv.pointwise_kernel.shape.as_list()
((None, 4, 4, 16), [3, 3, 3, 1], [1, 1, 3, 16])
>>> conv.compute(tf.ones((2, 8, 8, 3))).shape.as_list()
[2, 4, 4, 16]
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

__all__ = ["SeparableConv", "SeparableConv1D", "SeparableConv2D"]


class SeparableConv(ConvBase):
    """Depthwise-separable convolution (rank 1 or 2); see ``ConvBase`` for the options
    shared by every convolution.

    Args:
        depth_multiplier: depthwise filters per input channel.
    """

    def __init__(
        self,
        x: tw.Layer,
        n_units: int,
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
        owner = name_owner(type(self).__name__, name)
        self.depth_multiplier = tw.positive_int(depth_multiplier, "depth_multiplier", owner)
        super().__init__(
            x,
            n_units,
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
        """``depthwise_kernel`` and ``pointwise_kernel``."""
        mult, rank = self.depth_multiplier, self.spatial_rank
        return {
            "depthwise_kernel": (*self.kernel_size, self.in_channels, mult),
            "pointwise_kernel": ((1,) * rank + (self.in_channels * mult, self.n_filters)),
        }

    def convolve(self, x: tf.Tensor) -> tf.Tensor:
        """``tf.nn.separable_conv2d`` (a sequence is an image of height 1)."""
        depthwise, pointwise = self.state.depthwise_kernel, self.state.pointwise_kernel
        strides, dilations = self.strides, self.dilation_rate
        if self.spatial_rank == 1:
            x, depthwise, pointwise = x[:, None], depthwise[None], pointwise[None]
            strides, dilations = (1, *strides), (1, *dilations)
        y = tf.nn.separable_conv2d(
            x,
            depthwise,
            pointwise,
            strides=(1, *strides, 1),
            padding=self.padding,
            dilations=dilations,
        )
        return y[:, 0] if self.spatial_rank == 1 else y


class SeparableConv1D(SeparableConv):
    """Separable 1-d convolution; see ``SeparableConv`` for the options."""

    spatial_rank: ClassVar[int] = 1


class SeparableConv2D(SeparableConv):
    """Separable 2-d convolution; see ``SeparableConv`` for the options."""

    spatial_rank: ClassVar[int] = 2
