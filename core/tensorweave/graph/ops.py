"""Operators on layers, and any public TensorFlow op as a layer, by name, at run time.

``a + b``, ``a * 2``, ``a @ w``, ``-a``, ``a ** 2`` and ``a[:, :3]`` on layers build
``Lambda`` nodes. ``tw.op("tf.math.erfc")`` turns a public TensorFlow function into a layer
factory (documented with the op's own docstring, cached), and ``tw.ops.erfc`` finds the op
in ``tf.math``, ``tf.nn``, ``tf``, ``tf.linalg``, ``tf.signal`` or ``tf.sparse``.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(n_units=2, name="x", value=[[0.0, 1.0]])
>>> y = tw.ops.erfc(x * 2.0)
>>> [round(v, 4) for v in y().numpy()[0].tolist()]
[1.0, 0.0047]
>>> tw.op("tf.math.erfcc")
Traceback (most recent call last):
...
tensorweave.errors.UnknownComponentError: no TensorFlow op 'tf.math.erfcc'. Close matches: tf.math.erfc, tf.math.erfcinv. Fix: use a public tf.* name, e.g. tw.op("tf.math.erfc").
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Callable
from typing import Any

import tensorflow as tf

from tensorweave.errors import UnknownComponentError
from tensorweave.graph.lambda_layer import Lambda
from tensorweave.graph.layer import Layer
from tensorweave.graph.lift import lift
from tensorweave.graph.naming import unique_name

__all__ = [
    "op",
    "lift",
    "add",
    "subtract",
    "multiply",
    "divide",
    "matmul",
    "power",
    "negative",
    "getitem",
]

_SEARCH_PATH = ("math", "nn", "", "linalg", "signal", "sparse", "strings", "random", "image")


def add(a: Any, b: Any) -> Layer:
    """``a + b`` as a layer."""
    return lift(tf.math.add, a, b)


def subtract(a: Any, b: Any) -> Layer:
    """``a - b`` as a layer."""
    return lift(tf.math.subtract, a, b)


def multiply(a: Any, b: Any) -> Layer:
    """``a * b`` (element-wise) as a layer."""
    return lift(tf.math.multiply, a, b)


def divide(a: Any, b: Any) -> Layer:
    """``a / b`` as a layer."""
    return lift(tf.math.truediv, a, b)


def matmul(a: Any, b: Any) -> Layer:
    """``a @ b`` as a layer."""
    return lift(tf.linalg.matmul, a, b)


def power(a: Any, b: Any) -> Layer:
    """``a ** b`` as a layer."""
    return lift(tf.math.pow, a, b)


def negative(a: Layer) -> Layer:
    """``-a`` as a layer."""
    return lift(tf.math.negative, a)


def getitem(a: Layer, key: Any) -> Layer:
    """``a[key]`` (numpy-style slicing) as a layer."""

    def getitem(t: Any) -> Any:
        return t[key]

    return Lambda(getitem, a)


@functools.cache
def op(path: str) -> Callable[..., Layer]:
    """A layer factory for the public TensorFlow function at ``path`` (e.g. ``"tf.nn.gelu"``).

    The factory takes the same arguments as the op; layers among them become inputs.
    """
    fn = _resolve(path)
    short = path.rsplit(".", 1)[-1]

    def factory(*args: Any, name: str | None = None, **kwargs: Any) -> Layer:
        # The op's keywords (``dtype=`` of ``tf.cast``…) are the call's, not the node's.
        # Unnamed nodes count in the scope (reduce_sum, reduce_sum_1): one row each in a
        # summary, whatever arguments they differ by.
        return lift(fn, *args, name=name or unique_name(short), **kwargs)

    factory.__name__ = short
    factory.__qualname__ = short
    factory.__doc__ = f"``{path}`` as a tensorweave layer.\n\n{fn.__doc__ or ''}"
    factory.__wrapped__ = fn  # type: ignore[attr-defined]
    return factory


def _resolve(path: str) -> Callable[..., Any]:
    parts = path.split(".")
    if parts[0] in ("tf", "tensorflow"):
        parts = parts[1:]
    obj: Any = tf
    for i, part in enumerate(parts):
        if part.startswith("_") or not hasattr(obj, part):
            prefix = "tf." + ".".join(parts[:i])
            options = [n for n in dir(obj) if not n.startswith("_")]
            close = difflib.get_close_matches(part, options, n=3, cutoff=0.6)
            hint = (
                " Close matches: " + ", ".join(f"{prefix.rstrip('.')}.{c}" for c in close) + "."
                if close
                else ""
            )
            raise UnknownComponentError(
                f"no TensorFlow op {('tf.' + '.'.join(parts))!r}.{hint} "
                'Fix: use a public tf.* name, e.g. tw.op("tf.math.erfc").'
            )
        obj = getattr(obj, part)
    if not callable(obj) or isinstance(obj, type):
        raise UnknownComponentError(f"{path!r} is not a TensorFlow function.")
    fn: Callable[..., Any] = obj
    return fn


def __getattr__(name: str) -> Callable[..., Layer]:
    """``tw.ops.NAME``: the op NAME from the first of tf.math, tf.nn, tf, … that has it."""
    if name.startswith("_"):
        raise AttributeError(name)
    for namespace in _SEARCH_PATH:
        module: Any = tf
        if namespace:
            module = getattr(tf, namespace)
        candidate = getattr(module, name, None)
        if callable(candidate) and not isinstance(candidate, type):
            return op(f"tf.{namespace + '.' if namespace else ''}{name}")
    raise AttributeError(
        f"tensorweave.ops has no op {name!r} (searched tf.{', tf.'.join(n or '' for n in _SEARCH_PATH)}). "
        'Fix: use tw.op("tf.full.path") for ops elsewhere.'
    )
