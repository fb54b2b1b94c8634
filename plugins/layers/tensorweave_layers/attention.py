"""``MHAttention``: multi-head scaled dot-product attention, with an optional causal mask.

Query ``[batch, t_q, d_q]``, key ``[batch, t_k, d_k]`` and value ``[batch, t_k, d_v]`` are
projected to ``n_heads`` heads of ``head_dim`` units; each head attends with
``softmax(q k^T / sqrt(head_dim))``, and the heads are projected back to ``n_units``. The
weight layout is Keras' ``MultiHeadAttention`` one (``query_kernel [d_q, heads, head_dim]``,
``output_kernel [heads, head_dim, n_units]``…), so weights carry over in both directions.
``causal=True`` lets query step ``i`` see key steps ``<= i`` only; an optional fourth input
``key_mask`` ``[batch, t_k]`` (bool or 0/1) hides padded key steps. ``dropout`` drops
attention weights in training; ``reuse_with(q, training=False)`` turns that off.
With one input it is self-attention (key and value default to the query).

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
from typing import Any

import tensorflow as tf

import tensorweave as tw

from ._param_init import Initializer, initial_value
from ._shapes import owner as name_owner
from ._spatial import describe

__all__ = ["MHAttention"]

_NEG = -1e9


@tw.renamed_arguments({"probability": "dropout"})
class MHAttention(tw.Layer):
    """Multi-head attention of ``query`` over ``key``/``value``.

    Args:
        query: ``[batch, t_q, d_q]``.
        key: ``[batch, t_k, d_k]`` (default: ``query``).
        value: ``[batch, t_k, d_v]`` (default: ``key``).
        key_mask: ``[batch, t_k]``, true (non-zero) for key steps that may be attended.
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
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("MHAttention", name)
        key = query if key is None else key
        value = key if value is None else value
        for role, layer in (("query", query), ("key", key), ("value", value)):
            if layer.sparse or len(layer.shape) != 3 or layer.shape[-1] is None:
                raise tw.ShapeError(
                    f"{owner}: {role} must be dense [batch, time, features] with known features, "
                    f"got {describe(layer)}. Fix: reshape it to rank 3 (a single vector per "
                    "sample is a sequence of length 1)."
                )
        if key_mask is not None and (key_mask.sparse or len(key_mask.shape) != 2):
            raise tw.ShapeError(
                f"{owner}: key_mask must be dense [batch, t_k], got {describe(key_mask)}. "
                "Fix: pass one flag per key step, e.g. ids != pad_id."
            )
        steps = [key.shape[1], value.shape[1]]
        if key_mask is not None:
            steps.append(key_mask.shape[1])
        known = {t for t in steps if t is not None}
        if len(known) > 1 and key_mask is not None:
            raise tw.ShapeError(
                f"{owner}: key {describe(key)}, value {describe(value)} and key_mask "
                f"{describe(key_mask)} must have the same number of steps. Fix: build the "
                "mask from the key's ids."
            )
        tk, tv = key.shape[1], value.shape[1]
        if tk is not None and tv is not None and tk != tv:
            raise tw.ShapeError(
                f"{owner}: key {describe(key)} and value {describe(value)} must have the same "
                "number of steps. Fix: pass a value aligned with the key."
            )
        n_units = int(n_units if n_units is not None else query.shape[-1])  # type: ignore[arg-type]
        if n_heads < 1:
            raise ValueError(f"{owner}: n_heads must be positive, got {n_heads!r}.")
        if head_dim is None:
            if n_units % n_heads:
                raise ValueError(
                    f"{owner}: n_units={n_units} is not divisible by n_heads={n_heads}. Fix: "
                    "pick n_units a multiple of n_heads, or pass head_dim=."
                )
            head_dim = n_units // n_heads
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"{owner}: dropout must be in [0, 1), got {dropout!r}.")
        self.n_out = n_units
        self.n_heads = int(n_heads)
        self.head_dim = int(head_dim)
        self.causal = bool(causal)
        self.dropout = float(dropout)
        self.training = bool(training)
        self.add_bias = bool(add_bias)
        self._w_init = tw.resolve("initializers", w_init, owner=owner, option="w_init")
        self._b_init = tw.resolve("initializers", b_init, owner=owner, option="b_init")
        self._dims = tuple(int(t.shape[-1]) for t in (query, key, value))  # type: ignore[arg-type]
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

    def init_state(self) -> None:
        """Kernels and biases of the query, key, value and output projections."""
        h, d, dtype, s = self.n_heads, self.head_dim, self.dtype, self.state
        for role, width in zip(("query", "key", "value"), self._dims, strict=True):
            kernel = tf.Variable(
                initial_value(self._w_init, (width, h, d), dtype), name=f"{role}_kernel"
            )
            setattr(s, f"{role}_kernel", kernel)
            if self.add_bias:
                bias = initial_value(self._b_init, (h, d), dtype)
                setattr(s, f"{role}_bias", tf.Variable(bias, name=f"{role}_bias"))
        s.output_kernel = tf.Variable(
            initial_value(self._w_init, (h, d, self.n_out), dtype), name="output_kernel"
        )
        if self.add_bias:
            bias = initial_value(self._b_init, (self.n_out,), dtype)
            s.output_bias = tf.Variable(bias, name="output_bias")

    def _project(self, x: Any, role: str) -> tf.Tensor:
        y = tf.einsum("bti,ihd->bthd", x, getattr(self.state, f"{role}_kernel"))
        if self.add_bias:
            y = y + getattr(self.state, f"{role}_bias")
        return y

    def attention_weights(self, query: Any, key: Any, key_mask: Any = None) -> tf.Tensor:
        """The attention weights ``[batch, heads, t_q, t_k]`` (before dropout)."""
        q = self._project(query, "query") * tf.constant(1.0 / math.sqrt(self.head_dim), self.dtype)
        k = self._project(key, "key")
        scores = tf.einsum("bqhd,bkhd->bhqk", q, k)
        if self.causal:
            tq, tk = tf.shape(scores)[2], tf.shape(scores)[3]
            allowed = tf.linalg.band_part(tf.ones([tq, tk], tf.bool), -1, 0)
            scores = tf.where(allowed, scores, tf.constant(_NEG, scores.dtype))
        if key_mask is not None:
            visible = tf.cast(key_mask, tf.bool)[:, None, None, :]
            scores = tf.where(visible, scores, tf.constant(_NEG, scores.dtype))
        return tf.nn.softmax(scores, axis=-1)

    def compute(self, query: Any, key: Any, value: Any, key_mask: Any = None) -> tf.Tensor:
        """Attend and project: ``[batch, t_q, n_units]``."""
        weights = self.attention_weights(query, key, key_mask)
        if self.training and self.dropout > 0.0:
            keep = self.state.generator().uniform(tf.shape(weights)) >= self.dropout
            weights = weights * tf.cast(keep, weights.dtype) / (1.0 - self.dropout)
        context = tf.einsum("bhqk,bkhd->bqhd", weights, self._project(value, "value"))
        out = tf.einsum("bqhd,hdo->bqo", context, self.state.output_kernel)
        if self.add_bias:
            out = out + self.state.output_bias
        return out

    @property
    def probability(self) -> float:
        """Deprecated name of ``dropout``."""
        return self.dropout

    @tw.renamed_arguments({"probability": "dropout"})
    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self,
        *inputs: tw.Layer,
        training: bool | None = None,
        causal: bool | None = None,
        dropout: float | None = None,
        name: str | None = None,
    ) -> MHAttention:
        """The same attention (shared weights) on new query[, key[, value[, key_mask]]].

        The per-use options ``training``, ``causal`` and ``dropout`` keep this node's values
        unless given (e.g. a causal decoder reusing an encoder's attention weights).
        """
        if not 1 <= len(inputs) <= 4:
            raise TypeError(
                f"MHAttention {self.name!r}.reuse_with takes query[, key[, value[, key_mask]]], got "
                f"{len(inputs)} inputs."
            )
        return MHAttention(
            *inputs,
            n_units=self.n_out,
            n_heads=self.n_heads,
            head_dim=self.head_dim,
            causal=self.causal if causal is None else causal,
            dropout=self.dropout if dropout is None else dropout,
            training=self.training if training is None else training,
            add_bias=self.add_bias,
            w_init=self._w_init,
            b_init=self._b_init,
            name=name,
            share_state_with=self,
        )
