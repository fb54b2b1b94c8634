"""``TransformerClassifier``: a Transformer encoder that classifies token sequences (Keras's
"Text classification with Transformer" example).

Token ids ``[batch, time]`` are embedded (``Lookup``) and summed with a learned
``PositionEmbedding``; ``n_layers`` ``TransformerEncoderBlock`` s (post-norm, as the
example) follow, then the average over the steps (padding left out when ``mask_zero``:
id ``0`` is padding), dropout, and a dense layer of ``classes``.

>>> import numpy as np, tensorweave as tw
>>> net = tw.models["TransformerClassifier.v1"]((None,), vocab_size=30, seq_len=12, classes=3, n_units=8, n_heads=2)
>>> net.shape, net.compute(np.ones((2, 5), "int64")).shape.as_list()
((None, 3), [2, 3])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorweave as tw
from tensorweave_models.build import check_rate, finish, input_layer, layer, scope

__all__ = ["TransformerClassifier"]


@tw.checks_keywords
def TransformerClassifier(
    x: tw.Layer | Sequence[int | None],
    *,
    vocab_size: int,
    seq_len: int,
    classes: int = 2,
    n_units: int = 32,
    n_heads: int = 2,
    n_layers: int = 1,
    intermediate_dim: int | None = None,
    dropout: float = 0.1,
    mask_zero: bool = False,
    activation: Any = "relu",
    classifier_activation: Any = "softmax",
    name: str | None = None,
) -> tw.Module:
    """A Transformer classifier on token ids ``x``, as a ``tw.Module`` giving ``[batch,
    classes]``.

    Args:
        x: integer token ids ``[batch, time]`` (a layer), or one example's shape.
        vocab_size, seq_len, n_units, n_heads, n_layers, dropout, activation: as
            ``TransformerLM``'s (``intermediate_dim`` defaults to ``2 * n_units``).
        classes: the number of classes.
        mask_zero: id 0 is padding: attention and the average leave it out.
        classifier_activation: the last layer's activation (``None``: logits).
        name: the module's name (default ``"transformer_classifier"``).
    """
    with scope("TransformerClassifier", name, "transformer_classifier") as names:
        who = names.who
        classes = tw.positive_int(classes, "classes", who)
        n_layers = tw.positive_int(n_layers, "n_layers", who)
        dropout = check_rate(dropout, who, "dropout")
        hidden = 2 * n_units if intermediate_dim is None else intermediate_dim
        ids = input_layer(x, who, rank=2, what="token ids [batch, time]", dtype="int64")
        tokens = layer("Lookup.v1")(
            ids, vocab_size, n_units, mask_zero=mask_zero, name=names("token_embedding")
        )
        positions = layer("PositionEmbedding.v1")(tokens, seq_len, name=names("position_embedding"))
        h = layer("Add.v1")(tokens, positions, name=names("embeddings_add"))
        for i in range(n_layers):
            h = layer("TransformerEncoderBlock.v1")(
                h,
                n_heads=n_heads,
                intermediate_dim=hidden,
                dropout=dropout,
                activation=activation,
                epsilon=1e-6,
                name=names(f"transformer_layer_{i}"),
            )
        h = layer("GlobalAvgPool.v1")(h, name=names("pool"))
        if dropout:
            h = layer("Dropout.v1")(h, dropout, name=names("dropout"))
        out = layer("FC.v1")(
            h, classes, activation=classifier_activation, name=names("predictions")
        )
        return finish(ids, out, names)
