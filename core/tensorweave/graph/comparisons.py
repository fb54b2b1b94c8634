"""Comparisons on layers: refused with the op that builds the node, never a silent bool.

Python gives ``tokens != 0`` to ``Layer.__ne__``; answering with a bool (identity) would
let ``mask=tokens != 0`` pass a ``True`` where a mask layer belongs. Layers keep Python's
identity meaning for ``==``/``!=`` between layers and other objects (layers live in sets,
dicts and ``in`` tests), but a comparison with a number, an array or a tensor, and every
``<``/``<=``/``>``/``>=``, raises an ``ArgumentError`` naming the op to use
(``tw.ops.not_equal(tokens, 0)``). A Python ``bool`` given where a layer belongs (an input,
``mask=``, ``lengths=``…) gets the same fix.

>>> import tensorweave as tw
>>> tokens = tw.Input(n_units=3, dtype="int64", name="tokens")
>>> tokens != 0
Traceback (most recent call last):
...
tensorweave.errors.ArgumentError: tokens != 0 builds no graph node: Python compares layers by identity. Fix: tw.ops.not_equal(tokens, 0) (a bool layer, e.g. for mask=).
>>> tw.ops.not_equal(tokens, 0).dtype.name
'bool'
"""

from __future__ import annotations

import inspect
import numbers
import weakref
from typing import Any

import numpy as np
import tensorflow as tf

from tensorweave.errors import ArgumentError

__all__ = ["OPS", "compare", "bool_for_layer", "refuse_bool_layers"]

#: The op that builds each comparison as a node.
OPS = {
    "==": "equal",
    "!=": "not_equal",
    "<": "less",
    "<=": "less_equal",
    ">": "greater",
    ">=": "greater_equal",
}

_signatures: weakref.WeakKeyDictionary[type, inspect.Signature] = weakref.WeakKeyDictionary()
_DATA = (numbers.Number, np.ndarray, np.generic, tf.Tensor, tf.Variable)


def compare(layer: Any, other: Any, symbol: str) -> Any:
    """``NotImplemented`` (Python's identity comparison) for ``==``/``!=`` against anything
    but data; otherwise raise ``ArgumentError`` naming the op."""
    if symbol in ("==", "!=") and not isinstance(other, _DATA):
        return NotImplemented
    right = getattr(other, "name", None) if hasattr(other, "inputs") else None
    shown = right if isinstance(right, str) else _short(other)
    raise ArgumentError(
        f"{layer.name} {symbol} {shown} builds no graph node: Python compares layers by "
        f"identity. Fix: tw.ops.{OPS[symbol]}({layer.name}, {shown}) (a bool layer, e.g. "
        "for mask=)."
    )


def bool_for_layer(owner: str, argument: str, value: bool) -> str:
    """The message for a Python ``bool`` given as ``argument`` where a layer belongs."""
    return (
        f"{owner}: {argument} is a Python bool ({value}), not a layer. A comparison such as "
        "`tokens != 0` or `a == b` on layers is Python's identity test, not a graph node. "
        "Fix: build it as a node: tw.ops.not_equal(tokens, 0) (or tw.ops.equal, tw.ops.less, "
        "tw.ops.greater...)."
    )


def refuse_bool_layers(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Raise when a ``bool`` fills a parameter of ``cls``'s constructor annotated as a
    layer (``x: tw.Layer``, ``mask: Layer | None``, ``*inputs: Layer``)."""
    try:
        signature = _signatures.get(cls) or _signatures.setdefault(
            cls,
            inspect.signature(cls.__init__),  # type: ignore[misc]
        )
        bound = signature.bind_partial(None, *args, **kwargs).arguments
    except (TypeError, ValueError):
        return  # Python's own error says what is wrong with the call
    for name, value in bound.items():
        param = signature.parameters[name]
        if not _mentions_layer(param.annotation):
            continue
        if param.kind is inspect.Parameter.VAR_POSITIONAL:
            places = [(f"{name}[{i}]", v) for i, v in enumerate(value)]
        else:
            places = [(f"{name}=" if name in kwargs else name, value)]
        for where, v in places:
            if type(v) is bool:
                raise ArgumentError(bool_for_layer(cls.__name__, where, v))


def _mentions_layer(annotation: Any) -> bool:
    if annotation is inspect.Parameter.empty:
        return False
    text = annotation if isinstance(annotation, str) else str(annotation)
    return "Layer" in text


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."
