"""``TransformerEncoderBlock``: self-attention and a feed-forward network, each a residual
sub-layer, as a ``tw.Module`` (keras_hub's ``TransformerEncoder``).

``x`` ``[batch, time, width]`` -> the same shape. Self-attention (``MHAttention`` with
``n_heads`` heads of ``width // n_heads`` units; ``causal=True`` for a decoder-only model)
then ``Linear(FC(h, intermediate_dim, activation), width)``; each sub-layer adds its input
back and normalises after (post-norm) or before (``normalize_first=True``, pre-norm).
``dropout`` drops attention weights and each sub-layer's output while ``training``. A
``padding_mask`` on ``x`` (``Lookup(..., mask_zero=True)``) hides padded keys and becomes a
second input of the module; the output keeps it. The module's layers are the pack's own,
so ``block.reuse_with(x2)`` shares every weight and ``block.reuse_with(x, training=False)``
turns dropout off.

>>> import numpy as np, tensorflow as tf, tensorweave as tw
>>> ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
>>> x = tw.layers["Lookup.v1"](ids, vocab_size=20, n_units=8, mask_zero=True)
>>> block = TransformerEncoderBlock(x, n_heads=2, intermediate_dim=16)
>>> type(block).__name__, block.shape, len(block.inputs), block.padding_mask is x.padding_mask
('Module', (None, None, 8), 2, True)
>>> tw.compile(block)(np.array([[3, 5, 0]])).shape.as_list()
[1, 3, 8]
"""

from __future__ import annotations

import tensorweave as tw

from ._param_init import ActivationLike, InitializerLike
from ._shapes import owner
from ._transformer import BlockOptions, feed_forward, fold, residual
from .attention import MHAttention

__all__ = ["TransformerEncoderBlock"]


def TransformerEncoderBlock(  # a registered layer, named like a class
    x: tw.Layer,
    *,
    n_heads: int,
    intermediate_dim: int,
    causal: bool = False,
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
    """One Transformer encoder block on ``x``, as a ``tw.Module`` (see the module).

    Args:
        x: the sequence ``[batch, time, width]``, ``width`` divisible by ``n_heads``.
        n_heads: attention heads.
        intermediate_dim: the width of the feed-forward network's hidden layer.
        causal: let each step attend to itself and earlier steps only.
        dropout: the rate of the attention weights and sub-layer outputs dropped.
        activation: the feed-forward network's activation.
        normalize_first: pre-norm instead of post-norm.
        epsilon: the ``LayerNorm`` s' epsilon.
        training: whether dropout is active.
        add_bias, w_init, b_init: for every projection.
        name: the module's name (and its layers' scope).
        share_state_with: a block to reuse (shared weights) on ``x`` instead.
    """
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
    ).checked(x, owner("TransformerEncoderBlock", name))

    def build() -> tw.Layer:
        attended = residual(
            x, lambda h: MHAttention(h, **options.attention(causal=causal)), options
        )
        return residual(attended, lambda h: feed_forward(h, options), options)

    return fold([x], build, name, share_state_with, options, "transformer_encoder_block")
