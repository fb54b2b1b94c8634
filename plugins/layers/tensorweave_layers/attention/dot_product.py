"""``Attention``: dot-product (Luong-style) attention without projections, Keras's
``Attention``.

Each query step ``[batch, t_q, d]`` scores every key step ``[batch, t_k, d]``
(``score_mode="dot"``: ``q . k``, times a learned scalar with ``use_scale=True``;
``"concat"``: ``w * sum(tanh(scale * (q + k)))``), takes a softmax over the keys it may see
and returns that mixture of the values ``[batch, t_k, d_v]``: ``[batch, t_q, d_v]``.
``causal=True`` hides the keys after each query step; ``key_mask`` (Keras's
``value_mask``) hides padded keys; the output is zero at steps ``query_mask`` marks as
padding. Without explicit masks, the inputs' ``padding_mask`` s are used, and the output
keeps the query's. ``dropout`` drops attention weights while ``training``.
``AdditiveAttention`` is this layer with Bahdanau-style scores.

Inputs come in the order ``query, key, value`` (as ``MHAttention``); with one or two,
the key and value default to the query and the value to the key (Keras's
``Attention([query, value])`` is ``Attention(query, value)``).

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> q = tw.Input(batch_shape=(None, None, 2), name="q", value=[[[1.0, 0.0]]])
>>> v = tw.Input(batch_shape=(None, None, 2), name="v", value=[[[1.0, 0.0], [0.0, 1.0]]])
>>> att = Attention(q, v)
>>> att.shape, np.round(att().numpy().astype(float), 3).tolist()
((None, None, 2), [[[0.731, 0.269]]])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import describe
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers.attention.weights import (
    attention_weights,
    check_dropout,
    check_sequence,
    check_step_mask,
    drop_weights,
    per_use,
    sequence_mask,
)

__all__ = ["Attention"]

_SCORE_MODES = ("dot", "concat")


class Attention(tw.Layer):
    """Attention of ``query`` over ``key``/``value`` with no weights but an optional scale.

    Args:
        query: ``[batch, t_q, d]``.
        key: ``[batch, t_k, d]`` (default: the query).
        value: ``[batch, t_k, d_v]`` (default: the key).
        key_mask: ``[batch, t_k]``, true at key steps that may be attended (Keras:
            ``value_mask``; default: the key's, else the value's, ``padding_mask``).
        query_mask: ``[batch, t_q]``, true at real query steps; the output is zero
            elsewhere (default: the query's ``padding_mask``).
        use_scale: learn a scale of the scores (a scalar; ``AdditiveAttention``: one per
            unit).
        score_mode: ``"dot"`` or ``"concat"`` (Keras's).
        causal: hide key steps after each query step (Keras: ``use_causal_mask``).
        dropout: the rate of attention weights dropped while ``training``.
        training: whether dropout is active (per use: ``reuse_with(..., training=False)``).
        name, share_state_with: see ``tw.Layer``.
    """

    default_use_scale = False

    def __init__(
        self,
        query: tw.Layer,
        key: tw.Layer | None = None,
        value: tw.Layer | None = None,
        *,
        key_mask: tw.Layer | None = None,
        query_mask: tw.Layer | None = None,
        use_scale: bool | None = None,
        score_mode: str = "dot",
        causal: bool = False,
        dropout: float = 0.0,
        training: bool = True,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner(type(self).__name__, name)
        key = query if key is None else key
        value = key if value is None else value
        dq, dk = (check_sequence(t, r, owner) for t, r in ((query, "query"), (key, "key")))
        check_sequence(value, "value", owner)
        if dq != dk:
            raise tw.ShapeError(
                f"{owner}: query {describe(query)} and key {describe(key)} must have the same "
                "width to be compared. Fix: project one of them, e.g. with Linear, or use "
                "MHAttention, which projects both."
            )
        tk, tv = key.shape[1], value.shape[1]
        if tk is not None and tv is not None and tk != tv:
            raise tw.ShapeError(
                f"{owner}: key {describe(key)} and value {describe(value)} must have the same "
                "number of steps. Fix: pass a value aligned with the key."
            )
        if score_mode not in _SCORE_MODES:
            raise tw.ArgumentError(
                f"{owner}: score_mode={score_mode!r}; use one of {_SCORE_MODES}."
            )
        masks = {
            "key_mask": sequence_mask(key_mask, key, value),
            "query_mask": sequence_mask(query_mask, query),
        }
        check_step_mask(masks["key_mask"], key, "key_mask", owner, axis="t_k")
        check_step_mask(masks["query_mask"], query, "query_mask", owner, axis="t_q")
        self.use_scale = self.default_use_scale if use_scale is None else bool(use_scale)
        self.score_mode = score_mode
        self.causal = bool(causal)
        self.dropout = check_dropout(dropout, owner)
        self.training = bool(training)
        self.width = dq
        given = [(role, mask) for role, mask in masks.items() if mask is not None]
        self.mask_roles = tuple(role for role, _ in given)
        super().__init__(
            query,
            key,
            value,
            *(mask for _, mask in given),
            shape=(query.shape[0], query.shape[1], value.shape[-1]),
            dtype=query.dtype,
            name=name,
            share_state_with=share_state_with,
        )
        if self.training and self.dropout > 0.0:
            self.state.generator()  # the weights' dropout random state, checkpointed
        self.padding_mask = masks["query_mask"]

    def init_state(self) -> None:
        """The scale (``use_scale``) and, for ``score_mode="concat"``, the score weight
        (both start at one, as Keras's)."""
        if self.use_scale:
            self.state.scale = tf.Variable(tf.ones([], self.dtype), name="scale")
        if self.score_mode == "concat":
            weight = tf.ones([], self.dtype)
            self.state.concat_score_weight = tf.Variable(weight, name="concat_score_weight")

    def scores(self, query: Any, key: Any) -> tf.Tensor:
        """The scores ``[batch, t_q, t_k]`` of every query step against every key step."""
        scale = self.state.scale if self.use_scale else None
        if self.score_mode == "dot":
            scores = tf.matmul(query, key, transpose_b=True)
            return scores if scale is None else scores * scale
        both = query[:, :, None, :] + key[:, None, :, :]
        both = both if scale is None else scale * both
        return self.state.concat_score_weight * tf.reduce_sum(tf.tanh(both), axis=-1)

    def attention_weights(self, query: Any, key: Any, key_mask: Any = None) -> tf.Tensor:
        """The attention weights ``[batch, t_q, t_k]`` (before dropout)."""
        return attention_weights(self.scores(query, key), causal=self.causal, key_mask=key_mask)

    def compute(self, query: Any, key: Any, value: Any, *masks: Any) -> tf.Tensor:
        """The mixture of values each query step attends to."""
        given = dict(zip(self.mask_roles, masks, strict=True))
        weights = self.attention_weights(query, key, given.get("key_mask"))
        if self.training and self.dropout > 0.0:
            weights = drop_weights(weights, self.dropout, self.state)
        out = tf.matmul(weights, value)
        query_mask = given.get("query_mask")
        if query_mask is not None:
            out = tf.where(tf.cast(query_mask, tf.bool)[:, :, None], out, tf.zeros_like(out))
        return out

    def reuse_with(  # type: ignore[override]  # explicit per-use options
        self,
        *inputs: tw.Layer,
        training: bool | None = None,
        causal: bool | None = None,
        dropout: float | None = None,
        name: str | None = None,
    ) -> Attention:
        """The same layer (shared scale) on new ``query[, key[, value]]``, followed by the
        masks this node takes (``node.mask_roles``) when all three are given; without them
        the new inputs' ``padding_mask`` s apply. ``training``, ``causal`` and ``dropout``
        keep this node's values unless given."""
        sequences, masks = inputs[:3], inputs[3:]
        if not sequences or (masks and len(masks) != len(self.mask_roles)):
            raise TypeError(
                f"{type(self).__name__} {self.name!r}.reuse_with takes query[, key[, value]] "
                f"and then {list(self.mask_roles) or 'no masks'}; got {len(inputs)} inputs."
            )
        make: Callable[..., Attention] = type(self)
        return make(
            *sequences,
            **dict(zip(self.mask_roles, masks, strict=False)),
            **self.shared_options(),
            **per_use(self, causal=causal, dropout=dropout, training=training),
            name=name,
            share_state_with=self,
        )

    def shared_options(self) -> dict[str, Any]:
        """The options that belong to the shared state (the scale, the score)."""
        return {"use_scale": self.use_scale, "score_mode": self.score_mode}
