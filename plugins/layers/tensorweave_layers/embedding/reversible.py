"""``ReversibleEmbedding``: an embedding whose transpose is also the output projection
(tied input/output embeddings, Press & Wolf 2017; Keras's ``ReversibleEmbedding``).

Built on integer ids it looks up their vectors in the table ``[vocab_size, n_units]``;
reused on hidden states with ``reverse=True`` it scores them against every row, ``h @
table.T`` (``[..., vocab_size]`` logits), with the very same variable, so a language model
learns one matrix for both ends. ``tie_weights=False`` keeps a separate
``reverse_embeddings [n_units, vocab_size]`` for the reverse direction instead;
``logit_soft_cap=c`` bounds the logits smoothly to ``(-c, c)`` (``c * tanh(logits / c)``).
``mask_zero=True`` gives the embeddings a padding mask (``ids != 0``), as ``Lookup``.

>>> import tensorflow as tf, tensorweave as tw
>>> ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
>>> emb = ReversibleEmbedding(ids, vocab_size=10, n_units=4, mask_zero=True)
>>> logits = emb.reuse_with(emb, reverse=True)   # h @ table.T, the same table
>>> emb.shape, logits.shape, logits.embeddings is emb.embeddings
((None, None, 4), (None, None, 10), True)
>>> logits.padding_mask is emb.padding_mask
True
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe, owner
from tensorweave_layers.options.weights import (
    ConstraintLike,
    InitializerLike,
    RegularizerLike,
    WeightOptions,
    initial_value,
)

__all__ = ["ReversibleEmbedding"]


class ReversibleEmbedding(tw.Layer):
    """Embed ids, or (``reverse=True``) score hidden states against every embedding.

    Args:
        x: integer ids of any shape; with ``reverse=True``, dense floats ``[..., n_units]``.
        vocab_size: the number of rows of the table.
        n_units: the embedding width.
        reverse: project hidden states to ``vocab_size`` logits (per use:
            ``emb.reuse_with(h, reverse=True)``).
        tie_weights: use the table's transpose for the reverse direction (default), or a
            separate ``reverse_embeddings`` variable.
        logit_soft_cap: bound reverse logits to ``(-cap, cap)`` with ``cap * tanh(l / cap)``.
        mask_zero: id 0 is padding: the embeddings get a ``padding_mask`` (``ids != 0``).
        w_init: initializer of the table(s) (default uniform in ±0.05, as Keras).
        w_regularizer, w_constraint: a penalty on the table(s) and a projection applied after
            each update.
        dtype: the table's dtype.
        name, share_state_with: see ``tw.Layer``.
    """

    keeps_padding_mask = True  # reversed, the steps of the hidden states stay

    def __init__(
        self,
        x: tw.Layer,
        vocab_size: int,
        n_units: int,
        *,
        reverse: bool = False,
        tie_weights: bool = True,
        logit_soft_cap: float | None = None,
        mask_zero: bool = False,
        w_init: InitializerLike = "tensorweave-layers:uniform",
        w_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        dtype: tf.DType | str = tf.float32,
        name: str | None = None,
        share_state_with: ReversibleEmbedding | None = None,
    ) -> None:
        who = owner("ReversibleEmbedding", name)
        self.vocab_size = tw.positive_int(vocab_size, "vocab_size", who)
        self.n_out = tw.positive_int(n_units, "n_units", who)
        self.reverse = bool(reverse)
        self.tie_weights = bool(tie_weights)
        if logit_soft_cap is not None and float(logit_soft_cap) <= 0.0:
            raise tw.ArgumentError(f"{who}: logit_soft_cap must be > 0, got {logit_soft_cap!r}.")
        self.logit_soft_cap = None if logit_soft_cap is None else float(logit_soft_cap)
        if x.sparse:
            raise tw.ShapeError(f"{who}: input {describe(x)} must be dense. Fix: ToDense.")
        if self.reverse:
            if not x.dtype.is_floating or x.shape[-1] != self.n_out:
                raise tw.ShapeError(
                    f"{who}: reverse=True scores hidden states [..., n_units={self.n_out}] "
                    f"against the embeddings, got {describe(x)} {x.dtype.name}. Fix: project "
                    f"the states to {self.n_out} units first."
                )
            shape = (*x.shape[:-1], self.vocab_size)
        else:
            if not x.dtype.is_integer:
                raise TypeError(
                    f"{who}: input {describe(x)} has dtype {x.dtype.name}; the forward "
                    "direction embeds integer ids. Fix: pass ids, or reverse=True for states."
                )
            shape = (*x.shape, self.n_out)
        self._w_init = tw.resolve("initializers", w_init, owner=who, option="w_init")
        self._weight_options = WeightOptions.resolve(
            who, w_regularizer=w_regularizer, w_constraint=w_constraint
        )
        super().__init__(
            x,
            shape=shape,
            dtype=x.dtype if self.reverse else dtype,
            name=name,
            share_state_with=share_state_with,
        )
        if mask_zero and not self.reverse:
            self.padding_mask = tw.ops.not_equal(x, tf.constant(0, x.dtype))

    def init_state(self) -> None:
        """The table ``embeddings [vocab_size, n_units]`` (and, untied,
        ``reverse_embeddings [n_units, vocab_size]``)."""
        rows = (self.vocab_size, self.n_out)
        value = initial_value(self._w_init, rows, self.dtype, owner=self.name)
        self.state.embeddings = self._weight_options.weight(self.state, "embeddings", value)
        if not self.tie_weights:
            value = initial_value(self._w_init, rows[::-1], self.dtype, owner=self.name)
            weight = self._weight_options.weight
            self.state.reverse_embeddings = weight(self.state, "reverse_embeddings", value)

    def compute(self, x: Any) -> tf.Tensor:
        """The embeddings of ids ``x``, or the logits of states ``x`` (``reverse``)."""
        if not self.reverse:
            return tf.nn.embedding_lookup(self.state.embeddings, x)
        if self.tie_weights:
            logits = tf.tensordot(x, self.state.embeddings, axes=[[-1], [1]])
        else:
            logits = tf.tensordot(x, self.state.reverse_embeddings, axes=[[-1], [0]])
        if self.logit_soft_cap is not None:
            cap = tf.constant(self.logit_soft_cap, logits.dtype)
            logits = tf.tanh(logits / cap) * cap
        return logits
