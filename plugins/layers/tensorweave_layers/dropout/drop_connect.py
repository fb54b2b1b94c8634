"""``DropConnect``: a linear map ``x @ W + b`` whose *weights* are dropped at training time.

Each evaluation draws one mask over ``W`` (entries kept with ``1 - rate`` and
scaled by ``1 / (1 - rate)``), so the expected map equals the undropped one, which
the inference node ``dc.reuse_with(x, training=False)`` uses. The bias is never dropped.
Dense and sparse ``[batch, n_in]`` inputs are supported.

- ``linear=`` wraps an existing ``Linear`` (also a tied, transposed one): the
  DropConnect node uses that layer's very variables, so ``training=False`` computes
  exactly that ``Linear``;
- the mask is a node of the graph (``dc.mask``), drawn once per evaluation;
  ``dc.reuse_with(x2, share_mask=True)`` (or ``mask_from=dc``) uses the same mask, so
  both uses drop the same weights in one evaluation (TensorX's shared mask).

>>> import numpy as np, tensorweave as tw
>>> from tensorweave_layers.dropout.drop_connect import DropConnect
>>> x = tw.Input(n_units=3, name="x", value=np.eye(3, dtype="float32"))
>>> dc = DropConnect(x, n_units=2, rate=0.5, add_bias=False)
>>> rows = dc().numpy()                       # x = I, so the rows are the dropped W
>>> w = dc.weights.numpy()
>>> bool(np.all((rows == 0) | np.isclose(rows, 2 * w)))
True
>>> np.allclose(dc.reuse_with(x, training=False)().numpy(), w)
True
>>> lin = tw.layers["Linear.v1"](x, 2)
>>> dc = DropConnect(x, linear=lin, rate=0.5)
>>> dc.weights is lin.weights, np.allclose(dc.reuse_with(x, training=False)(), lin())
(True, True)
>>> twin = dc.reuse_with(x, share_mask=True)
>>> both = tw.compile([dc, twin])(np.eye(3, dtype="float32"))
>>> np.array_equal(both[0], both[1])          # the same weights dropped in one run
True
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.dense.linear import Linear, dense_matmul
from tensorweave_layers.options.weights import (
    ConstraintLike,
    Initializer,
    RegularizerLike,
    WeightOptions,
    initial_value,
)

__all__ = ["DropConnect", "WeightMask"]

DEFAULT_PROBABILITY = 0.1


class WeightMask(tw.Layer):
    """A DropConnect mask over a weight matrix: one draw per evaluation (no inputs).

    Entries are ``0`` (dropped, with chance ``rate``) or ``1 / (1 - rate)``.
    Every node that takes this layer as input sees the same draw within an evaluation.

    >>> m = WeightMask((2, 3), rate=0.5)
    >>> sorted(set(m().numpy().ravel().tolist())) in ([0.0, 2.0], [0.0], [2.0])
    True
    """

    rate: float

    def __init__(
        self,
        shape: tuple[int, int],
        *,
        rate: float,
        dtype: tf.DType | str = tf.float32,
        name: str | None = None,
        share_state_with: WeightMask | None = None,
    ) -> None:
        self.rate = float(rate)
        super().__init__(
            shape=tuple(int(d) for d in shape),
            dtype=dtype,
            name=name,
            share_state_with=share_state_with,
        )
        self.state.generator()  # the masks' random state, checkpointed

    def compute(self) -> tf.Tensor:
        """A fresh mask, scaled so that the expected masked weights equal the weights."""
        keep = self.state.generator().uniform(self.shape) >= self.rate
        scale = tf.constant(1.0 / (1.0 - self.rate), self.compute_dtype)
        return tf.cast(keep, self.compute_dtype) * scale


class DropConnect(tw.Layer):
    """A linear layer with DropConnect on its weights.

    Args:
        x: the input, ``[batch, n_in]``, dense or sparse, with a known ``n_in``.
        n_units: the output width (taken from ``linear`` when it is given).
        linear: an existing ``Linear`` whose weights (transposed if it is) and bias this
            layer uses instead of making its own.
        rate: the chance of dropping each weight, in ``[0, 1)`` (default 0.1, or
            the rate of ``mask_from``).
        training: drop weights (``True``) or use them all (``False``).
        add_bias: add a bias (a learned one, or the bias of ``linear`` if it has one).
        w_init, b_init: initializers (registered name or ``(shape, dtype)`` function),
            unused with ``linear``.
        w_regularizer, b_regularizer, w_constraint, b_constraint: as for ``Linear``
            (``linear``'s own apply when it is given).
        mask_from: another DropConnect (in training mode, same weight shape), or its
            ``.mask``, whose mask to use: both drop the same weights in one evaluation.
        name, share_state_with: see ``tw.Layer``.
    """

    rate: float
    mask: WeightMask | None

    def __init__(
        self,
        x: tw.Layer,
        n_units: int | None = None,
        *,
        linear: Linear | None = None,
        rate: float | None = None,
        training: bool = True,
        add_bias: bool = True,
        w_init: Initializer = "tensorweave-layers:glorot_uniform",
        b_init: Initializer = "tensorweave-layers:zeros",
        w_regularizer: RegularizerLike = None,
        b_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        b_constraint: ConstraintLike = None,
        mask_from: DropConnect | WeightMask | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("DropConnect", name)
        if len(x.shape) != 2 or x.shape[-1] is None:
            raise tw.ShapeError(
                f"{owner} expects an input [batch, n_in] with a known n_in, got {describe(x)}. "
                "Fix: flatten the input (e.g. SeqConcat.v1 or Reshape.v1), or wrap the layer "
                "in SeqMap.v1 for sequences."
            )
        if mask_from is not None and not isinstance(mask_from, (DropConnect, WeightMask)):
            raise TypeError(
                f"{owner}: mask_from must be a DropConnect layer (or its .mask), got "
                f"{type(mask_from).__name__}."
            )
        if rate is None:
            rate = DEFAULT_PROBABILITY if mask_from is None else mask_from.rate
        p = float(rate)
        if not 0.0 <= p < 1.0:
            raise ValueError(f"{owner}: rate must be in [0, 1), got {rate!r}.")
        self.n_in = int(x.shape[-1])
        self.linear = linear
        source = share_state_with if share_state_with is not None else linear
        if linear is not None and not isinstance(linear, Linear):
            raise TypeError(
                f"{owner}: linear must be a Linear layer (tw.layers['Linear.v1']), got "
                f"{type(linear).__name__}."
            )
        if source is not None:
            self.transpose = (
                source.transpose_weights if isinstance(source, Linear) else source.transpose
            )
            rows, cols = (int(d) for d in source.state.weights.shape)
            w_in, w_out = (cols, rows) if self.transpose else (rows, cols)
            if w_in != self.n_in:
                raise tw.ShapeError(
                    f"{owner}: cannot use the weights {(rows, cols)} of {source.name!r}"
                    f"{' (transposed)' if self.transpose else ''} on input {describe(x)}. "
                    f"Fix: reuse it on inputs with {w_in} features."
                )
            if n_units is not None and int(n_units) != w_out:
                raise tw.ShapeError(
                    f"{owner}: n_units={n_units} but the weights of {source.name!r} give "
                    f"{w_out} outputs. Fix: omit n_units when wrapping or reusing a layer."
                )
            n_units = w_out
        else:
            self.transpose = False
        self.n_out = tw.positive_int(n_units, "n_units", owner)
        self.rate = p
        self.training = bool(training)
        self.add_bias = bool(add_bias)
        self._w_init = tw.resolve("initializers", w_init, owner=owner, option="w_init")
        self._b_init = tw.resolve("initializers", b_init, owner=owner, option="b_init")
        self._weight_options = WeightOptions.resolve(
            owner, w_regularizer, b_regularizer, w_constraint, b_constraint
        )
        w_shape = (self.n_out, self.n_in) if self.transpose else (self.n_in, self.n_out)
        dtype = linear.dtype if linear is not None else x.dtype
        self.mask = self._mask_node(mask_from, w_shape, dtype, share_state_with, owner)
        inputs = (x,) if self.mask is None else (x, self.mask)
        super().__init__(
            *inputs,
            shape=(x.shape[0], self.n_out),
            dtype=dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def _mask_node(
        self,
        mask_from: DropConnect | WeightMask | None,
        w_shape: tuple[int, int],
        dtype: tf.DType,
        share_state_with: tw.Layer | None,
        owner: str,
    ) -> WeightMask | None:
        if not self.training or self.rate == 0.0:
            return None
        if mask_from is not None:
            mask = mask_from if isinstance(mask_from, WeightMask) else mask_from.mask
            if mask is None or mask.shape != w_shape or mask.rate != self.rate:
                have = "no mask (training=False)" if mask is None else f"a mask {mask.shape}"
                raise ValueError(
                    f"{owner}: mask_from={mask_from.name!r} has {have}"
                    f"{'' if mask is None else f' with rate {mask.rate}'}, "
                    f"but this layer needs a {w_shape} mask with rate "
                    f"{self.rate}. Fix: share masks between DropConnect layers in "
                    "training mode over weights of one shape, with one rate."
                )
            return mask
        base = getattr(share_state_with, "mask", None)
        return WeightMask(
            w_shape,
            rate=self.rate,
            dtype=dtype,
            share_state_with=base if isinstance(base, WeightMask) else None,
        )

    def init_state(self) -> None:
        """``weights`` ``[n_in, n_units]`` and optional ``bias`` (or those of ``linear``)."""
        if self.linear is not None:
            self.state.weights = self.linear.state.weights
            if self.add_bias and hasattr(self.linear.state, "bias"):
                self.state.bias = self.linear.state.bias
            return
        options = self._weight_options
        value = initial_value(self._w_init, (self.n_in, self.n_out), self.dtype)
        self.state.weights = options.weight(self.state, "weights", value)
        if self.add_bias:
            value = initial_value(self._b_init, (self.n_out,), self.dtype)
            self.state.bias = options.bias(self.state, "bias", value)

    def dropped_weights(self) -> tf.Tensor:
        """The weights with a fresh DropConnect mask applied (as used in training)."""
        w = self.state.weights
        if self.mask is None:
            return tf.convert_to_tensor(w)
        return w * self.mask.compute()

    def compute(self, x: Any, mask: Any = None) -> tf.Tensor:
        """``x @ W' + b`` with ``W' = W * mask`` in training, ``W`` otherwise."""
        w = self.state.weights if mask is None else self.state.weights * mask
        if not isinstance(x, tf.SparseTensor):
            x = tf.convert_to_tensor(x)
        if x.dtype != w.dtype:
            x = tf.cast(x, w.dtype)
        y = dense_matmul(x, w, transpose=self.transpose)
        bias = getattr(self.state, "bias", None) if self.add_bias else None  # one read
        return y if bias is None else y + bias

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self,
        x: tw.Layer,
        mask: WeightMask | None = None,
        *,
        training: bool | None = None,
        rate: float | None = None,
        share_mask: bool = False,
        name: str | None = None,
    ) -> DropConnect:
        """A node on ``x`` sharing ``W`` and ``b``; ``training=False`` for inference.

        ``share_mask=True`` makes the new node use this node's mask, so both drop the same
        weights within one evaluation; a ``mask`` given (as graph rebuilds such as
        ``tw.with_options`` pass a node's inputs back) is used the same way, unless the
        new ``rate`` differs from its own (then a new mask is drawn).
        """
        p = self.rate if rate is None else float(rate)
        source: DropConnect | WeightMask | None = mask
        if source is not None and source.rate != p:
            source = None  # a mask passed back by a rebuild with a new rate: redraw
        if source is None and share_mask:
            source = self
        return DropConnect(
            x,
            self.n_out,
            linear=self.linear,
            rate=p,
            training=self.training if training is None else training,
            add_bias=self.add_bias,
            w_init=self._w_init,
            b_init=self._b_init,
            mask_from=source,
            name=name,
            share_state_with=self,
        )
