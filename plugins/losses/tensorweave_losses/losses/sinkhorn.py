"""Sinkhorn loss: the entropy-regularised optimal-transport (Wasserstein) cost between two
point clouds with uniform weights, computed in the log domain so small ``epsilon`` stays
finite (Cuturi, 2013).

>>> from tensorweave_losses.losses.sinkhorn import sinkhorn
>>> a = [[0.0], [1.0]]
>>> round(float(sinkhorn(a, a, epsilon=0.01)), 4)  # identical clouds cost nothing
0.0
>>> round(float(sinkhorn(a, [[2.0], [3.0]], epsilon=0.01, cost="euclidean")), 3)
2.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

from tensorweave_losses.base import check_reduction, float_tensor, reduce_loss
from tensorweave_losses.nodes import graph_function

__all__ = ["sinkhorn", "cost_matrix"]


def cost_matrix(x: tf.Tensor, y: tf.Tensor, cost: str | Callable[..., Any]) -> tf.Tensor:
    """Pairwise costs ``[..., n, m]`` between points ``x [..., n, d]`` and ``y [..., m, d]``."""
    if callable(cost):
        return cost(x, y)
    diff = x[..., :, None, :] - y[..., None, :, :]
    if cost == "sqeuclidean":
        return tf.reduce_sum(tf.square(diff), axis=-1)
    if cost == "euclidean":
        squared = tf.reduce_sum(tf.square(diff), axis=-1)
        safe = tf.where(squared > 0, squared, tf.ones_like(squared))
        return tf.where(squared > 0, tf.sqrt(safe), tf.zeros_like(squared))
    if cost == "l1":
        return tf.reduce_sum(tf.abs(diff), axis=-1)
    raise ValueError(
        f"sinkhorn: unknown cost {cost!r}. Fix: use 'sqeuclidean', 'euclidean', 'l1' or a "
        "function (x [..., n, d], y [..., m, d]) -> [..., n, m]."
    )


@tf.function(reduce_retracing=True, autograph=False)  # type: ignore[untyped-decorator]
def _potentials(c: tf.Tensor, eps: tf.Tensor, n_iter: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
    """Log-domain Sinkhorn iterations with uniform marginals: the dual potentials f, g."""
    n = tf.cast(tf.shape(c)[-2], c.dtype)
    m = tf.cast(tf.shape(c)[-1], c.dtype)
    log_a, log_b = -tf.math.log(n), -tf.math.log(m)

    def step(i: tf.Tensor, f: tf.Tensor, g: tf.Tensor) -> tuple[tf.Tensor, ...]:
        f = eps * (log_a - tf.reduce_logsumexp((g[..., None, :] - c) / eps, axis=-1))
        g = eps * (log_b - tf.reduce_logsumexp((f[..., :, None] - c) / eps, axis=-2))
        return i + 1, f, g

    f0 = tf.zeros_like(c[..., :, 0])
    g0 = tf.zeros_like(c[..., 0, :])
    _, f, g = tf.while_loop(lambda i, f, g: i < n_iter, step, (tf.constant(0), f0, g0))
    return f, g


@graph_function
def sinkhorn(
    labels: Any,
    predictions: Any,
    *,
    epsilon: float = 0.1,
    n_iter: int = 50,
    cost: str | Callable[..., Any] = "sqeuclidean",
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """The Sinkhorn approximation of the optimal-transport cost between two point clouds.

    Args:
        labels: target points ``[n, d]`` (or a batch ``[batch, n, d]``), uniform weights.
        predictions: predicted points ``[m, d]`` (or ``[batch, m, d]``).
        epsilon: entropic regularisation (> 0); smaller is closer to the exact transport
            cost but needs more iterations.
        n_iter: Sinkhorn iterations (a ``tf.while_loop``, so not unrolled in graphs).
        cost: ``"sqeuclidean"`` (default), ``"euclidean"``, ``"l1"`` or a function.
        sample_weight: weights per batch example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"`` (over the batch; unbatched inputs give
            one scalar).
    """
    name = "sinkhorn"
    check_reduction(name, reduction)
    if not float(epsilon) > 0 or int(n_iter) < 1:
        raise ValueError(f"{name}: need epsilon > 0 and n_iter >= 1, got {epsilon}, {n_iter}.")
    y = float_tensor(predictions)
    x = tf.cast(tf.convert_to_tensor(labels), y.dtype)
    if x.shape.rank not in (2, 3) or x.shape.rank != y.shape.rank:
        import tensorweave as tw

        raise tw.ShapeError(
            f"{name}: labels {tuple(x.shape)} and predictions {tuple(y.shape)} must both be "
            "point clouds [n, d] or batches [batch, n, d]. Fix: reshape to that layout."
        )
    if x.shape[-1] is not None and y.shape[-1] is not None and x.shape[-1] != y.shape[-1]:
        import tensorweave as tw

        raise tw.ShapeError(
            f"{name}: points of labels {tuple(x.shape)} and predictions {tuple(y.shape)} have "
            "different dimensions (last axis). Fix: embed both clouds in the same space."
        )
    c = cost_matrix(x, y, cost)
    f, g = _potentials(c, tf.cast(epsilon, c.dtype), tf.constant(int(n_iter)))
    eps = tf.cast(epsilon, c.dtype)
    plan = tf.exp((f[..., :, None] + g[..., None, :] - c) / eps)
    losses = tf.reduce_sum(plan * c, axis=[-2, -1])
    return reduce_loss(name, losses, sample_weight, reduction)
