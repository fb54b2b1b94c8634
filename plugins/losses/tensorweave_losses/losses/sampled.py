"""Sampled losses for very large output vocabularies: NCE and sampled softmax.

Both score each example against its true class(es) and a few sampled negative classes
instead of the whole vocabulary (word2vec-style training). They wrap ``tf.nn.nce_loss``
and ``tf.nn.sampled_softmax_loss`` and take the output ``weights [n_classes, dim]`` and
``biases [n_classes]`` as ``tf.Variable`` objects: only the rows used in a batch are read,
so their gradients stay sparse (``tf.IndexedSlices``).

Word2vec with an embedding layer: the graph embeds the centre words (any
``[batch, dim]`` layer, e.g. a Lookup/embedding layer from the layers pack, or
``tw.Lambda(tf.nn.embedding_lookup)`` over a table), and the loss node takes the context
ids and that embedding, plus the output variables::

    words = tw.Input(shape=(), dtype="int64", name="words")
    context = tw.Input(shape=(1,), dtype="int64", name="context")
    embedded = tw.layers["Lookup.v1"](words, ...)          # [batch, dim]
    out_w = tf.Variable(tf.random.normal([vocab, dim], stddev=0.05), name="nce_w")
    out_b = tf.Variable(tf.zeros([vocab]), name="nce_b")
    loss = tw.losses["nce.v1"](context, embedded, weights=out_w, biases=out_b,
                               num_sampled=64)
    # loss.variables holds out_w and out_b; loss.graph.trainable_variables adds the
    # embedding table. To tie input and output embeddings pass the table as weights=.

The sampling is random: for evaluation use the full softmax
(``sparse_categorical_cross_entropy.v1`` on ``embedded @ tf.transpose(out_w) + out_b``).

>>> import tensorflow as tf
>>> from tensorweave_losses.losses.sampled import sampled_softmax
>>> w, b = tf.Variable(tf.zeros([100, 4])), tf.Variable(tf.zeros([100]))
>>> loss = sampled_softmax([[3]], tf.ones([1, 4]), weights=w, biases=b, num_sampled=9)
>>> loss.shape, bool(tf.math.is_finite(loss))
(TensorShape([]), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_losses.base import check_class_ids, check_reduction, float_tensor, reduce_loss
from tensorweave_losses.nodes import graph_function

__all__ = ["nce", "sampled_softmax"]


def _n_classes(name: str, weights: Any, num_classes: int | None) -> int:
    if num_classes is not None:
        return int(num_classes)
    parts = weights if isinstance(weights, (list, tuple)) else [weights]
    rows = [p.shape[0] for p in parts]
    if any(r is None for r in rows):
        raise tw.ShapeError(f"{name}: cannot tell the number of classes; pass num_classes=.")
    return int(sum(rows))


def _prepare(
    name: str,
    labels: Any,
    inputs: Any,
    weights: Any,
    biases: Any,
    num_classes: int | None,
    num_true: int,
    reduction: str,
) -> tuple[tf.Tensor, tf.Tensor, Any, int]:
    check_reduction(name, reduction)
    if weights is None or biases is None:
        raise TypeError(
            f"{name}: needs weights= ([n_classes, dim] tf.Variable) and biases= ([n_classes])."
        )
    n_classes = _n_classes(name, weights, num_classes)
    inputs = float_tensor(inputs)
    labels = tf.convert_to_tensor(labels)
    if labels.shape.rank == 1:
        labels = labels[:, None]
    if labels.shape.rank != 2 or (labels.shape[1] is not None and labels.shape[1] != num_true):
        raise tw.ShapeError(
            f"{name}: labels must be [batch, num_true={num_true}] (or [batch] when num_true=1), "
            f"got shape {tuple(labels.shape)}. Fix: reshape the labels or set num_true=."
        )
    if inputs.shape.rank != 2:
        raise tw.ShapeError(
            f"{name}: inputs must be [batch, dim] (the hidden/embedded examples), got "
            f"{tuple(inputs.shape)}. Fix: flatten sequences to [batch * time, dim] first."
        )
    first = weights[0] if isinstance(weights, (list, tuple)) else weights
    dim, got = first.shape[-1], inputs.shape[-1]
    if dim is not None and got is not None and dim != got:
        raise tw.ShapeError(
            f"{name}: inputs of shape {tuple(inputs.shape)} do not fit weights of shape "
            f"{tuple(first.shape)}: the last axes ({got} vs {dim}) must agree."
        )
    labels = check_class_ids(name, tf.cast(labels, tf.int64), n_classes)
    return labels, inputs, weights, n_classes


def _sampled_loss(
    name: str,
    tf_loss: Any,
    labels: Any,
    inputs: Any,
    weights: Any,
    biases: Any,
    num_sampled: int,
    num_classes: int | None,
    num_true: int,
    sampled_values: Any,
    remove_accidental_hits: bool,
    sample_weight: Any,
    reduction: str,
) -> tf.Tensor:
    """The shared body of ``nce`` and ``sampled_softmax``: check, call ``tf_loss``, reduce."""
    labels, inputs, weights, n_classes = _prepare(
        name, labels, inputs, weights, biases, num_classes, num_true, reduction
    )
    losses = tf_loss(
        weights=weights,
        biases=biases,
        labels=labels,
        inputs=inputs,
        num_sampled=num_sampled,
        num_classes=n_classes,
        num_true=num_true,
        sampled_values=sampled_values,
        remove_accidental_hits=remove_accidental_hits,
    )
    return reduce_loss(name, losses, sample_weight, reduction)


@graph_function
def nce(
    labels: Any,
    inputs: Any,
    *,
    weights: tf.Variable | Sequence[tf.Variable],
    biases: tf.Variable,
    num_sampled: int,
    num_classes: int | None = None,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = False,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Noise-contrastive estimation loss (``tf.nn.nce_loss``), per example then reduced.

    Args:
        labels: true class ids ``[batch, num_true]`` (or ``[batch]``).
        inputs: the examples' hidden vectors ``[batch, dim]``.
        weights: output embeddings ``[n_classes, dim]`` (a variable, kept sparse).
        biases: output biases ``[n_classes]``.
        num_sampled: negative classes sampled per batch.
        num_classes: the vocabulary size (default: rows of ``weights``).
        num_true: true classes per example.
        sampled_values: a fixed ``(sampled, true_expected, sampled_expected)`` triple, else
            log-uniform (Zipfian) sampling, which assumes ids sorted by frequency.
        remove_accidental_hits: drop sampled classes equal to a true class.
        sample_weight: weights per example.
        reduction: ``"mean"``, ``"sum"`` or ``"none"``.
    """
    return _sampled_loss(
        "nce",
        tf.nn.nce_loss,
        labels,
        inputs,
        weights,
        biases,
        num_sampled,
        num_classes,
        num_true,
        sampled_values,
        remove_accidental_hits,
        sample_weight,
        reduction,
    )


@graph_function
def sampled_softmax(
    labels: Any,
    inputs: Any,
    *,
    weights: tf.Variable | Sequence[tf.Variable],
    biases: tf.Variable,
    num_sampled: int,
    num_classes: int | None = None,
    num_true: int = 1,
    sampled_values: Any = None,
    remove_accidental_hits: bool = True,
    sample_weight: Any = None,
    reduction: str = "mean",
) -> tf.Tensor:
    """Sampled softmax cross-entropy (``tf.nn.sampled_softmax_loss``); arguments as ``nce``.

    An estimate of the full softmax cross-entropy during training; evaluate with the full
    softmax.
    """
    return _sampled_loss(
        "sampled_softmax",
        tf.nn.sampled_softmax_loss,
        labels,
        inputs,
        weights,
        biases,
        num_sampled,
        num_classes,
        num_true,
        sampled_values,
        remove_accidental_hits,
        sample_weight,
        reduction,
    )
