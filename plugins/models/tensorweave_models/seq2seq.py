"""``Seq2Seq``: an encoder-decoder RNN with attention (Luong et al., 2015; Bahdanau et
al., 2015), for translation-like tasks.

The encoder embeds the source ids and runs an RNN (``cell``: LSTM by default) over them; the
decoder embeds the target ids (the expected output shifted right, starting with a start
token: *teacher forcing*) and runs its own RNN from the encoder's final states; each decoder
step attends over the encoder's outputs (``attention="luong"``: dot-product scores, the
``Attention`` layer; ``"bahdanau"``: additive scores, ``AdditiveAttention``), and the
context and the decoder output together give the next token's logits
``[batch, target_time, target_vocab_size]``. Id ``0`` is padding in both sequences: the
RNNs, attention and the sequence losses leave it out.

``greedy_decode`` runs the trained module one step at a time, feeding back its own
predictions, for inference.

>>> import numpy as np, tensorweave as tw
>>> net = tw.models["Seq2Seq.v1"]((None,), (None,), source_vocab_size=12, target_vocab_size=9, n_units=8)
>>> net.shape, net.compute(np.ones((2, 5), "int64"), np.ones((2, 3), "int64")).shape.as_list()
((None, None, 9), [2, 3, 9])
>>> greedy_decode(net, np.ones((2, 5), "int64"), start_id=1, max_length=4).shape
(2, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_models.build import check_rate, finish, input_layer, layer, rnn_layer, scope

__all__ = ["Seq2Seq", "greedy_decode", "ATTENTIONS"]

#: attention= -> the layers pack's layer that scores the encoder steps
ATTENTIONS = {"luong": "Attention.v1", "bahdanau": "AdditiveAttention.v1"}


@tw.checks_keywords
def Seq2Seq(
    source: tw.Layer | Sequence[int | None],
    target: tw.Layer | Sequence[int | None],
    *,
    source_vocab_size: int,
    target_vocab_size: int,
    n_units: int = 128,
    embedding_dim: int | None = None,
    cell: Any = "tensorweave-rnn:LSTMCell.v1",
    attention: str = "luong",
    dropout: float = 0.0,
    name: str | None = None,
) -> tw.Module:
    """An attentional encoder-decoder on ``source`` and ``target`` ids, as a ``tw.Module``
    with two inputs giving the target logits.

    Args:
        source: source token ids ``[batch, source_time]`` (a layer), or one example's shape.
        target: the decoder's input ids ``[batch, target_time]`` (start token first), or
            one example's shape.
        source_vocab_size, target_vocab_size: the vocabularies (id 0 is padding).
        n_units: the width of both RNNs and of the attentional layer.
        embedding_dim: the width of the embeddings (default ``n_units``).
        cell: the RNN cell, a registered name (``"GRUCell.v1"``…) or factory.
        attention: ``"luong"`` (dot-product) or ``"bahdanau"`` (additive).
        dropout: the dropout rate of the cells' inputs.
        name: the module's name (default ``"seq2seq"``).
    """
    with scope("Seq2Seq", name, "seq2seq") as names:
        who = names.who
        n_units = tw.positive_int(n_units, "n_units", who)
        width = tw.positive_int(
            n_units if embedding_dim is None else embedding_dim, "embedding_dim", who
        )
        dropout = check_rate(dropout, who, "dropout")
        if attention not in ATTENTIONS:
            raise tw.ArgumentError(
                f"{who}: attention must be one of {sorted(ATTENTIONS)}, got {attention!r}. "
                "Fix: 'luong' scores with dot products, 'bahdanau' with a small network."
            )
        ids = "token ids [batch, time]"
        src = input_layer(source, who, rank=2, what=ids, dtype="int64")
        tgt = input_layer(target, who, rank=2, what=ids, dtype="int64")
        cell_options: dict[str, Any] = {"dropout": dropout} if dropout else {}
        src_emb = layer("Lookup.v1")(
            src, source_vocab_size, width, mask_zero=True, name=names("source_embedding")
        )
        encoder = rnn_layer("RNN.v1")(
            src_emb,
            cell=cell,
            n_units=n_units,
            return_sequences=True,
            name=names("encoder"),
            **cell_options,
        )
        tgt_emb = layer("Lookup.v1")(
            tgt, target_vocab_size, width, mask_zero=True, name=names("target_embedding")
        )
        decoder = rnn_layer("RNN.v1")(
            tgt_emb,
            *encoder.final_state,
            cell=cell,
            n_units=n_units,
            return_sequences=True,
            name=names("decoder"),
            **cell_options,
        )
        context = layer(ATTENTIONS[attention])(decoder, encoder, encoder, name=names("attention"))
        joined = layer("Concat.v1")(context, decoder, name=names("attention_concat"))
        h = layer("FC.v1")(joined, n_units, activation="tanh", name=names("attention_output"))
        logits = layer("Linear.v1")(h, target_vocab_size, name=names("logits"))
        return finish([src, tgt], logits, names)


def greedy_decode(
    module: tw.Module,
    source: Any,
    *,
    start_id: int,
    max_length: int,
    end_id: int | None = None,
) -> np.ndarray:
    """The target ids a trained ``Seq2Seq`` module predicts for ``source``, one step at a
    time: each step feeds the tokens so far (``start_id`` first) and appends the most
    likely next one. Rows that produced ``end_id`` are padded with ``0`` after it.

    Returns ``[batch, max_length]`` ids (without the start token).
    """
    infer = tw.compile(tw.with_options(module, training=False))
    src = np.asarray(source, dtype="int64")
    out = np.full((src.shape[0], 1), start_id, dtype="int64")
    for _ in range(tw.positive_int(max_length, "max_length", "greedy_decode")):
        logits = np.asarray(infer(src, out))
        out = np.concatenate([out, logits[:, -1].argmax(-1)[:, None].astype("int64")], axis=1)
    tokens = out[:, 1:]
    if end_id is not None:
        ended = np.cumsum(tokens == end_id, axis=1) - (tokens == end_id) > 0
        tokens = np.where(ended, 0, tokens)
    return tokens
