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
>>> conv = SeparableConvOnSequences(seq, 8, 3, depth_multiplier=2)
>>> conv.shape, conv.pointwise_kernel.shape.as_list()
((None, None, 8), [1, 8, 8])
"""

from __future__ import annotations

import tensorflow as tf

import tensorweave as tw

from ._conv import ConvBase, IntOrInts
from ._param_init import ActivationLike, Initializer
from ._shapes import owner as name_owner
from ._weights import ConstraintLike, RegularizerLike

__all__ = ["SeparableConv"]


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
        padding: str = "same",
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
