"""What the Transformer blocks share: a residual sub-layer, the feed-forward network, and
folding the block into a ``tw.Module`` that takes the sequences' padding masks.

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
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import tensorweave as tw
from tensorweave.graph.naming import unique_name

from ._attention import check_dropout, check_sequence
from ._param_init import ActivationLike, InitializerLike
from .dropout import Dropout
from .fc import FC
from .layer_norm import LayerNorm
from .linear import Linear

__all__ = ["BlockOptions", "residual", "feed_forward", "fold"]


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

    def checked(self, x: tw.Layer, who: str) -> BlockOptions:
        """These options, checked against the block's input ``x``."""
        width = check_sequence(x, "the sequence", who)
        tw.positive_int(self.intermediate_dim, "intermediate_dim", who)
        heads = tw.positive_int(self.n_heads, "n_heads", who)
        if width % heads:
            raise tw.ArgumentError(
                f"{who}: the width {width} is not divisible by n_heads={heads}. Fix: pick "
                "n_heads among its divisors (each head gets width // n_heads units)."
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
            dict(n_heads=self.n_heads, dropout=self.dropout, training=self.training, **self.weights)
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
