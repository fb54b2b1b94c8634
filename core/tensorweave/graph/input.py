"""``Input``: a stateful placeholder, dense or sparse, with a dynamic batch dimension.

An input holds a current ``value`` (numpy array, ``tf.Tensor`` or ``tf.SparseTensor``)
that ``layer()`` reads when a graph runs eagerly; compiled graphs take the value as an
argument instead. Every value is checked against the input's rank, fixed dimensions and
dtype, and a mismatch names the input and both shapes.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(n_units=3, name="x")
>>> x.shape
(None, 3)
>>> x.value = np.ones((5, 3))        # any batch size
>>> x.value.shape.as_list()
[5, 3]
>>> x.value = np.ones((5, 4))
Traceback (most recent call last):
...
tensorweave.errors.ShapeError: Input 'x' expects shape (None, 3), got (5, 4): dimension 1 is 4, not 3.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import tensorflow as tf

from tensorweave.checks import dimension, positive_int
from tensorweave.errors import InputValueError, ShapeError
from tensorweave.graph.layer import Layer, ShapeLike, normalize_shape

__all__ = ["Input"]


class Input(Layer):
    """A graph entry point that holds a value.

    Args:
        n_units: width of the last dimension; gives shape ``(None, n_units)``.
        shape: full shape instead, e.g. ``(None, None, 8)`` for sequences; the first
            (batch) dimension is always dynamic.
        dtype: the dtype values must have (numpy values of the same kind are cast).
        sparse: whether values are ``tf.SparseTensor``.
        value: an initial value.
        name: a readable name.
    """

    def __init__(
        self,
        n_units: int | None = None,
        *,
        shape: ShapeLike | None = None,
        dtype: tf.DType | str = tf.float32,
        sparse: bool = False,
        value: Any = None,
        name: str | None = None,
        share_state_with: Layer | None = None,
    ) -> None:
        if share_state_with is not None:
            raise TypeError("Input has no state to share; build a new tw.Input instead.")
        who = f"Input {name!r}" if name else "Input"
        n_units = positive_int(n_units, "n_units", who, optional=True)
        if shape is not None and not isinstance(shape, tf.TensorShape):
            for axis, d in enumerate(tuple(shape)[1:], 1):
                dimension(d, f"shape[{axis}]", who)
        if shape is None:
            if n_units is None:
                raise ShapeError("Input needs n_units= or shape=, e.g. tw.Input(n_units=8).")
            shape = (None, n_units)
        full = normalize_shape(shape)
        if not full:
            raise ShapeError("Input shape needs at least a batch dimension, e.g. (None, 8).")
        full = (None, *full[1:])
        if n_units is not None and full[-1] != n_units:
            raise ShapeError(f"Input: n_units={n_units} disagrees with shape={tuple(shape)}.")
        super().__init__(shape=full, dtype=dtype, sparse=sparse, name=name)
        self._tw_value: tf.Tensor | tf.SparseTensor | None = None
        if value is not None:
            self.value = value

    @property
    def value(self) -> tf.Tensor | tf.SparseTensor | None:
        """The current value (``None`` until one is set)."""
        return self._tw_value

    @value.setter
    def value(self, value: Any) -> None:
        self._tw_value = self.check(value)

    def check(self, value: Any) -> tf.Tensor | tf.SparseTensor:
        """Validate ``value`` against this input and return it as a tensor.

        Raises ``ShapeError`` on a wrong rank or fixed dimension, ``InputValueError`` on a
        wrong dtype or a dense value for a sparse input (and the reverse).
        """
        if self.sparse:
            if not isinstance(value, tf.SparseTensor):
                raise InputValueError(
                    f"Input {self.name!r} is sparse and expects a tf.SparseTensor, got "
                    f"{type(value).__name__}. Fix: pass tf.sparse.from_dense(value)."
                )
            tensor = value
        elif isinstance(value, tf.SparseTensor):
            raise InputValueError(
                f"Input {self.name!r} is dense but got a tf.SparseTensor. "
                "Fix: build it with tw.Input(..., sparse=True) or pass tf.sparse.to_dense(value)."
            )
        elif isinstance(value, (tf.Tensor, tf.Variable)):
            tensor = tf.convert_to_tensor(value)
        else:
            array = np.asarray(value)
            if array.dtype.kind not in _same_kinds(self.dtype):
                raise InputValueError(
                    f"Input {self.name!r} expects {self.dtype.name}, got an array of "
                    f"{array.dtype}. {_dtype_fix(array.dtype)}"
                )
            tensor = tf.convert_to_tensor(array, dtype=self.dtype)
        if tensor.dtype != self.dtype:
            raise InputValueError(
                f"Input {self.name!r} expects dtype {self.dtype.name}, got {tensor.dtype.name}. "
                f"Fix: tf.cast(value, {self.dtype.name!r})."
            )
        got = tuple(tensor.shape.as_list())
        self._check_shape(got)
        return tensor

    def _check_shape(self, got: tuple[int | None, ...]) -> None:
        want = self.shape
        if len(got) != len(want):
            raise ShapeError(
                f"Input {self.name!r} expects shape {want} (rank {len(want)}), got {got} "
                f"(rank {len(got)})."
            )
        for axis, (w, g) in enumerate(zip(want, got, strict=True)):
            if w is not None and g is not None and w != g:
                raise ShapeError(
                    f"Input {self.name!r} expects shape {want}, got {got}: dimension {axis} "
                    f"is {g}, not {w}."
                )

    def compute(self, *tensors: Any) -> tf.Tensor | tf.SparseTensor:
        """Return the current value; an input has no inputs of its own."""
        value = self.value
        if value is None:
            raise InputValueError(
                f"Input {self.name!r} has no value. Fix: set {self.name}.value = ..., or pass "
                "the value when calling the layer or graph."
            )
        return value

    def reuse_with(self, *inputs: Layer, **options: Any) -> Layer:
        """Inputs hold no state to share, so this raises."""
        raise TypeError(f"Input {self.name!r} cannot be reused; build a new tw.Input.")

    def __repr__(self) -> str:
        kind = ", sparse=True" if self.sparse else ""
        return f"Input({self.name!r}, shape={self.shape}, dtype={self.dtype.name}{kind})"


def _same_kinds(dtype: tf.DType) -> str:
    if dtype.is_floating:
        return "fiub"  # numbers cast to float losslessly enough for data
    if dtype.is_integer:
        return "iub"
    if dtype.is_bool:
        return "b"
    if dtype == tf.string:
        return "USO"
    return "fiubcUSO"


def _dtype_fix(np_dtype: np.dtype) -> str:
    if np_dtype.kind == "O":  # no input can take Python objects
        return (
            "Fix: give an array of numbers (this one holds Python objects: rows of different "
            "lengths, None, or one input's values mixed with another's)."
        )
    hint = {"f": "tf.float32", "i": "tf.int64", "u": "tf.int64"}.get(np_dtype.kind)
    return f"Fix: cast the data, or build the input with dtype={hint or repr(str(np_dtype))}."
