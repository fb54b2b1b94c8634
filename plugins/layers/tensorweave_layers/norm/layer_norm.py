"""``LayerNorm``: normalize each sample over its last axis, then scale and shift.

Unlike ``BatchNorm`` it uses no batch statistics, so training and inference are the same.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=3, name="x", value=[[1.0, 2.0, 3.0]])
>>> ln = LayerNorm(x)
>>> np.round(ln().numpy().astype(float), 3).tolist()
[[-1.224, 0.0, 1.224]]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.options.weights import ConstraintLike, RegularizerLike, WeightOptions

__all__ = ["LayerNorm"]


class LayerNorm(tw.Layer):
    """``gamma * (x - mean) / sqrt(var + epsilon) + beta`` over the last axis.

    Args:
        x: a dense input ``[batch, ..., features]`` with a known last dimension.
        epsilon: added to the variance.
        center: learn a shift ``beta``.
        scale: learn a scale ``gamma``.
        w_regularizer, w_constraint: of ``gamma``; b_regularizer, b_constraint: of ``beta``.
    """

    compute_precision = "float32"  # statistics in float32 under mixed precision

    keeps_padding_mask = True  # steps stay steps: a padding mask passes on

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
        owner = name_owner("LayerNorm", name)
        if x.sparse or len(x.shape) < 2 or x.shape[-1] is None:
            raise tw.ShapeError(
                f"{owner} expects a dense input [batch, ..., features] with a known last "
                f"dimension, got {describe(x)}. Fix: densify "
                "or reshape the input so its last dimension is fixed."
            )
        self.features = int(x.shape[-1])
        if share_state_with is not None and hasattr(share_state_with.state, "gamma"):
            shared = int(share_state_with.state.gamma.shape[0])
            if shared != self.features:
                raise tw.ShapeError(
                    f"{owner}: cannot share the parameters of {share_state_with.name!r} "
                    f"({shared} features) on input {describe(x)}. Fix: reuse it on inputs "
                    f"with {shared} features."
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
        """``gamma`` (ones) and ``beta`` (zeros), one per feature."""
        self._weight_options.scale_and_shift(
            self.state, self.features, self.dtype, scale=self.scale, center=self.center
        )

    def compute(self, x: Any) -> tf.Tensor:
        """Normalize over the last axis."""
        mean, variance = tf.nn.moments(x, axes=[-1], keepdims=True)
        return tf.nn.batch_normalization(
            x,
            mean,
            variance,
            offset=getattr(self.state, "beta", None),
            scale=getattr(self.state, "gamma", None),
            variance_epsilon=self.epsilon,
        )
