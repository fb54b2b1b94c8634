"""``GroupNorm``: normalize each example over groups of channels (Wu & He, 2018), then scale
and shift per channel. The channels are split into ``groups`` groups; each group is
normalized with the mean and variance of its channels over every spatial position, so
it does not depend on the batch (small batches, detection, GANs). ``groups=1`` normalizes
all channels together; one group per channel is ``InstanceNorm``.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(2, 4), name="x", value=np.arange(8.0).reshape(1, 2, 4))
>>> norm = GroupNorm(x, groups=2, epsilon=0.0)
>>> np.round(norm().numpy()[0].astype(float), 3).tolist()  # groups: channels {0, 1} and {2, 3}
[[-1.213, -0.728, -1.213, -0.728], [0.728, 1.213, 0.728, 1.213]]

``InstanceNorm``: normalize each channel of each example over its spatial positions
(Ulyanov et al., 2016; style transfer, image generation): a ``GroupNorm`` with one group
per channel, as Keras's ``GroupNormalization(groups=-1)``.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(shape=(3, 2), name="x", value=[[[0.0, 5.0], [1.0, 5.0], [2.0, 5.0]]])
>>> np.round(InstanceNorm(x, epsilon=0.0)().numpy()[0, :, 0].astype(float), 3).tolist()
[-1.225, 0.0, 1.225]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, require_dense, require_width
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers.options.weights import ConstraintLike, RegularizerLike, WeightOptions

__all__ = ["GroupNorm", "InstanceNorm"]


class GroupNorm(tw.Layer):
    """``gamma * (x - mean_g) / sqrt(var_g + epsilon) + beta`` per group ``g`` of channels.

    Args:
        x: a dense input ``[batch, ..., channels]`` with a known channel dimension.
        groups: the number of groups; divides the channels (Keras's default 32).
        epsilon: added to the variance.
        center, scale: learn a shift ``beta`` and a scale ``gamma`` per channel.
        w_regularizer, w_constraint: of ``gamma``; b_regularizer, b_constraint: of ``beta``.
        name, share_state_with: see ``tw.Layer``.
    """

    compute_precision = "float32"  # statistics in float32 under mixed precision

    def __init__(
        self,
        x: tw.Layer,
        groups: int = 32,
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
        owner = name_owner(type(self).__name__, name)
        require_dense(x, owner)
        self.channels = require_width(x, owner)
        self.groups = tw.positive_int(groups, "groups", owner)
        if self.channels % self.groups:
            raise tw.ArgumentError(
                f"{owner}: groups={self.groups} does not divide the {self.channels} channels "
                f"of {describe(x)}. Fix: pick a divisor of {self.channels}."
            )
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self._weight_options = WeightOptions.resolve(
            owner, w_regularizer, b_regularizer, w_constraint, b_constraint
        )
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """``gamma`` (ones) and ``beta`` (zeros), one per channel."""
        self._weight_options.scale_and_shift(
            self.state, self.channels, self.dtype, scale=self.scale, center=self.center
        )

    def compute(self, x: Any) -> tf.Tensor:
        """Normalize each group over its channels and every spatial position."""
        x = tf.convert_to_tensor(x)
        shape = tf.shape(x)
        per_group = self.channels // self.groups
        grouped = tf.reshape(x, tf.concat([shape[:-1], [self.groups, per_group]], axis=0))
        rank = grouped.shape.rank
        axes = [*range(1, rank - 2), rank - 1]  # spatial and within-group, not the group
        mean, variance = tf.nn.moments(grouped, axes=axes, keepdims=True)
        normalized = tf.reshape((grouped - mean) * tf.math.rsqrt(variance + self.epsilon), shape)
        if self.scale:
            normalized = normalized * self.state.gamma
        if self.center:
            normalized = normalized + self.state.beta
        return normalized


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
