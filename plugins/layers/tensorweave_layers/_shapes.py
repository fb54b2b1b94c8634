"""Shape checks shared by the dense, merge and structure layers: describe inputs, merge shapes, demand ranks.

>>> merge_shapes([(None, 3), (2, None)], "Add 'add'")
(2, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorweave as tw

__all__ = ["describe", "owner", "merge_shapes", "require_dense", "require_width"]


def owner(layer_type: str, name: str | None) -> str:
    """How errors name a layer being built: ``Linear 'enc'`` (or just ``Linear``)."""
    return f"{layer_type} {name!r}" if name else layer_type


def describe(layer: tw.Layer) -> str:
    """``'x' (None, 3)``: how errors name an input layer."""
    kind = " sparse" if layer.sparse else ""
    return f"{layer.name!r} {layer.shape}{kind}"


def merge_shapes(
    shapes: Sequence[tuple[int | None, ...]],
    who: str,
    fix: str = "",
    labels: Sequence[str] | None = None,
) -> tuple[int | None, ...]:
    """The one shape compatible with all of ``shapes`` (``None`` matches anything).

    ``labels`` (e.g. ``describe(layer)`` of each input) name the inputs in the error.
    """
    first = tuple(shapes[0])
    out = list(first)
    for shape in shapes[1:]:
        if len(shape) != len(first) or any(
            a is not None and b is not None and a != b for a, b in zip(out, shape)
        ):
            listed = ", ".join(labels or [str(tuple(s)) for s in shapes])
            raise tw.ShapeError(
                f"{who}: input shapes do not match: {listed}." + (f"\n  Fix: {fix}" if fix else "")
            )
        out = [a if a is not None else b for a, b in zip(out, shape)]
    return tuple(out)


def require_dense(layer: tw.Layer, who: str) -> None:
    """Refuse a sparse input, pointing at ``ToDense``."""
    if layer.sparse:
        raise tw.ShapeError(
            f"{who}: input {describe(layer)} is sparse, but this layer needs dense tensors.\n"
            "  Fix: convert it first with ToDense (tw.layers['ToDense.v1'](x))."
        )


def require_width(layer: tw.Layer, who: str) -> int:
    """The known last dimension of ``layer``, or a ``ShapeError`` saying how to fix it."""
    if len(layer.shape) < 1 or layer.shape[-1] is None:
        raise tw.ShapeError(
            f"{who}: input {describe(layer)} has no known last dimension (width).\n"
            "  Fix: give the input a fixed width, e.g. tw.Input(n_units=8), or Reshape it."
        )
    return int(layer.shape[-1])
