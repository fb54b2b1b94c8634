"""``TransformerDecoderBlock``: causal self-attention, cross-attention over an encoded
``context`` and a feed-forward network, each a residual sub-layer, as a ``tw.Module``
(keras_hub's ``TransformerDecoder``).

``x`` ``[batch, time, width]`` -> the same shape. Self-attention is causal (each step sees
itself and earlier steps); with ``context`` ``[batch, t_c, d_c]`` (the encoder's output) a
cross-attention sub-layer lets every step attend to all of it; without one the block is a
decoder-only block. Norms, dropout, the feed-forward network and padding masks (of ``x``
for the self-attention, of ``context`` for the cross-attention; each becomes an input of
the module) are as in ``TransformerEncoderBlock``.

>>> import numpy as np, tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 8), name="x")
>>> memory = tw.Input(batch_shape=(None, None, 6), name="memory")
>>> block = TransformerDecoderBlock(x, memory, n_heads=2, intermediate_dim=16, normalize_first=True)
>>> block.shape, [i.name for i in block.inputs]
((None, None, 8), ['x', 'memory'])
>>> block.compute(np.ones((1, 3, 8), "float32"), np.ones((1, 5, 6), "float32")).shape.as_list()
[1, 3, 8]
"""

from __future__ import annotations

import tensorweave as tw

from ._attention import check_sequence
from ._param_init import ActivationLike, InitializerLike
from ._shapes import owner
from ._transformer import BlockOptions, feed_forward, fold, residual
from .attention import MHAttention

__all__ = ["TransformerDecoderBlock"]


def TransformerDecoderBlock(  # a registered layer, named like a class
    x: tw.Layer,
    context: tw.Layer | None = None,
    *,
    n_heads: int,
    intermediate_dim: int,
    dropout: float = 0.0,
    activation: ActivationLike = "tensorweave-layers:relu",
    normalize_first: bool = False,
    epsilon: float = 1e-5,
    training: bool = True,
    add_bias: bool = True,
    w_init: InitializerLike = "tensorweave-layers:glorot_uniform",
    b_init: InitializerLike = "tensorweave-layers:zeros",
    name: str | None = None,
    share_state_with: tw.Module | None = None,
) -> tw.Module:
    """One Transformer decoder block on ``x`` (attending to ``context``), as a ``tw.Module``.

    Args:
        x: the target sequence ``[batch, time, width]``, ``width`` divisible by ``n_heads``.
        context: the encoded source ``[batch, t_c, d_c]`` for cross-attention (optional).
        n_heads, intermediate_dim, dropout, activation, normalize_first, epsilon, training,
            add_bias, w_init, b_init, name: as for ``TransformerEncoderBlock``.
        share_state_with: a block to reuse (shared weights) on ``x`` and ``context``.
    """
    who = owner("TransformerDecoderBlock", name)
    options = BlockOptions(
        n_heads,
        intermediate_dim,
        dropout,
        activation,
        normalize_first,
        epsilon,
        training,
        add_bias,
        w_init,
        b_init,
    ).checked(x, who)
    if context is not None:
        check_sequence(context, "context", who)

    def build() -> tw.Layer:
        h = residual(x, lambda q: MHAttention(q, **options.attention(causal=True)), options)
        if context is not None:
            h = residual(h, lambda q: MHAttention(q, context, **options.attention()), options)
        return residual(h, lambda q: feed_forward(q, options), options)

    sequences = [x] if context is None else [x, context]
    return fold(sequences, build, name, share_state_with, options, "transformer_decoder_block")
