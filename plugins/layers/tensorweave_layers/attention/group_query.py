"""``GroupQueryAttention``: multi-head attention whose key/value heads serve groups of
query heads (grouped-query attention, Ainslie et al. 2023; Keras's ``GroupQueryAttention``).

``n_heads`` query heads share ``n_kv_heads`` key and value heads, each key/value head
serving ``n_heads // n_kv_heads`` consecutive query heads, so the key/value projections
(and a decoder's cache) are that many times smaller. ``n_kv_heads == n_heads`` is
``MHAttention``; ``n_kv_heads == 1`` is multi-query attention. Everything else (causal
masking, padding masks, dropout, the Keras weight layout ``query_kernel [d_q, n_heads,
head_dim]``, ``key_kernel [d_k, n_kv_heads, head_dim]``…) is ``MHAttention``'s.

>>> import tensorflow as tf, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 8), name="x")
>>> gqa = GroupQueryAttention(x, n_heads=4, n_kv_heads=2, head_dim=2, causal=True)
>>> gqa.shape, gqa.query_kernel.shape.as_list(), gqa.key_kernel.shape.as_list()
((None, None, 8), [8, 4, 2], [8, 2, 2])
>>> gqa.compute(*[tf.ones((1, 3, 8))] * 3).shape.as_list()
[1, 3, 8]
"""

from __future__ import annotations

from typing import Any

import tensorweave as tw
from tensorweave_layers.attention.multi_head import MHAttention

__all__ = ["GroupQueryAttention"]


class GroupQueryAttention(MHAttention):
    """Attention of ``query`` over ``key``/``value`` with ``n_kv_heads`` key/value heads.

    Args:
        query, key, value, key_mask: as for ``MHAttention`` (key and value default to the
            query; ``key_mask`` to the key's ``padding_mask``).
        n_heads: the number of query heads (Keras: ``num_query_heads``).
        n_kv_heads: the number of key/value heads, dividing ``n_heads`` (Keras:
            ``num_key_value_heads``).
        **options: ``MHAttention``'s: ``head_dim`` (default ``n_units // n_heads``),
            ``n_units`` (default: the query's width, as Keras), ``causal``, ``dropout``,
            ``training``, ``add_bias``, ``w_init``, ``b_init``, ``name``.
    """

    def __init__(
        self,
        query: tw.Layer,
        key: tw.Layer | None = None,
        value: tw.Layer | None = None,
        key_mask: tw.Layer | None = None,
        *,
        n_heads: int,
        n_kv_heads: int,
        **options: Any,
    ) -> None:
        self._kv_heads = n_kv_heads
        super().__init__(query, key, value, key_mask, n_heads=n_heads, **options)

    def key_value_heads(self, n_heads: int, owner: str) -> int:
        """``n_kv_heads``, checked to divide ``n_heads``."""
        kv = tw.positive_int(self._kv_heads, "n_kv_heads", owner)
        if n_heads % kv:
            raise tw.ArgumentError(
                f"{owner}: n_heads={n_heads} is not divisible by n_kv_heads={kv}: each key/"
                "value head serves an equal group of query heads. Fix: pick n_kv_heads among "
                f"the divisors of {n_heads}."
            )
        return kv

    def shared_options(self) -> dict[str, Any]:
        """``MHAttention``'s, and ``n_kv_heads``."""
        return {**super().shared_options(), "n_kv_heads": self.n_kv_heads}
