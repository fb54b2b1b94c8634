"""Shape checks and output-size arithmetic shared by convolution and pooling layers.

>>> output_length(7, kernel=3, stride=2, dilation=1, padding="valid")
3
>>> output_length(None, kernel=3, stride=2, dilation=1, padding="same") is None
True
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorweave as tw

from ._shapes import describe  # one way to name an input in errors, shared by every layer

__all__ = ["output_length", "as_tuple", "check_rank", "check_padding", "describe"]


def as_tuple(value: int | Sequence[int], n: int, what: str, owner: str) -> tuple[int, ...]:
    """``3`` -> ``(3, 3)`` for ``n=2``; checks the length and that values are positive."""
    out = (int(value),) * n if isinstance(value, int) else tuple(int(v) for v in value)
    if len(out) != n or any(v < 1 for v in out):
        raise ValueError(
            f"{owner}: {what} must be a positive int or {n} positive ints, got {value!r}."
        )
    return out


def check_padding(padding: str, owner: str) -> str:
    """Normalise ``"same"``/``"valid"`` (any case) or raise naming the layer."""
    upper = str(padding).upper()
    if upper not in ("SAME", "VALID"):
        raise ValueError(f"{owner}: padding must be 'same' or 'valid', got {padding!r}.")
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
    if padding.upper() == "SAME":
        return -(-length // stride)
    effective = (kernel - 1) * dilation + 1
    return max(0, -(-(length - effective + 1) // stride))
