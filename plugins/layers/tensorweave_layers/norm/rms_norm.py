"""``RMSNorm``: scale each example's features by the inverse of their root mean square,
``gamma * x / sqrt(mean(x ** 2) + epsilon)`` over the last axis (Zhang & Sennrich, 2019; the
normalization of LLaMA-style transformers). Cheaper than ``LayerNorm``: no mean is
subtracted and there is no shift.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x", value=[[3.0, 4.0]])
>>> np.round(RMSNorm(x, epsilon=0.0)().numpy().astype(float), 4).tolist()   # rms = sqrt(12.5)
[[0.8485, 1.1314]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._shapes import require_dense, require_width
from tensorweave_layers.options.weights import ConstraintLike, RegularizerLike, WeightOptions

__all__ = ["RMSNorm"]


class RMSNorm(tw.Layer):
    """``gamma * x * rsqrt(mean(x ** 2, last axis) + epsilon)``.

    Args:
        x: a dense input ``[batch, ..., features]`` with a known last dimension.
        epsilon: added to the mean square (Keras's default ``1e-6``).
        w_regularizer, w_constraint: of ``gamma`` (one per feature, starting at one).
        name, share_state_with: see ``tw.Layer``.
    """

    compute_precision = "float32"  # statistics in float32 under mixed precision

    def __init__(
        self,
        x: tw.Layer,
        *,
        epsilon: float = 1e-6,
        w_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("RMSNorm", name)
        require_dense(x, owner)
        self.features = require_width(x, owner)
        self.epsilon = float(epsilon)
        self._weight_options = WeightOptions.resolve(
            owner, w_regularizer, w_constraint=w_constraint
        )
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """``gamma``, one per feature, starting at one."""
        self._weight_options.scale_and_shift(
            self.state, self.features, self.dtype, scale=True, center=False
        )

    def compute(self, x: Any) -> tf.Tensor:
        """Divide by the root mean square over the last axis, then scale."""
        x = tf.convert_to_tensor(x)
        mean_square = tf.reduce_mean(tf.square(x), axis=-1, keepdims=True)
        return x * tf.math.rsqrt(mean_square + self.epsilon) * self.state.gamma
