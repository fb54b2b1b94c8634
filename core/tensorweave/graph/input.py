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
from tensorweave.errors import ArgumentError, InputValueError, ShapeError
from tensorweave.graph.dtypes import as_dtype
from tensorweave.graph.layer import Layer, Shape, ShapeLike

__all__ = ["Input"]


class Input(Layer):
    """A graph entry point that holds a value.

    ``shape=`` is one example's shape, without the batch dimension, as in Keras
    (``tw.Input(shape=(8, 8, 1))`` has ``.shape == (None, 8, 8, 1)``); ``batch_shape=``
    is the whole shape, batch first. ``.shape``, like every layer's, includes the batch
    dimension, which is always dynamic. See ``docs/shapes.md``.

    Args:
        n_units: width of the last dimension; gives shape ``(None, n_units)``.
        shape: one example's shape (``None`` for a dynamic dimension), e.g. ``(8, 8, 1)``,
            or ``()`` for one number per example: ``shape=(None, 8)`` is sequences of
            any length, ``(None, None, 8)``, as in Keras.
        batch_shape: the full shape, batch first and ``None``: ``(None, None, 8)``.
        dtype: the dtype values must have (numpy values of the same kind are cast).
        sparse: whether values are ``tf.SparseTensor``.
        value: an initial value.
        name: a readable name.

    >>> import tensorweave as tw
    >>> tw.Input(shape=(8, 8, 1)).shape, tw.Input(batch_shape=(None, None, 8)).shape
    ((None, 8, 8, 1), (None, None, 8))
    >>> tw.Input(shape=(), dtype="int64").shape, tw.Input(shape=(None, 8)).shape
    ((None,), (None, None, 8))
    """

    def __init__(
        self,
        n_units: int | None = None,
        *,
        shape: ShapeLike | None = None,
        batch_shape: ShapeLike | None = None,
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
        full = _full_shape(n_units, shape, batch_shape, who)
        dtype = as_dtype(dtype, "dtype", who)
        if not isinstance(sparse, (bool, np.bool_)):
            raise ArgumentError(f"{who}: sparse must be True or False, got {sparse!r}.")
        super().__init__(shape=full, dtype=dtype, sparse=bool(sparse), name=name)
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


def _full_shape(n_units: int | None, shape: Any, batch_shape: Any, who: str) -> Shape:
    """The input's full shape (batch first) from ``n_units``, ``shape`` or ``batch_shape``."""
    if shape is not None and batch_shape is not None:
        raise ArgumentError(
            f"{who}: give shape= (one example) or batch_shape= (batch first), not both."
        )
    if shape is None and batch_shape is None:
        if n_units is None:
            raise ShapeError(
                f"{who} needs n_units=, shape= or batch_shape=, e.g. tw.Input(n_units=8) "
                "or tw.Input(shape=(8, 8, 1))."
            )
        return (None, n_units)
    if batch_shape is not None:
        dims = _dims(batch_shape, "batch_shape", who)
        if not dims or dims[0] is not None:
            rest = dims[1:] if dims else ()
            raise ArgumentError(
                f"{who}: batch_shape={_text(batch_shape)} must start with None: the batch "
                f"dimension is always dynamic. Fix: batch_shape={_text((None, *rest))}, or "
                f"shape={_text(rest)} (one example)."
            )
        full = dims
    else:
        full = (None, *_dims(shape, "shape", who))
    if n_units is not None and (len(full) < 2 or full[-1] != n_units):
        raise ShapeError(
            f"{who}: n_units={n_units} disagrees with the shape {full}. Fix: give only one."
        )
    return full


def _dims(shape: Any, arg: str, who: str) -> Shape:
    if isinstance(shape, tf.TensorShape):
        if shape.rank is None:
            raise ArgumentError(f"{who}: {arg} must have a known rank, got {shape}.")
        shape = shape.as_list()
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        fix = f"({shape!r},)" if isinstance(shape, int) and not isinstance(shape, bool) else "(8,)"
        raise ArgumentError(
            f"{who}: {arg} must be a tuple of dimensions, got {shape!r}. Fix: {arg}={fix}."
        )
    return tuple(dimension(d, f"{arg}[{i}]", who) for i, d in enumerate(shape))


def _text(dims: Any) -> str:
    dims = tuple(dims)
    return f"({dims[0]},)" if len(dims) == 1 else str(dims)
