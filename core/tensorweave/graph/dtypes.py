"""``as_dtype``: a dtype argument checked at the public door, naming the valid choices.

``tf.as_dtype("bogus")`` fails with TensorFlow's ``Cannot convert the argument
`type_value`: 'bogus'``, which names neither the argument nor the component. Public
constructors (``tw.Input(dtype=)``, ``tw.Layer(dtype=)``, ``tw.Lambda(dtype=)``, a
config's input nodes) check through ``as_dtype`` instead.

>>> import tensorflow as tf
>>> as_dtype("int64", "dtype", "Input 'ids'") == tf.int64
True
>>> as_dtype("float23", "dtype", "Input 'x'")
Traceback (most recent call last):
...
tensorweave.errors.ArgumentError: Input 'x': dtype='float23' is not a dtype. Did you mean 'float32'? Choices: float16, bfloat16, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool, string, complex64, complex128 (or a tf.DType, a numpy dtype).
"""

from __future__ import annotations

import difflib
from typing import Any

import numpy as np
import tensorflow as tf

from tensorweave.errors import ArgumentError

__all__ = ["DTYPE_NAMES", "as_dtype"]

#: The dtype names data and layers use, in the order error messages list them.
DTYPE_NAMES = (
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool",
    "string",
    "complex64",
    "complex128",
)


def as_dtype(value: Any, arg: str, component: str) -> tf.DType:
    """``value`` (a name, a ``tf.DType``, a numpy dtype or type) as a ``tf.DType``; else
    ``ArgumentError`` naming ``component``, ``arg``, the closest name and the choices."""
    if isinstance(value, tf.DType):
        return value
    if isinstance(value, (str, np.dtype)) or (
        isinstance(value, type) and issubclass(value, np.generic)
    ):
        try:
            return tf.as_dtype(value)
        except TypeError:
            pass
    close = (
        difflib.get_close_matches(str(value), DTYPE_NAMES, n=1) if isinstance(value, str) else []
    )
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ArgumentError(
        f"{component}: {arg}={value!r} is not a dtype.{hint} Choices: "
        f"{', '.join(DTYPE_NAMES)} (or a tf.DType, a numpy dtype)."
    )
