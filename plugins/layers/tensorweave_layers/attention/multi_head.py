"""``MHAttention``: multi-head scaled dot-product attention, with an optional causal mask.

Query ``[batch, t_q, d_q]``, key ``[batch, t_k, d_k]`` and value ``[batch, t_k, d_v]`` are
projected to ``n_heads`` heads of ``head_dim`` units; each head attends with
``softmax(q k^T / sqrt(head_dim))``, and the heads are projected back to ``n_units``. The
weight layout is Keras' ``MultiHeadAttention`` one (``query_kernel [d_q, heads, head_dim]``,
``output_kernel [heads, head_dim, n_units]``…), so weights carry over in both directions.
``causal=True`` lets query step ``i`` see key steps ``<= i`` only; an optional fourth input
``key_mask`` ``[batch, t_k]`` (bool or 0/1) hides padded key steps; without one, the key's
(or value's) ``padding_mask`` does, and the output keeps the query's ``padding_mask``.
``dropout`` drops attention weights in training; ``reuse_with(q, training=False)`` turns
that off. With one input it is self-attention (key and value default to the query).
``GroupQueryAttention`` is this layer with fewer key/value heads than query heads.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 8), name="x")
>>> att = MHAttention(x, n_units=8, n_heads=2, causal=True)
>>> att.shape, att.query_kernel.shape.as_list()
((None, None, 8), [8, 2, 4])
>>> att.compute(tf.ones((2, 5, 8)), tf.ones((2, 5, 8)), tf.ones((2, 5, 8))).shape.as_list()
[2, 5, 8]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.attention.weights import (
    attention_weights,
    check_dropout,
    check_sequence,
    check_step_mask,
    drop_weights,
    per_use,
    sequence_mask,
)
from tensorweave_layers.options.weights import (
    ConstraintLike,
    Initializer,
    RegularizerLike,
    WeightOptions,
    initial_value,
)

__all__ = ["MHAttention"]


class MHAttention(tw.Layer):
    """Multi-head attention of ``query`` over ``key``/``value``.

    Args:
        query: ``[batch, t_q, d_q]``.
        key: ``[batch, t_k, d_k]`` (default: ``query``).
        value: ``[batch, t_k, d_v]`` (default: ``key``).
        key_mask: ``[batch, t_k]``, true (non-zero) for key steps that may be attended
            (default: the key's, else the value's, ``padding_mask``).
        n_units: the output width (default: ``d_q``).
        n_heads: the number of heads.
        head_dim: units per head (default: ``n_units // n_heads``).
        causal: mask key steps after each query step.
        dropout: the dropout rate of the attention weights (Keras's name), in ``[0, 1)``, in
            training only.
        training: whether dropout is active.
        add_bias: learn biases for every projection.
        w_init: initializer of the kernels (registered name or ``(shape, dtype)`` function).
        b_init: initializer of the biases.
        w_regularizer, b_regularizer, w_constraint, b_constraint: of every kernel and bias
            (as for ``Linear``).
    """

    def __init__(
        self,
        query: tw.Layer,
        key: tw.Layer | None = None,
        value: tw.Layer | None = None,
        key_mask: tw.Layer | None = None,
        *,
        n_units: int | None = None,
        n_heads: int = 1,
        head_dim: int | None = None,
        causal: bool = False,
        dropout: float = 0.0,
        training: bool = True,
        add_bias: bool = True,
        w_init: Initializer = "tensorweave-layers:glorot_uniform",
        b_init: Initializer = "tensorweave-layers:zeros",
        w_regularizer: RegularizerLike = None,
        b_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        b_constraint: ConstraintLike = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner(type(self).__name__, name)
        key = query if key is None else key
        value = key if value is None else value
        widths = tuple(
            check_sequence(layer, role, owner)
            for role, layer in (("query", query), ("key", key), ("value", value))
        )
        key_mask = sequence_mask(key_mask, key, value)
        check_step_mask(key_mask, key, "key_mask", owner, axis="t_k")
        tk, tv = key.shape[1], value.shape[1]
        if tk is not None and tv is not None and tk != tv:
            raise tw.ShapeError(
                f"{owner}: key {describe(key)} and value {describe(value)} must have the same "
                "number of steps. Fix: pass a value aligned with the key."
            )
        n_units = tw.positive_int(n_units, "n_units", owner, optional=True) or widths[0]
        n_heads = tw.positive_int(n_heads, "n_heads", owner)
        if head_dim is None:
            if n_units % n_heads:
                raise tw.ArgumentError(
                    f"{owner}: n_units={n_units} is not divisible by n_heads={n_heads}. Fix: "
                    "pick n_units a multiple of n_heads, or pass head_dim=."
                )
            head_dim = n_units // n_heads
        self.n_out = n_units
        self.n_heads = n_heads
        self.n_kv_heads = self.key_value_heads(n_heads, owner)
        self.head_dim = tw.positive_int(head_dim, "head_dim", owner)
        self.causal = bool(causal)
        self.dropout = check_dropout(dropout, owner)
        self.training = bool(training)
        self.add_bias = bool(add_bias)
        self._w_init = tw.resolve("initializers", w_init, owner=owner, option="w_init")
        self._b_init = tw.resolve("initializers", b_init, owner=owner, option="b_init")
        self._weight_options = WeightOptions.resolve(
            owner, w_regularizer, b_regularizer, w_constraint, b_constraint
        )
        self._dims = widths
        if share_state_with is not None:
            want = tuple(
                int(getattr(share_state_with.state, f"{r}_kernel").shape[0])
                for r in ("query", "key", "value")
            )
            if want != self._dims:
                raise tw.ShapeError(
                    f"{owner}: cannot share the weights of {share_state_with.name!r} (query/key/"
                    f"value widths {want}) on inputs with widths {self._dims}. Fix: reuse it on "
                    "inputs of the same widths."
                )
        inputs = (query, key, value) if key_mask is None else (query, key, value, key_mask)
        super().__init__(
            *inputs,
            shape=(query.shape[0], query.shape[1], n_units),
            dtype=query.dtype,
            name=name,
            share_state_with=share_state_with,
        )
        if self.training and self.dropout > 0.0:
            self.state.generator()  # the weights' dropout random state, checkpointed
        self.padding_mask = query.padding_mask  # the output has the query's steps

    def key_value_heads(self, n_heads: int, owner: str) -> int:
        """How many heads keys and values have: one per query head (``GroupQueryAttention``
        shares each among a group of query heads)."""
        return n_heads

    def init_state(self) -> None:
        """Kernels and biases of the query, key, value and output projections."""
        d, dtype, s = self.head_dim, self.dtype, self.state
        options = self._weight_options
        heads = (self.n_heads, self.n_kv_heads, self.n_kv_heads)
        for role, width, h in zip(("query", "key", "value"), self._dims, heads, strict=True):
            kernel = initial_value(self._w_init, (width, h, d), dtype)
            setattr(s, f"{role}_kernel", options.weight(s, f"{role}_kernel", kernel))
            if self.add_bias:
                bias = initial_value(self._b_init, (h, d), dtype)
                setattr(s, f"{role}_bias", options.bias(s, f"{role}_bias", bias))
        kernel = initial_value(self._w_init, (self.n_heads, d, self.n_out), dtype)
        s.output_kernel = options.weight(s, "output_kernel", kernel)
        if self.add_bias:
            bias = initial_value(self._b_init, (self.n_out,), dtype)
            s.output_bias = options.bias(s, "output_bias", bias)

    def _project(self, x: Any, role: str) -> tf.Tensor:
        y = tf.einsum("bti,ihd->bthd", x, getattr(self.state, f"{role}_kernel"))
        if self.add_bias:
            y = y + getattr(self.state, f"{role}_bias")
        if role != "query" and self.n_kv_heads != self.n_heads:  # one per query head
            y = tf.repeat(y, self.n_heads // self.n_kv_heads, axis=2)
        return y

    def attention_weights(self, query: Any, key: Any, key_mask: Any = None) -> tf.Tensor:
        """The attention weights ``[batch, heads, t_q, t_k]`` (before dropout)."""
        scale = tf.constant(1.0 / math.sqrt(self.head_dim), self.compute_dtype)
        q = self._project(query, "query") * scale
        k = self._project(key, "key")
        scores = tf.einsum("bqhd,bkhd->bhqk", q, k)
        return attention_weights(scores, causal=self.causal, key_mask=key_mask)

    def compute(self, query: Any, key: Any, value: Any, key_mask: Any = None) -> tf.Tensor:
        """Attend and project: ``[batch, t_q, n_units]``."""
        weights = self.attention_weights(query, key, key_mask)
        if self.training and self.dropout > 0.0:
            weights = drop_weights(weights, self.dropout, self.state)
        context = tf.einsum("bhqk,bkhd->bqhd", weights, self._project(value, "value"))
        out = tf.einsum("bqhd,hdo->bqo", context, self.state.output_kernel)
        if self.add_bias:
            out = out + self.state.output_bias
        return out

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self,
        *inputs: tw.Layer,
        training: bool | None = None,
        causal: bool | None = None,
        dropout: float | None = None,
        name: str | None = None,
    ) -> MHAttention:
        """The same attention (shared weights) on new query[, key[, value[, key_mask]]]
        (without ``key_mask``, the new key's ``padding_mask`` if it has one).

        The per-use options ``training``, ``causal`` and ``dropout`` keep this node's values
        unless given (e.g. a causal decoder reusing an encoder's attention weights).
        """
        if not 1 <= len(inputs) <= 4:
            raise TypeError(
                f"{type(self).__name__} {self.name!r}.reuse_with takes query[, key[, value[, "
                f"key_mask]]], got {len(inputs)} inputs."
            )
        make: Callable[..., MHAttention] = type(self)
        return make(
            *inputs,
            **self.shared_options(),
            **per_use(self, causal=causal, dropout=dropout, training=training),
            name=name,
            share_state_with=self,
        )

    def shared_options(self) -> dict[str, Any]:
        """The options that belong to the shared weights (sizes, initializers)."""
        return {
            "n_units": self.n_out,
            "n_heads": self.n_heads,
            "head_dim": self.head_dim,
            "add_bias": self.add_bias,
            "w_init": self._w_init,
            "b_init": self._b_init,
        }
