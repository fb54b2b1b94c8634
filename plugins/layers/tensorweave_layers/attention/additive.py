"""``AdditiveAttention``: Bahdanau-style attention, Keras's ``AdditiveAttention``.

``Attention`` with additive scores: query step ``i`` scores key step ``j`` as
``sum(scale * tanh(q_i + k_j))``, ``scale`` a learned vector of the width (glorot-uniform
at first, as Keras; ``use_scale=False``: ones). Masks, ``causal``, ``dropout`` and the
input order (``query, key, value``) are ``Attention``'s.

>>> import tensorflow as tf, tensorweave as tw
>>> q = tw.Input(batch_shape=(None, None, 3), name="q")
>>> v = tw.Input(batch_shape=(None, None, 3), name="v")
>>> att = AdditiveAttention(q, v)
>>> att.shape, att.scale.shape.as_list()
((None, None, 3), [3])
>>> att.compute(tf.ones((2, 4, 3)), tf.ones((2, 5, 3)), tf.ones((2, 5, 3))).shape.as_list()
[2, 4, 3]
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers.attention.dot_product import Attention
from tensorweave_layers.options.weights import (
    ConstraintLike,
    InitializerLike,
    RegularizerLike,
    WeightOptions,
    initial_value,
)

__all__ = ["AdditiveAttention"]


class AdditiveAttention(Attention):
    """Attention of ``query`` over ``key``/``value`` scored by ``sum(scale * tanh(q + k))``.

    Args:
        query, key, value: as for ``Attention``.
        w_init: the initializer of ``scale`` (default glorot-uniform, as Keras).
        w_regularizer, w_constraint: a penalty on ``scale`` and a projection applied to it
            after each update (registered names, callables or config blocks).
        **options: ``Attention``'s: ``key_mask``, ``query_mask``, ``use_scale`` (learn the
            per-unit ``scale``; default ``True``, as Keras), ``causal``, ``dropout``,
            ``training``, ``name``.
    """

    default_use_scale = True

    def __init__(
        self,
        query: tw.Layer,
        key: tw.Layer | None = None,
        value: tw.Layer | None = None,
        *,
        w_init: InitializerLike = "tensorweave-layers:glorot_uniform",
        w_regularizer: RegularizerLike = None,
        w_constraint: ConstraintLike = None,
        **options: Any,
    ) -> None:
        if "score_mode" in options:
            raise tw.ArgumentError(
                "AdditiveAttention scores additively; it takes no score_mode. Fix: use "
                "Attention(..., score_mode='concat') for Keras's other score."
            )
        who = name_owner("AdditiveAttention", options.get("name"))
        self._w_init = tw.resolve("initializers", w_init, owner=who, option="w_init")
        self._weight_options = WeightOptions.resolve(
            who, w_regularizer=w_regularizer, w_constraint=w_constraint
        )
        super().__init__(query, key, value, **options)

    def init_state(self) -> None:
        """The per-unit ``scale`` ``[d]``, when ``use_scale``."""
        if self.use_scale:
            value = initial_value(self._w_init, (self.width,), self.dtype, option="w_init")
            self.state.scale = self._weight_options.weight(self.state, "scale", value)

    def scores(self, query: Any, key: Any) -> tf.Tensor:
        """``sum(scale * tanh(q_i + k_j))`` over the units: ``[batch, t_q, t_k]``."""
        both = tf.tanh(query[:, :, None, :] + key[:, None, :, :])
        return tf.reduce_sum(both * self.state.scale if self.use_scale else both, axis=-1)

    def shared_options(self) -> dict[str, Any]:
        """The options that belong to the shared state."""
        return {"use_scale": self.use_scale, "w_init": self._w_init}
