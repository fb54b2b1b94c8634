"""Padding masks: which steps of a sequence-valued node are real, known to the graph.

A node's ``padding_mask`` (``Layer.padding_mask``) is another node, boolean, shaped like
the node's leading axes (``(batch, time)`` for a ``(batch, time, features)`` sequence),
true at real steps and false at padding; or ``None``. It is a node of the graph like any
other, so a compiled graph computes it only when something uses it.

- **Made** by a layer that knows where the padding is: ``Lookup(ids, ..., mask_zero=True)``
  sets ``self.padding_mask = <ids != 0>``; user code may set one on any node.
- **Passed on** by a layer whose class sets ``keeps_padding_mask = True`` (dense maps,
  activations, dropout, feature normalisation, element-wise merges…): its mask is the mask
  of its inputs (their logical *and* when several differ), provided its output keeps the
  mask's axes. The arithmetic operators on layers (``a + b``, ``a * 2.0``, ``-a``…) pass
  masks on the same way. Layers that make or drop the time axis in their own way set
  ``padding_mask`` themselves (an ``RNN`` keeps its input's mask only with
  ``return_sequences=True``); a ``tw.Module`` keeps its inner output's mask when that
  mask is one of the module's inputs.
- **Used** by layers that read padding (``RNN``, attention, global pooling, sequence
  losses): when built on ``x`` without an explicit ``mask=``, they take ``x.padding_mask``
  as one more input. An explicit ``mask=`` always wins.

A node gets a mask in no other way: nothing is guessed from shapes alone.

>>> import tensorflow as tf, tensorweave as tw
>>> ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids", value=[[4, 2, 0]])
>>> seq = tw.Lambda(lambda t: tf.one_hot(t, 5), ids, name="seq")  # (None, None, 5)
>>> seq.padding_mask is None
True
>>> seq.padding_mask = tw.ops.not_equal(ids, 0)
>>> seq.padding_mask().numpy().tolist()
[[True, True, False]]
>>> (seq * 2.0).padding_mask is seq.padding_mask   # operators keep it
True
"""

from __future__ import annotations

import functools
from typing import Any

import tensorflow as tf

from tensorweave.errors import ArgumentError, ShapeError
from tensorweave.graph.layer import Layer
from tensorweave.graph.lift import Lifted, lift

__all__ = ["checked", "passed_on", "keeps_axes"]

# What the arithmetic operators on layers lift (tensorweave.graph.ops): element-wise, so a
# step of the output is computed from the same step of each operand.
_ELEMENTWISE = (
    tf.math.add,
    tf.math.subtract,
    tf.math.multiply,
    tf.math.truediv,
    tf.math.pow,
    tf.math.negative,
)


def keeps_axes(layer: Layer, mask: Layer) -> bool:
    """Whether ``mask`` can describe ``layer``: a rank below ``layer``'s and the same
    leading dimensions (``None`` matches any size)."""
    rank = len(mask.shape)
    if not 0 < rank < len(layer.shape) or layer.sparse:
        return False
    return all(
        a is None or b is None or a == b
        for a, b in zip(mask.shape, layer.shape[:rank], strict=True)
    )


def checked(layer: Layer, mask: Any) -> Layer | None:
    """``mask`` if it can be ``layer``'s padding mask, else an ``ArgumentError`` (not a
    boolean layer) or a ``ShapeError`` saying why and how to fix it (what ``layer.padding_mask = mask`` runs)."""
    if mask is None:
        return None
    who = f"{type(layer).__name__} {layer.name!r}"
    if not isinstance(mask, Layer):
        raise ArgumentError(
            f"{who}: a padding mask must be a layer (a node of the graph), got "
            f"{type(mask).__name__}.\n  Fix: build it from the ids, e.g. "
            "tw.ops.not_equal(ids, 0)."
        )
    if mask.sparse or mask.dtype != tf.bool:
        kind = "sparse " if mask.sparse else ""
        raise ArgumentError(
            f"{who}: a padding mask must be a dense boolean layer, got {mask.name!r} "
            f"({kind}{mask.dtype.name}).\n  Fix: compare, e.g. tw.ops.not_equal(ids, 0), or "
            "tw.ops.cast(mask, tf.bool)."
        )
    if not keeps_axes(layer, mask):
        raise ShapeError(
            f"{who}: padding mask {mask.name!r} has shape {mask.shape}, but the layer's "
            f"output is {layer.shape}: a mask covers the leading axes (batch, time) of a "
            "dense output of higher rank.\n  Fix: give a (batch, time) mask to a "
            "(batch, time, features) layer."
        )
    return mask


def passed_on(layer: Layer) -> Layer | None:
    """The padding mask ``layer`` inherits from its inputs (see the module docstring)."""
    if not type(layer).keeps_padding_mask and not _elementwise(layer):
        return None
    masks: list[Layer] = []
    for node in layer.inputs:
        mask = node.padding_mask
        if mask is not None and all(mask is not m for m in masks):
            masks.append(mask)
    if not masks or not all(keeps_axes(layer, m) for m in masks):
        return None
    return functools.reduce(_both, masks)


def _elementwise(layer: Layer) -> bool:
    return isinstance(layer, Lifted) and any(layer.function is f for f in _ELEMENTWISE)


def _both(a: Layer, b: Layer) -> Layer:
    return lift(tf.math.logical_and, a, b, name="padding_mask")
