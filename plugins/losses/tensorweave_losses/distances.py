"""Distance functions between rows of two tensors (last axis), usable as graph nodes, and
the cosine-similarity loss.

>>> from tensorweave_losses.distances import euclidean_distance, torus_l1_distance
>>> euclidean_distance([[0.0, 0.0]], [[3.0, 4.0]]).numpy().tolist()
[5.0]
>>> [round(v, 4) for v in torus_l1_distance([[0.1]], [[0.9]]).numpy().tolist()]  # wraps around
[0.2]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import (
    EPSILON,
    align_labels,
    check_reduction,
    check_shapes,
    float_tensor,
    reduce_loss,
)
from tensorweave_losses.nodes import graph_function

__all__ = [
    "cosine_distance",
    "euclidean_distance",
    "pairwise_euclidean_distance",
    "manhattan_distance",
    "sparse_cosine_distance",
    "torus_l1_distance",
    "cosine_similarity",
    "cosine",
    "l2_normalize",
]


def _pair(name: str, x: Any, y: Any) -> tuple[tf.Tensor, tf.Tensor]:
    x = float_tensor(x)
    y = tf.cast(tf.convert_to_tensor(y), x.dtype)
    check_shapes(name, x, y, "both arguments need the same shape (rows of vectors).")
    return x, y


def _safe_sqrt(squared: tf.Tensor) -> tf.Tensor:
    """``sqrt`` with a zero (not NaN) gradient at 0."""
    positive = squared > 0
    return tf.where(positive, tf.sqrt(tf.where(positive, squared, tf.ones_like(squared))), 0.0)


def l2_normalize(x: tf.Tensor, axis: int = -1, epsilon: float = 1e-6) -> tf.Tensor:
    """``x / max(‖x‖₂, epsilon)`` along ``axis`` (a zero vector stays zero, with finite
    gradients); ``epsilon=1e-6`` is ``tf.math.l2_normalize``'s floor, ``1e-7`` Keras's."""
    square_sum = tf.reduce_sum(tf.square(x), axis, keepdims=True)
    return x * tf.math.rsqrt(tf.maximum(square_sum, tf.cast(epsilon**2, x.dtype)))


def cosine(x: tf.Tensor, y: tf.Tensor, axis: int = -1, epsilon: float = 1e-6) -> tf.Tensor:
    """``cos(x, y)`` along ``axis``, each norm floored at ``epsilon``; 0 when either vector
    is zero."""
    return tf.reduce_sum(l2_normalize(x, axis, epsilon) * l2_normalize(y, axis, epsilon), axis)


@graph_function
def cosine_distance(x: Any, y: Any, *, axis: int = -1) -> tf.Tensor:
    """``1 - cos(x, y)`` per row, in [0, 2]; a zero vector is at distance 1 from anything.

    >>> cosine_distance([[1.0, 0.0]], [[0.0, 2.0]]).numpy().tolist()
    [1.0]
    """
    x, y = _pair("cosine_distance", x, y)
    return 1.0 - cosine(x, y, axis)


@graph_function
def cosine_similarity(
    labels: Any,
    predictions: Any,
    *,
    axis: int = -1,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """The loss ``-cos(labels, predictions)`` per example, in [-1, 1] (-1 when they point
    the same way), as ``keras.losses.CosineSimilarity``; a zero vector gives 0.

    Args:
        labels: target vectors, the shape of ``predictions``.
        predictions: predicted vectors.
        axis: the axis of the vectors.
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.

    >>> y, p = [[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [2.0, 2.0]]
    >>> [round(v, 4) for v in cosine_similarity(y, p, reduction="none").numpy().tolist()]
    [-0.0, -1.0]
    """
    name = "cosine_similarity"
    check_reduction(name, reduction)
    predictions = float_tensor(predictions)
    labels = align_labels(tf.cast(tf.convert_to_tensor(labels), predictions.dtype), predictions)
    check_shapes(name, labels, predictions, "labels must be vectors of the predictions' shape.")
    similarity = cosine(labels, predictions, axis, EPSILON)  # Keras's norm floor, 1e-7
    return reduce_loss(name, -similarity, sample_weight, reduction)


@graph_function
def euclidean_distance(x: Any, y: Any, *, axis: int = -1) -> tf.Tensor:
    """``‖x - y‖₂`` per row (gradient 0, not NaN, where x == y)."""
    x, y = _pair("euclidean_distance", x, y)
    return _safe_sqrt(tf.reduce_sum(tf.square(x - y), axis))


@graph_function
def manhattan_distance(x: Any, y: Any, *, axis: int = -1) -> tf.Tensor:
    """``‖x - y‖₁`` per row."""
    x, y = _pair("manhattan_distance", x, y)
    return tf.reduce_sum(tf.abs(x - y), axis)


@graph_function
def pairwise_euclidean_distance(x: Any, y: Any) -> tf.Tensor:
    """Every distance between rows of ``x [n, d]`` and ``y [m, d]``: a ``[n, m]`` matrix.

    >>> pairwise_euclidean_distance([[0.0, 0.0], [1.0, 0.0]], [[0.0, 3.0]]).numpy().tolist()
    [[3.0], [3.1622776985168457]]
    """
    x = float_tensor(x)
    y = tf.cast(tf.convert_to_tensor(y), x.dtype)
    if (
        x.shape.rank != 2
        or y.shape.rank != 2
        or (x.shape[-1] is not None and y.shape[-1] is not None and x.shape[-1] != y.shape[-1])
    ):
        raise tw.ShapeError(
            f"pairwise_euclidean_distance: needs x [n, d] and y [m, d], got {tuple(x.shape)} "
            f"and {tuple(y.shape)}. Fix: both as rows of vectors of the same dimension."
        )
    diff = x[:, None, :] - y[None, :, :]
    return _safe_sqrt(tf.reduce_sum(tf.square(diff), -1))


@graph_function
def sparse_cosine_distance(sparse: Any, dense: Any) -> tf.Tensor:
    """``1 - cos`` between rows of a ``tf.SparseTensor [batch, d]`` and a dense ``[batch, d]``
    (bag-of-words against embeddings), without densifying the sparse rows.

    >>> import tensorflow as tf
    >>> sp = tf.sparse.from_dense([[0.0, 3.0, 0.0]])
    >>> sparse_cosine_distance(sp, [[0.0, 1.0, 0.0]]).numpy().tolist()
    [0.0]
    """
    if not isinstance(sparse, tf.SparseTensor):
        raise tw.InputValueError(
            f"sparse_cosine_distance: the first argument must be a tf.SparseTensor, got "
            f"{type(sparse).__name__}. Fix: tf.sparse.from_dense(x), or use cosine_distance."
        )
    dense = tf.convert_to_tensor(dense)
    sparse = tf.sparse.SparseTensor(
        sparse.indices, tf.cast(sparse.values, dense.dtype), sparse.dense_shape
    )
    dot = tf.sparse.reduce_sum(sparse * dense, axis=-1)
    squares = tf.sparse.SparseTensor(sparse.indices, tf.square(sparse.values), sparse.dense_shape)
    sparse_norm = tf.sqrt(tf.sparse.reduce_sum(squares, axis=-1))
    dense_norm = tf.norm(dense, axis=-1)
    distance = 1.0 - tf.math.divide_no_nan(dot, sparse_norm * dense_norm)
    distance.set_shape(sparse.shape[:-1])  # reduce_sum of a sparse tensor loses the rank
    return distance


@graph_function
def torus_l1_distance(x: Any, y: Any, *, period: float = 1.0, axis: int = -1) -> tf.Tensor:
    """L1 distance on a torus: each coordinate wraps with ``period``, so the per-axis gap
    is ``min(|x - y| mod p, p - |x - y| mod p)`` (positions on a ring, angles)."""
    x, y = _pair("torus_l1_distance", x, y)
    p = tf.cast(period, x.dtype)
    gap = tf.math.floormod(tf.abs(x - y), p)
    return tf.reduce_sum(tf.minimum(gap, p - gap), axis)
