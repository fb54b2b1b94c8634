"""``LocalResponseNorm``: each channel divided by the activity of its neighbouring channels
(Krizhevsky et al., 2012; TensorLayer's ``LocalResponseNormLayer``, the CIFAR-10 CNN's
``norm1``/``norm2``). It is ``tf.nn.local_response_normalization``::

    sqr_sum[b, i, j, c] = sum(x[b, i, j, c - r : c + r + 1] ** 2)
    y = x / (k + alpha * sqr_sum) ** beta

TensorFlow has no bfloat16 kernel for it on the CPU, and it is a statistic of the
activations: it computes in float32 under a mixed precision policy.

>>> import numpy as np, tensorweave as tw
>>> from tensorweave_layers import LocalResponseNorm
>>> x = tw.Input(shape=(1, 1, 2), name="x", value=np.array([[[[1.0, 2.0]]]]))
>>> y = LocalResponseNorm(x, depth_radius=1, k=1.0, alpha=1.0, beta=1.0)
>>> [round(float(v), 3) for v in y().numpy().ravel()]     # 1 / (1 + 1 + 4), 2 / (1 + 1 + 4)
[0.167, 0.333]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner
from tensorweave_layers._spatial import LAYOUTS, check_rank

__all__ = ["LocalResponseNorm"]


class LocalResponseNorm(tw.Layer):
    """Local response normalization across channels (TensorFlow's defaults).

    Args:
        x: images ``[batch, height, width, channels]`` (dense).
        depth_radius: the half-width ``r`` of the window of channels.
        k, alpha, beta: as in the formula of the module docstring (TensorLayer's CIFAR-10
            model uses ``depth_radius=4, k=1.0, alpha=0.001 / 9.0, beta=0.75``). The offset
            ``k`` is PyTorch's name; ``tf.nn.local_response_normalization`` calls it ``bias``,
            which tensorweave reserves for the on/off switch (``add_bias``).
        name, share_state_with: see ``tw.Layer`` (no variables).
    """

    compute_precision = "float32"  # no bfloat16 kernel; a statistic of the activations

    def __init__(
        self,
        x: tw.Layer,
        *,
        depth_radius: int = 5,
        k: float = 1.0,
        alpha: float = 1.0,
        beta: float = 0.5,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        who = owner("LocalResponseNorm", name)
        check_rank(x, 4, LAYOUTS[2], who, f"reshape the input to {LAYOUTS[2]}.")
        self.depth_radius = tw.positive_int(depth_radius, "depth_radius", who)
        self.k, self.alpha, self.beta = float(k), float(alpha), float(beta)
        super().__init__(
            x, shape=x.shape, dtype=x.dtype, name=name, share_state_with=share_state_with
        )

    def compute(self, x: Any) -> tf.Tensor:
        """``tf.nn.local_response_normalization`` with this layer's settings."""
        return tf.nn.local_response_normalization(
            x, depth_radius=self.depth_radius, bias=self.k, alpha=self.alpha, beta=self.beta
        )
