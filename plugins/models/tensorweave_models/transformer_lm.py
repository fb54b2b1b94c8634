"""``TransformerLM``: a decoder-only, causal Transformer language model (GPT-2's layout).

Token ids ``[batch, time]`` are embedded (``ReversibleEmbedding``) and summed with a learned
``PositionEmbedding``; ``n_layers`` pre-norm ``TransformerDecoderBlock`` s (causal
self-attention, no cross-attention) and a final layer norm follow; the logits
``[batch, time, vocab_size]`` are the hidden states scored against the *same* embedding
table (tied input/output embeddings), so step ``t`` predicts token ``t + 1`` from tokens
``<= t`` only. Dropout (``dropout``) acts in training; ``module.reuse_with(ids,
training=False)`` is the inference network.

>>> import numpy as np, tensorweave as tw
>>> lm = tw.models["TransformerLM.v1"]((None,), vocab_size=50, seq_len=16, n_units=8, n_heads=2, n_layers=1)
>>> lm.shape, lm.compute(np.zeros((2, 5), "int64")).shape.as_list()
((None, None, 50), [2, 5, 50])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorweave as tw
from tensorweave_models.build import check_rate, finish, input_layer, layer, scope

__all__ = ["TransformerLM"]


@tw.checks_keywords
def TransformerLM(
    x: tw.Layer | Sequence[int | None],
    *,
    vocab_size: int,
    seq_len: int,
    n_units: int = 256,
    n_heads: int = 4,
    n_layers: int = 4,
    intermediate_dim: int | None = None,
    dropout: float = 0.1,
    activation: Any = "gelu",
    epsilon: float = 1e-5,
    name: str | None = None,
) -> tw.Module:
    """A causal Transformer language model on token ids ``x``, as a ``tw.Module``.

    Args:
        x: integer token ids ``[batch, time]`` (a layer), or one example's shape
            (``(None,)`` for any length, ``(seq_len,)``).
        vocab_size: the number of tokens (rows of the tied embedding table).
        seq_len: the longest sequence (rows of the position table).
        n_units: the model width (embedding and hidden size), divisible by ``n_heads``.
        n_heads: attention heads per block.
        n_layers: the number of decoder blocks.
        intermediate_dim: the feed-forward width (default ``4 * n_units``).
        dropout: the dropout rate after the embeddings and inside every block.
        activation: the feed-forward activation.
        epsilon: of every layer norm.
        name: the module's name (default ``"transformer_lm"``).
    """
    with scope("TransformerLM", name, "transformer_lm") as names:
        who = names.who
        vocab_size = tw.positive_int(vocab_size, "vocab_size", who)
        n_units = tw.positive_int(n_units, "n_units", who)
        n_layers = tw.positive_int(n_layers, "n_layers", who)
        dropout = check_rate(dropout, who, "dropout")
        hidden = tw.positive_int(
            4 * n_units if intermediate_dim is None else intermediate_dim, "intermediate_dim", who
        )
        ids = input_layer(x, who, rank=2, what="token ids [batch, time]", dtype="int64")
        tokens = layer("ReversibleEmbedding.v1")(
            ids, vocab_size, n_units, name=names("token_embedding")
        )
        positions = layer("PositionEmbedding.v1")(tokens, seq_len, name=names("position_embedding"))
        h = layer("Add.v1")(tokens, positions, name=names("embeddings_add"))
        if dropout:
            h = layer("Dropout.v1")(h, dropout, name=names("embeddings_dropout"))
        for i in range(n_layers):
            h = layer("TransformerDecoderBlock.v1")(
                h,
                n_heads=n_heads,
                intermediate_dim=hidden,
                dropout=dropout,
                activation=activation,
                normalize_first=True,
                epsilon=epsilon,
                name=names(f"transformer_layer_{i}"),
            )
        h = layer("LayerNorm.v1")(h, epsilon=epsilon, name=names("layer_norm"))
        logits = tokens.reuse_with(h, reverse=True, name=names("logits"))
        return finish(ids, logits, names)
