"""The Transformer blocks (``TransformerEncoderBlock``, ``TransformerDecoderBlock``) and what
they share: a residual sub-layer, the feed-forward network, and folding the block into a
``tw.Module`` that takes the sequences' padding masks.

A sub-layer is ``x + dropout(f(x))`` followed by a ``LayerNorm`` (post-norm, the original
Transformer and BERT), or ``x + dropout(f(LayerNorm(x)))`` (``normalize_first``, pre-norm,
GPT-2 and most models since), as keras_hub's ``TransformerEncoder``/``Decoder``. Every
layer is one of this pack's (``MHAttention``, ``LayerNorm``, ``FC``, ``Linear``,
``Dropout``), so the blocks compute what those layers compute.

>>> import tensorweave as tw
>>> x = tw.Input(batch_shape=(None, None, 4))
>>> options = BlockOptions(n_heads=2, intermediate_dim=8)
>>> residual(x, lambda h: feed_forward(h, options), options).shape
(None, None, 4)

``TransformerEncoderBlock``: self-attention and a feed-forward network, each a residual
sub-layer, as a ``tw.Module`` (keras_hub's ``TransformerEncoder``).

``x`` ``[batch, time, width]`` -> the same shape. Self-attention (``MHAttention`` with
``n_heads`` heads of ``head_dim`` units, ``width // n_heads`` by default; ``causal=True``
for a decoder-only model) then ``Linear(FC(h, intermediate_dim, activation), width)``; each sub-layer adds its input
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

``TransformerDecoderBlock``: causal self-attention, cross-attention over an encoded
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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import tensorweave as tw
from tensorweave.graph.naming import unique_name
from tensorweave_layers._shapes import owner
from tensorweave_layers.attention.multi_head import MHAttention
from tensorweave_layers.attention.weights import check_dropout, check_sequence
from tensorweave_layers.dense.fc import FC
from tensorweave_layers.dense.linear import Linear
from tensorweave_layers.dropout.dropout import Dropout
from tensorweave_layers.norm.layer_norm import LayerNorm
from tensorweave_layers.options.weights import ActivationLike, InitializerLike

__all__ = [
    "BlockOptions",
    "residual",
    "feed_forward",
    "fold",
    "TransformerEncoderBlock",
    "TransformerDecoderBlock",
]


@dataclass(frozen=True)
class BlockOptions:
    """The options a block passes to its layers (see the blocks' docstrings)."""

    n_heads: int
    intermediate_dim: int
    dropout: float = 0.0
    activation: ActivationLike = "tensorweave-layers:relu"
    normalize_first: bool = False
    epsilon: float = 1e-5
    training: bool = True
    add_bias: bool = True
    w_init: InitializerLike = "tensorweave-layers:glorot_uniform"
    b_init: InitializerLike = "tensorweave-layers:zeros"
    head_dim: int | None = None

    def checked(self, x: tw.Layer, who: str) -> BlockOptions:
        """These options, checked against the block's input ``x``."""
        width = check_sequence(x, "the sequence", who)
        tw.positive_int(self.intermediate_dim, "intermediate_dim", who)
        heads = tw.positive_int(self.n_heads, "n_heads", who)
        if self.head_dim is not None:
            tw.positive_int(self.head_dim, "head_dim", who)
        elif width % heads:
            raise tw.ArgumentError(
                f"{who}: the width {width} is not divisible by n_heads={heads}. Fix: pick "
                "n_heads among its divisors (each head gets width // n_heads units), or "
                "pass head_dim= (Keras's key_dim)."
            )
        check_dropout(self.dropout, who)
        return self

    @property
    def weights(self) -> dict[str, Any]:
        """The keyword arguments of the layers with weights."""
        return {"add_bias": self.add_bias, "w_init": self.w_init, "b_init": self.b_init}

    def attention(self, **kwargs: Any) -> dict[str, Any]:
        """The keyword arguments of an ``MHAttention`` of the block."""
        return (
            dict(
                n_heads=self.n_heads,
                head_dim=self.head_dim,
                dropout=self.dropout,
                training=self.training,
                **self.weights,
            )
            | kwargs
        )


def residual(x: tw.Layer, body: Callable[[tw.Layer], tw.Layer], options: BlockOptions) -> tw.Layer:
    """``x + dropout(body(x))`` then ``LayerNorm``, or with the norm first (see module)."""
    h = LayerNorm(x, epsilon=options.epsilon) if options.normalize_first else x
    h = body(h)
    if options.dropout:
        h = Dropout(h, options.dropout, training=options.training)
    out = h + x
    return out if options.normalize_first else LayerNorm(out, epsilon=options.epsilon)


def feed_forward(x: tw.Layer, options: BlockOptions) -> tw.Layer:
    """``Linear(FC(x, intermediate_dim, activation), width)``."""
    hidden = FC(x, options.intermediate_dim, activation=options.activation, **options.weights)
    return Linear(hidden, x.shape[-1], **options.weights)


def fold(
    sequences: Sequence[tw.Layer],
    build: Callable[[], tw.Layer],
    name: str | None,
    share_state_with: tw.Module | None,
    options: BlockOptions,
    kind: str,
) -> tw.Module:
    """The block built by ``build`` on ``sequences``, as a ``tw.Module`` named after
    ``kind`` (``transformer_encoder_block_1``) whose inputs are the sequences and their
    padding masks; or ``share_state_with`` reused on them."""
    inputs: list[tw.Layer] = []
    for seq in sequences:
        inputs.append(seq)
        if seq.padding_mask is not None:
            inputs.append(seq.padding_mask)
    if share_state_with is not None:
        if not isinstance(share_state_with, tw.Module):
            raise TypeError(
                f"share_state_with must be a block (a tw.Module), got "
                f"{type(share_state_with).__name__}."
            )
        return share_state_with.reuse_with(*inputs, name=name, training=options.training)
    full = name if name is not None else unique_name(kind)
    with tw.name_scope(full.rsplit("/", 1)[-1]):  # its layers read "block/linear"
        output = build()
    return tw.Module(inputs, output, name=full)


@tw.checks_keywords
def TransformerEncoderBlock(  # a registered layer, named like a class
    x: tw.Layer,
    *,
    n_heads: int,
    intermediate_dim: int,
    head_dim: int | None = None,
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
        head_dim: the width of each head's queries, keys and values (Keras's ``key_dim``);
            by default ``width // n_heads``, as ``keras_hub.layers.TransformerEncoder``.
            The keras.io examples' ``MultiHeadAttention(num_heads, key_dim=embed_dim)``
            block is ``head_dim=width``.
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
        head_dim,
    ).checked(x, owner("TransformerEncoderBlock", name))

    def build() -> tw.Layer:
        attended = residual(
            x, lambda h: MHAttention(h, **options.attention(causal=causal)), options
        )
        return residual(attended, lambda h: feed_forward(h, options), options)

    return fold([x], build, name, share_state_with, options, "transformer_encoder_block")


@tw.checks_keywords
def TransformerDecoderBlock(  # a registered layer, named like a class
    x: tw.Layer,
    context: tw.Layer | None = None,
    *,
    n_heads: int,
    intermediate_dim: int,
    head_dim: int | None = None,
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
        n_heads, intermediate_dim, head_dim, dropout, activation, normalize_first, epsilon,
            training, add_bias, w_init, b_init, name: as for ``TransformerEncoderBlock``.
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
        head_dim,
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
