"""The maths and checks every attention layer of this pack shares.

Scores ``[..., t_q, t_k]`` become weights by a softmax over the keys each query may see:
``causal`` hides the keys after each query step, ``key_mask`` ``[batch, t_k]`` hides padded
keys (a large negative score, as Keras does, so a row with every key hidden is uniform
rather than NaN). ``drop_weights`` is the training-time dropout of the weights, drawn from
the layer state's generator. ``sequence_mask`` gives the padding mask a layer uses: the
ones it is given, else its inputs' ``padding_mask``.

>>> import tensorflow as tf
>>> scores = tf.zeros([1, 3, 3])
>>> attention_weights(scores, causal=True).numpy()[0].astype(float).round(2).tolist()
[[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.33, 0.33, 0.33]]
>>> mask = tf.constant([[True, False, True]])
>>> attention_weights(scores, key_mask=mask).numpy()[0, 0].tolist()
[0.5, 0.0, 0.5]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._spatial import describe

__all__ = [
    "attention_weights",
    "drop_weights",
    "check_dropout",
    "check_sequence",
    "check_step_mask",
    "sequence_mask",
    "per_use",
]

NEG = -1e9  # the score of a hidden key (Keras's large negative number)


def attention_weights(scores: Any, *, causal: bool = False, key_mask: Any = None) -> tf.Tensor:
    """``softmax(scores)`` over the last axis, hiding future keys (``causal``) and padded
    keys (``key_mask`` ``[batch, t_k]``, true at real steps)."""
    scores = tf.convert_to_tensor(scores)
    hidden = tf.constant(NEG, scores.dtype)
    if causal:
        tq, tk = tf.shape(scores)[-2], tf.shape(scores)[-1]
        allowed = tf.linalg.band_part(tf.ones([tq, tk], tf.bool), -1, 0)
        scores = tf.where(allowed, scores, hidden)
    if key_mask is not None:
        visible = tf.cast(key_mask, tf.bool)
        middle = [1] * (scores.shape.rank - 2)
        visible = tf.reshape(visible, tf.concat([tf.shape(visible)[:1], middle, [-1]], 0))
        scores = tf.where(visible, scores, hidden)
    return tf.nn.softmax(scores, axis=-1)


def drop_weights(weights: tf.Tensor, rate: float, state: tw.LayerState) -> tf.Tensor:
    """Inverted dropout of attention weights with ``state``'s random generator."""
    keep = state.generator().uniform(tf.shape(weights)) >= rate
    return weights * tf.cast(keep, weights.dtype) / (1.0 - rate)


def check_dropout(dropout: float, owner: str) -> float:
    """``dropout`` as a float in ``[0, 1)``, or a ``tw.ArgumentError``."""
    if isinstance(dropout, bool) or not isinstance(dropout, (int, float)):
        raise tw.ArgumentError(f"{owner}: dropout must be a number, got {dropout!r}.")
    if not 0.0 <= dropout < 1.0:
        raise tw.ArgumentError(
            f"{owner}: dropout must be in [0, 1), got {dropout!r}. Fix: the rate of attention "
            "weights dropped in training, e.g. 0.1."
        )
    return float(dropout)


def check_sequence(layer: tw.Layer, role: str, owner: str) -> int:
    """The feature width of ``layer``, which must be dense ``[batch, time, features]``."""
    if layer.sparse or len(layer.shape) != 3 or layer.shape[-1] is None:
        raise tw.ShapeError(
            f"{owner}: {role} must be dense [batch, time, features] with known features, "
            f"got {describe(layer)}. Fix: reshape it to rank 3 (a single vector per "
            "sample is a sequence of length 1)."
        )
    return int(layer.shape[-1])


def check_step_mask(
    mask: tw.Layer | None, steps: tw.Layer, role: str, owner: str, axis: str = "t"
) -> None:
    """Refuse a mask that is not ``[batch, axis]`` for the sequence ``steps``."""
    if mask is None:
        return
    if mask.sparse or len(mask.shape) != 2:
        raise tw.ShapeError(
            f"{owner}: {role} must be dense [batch, {axis}], got {describe(mask)}. "
            "Fix: pass one flag per step, e.g. tw.ops.not_equal(ids, 0)."
        )
    t, want = mask.shape[1], steps.shape[1]
    if t is not None and want is not None and t != want:
        raise tw.ShapeError(
            f"{owner}: {role} {describe(mask)} must have the same number of steps as "
            f"{describe(steps)}. Fix: build the mask from the same ids."
        )


def sequence_mask(given: tw.Layer | None, *layers: tw.Layer) -> tw.Layer | None:
    """The mask a layer uses: ``given`` if any, else the first ``padding_mask`` of
    ``layers`` (an explicit ``mask=`` always wins)."""
    if given is not None:
        return given
    for layer in layers:
        if layer.padding_mask is not None:
            return layer.padding_mask
    return None


def per_use(layer: Any, **given: Any) -> dict[str, Any]:
    """The per-use options of a reuse: each ``given`` value, or ``layer``'s where ``None``."""
    return {key: getattr(layer, key) if value is None else value for key, value in given.items()}
