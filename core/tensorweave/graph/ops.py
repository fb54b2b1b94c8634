"""Operators on layers, and any public TensorFlow op as a layer, by name, at run time.

``a + b``, ``a * 2``, ``a @ w``, ``-a``, ``a ** 2`` and ``a[:, :3]`` on layers build
``Lifted`` nodes. ``tw.op("tf.math.erfc")`` turns a public TensorFlow function into a layer
factory (documented with the op's own docstring, cached), and ``tw.ops.erfc`` finds the op
in ``tf.math``, ``tf.nn``, ``tf``, ``tf.linalg``, ``tf.signal`` or ``tf.sparse``.

``Op.v1`` (``apply_op``, registered by the core) is the same node in a config, by name:
what a saved model writes for arithmetic on nodes and ``tw.op``. Its ``function`` is a
public TensorFlow op (``"tf.math.subtract"``) or one of the core's own (``"tw.getitem"``);
its ``args``/``kwargs`` are data, ``{input = 0}`` standing for the node's first input.
A config reaches only the TensorFlow ops that compute on tensors (``config_op``): no
``tf.py_function``, ``tf.print``, ``tf.io``, no import, no code.

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
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any

import numpy as np
import tensorflow as tf

from tensorweave.errors import UnknownComponentError
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
    "apply_op",
    "config_op",
    "op_path",
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
    """``a[key]`` (numpy-style slicing) as a layer; the key is kept as data (``tw.getitem``),
    so a saved config writes it."""
    return lift(take, a, key=encode_key(key), name=unique_name("getitem"))


def encode_key(key: Any) -> Any:
    """An index key as plain data: a slice is ``{slice = [start, stop, step]}``, ``...``
    is ``"..."``, ``None`` (a new axis) is ``"newaxis"``, a tuple a list.

    >>> encode_key((slice(None, 3), Ellipsis, None, 0))
    [{'slice': [None, 3, None]}, '...', 'newaxis', 0]
    """
    if isinstance(key, tuple):
        return [encode_key(k) for k in key]
    if isinstance(key, slice):
        return {"slice": [key.start, key.stop, key.step]}
    if key is Ellipsis:
        return "..."
    if key is None:
        return "newaxis"
    if isinstance(key, np.integer):
        return int(key)
    return key


def _decode_key(key: Any) -> Any:
    if isinstance(key, list):
        return tuple(_decode_key(k) for k in key)
    if isinstance(key, Mapping) and "slice" in key:
        return slice(*key["slice"])
    if key == "...":
        return Ellipsis
    if key == "newaxis":
        return None
    return key


def take(t: Any, key: Any) -> Any:
    """``t[key]``, ``key`` as ``encode_key`` writes it (``tw.getitem`` in a config)."""
    return t[_decode_key(key)]


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


# The core's own functions a config may name, as ``"tw.NAME"``.
_CORE_FUNCTIONS: dict[str, Callable[..., Any]] = {"tw.getitem": take}
# Where a config may find a TensorFlow op (``config_op``): the namespaces ``tw.ops``
# searches, and only functions defined in TensorFlow's tensor ops.
_CONFIG_NAMESPACES = (*_SEARCH_PATH, "bitwise")
# ...minus those that run Python code, print, read or write files or touch resources
_UNSAFE_MODULES = frozenset(
    {
        "script_ops",
        "gen_script_ops",
        "logging_ops",
        "gen_logging_ops",
        "io_ops",
        "gen_io_ops",
        "summary_ops_v2",
        "gen_summary_ops",
        "debug_ops",
        "gen_debug_ops",
        "data_flow_ops",
        "gen_data_flow_ops",
        "state_ops",
        "gen_state_ops",
        "resource_variable_ops",
        "gen_resource_variable_ops",
        "variables",
        "control_flow_ops",
        "while_loop",
        "cond",
        "functional_ops",
        "map_fn",
        "lookup_ops",
        "gen_lookup_ops",
    }
)


def _is_safe(fn: Any) -> bool:
    module = getattr(fn, "__module__", "") or ""
    return module.startswith("tensorflow.python.ops.") and (
        module.rpartition(".")[2] not in _UNSAFE_MODULES
    )


def config_op(path: str) -> Callable[..., Any]:
    """The function a config names by ``path``: one of the core's own (``"tw.getitem"``) or
    a public TensorFlow op that computes on tensors (``"tf.math.subtract"``), found by
    attribute in ``tf``, ``tf.math``, ``tf.nn``… (no import, no private name). An op that
    runs Python code, prints or touches files (``tf.py_function``, ``tf.print``,
    ``tf.io.write_file``) is refused.

    >>> import tensorflow as tf
    >>> config_op("tf.math.subtract") is tf.math.subtract
    True
    >>> config_op("tf.io.write_file")
    Traceback (most recent call last):
    ...
    tensorweave.errors.UnknownComponentError: 'tf.io.write_file' is not an op a config may name: only tensor ops of tf.math, tf.nn, tf, tf.linalg, tf.signal, tf.sparse, tf.strings, tf.random, tf.image, tf.bitwise (no py_function, print, io). Fix: name one of those, or register a layer that does it.
    """
    if path in _CORE_FUNCTIONS:
        return _CORE_FUNCTIONS[path]
    parts = path.split(".")
    namespace = ".".join(parts[1:-1])
    if parts[0] == "tf" and len(parts) in (2, 3) and namespace in _CONFIG_NAMESPACES:
        fn = _resolve(path)
        if _is_safe(fn):
            return fn
    listed = ", ".join(f"tf.{n}" if n else "tf" for n in _CONFIG_NAMESPACES)
    raise UnknownComponentError(
        f"{path!r} is not an op a config may name: only tensor ops of {listed} (no "
        "py_function, print, io). Fix: name one of those, or register a layer that does it."
    )


@functools.cache
def _paths() -> dict[int, str]:
    found: dict[int, str] = {}
    for namespace in reversed(_CONFIG_NAMESPACES):  # the first namespace's name wins
        module: Any = getattr(tf, namespace) if namespace else tf
        for attr in dir(module):
            if attr.startswith("_"):
                continue
            fn = getattr(module, attr, None)
            if callable(fn) and not isinstance(fn, type) and _is_safe(fn):
                found[id(fn)] = f"tf.{namespace + '.' if namespace else ''}{attr}"
    found.update({id(f): name for name, f in _CORE_FUNCTIONS.items()})
    return found


def op_path(fn: Any) -> str | None:
    """The name a config gives ``fn`` (``config_op`` finds it back), or ``None``.

    >>> import tensorflow as tf
    >>> op_path(tf.math.subtract), op_path(take), op_path(print)
    ('tf.math.subtract', 'tw.getitem', None)
    """
    path = _paths().get(id(fn))
    if path is None:
        return None
    return path if config_op(path) is fn else None


def _from_data(value: Any, inputs: Sequence[Layer]) -> Any:
    if isinstance(value, list):
        return [_from_data(v, inputs) for v in value]
    if isinstance(value, Mapping):
        if set(value) == {"input"}:
            return inputs[value["input"]]
        if set(value) == {"array", "dtype"}:
            return np.asarray(value["array"], dtype=value["dtype"])
        if set(value) == {"variable", "dtype", "trainable"}:
            zeros = tf.zeros(value["variable"], dtype=value["dtype"])
            return tf.Variable(zeros, trainable=value["trainable"])  # the checkpoint fills it
        return {k: _from_data(v, inputs) for k, v in value.items()}
    return value


class _OpName:
    """The rule of ``Op.v1``'s ``function`` (``Annotated[str, OP_NAME]``): a config's
    validation refuses an op ``config_op`` does not give, at its path, before building."""

    def check_config_value(self, value: Any) -> str | None:
        try:
            config_op(value)
        except UnknownComponentError as err:
            return str(err)
        return None

    def __repr__(self) -> str:
        return "a TensorFlow op a config may name"


OP_NAME = _OpName()


def apply_op(
    *inputs: Layer,
    function: Annotated[str, OP_NAME],
    args: list[Any] | None = None,
    kwargs: dict[str, Any] | None = None,
    name: str | None = None,
) -> Layer:
    """``Op.v1``: the op a config names (``config_op``) applied to the node's inputs.

    ``args`` (default: the inputs, in order) and ``kwargs`` are the op's arguments as data:
    ``{input = i}`` is the node's input ``i``; ``{array = [...], dtype = "float32"}`` an
    array; ``{variable = [shape], dtype, trainable}`` a variable (its value comes from the
    checkpoint). It is what a saved model writes for ``(x - mean) / std`` or ``tw.op``.

    >>> import tensorweave as tw
    >>> x = tw.Input(n_units=2, name="x", value=[[3.0, 5.0]])
    >>> y = apply_op(x, function="tf.math.subtract", args=[{"input": 0}, 1.0])
    >>> y().numpy().tolist()
    [[2.0, 4.0]]
    """
    fn = config_op(function)
    given = [{"input": i} for i in range(len(inputs))] if args is None else args
    call_args = _from_data(list(given), inputs)
    call_kwargs = _from_data(dict(kwargs or {}), inputs)
    short = function.rsplit(".", 1)[-1]
    return lift(fn, *call_args, name=name or unique_name(short), **call_kwargs)


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
