"""``BatchNorm``: batch normalization with moving statistics for inference.

The training node normalizes with the batch's mean and variance over every axis but the
last (channels) and updates ``moving_mean``/``moving_variance`` (non-trainable variables)
each time it runs: ``moving = momentum * moving + (1 - momentum) * batch``.
``bn.reuse_with(x, training=False)`` is the inference node: it normalizes with the moving
statistics it shares with the training node, and updates nothing. A frozen BatchNorm
(``bn.freeze()``, or a frozen ``Module`` holding it) runs as the inference node, as Keras's
does with ``trainable=False``: fine-tuning the layers after it leaves its statistics alone.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x", value=[[0.0, 10.0], [2.0, 30.0]])
>>> bn = BatchNorm(x, momentum=0.5)
>>> np.round(bn().numpy(), 2).tolist()
[[-1.0, -1.0], [1.0, 1.0]]
>>> bn.moving_mean.numpy().tolist()
[0.5, 10.0]
>>> infer = bn.reuse_with(x, training=False)
>>> infer.moving_mean is bn.moving_mean
True
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.options.weights import ConstraintLike, RegularizerLike, WeightOptions

__all__ = ["BatchNorm"]


class BatchNorm(tw.Layer):
    """Normalize over the batch (and spatial axes) per channel, then scale and shift.

    Args:
        x: a dense input ``[batch, ..., channels]`` with a known channel dimension.
        training: use batch statistics and update the moving ones (``True``), or use the
            moving statistics (``False``).
        momentum: decay of the moving statistics.
        epsilon: added to the variance.
        center: learn a shift ``beta``.
        scale: learn a scale ``gamma``.
        w_regularizer, w_constraint: of ``gamma``; b_regularizer, b_constraint: of ``beta``.
    """

    compute_precision = "float32"  # statistics in float32 under mixed precision

    def __init__(
        self,
        x: tw.Layer,
        *,
        training: bool = True,
        momentum: float = 0.99,
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
        owner = name_owner("BatchNorm", name)
        if x.sparse or len(x.shape) < 2 or x.shape[-1] is None:
            raise tw.ShapeError(
                f"{owner} expects a dense input [batch, ..., channels] with a known channel "
                f"dimension, got {describe(x)}. Fix: densify "
                "or reshape the input so its last dimension is fixed."
            )
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{owner}: momentum must be in [0, 1], got {momentum!r}.")
        self.channels = int(x.shape[-1])
        if share_state_with is not None:
            shared = int(share_state_with.state.moving_mean.shape[0])
            if shared != self.channels:
                raise tw.ShapeError(
                    f"{owner}: cannot share the statistics of {share_state_with.name!r} "
                    f"({shared} channels) on input {describe(x)} with {self.channels} channels. "
                    "Fix: reuse it on inputs with the same last dimension."
                )
        self.training = bool(training)
        self.momentum = float(momentum)
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self._axes = list(range(len(x.shape) - 1))
        self._weight_options = WeightOptions.resolve(
            owner, w_regularizer, b_regularizer, w_constraint, b_constraint
        )
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def init_state(self) -> None:
        """``gamma``, ``beta`` (trainable) and ``moving_mean``/``moving_variance``."""
        n, dtype = self.channels, self.dtype
        self._weight_options.scale_and_shift(
            self.state, n, dtype, scale=self.scale, center=self.center
        )
        self.state.moving_mean = tf.Variable(
            tf.zeros([n], dtype), trainable=False, name="moving_mean"
        )
        self.state.moving_variance = tf.Variable(
            tf.ones([n], dtype), trainable=False, name="moving_variance"
        )

    def compute(self, x: Any) -> tf.Tensor:
        """Normalize ``x``; in training, also update the moving statistics (not when
        frozen: then it normalizes with them, as the inference node)."""
        state = self.state
        if self.training and state.trainable:
            mean, variance = tf.nn.moments(x, axes=self._axes)
            decay = tf.constant(1.0 - self.momentum, x.dtype)
            state.moving_mean.assign_sub((state.moving_mean - tf.stop_gradient(mean)) * decay)
            state.moving_variance.assign_sub(
                (state.moving_variance - tf.stop_gradient(variance)) * decay
            )
        else:
            mean, variance = state.moving_mean, state.moving_variance
        return tf.nn.batch_normalization(
            x,
            mean,
            variance,
            offset=getattr(state, "beta", None),
            scale=getattr(state, "gamma", None),
            variance_epsilon=self.epsilon,
        )

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self, x: tw.Layer, *, training: bool | None = None, name: str | None = None
    ) -> BatchNorm:
        """A node on ``x`` sharing every variable; ``training=False`` gives inference."""
        return BatchNorm(
            x,
            training=self.training if training is None else training,
            momentum=self.momentum,
            epsilon=self.epsilon,
            center=self.center,
            scale=self.scale,
            name=name,
            share_state_with=self,
        )
