"""Activation functions of one tensor, registered by versioned name (``"relu.v1"``…).

Layers take an activation by name (``"relu"`` resolves to the latest version through
``tw.activations.get``) or as any callable. Each function here works on tensors of any
rank; ``softmax``, ``log_softmax`` and ``sparsemax`` normalise over the last axis (and
declare ``compute_precision = "float32"``: an ``Activation`` of one computes in float32
under a mixed precision policy).

>>> import tensorflow as tf
>>> relu(tf.constant([-1.0, 2.0])).numpy().tolist()
[0.0, 2.0]
>>> sparsemax(tf.constant([[2.0, 1.0, -1.0]])).numpy().round(4).tolist()
[[1.0, 0.0, 0.0]]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import tensorflow as tf

_Function = TypeVar("_Function", bound=Callable[..., Any])

__all__ = [
    "identity",
    "relu",
    "relu6",
    "leaky_relu",
    "elu",
    "selu",
    "gelu",
    "swish",
    "tanh",
    "sigmoid",
    "hard_sigmoid",
    "softplus",
    "softsign",
    "softmax",
    "log_softmax",
    "sparsemax",
    "mish",
    "silu",
    "hard_swish",
    "glu",
    "log_sigmoid",
    "hard_tanh",
    "celu",
]


def _float32(fn: _Function) -> _Function:
    """Mark an activation whose output is numerically sensitive (probabilities): an
    ``Activation`` layer applying it computes in float32 under a mixed precision policy."""
    setattr(fn, "compute_precision", "float32")  # noqa: B010  (an attribute of a function)
    return fn


def identity(x: Any) -> tf.Tensor:
    """``x`` unchanged (a "linear" activation)."""
    return tf.convert_to_tensor(x)


def relu(x: Any) -> tf.Tensor:
    """``max(x, 0)``."""
    return tf.nn.relu(x)


def relu6(x: Any) -> tf.Tensor:
    """``min(max(x, 0), 6)``."""
    return tf.nn.relu6(x)


def leaky_relu(x: Any, alpha: float = 0.2) -> tf.Tensor:
    """``x`` where positive, ``alpha * x`` elsewhere."""
    return tf.nn.leaky_relu(x, alpha=alpha)


def elu(x: Any) -> tf.Tensor:
    """``x`` where positive, ``exp(x) - 1`` elsewhere."""
    return tf.nn.elu(x)


def selu(x: Any) -> tf.Tensor:
    """Scaled ELU (Klambauer et al., 2017)."""
    return tf.nn.selu(x)


def gelu(x: Any, approximate: bool = False) -> tf.Tensor:
    """``x * Phi(x)``, exact by default (``approximate=True`` uses the tanh form)."""
    return tf.nn.gelu(x, approximate=approximate)


def swish(x: Any) -> tf.Tensor:
    """``x * sigmoid(x)`` (also called SiLU)."""
    return tf.nn.silu(x)


silu = swish  # the same function under its other name (Keras's ``silu``)


def mish(x: Any) -> tf.Tensor:
    """``x * tanh(softplus(x))`` (Misra, 2019)."""
    return x * tf.math.tanh(tf.math.softplus(x))


def hard_swish(x: Any) -> tf.Tensor:
    """``x * hard_sigmoid(x)``, ``x * relu6(x + 3) / 6`` (MobileNetV3)."""
    return x * hard_sigmoid(x)


def glu(x: Any, axis: int = -1) -> tf.Tensor:
    """Gated linear unit: ``a * sigmoid(b)`` for the halves ``a, b`` of ``x`` over ``axis``.

    It halves that axis (of even size), so use it where the width may change, e.g.
    ``tw.Lambda(glu, h)`` after a layer of twice the width, not as a shape-keeping
    ``activation=`` of a layer.

    >>> import tensorflow as tf
    >>> glu(tf.constant([[1.0, 2.0, 0.0, 100.0]])).numpy().round(3).tolist()
    [[0.5, 2.0]]
    """
    a, b = tf.split(x, 2, axis=axis)
    return a * tf.math.sigmoid(b)


def log_sigmoid(x: Any) -> tf.Tensor:
    """``log(sigmoid(x))``, computed stably."""
    return tf.math.log_sigmoid(x)


def hard_tanh(x: Any) -> tf.Tensor:
    """``clip(x, -1, 1)``."""
    return tf.clip_by_value(x, -1.0, 1.0)


def celu(x: Any, alpha: float = 1.0) -> tf.Tensor:
    """Continuously differentiable ELU: ``x`` where positive, ``alpha * (exp(x / alpha) - 1)``
    elsewhere (Barron, 2017)."""
    x = tf.convert_to_tensor(x)
    return tf.nn.relu(x) + alpha * tf.math.expm1(tf.minimum(x, tf.zeros_like(x)) / alpha)


def tanh(x: Any) -> tf.Tensor:
    """Hyperbolic tangent."""
    return tf.math.tanh(x)


def sigmoid(x: Any) -> tf.Tensor:
    """``1 / (1 + exp(-x))``."""
    return tf.math.sigmoid(x)


def hard_sigmoid(x: Any) -> tf.Tensor:
    """Piecewise-linear sigmoid ``clip(x / 6 + 1/2, 0, 1)`` (the Keras 3 definition)."""
    return tf.nn.relu6(x + 3.0) / 6.0


def softplus(x: Any) -> tf.Tensor:
    """``log(1 + exp(x))``."""
    return tf.math.softplus(x)


def softsign(x: Any) -> tf.Tensor:
    """``x / (1 + |x|)``."""
    return tf.math.softsign(x)


@_float32
def softmax(x: Any, axis: int = -1) -> tf.Tensor:
    """``exp(x) / sum(exp(x))`` over ``axis``."""
    return tf.nn.softmax(x, axis=axis)


@_float32
def log_softmax(x: Any, axis: int = -1) -> tf.Tensor:
    """``log(softmax(x))``, computed stably."""
    return tf.nn.log_softmax(x, axis=axis)


@_float32
def sparsemax(x: Any) -> tf.Tensor:
    """The Euclidean projection of ``x`` onto the simplex, over the last axis.

    Like softmax it returns probabilities, but small scores get exactly zero
    (Martins & Astudillo, 2016). Differentiable almost everywhere through TF autodiff.

    >>> import tensorflow as tf
    >>> [round(p, 4) for p in sparsemax(tf.constant([0.5, 0.2, 0.1])).numpy().tolist()]
    [0.5667, 0.2667, 0.1667]
    """
    z = tf.convert_to_tensor(x)
    if not z.dtype.is_floating:
        raise TypeError(f"sparsemax needs float scores, got {z.dtype.name}.")
    n = tf.shape(z)[-1]
    z = z - tf.reduce_mean(z, axis=-1, keepdims=True)  # shift-invariant; improves stability
    z_sorted = tf.sort(z, axis=-1, direction="DESCENDING")
    cumsum = tf.cumsum(z_sorted, axis=-1)
    k = tf.cast(tf.range(1, n + 1), z.dtype)
    support = tf.cast(1.0 + k * z_sorted > cumsum, z.dtype)
    k_z = tf.reduce_sum(support, axis=-1, keepdims=True)  # size of the support, >= 1
    tau_sum = tf.gather(cumsum, tf.cast(k_z, tf.int32) - 1, batch_dims=z.shape.rank - 1)
    tau = (tau_sum - 1.0) / k_z
    return tf.nn.relu(z - tau)
