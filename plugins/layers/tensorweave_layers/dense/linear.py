"""``Linear``: ``x @ W + b``, on dense inputs of any rank or on sparse inputs, with
weights that can be transposed and tied to another ``Linear``.

- rank-2 inputs use ``tf.matmul``; rank > 2 inputs (``(batch, steps, width)``) use
  ``tf.tensordot`` over the last axis; sparse rank-2 inputs use
  ``tf.sparse.sparse_dense_matmul`` (the same result as on the dense value);
- ``reuse_with(x, transpose_weights=True)`` computes ``x @ W.T`` with the very same
  ``W`` (tied weights, as in a tied auto-encoder) and its own bias;
- ``shared_weights=`` takes a ``tf.Variable`` or another ``Linear`` whose ``W`` to use.

>>> import tensorweave as tw
>>> x = tw.Input(n_units=3, name="x", value=[[1.0, 2.0, 3.0]])
>>> enc = Linear(x, 2, w_init="ones", name="enc")
>>> enc.shape, enc().numpy().tolist()
((None, 2), [[6.0, 6.0]])
>>> dec = enc.reuse_with(enc, transpose_weights=True)
>>> dec.shape, dec.weights is enc.weights
((None, 3), True)
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner, require_width
from tensorweave_layers.options.weights import (
    ConstraintLike,
    InitializerLike,
    RegularizerLike,
    WeightOptions,
    initial_value,
)

__all__ = ["Linear", "dense_matmul"]


def dense_matmul(x: Any, w: Any, *, transpose: bool = False) -> tf.Tensor:
    """``x @ W`` (or ``x @ W.T``) over the last axis of a dense or sparse ``x``.

    >>> import tensorflow as tf
    >>> dense_matmul(tf.ones([2, 4, 3]), tf.ones([3, 5])).shape.as_list()
    [2, 4, 5]
    """
    if isinstance(x, tf.SparseTensor):
        return tf.sparse.sparse_dense_matmul(x, w, adjoint_b=transpose)
    rank = x.shape.rank
    if rank == 2:
        return tf.linalg.matmul(x, w, transpose_b=transpose)
    return tf.tensordot(x, w, axes=[[rank - 1], [1 if transpose else 0]])


class Linear(tw.Layer):
    """A fully connected linear transformation ``x @ W + b``.

    Args:
        x: the input layer: dense of rank >= 2 with a known last dimension, or sparse of
            rank 2 (float values; for integer ids use ``Lookup``).
        n_units: the output width (inferred from ``shared_weights`` when omitted).
        add_bias: whether to add a bias ``b`` (initialised by ``b_init``).
        w_init, b_init: initializer names (``"glorot_uniform"``) or functions
            ``(shape, dtype) -> tensor``.
        w_regularizer, b_regularizer: penalties on ``W`` and ``b`` (a registered name such
            as ``"l2"``, a callable or a config block), summed by ``tw.regularization_loss``.
        w_constraint, b_constraint: projections applied to ``W`` and ``b`` after each
            update (``"max_norm"``, ``"non_neg"``…).
        transpose_weights: use ``W.T``, so ``W`` has shape ``(n_units, width)``.
        shared_weights: a ``tf.Variable`` or a ``Linear`` whose weights this layer uses
            instead of making its own (the bias stays its own).
        dtype: the variables' and output's dtype (default: the shared weights', else the
            input's); inputs of another float dtype are cast.
        name, share_state_with: see ``tw.Layer``.
    """

    keeps_padding_mask = True  # steps stay steps: a padding mask passes on

    def __init__(
        self,
        x: tw.Layer,
        n_units: int | None = None,
        *,
        add_bias: bool = True,
        w_init: InitializerLike = "tensorweave-layers:glorot_uniform",
        b_init: InitializerLike = "tensorweave-layers:zeros",
        w_regularizer: RegularizerLike = None,
        b_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        b_constraint: ConstraintLike = None,
        transpose_weights: bool = False,
        shared_weights: tf.Variable | Linear | None = None,
        dtype: tf.DType | str | None = None,
        name: str | None = None,
        share_state_with: Linear | None = None,
    ) -> None:
        who = owner("Linear", name)
        n_units = tw.positive_int(n_units, "n_units", who, optional=True)
        if not isinstance(x, tw.Layer):
            raise TypeError(f"{who}: x must be a tw.Layer, got {type(x).__name__}.")
        if len(x.shape) < 2:
            raise tw.ShapeError(
                f"{who}: input {describe(x)} has rank {len(x.shape)}; Linear needs rank >= 2 "
                "(batch, ..., width).\n  Fix: Reshape it, e.g. Reshape(x, (1,))."
            )
        width = require_width(x, who)
        if x.sparse and len(x.shape) != 2:
            raise tw.ShapeError(
                f"{who}: sparse input {describe(x)} must have rank 2, got rank {len(x.shape)}.\n"
                "  Fix: reshape it to (batch, width) with tf.sparse.reshape, or make it dense."
            )
        if not x.dtype.is_floating:
            raise TypeError(
                f"{who}: input {describe(x)} has dtype {x.dtype.name}; Linear needs floats.\n"
                "  Fix: use Lookup for integer ids, or cast with tw.ops.cast(x, tf.float32)."
            )
        shared = _shared_variable(shared_weights, who)
        source = share_state_with.state.weights if share_state_with is not None else shared
        if source is not None:
            rows, cols = (int(d) for d in source.shape)
            w_in, w_out = (cols, rows) if transpose_weights else (rows, cols)
            if w_in != width:
                t = ".T" if transpose_weights else ""
                raise tw.ShapeError(
                    f"{who}: shared weights W{t} of shape {(w_in, w_out)} take inputs of width "
                    f"{w_in}, but input {describe(x)} has width {width}.\n  Fix: tie weights "
                    "only between layers of matching widths (transpose_weights=True for the "
                    "decoder of a tied auto-encoder)."
                )
            if n_units is not None and n_units != w_out:
                raise tw.ShapeError(
                    f"{who}: n_units={n_units} but the shared weights give {w_out} outputs.\n"
                    "  Fix: omit n_units when weights are shared."
                )
            n_units = w_out
        if n_units is None or int(n_units) < 1:
            raise ValueError(f"{who}: n_units must be a positive int, got {n_units!r}.")
        if dtype is None:
            dtype = source.dtype if source is not None else x.dtype
        dtype = tf.as_dtype(dtype)
        n_units = int(n_units)
        self._cfg = {
            "width": width,
            "n_units": n_units,
            "bias": add_bias,
            "transpose": transpose_weights,
        }
        self._shared_w = shared
        self._w_init = tw.resolve("initializers", w_init, owner=who, option="w_init")
        self._b_init = tw.resolve("initializers", b_init, owner=who, option="b_init")
        self._weight_options = WeightOptions.resolve(
            who, w_regularizer, b_regularizer, w_constraint, b_constraint
        )
        self._var_dtype = dtype
        super().__init__(
            x,
            shape=(*x.shape[:-1], n_units),
            dtype=dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def init_state(self) -> None:
        """Create ``weights`` (unless shared) and ``bias`` (if ``add_bias``)."""
        cfg, dtype = self._cfg, self.__dict__["_var_dtype"]
        who = owner("Linear", self.name)
        if self._shared_w is not None:
            self.state.weights = self._shared_w
        else:
            shape = (
                (cfg["n_units"], cfg["width"])
                if cfg["transpose"]
                else (cfg["width"], cfg["n_units"])
            )
            value = initial_value(self._w_init, shape, dtype, owner=who, option="w_init")
            self.state.weights = self._weight_options.weight(self.state, "weights", value)
        if cfg["bias"]:
            value = initial_value(
                self._b_init, (cfg["n_units"],), dtype, owner=who, option="b_init"
            )
            self.state.bias = self._weight_options.bias(self.state, "bias", value)

    @property
    def transpose_weights(self) -> bool:
        """Whether this layer computes ``x @ W.T``."""
        return bool(self._cfg["transpose"])

    def compute(self, x: Any) -> tf.Tensor:
        """``x @ W (+ b)``."""
        if x.dtype != self.compute_dtype:
            x = tf.cast(x, self.compute_dtype)
        y = dense_matmul(x, self.state.weights, transpose=bool(self._cfg["transpose"]))
        if self._cfg["bias"]:
            y = y + self.state.bias  # broadcast add: see conv/conv.py on BiasAddGrad's cost
        return y

    def reuse_with(  # type: ignore[override]  # one input, an explicit per-use option
        self, x: tw.Layer, *, transpose_weights: bool | None = None, name: str | None = None
    ) -> Linear:
        """The same weights on ``x``; ``transpose_weights=True`` flips them (``x @ W.T``).

        A flipped reuse ties ``W`` (the same variable) and makes its own bias, since the
        output width changes; otherwise the whole state (``W`` and ``b``) is shared.
        """
        kwargs = self._tw_init_args[1]
        ctor = {
            k: v
            for k, v in kwargs.items()
            if k not in ("name", "share_state_with", "n_units", "shared_weights")
        }
        ctor["name"] = name
        flip = transpose_weights is not None and transpose_weights != self.transpose_weights
        if not flip:
            return Linear(x, share_state_with=self, **ctor)
        ctor["shared_weights"] = self.state.weights
        ctor["transpose_weights"] = bool(transpose_weights)
        return Linear(x, **ctor)


def _shared_variable(shared: Any, who: str) -> tf.Variable | None:
    if shared is None:
        return None
    if isinstance(shared, Linear):
        shared = shared.state.weights
    if not isinstance(shared, tf.Variable) or shared.shape.rank != 2:
        raise TypeError(
            f"{who}: shared_weights must be a 2-D tf.Variable or a Linear layer, got "
            f"{type(shared).__name__}."
        )
    return shared
