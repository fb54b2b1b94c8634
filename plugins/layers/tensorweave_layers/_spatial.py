"""Shape checks and output-size arithmetic shared by convolution, pooling and resampling
layers, and ``SpatialLayer``, the base of those that only resize the spatial axes.

>>> output_length(7, kernel=3, stride=2, dilation=1, padding="valid")
3
>>> output_length(None, kernel=3, stride=2, dilation=1, padding="same") is None
True
>>> transposed_length(3, kernel=3, stride=2, dilation=1, padding="valid")
7
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import tensorweave as tw
from tensorweave_layers._shapes import (
    describe,  # one way to name an input in errors, shared by every layer
)

__all__ = [
    "output_length",
    "transposed_length",
    "as_tuple",
    "check_rank",
    "check_padding",
    "describe",
    "LAYOUTS",
    "CHANNELS_LAST",
    "pairs_per_axis",
    "rank_fix",
    "check_spatial",
    "SpatialLayer",
]

#: the layout of inputs with 1, 2 or 3 spatial axes, for messages
LAYOUTS = {
    1: "[batch, time, channels]",
    2: "[batch, height, width, channels]",
    3: "[batch, depth, height, width, channels]",
}
#: TensorFlow's name of the channels-last layout of each spatial rank. Pass it to
#: convolution and pooling ops rather than leaving the default: TF 2.21's eager gradients
#: of the 3-d ops read it (and fail on the default ``None``).
CHANNELS_LAST = {1: "NWC", 2: "NHWC", 3: "NDHWC"}


def rank_fix(layer_type: str, rank: int) -> str:
    """How to fix an input of the wrong rank for ``layer_type`` (of ``rank`` spatial axes):
    reshape it, or use the same layer of another rank when one is registered.

    >>> rank_fix("Conv2D", 2)
    'reshape the input to [batch, height, width, channels], or use Conv1D for [batch, time, channels], Conv3D for [batch, depth, height, width, channels].'
    """
    layout = LAYOUTS.get(rank, f"[batch, {rank} spatial axes, channels]")
    others = []
    for other, other_layout in LAYOUTS.items():
        name = layer_type.replace(f"{rank}D", f"{other}D")
        if other != rank and name != layer_type and f"{name}.v1" in tw.layers:
            others.append(f"{name} for {other_layout}")
    return f"reshape the input to {layout}" + (f", or use {', '.join(others)}." if others else ".")


def as_tuple(value: int | Sequence[int], n: int, what: str, owner: str) -> tuple[int, ...]:
    """``3`` -> ``(3, 3)`` for ``n=2``; checks the length and that values are positive ints."""
    items: list[Any] = list(value) if isinstance(value, Sequence) else [value] * n
    if len(items) != n:
        raise tw.ArgumentError(
            f"{owner}: {what} must be a positive int or {n} positive ints, got {value!r}."
        )
    return tuple(tw.positive_int(v, what, owner) for v in items)


def pairs_per_axis(
    spec: int | Sequence[int | Sequence[int]], n: int, what: str, owner: str
) -> tuple[tuple[int, int], ...]:
    """Keras's padding and cropping amounts, as ``(before, after)`` for each of ``n`` axes:
    an int (both sides of every axis), one int per axis (both sides), or one pair per axis.

    >>> pairs_per_axis(1, 2, "padding", "ZeroPadding2D"), pairs_per_axis((1, (2, 0)), 2, "padding", "Pad")
    (((1, 1), (1, 1)), ((1, 1), (2, 0)))
    """
    items: list[Any] = list(spec) if isinstance(spec, Sequence) else [spec] * n
    if n == 1 and len(items) == 2 and all(isinstance(v, int) for v in items):
        items = [tuple(items)]  # Cropping1D((1, 2)): one axis, (before, after)
    if len(items) != n:
        raise tw.ArgumentError(
            f"{owner}: {what} must be an int, {n} ints or {n} (before, after) pairs, got {spec!r}."
        )
    out = []
    for item in items:
        pair = list(item) if isinstance(item, Sequence) else [item, item]
        if len(pair) != 2 or any(
            isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in pair
        ):
            raise tw.ArgumentError(
                f"{owner}: {what} amounts must be ints >= 0 (one, or a (before, after) pair per "
                f"axis), got {spec!r}."
            )
        out.append((int(pair[0]), int(pair[1])))
    return tuple(out)


def check_padding(padding: str, owner: str, allowed: Sequence[str] = ("same", "valid")) -> str:
    """Normalise ``"same"``/``"valid"`` (any case; or another of ``allowed``) to upper case,
    or raise naming the layer."""
    upper = str(padding).upper()
    if upper not in {a.upper() for a in allowed}:
        listed = ", ".join(repr(a) for a in allowed)
        raise tw.ArgumentError(f"{owner}: padding must be one of {listed}, got {padding!r}.")
    return upper


def check_rank(x: tw.Layer, rank: int, layout: str, owner: str, fix: str) -> None:
    """Raise ``ShapeError`` unless ``x`` is dense with ``rank`` dims and a known last dim."""
    if x.sparse:
        raise tw.ShapeError(
            f"{owner} expects a dense input {layout}, got the sparse input {describe(x)}. "
            "Fix: densify it first (e.g. tw.ops.to_dense)."
        )
    if len(x.shape) != rank:
        raise tw.ShapeError(
            f"{owner} expects an input of rank {rank} {layout}, got {describe(x)} of rank "
            f"{len(x.shape)}. Fix: {fix}"
        )
    if x.shape[-1] is None:
        raise tw.ShapeError(
            f"{owner} needs a known channel (last) dimension, got {describe(x)}. "
            "Fix: build the input with a fixed last dimension."
        )


def output_length(
    length: int | None, *, kernel: int, stride: int, dilation: int, padding: str
) -> int | None:
    """The output size of one spatial axis (``None`` stays ``None``)."""
    if length is None:
        return None
    if padding.upper() in ("SAME", "CAUSAL"):
        return -(-length // stride)
    effective = (kernel - 1) * dilation + 1
    return max(0, -(-(length - effective + 1) // stride))


def transposed_length(
    length: int | None,
    *,
    kernel: int,
    stride: int,
    dilation: int,
    padding: str,
    output_padding: int | None = None,
) -> int | None:
    """The output size of one spatial axis of a transposed convolution, as Keras computes it
    (``output_padding`` ``None``: the size a forward convolution maps back to ``length``)."""
    if length is None:
        return None
    effective = (kernel - 1) * dilation + 1
    if padding.upper() == "VALID":
        extra = max(effective, stride) - effective if output_padding is None else output_padding
        return (length - 1) * stride + effective + extra
    if output_padding is None:
        return length * stride
    return (length - 1) * stride + effective % 2 + output_padding


def check_spatial(x: tw.Layer, layer_type: str, rank: int, owner: str) -> None:
    """``check_rank`` for ``[batch, *spatial, channels]`` with ``rank`` spatial axes; the fix
    names the same layer of the other ranks."""
    layout = LAYOUTS.get(rank, f"[batch, {rank} spatial axes, channels]")
    check_rank(x, rank + 2, layout, owner, rank_fix(layer_type, rank))


class SpatialLayer(tw.Layer):
    """A layer over ``[batch, *spatial, channels]`` (``spatial_rank`` spatial axes) that
    keeps the channels and gives the spatial axes new sizes: the base of the adaptive pools,
    the upsamplings and the croppings.

    Subclasses call ``check_input`` first, then ``super().__init__`` with the new sizes.
    """

    spatial_rank: ClassVar[int] = 2

    def __init__(
        self,
        x: tw.Layer,
        spatial: Sequence[int | None],
        *,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        super().__init__(
            x,
            shape=(x.shape[0], *spatial, x.shape[-1]),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def check_input(self, x: tw.Layer, owner: str) -> None:
        """Refuse an input that is not ``[batch, *spatial, channels]`` of this rank."""
        check_spatial(x, type(self).__name__, self.spatial_rank, owner)
