"""``StringLookup`` and ``IntegerLookup``: tokens to indices, as ``keras.layers.StringLookup``
and ``keras.layers.IntegerLookup``.

The index space is Keras's: the mask token (if any, ``output_mode="int"`` only) is 0, then
``num_oov_indices`` out-of-vocabulary indices, then the vocabulary. A token not in the
vocabulary gets an OOV index (with several, chosen by hashing the token, as Keras), never an
error; with ``num_oov_indices=0`` an unseen token is an error at run time. The vocabulary is
given (``vocabulary=[...]`` or a text file, one token per line) or learned by
``layer.adapt(data)`` in one streaming pass that counts tokens and orders them as Keras does:
most frequent first, ties broken by the larger token first (Keras sorts by count, then
token, and reverses). ``max_tokens`` caps the size, special indices included.

The vocabulary is kept in variables (the tokens in index order, and a sorted key per token
with its position for the lookup), not in a hash table: checkpoints and SavedModels carry an
adapted vocabulary like any weight.

>>> import tensorweave as tw
>>> x = tw.Input(shape=(), dtype="string", name="city")
>>> look = StringLookup(x, vocabulary=["paris", "rome"])
>>> tw.compile(look)(["rome", "oslo", "paris"]).numpy().tolist()
[2, 0, 1]
>>> look.adapt(["oslo", "rome", "oslo", "paris", "rome", "oslo"])
>>> look.get_vocabulary()
['[UNK]', 'oslo', 'rome', 'paris']
"""

from __future__ import annotations

from collections.abc import Sequence

import tensorweave as tw
from tensorweave_layers.preprocessing.index_lookup import IndexLookup

__all__ = ["IntegerLookup", "StringLookup"]


class StringLookup(IndexLookup):
    """Map strings to integer indices (see the module for the index space).

    Args:
        x: an input of dtype string (``tw.Input(shape=(), dtype="string")``).
        max_tokens: the most indices, special ones included (``None``: no cap).
        num_oov_indices: indices for unseen tokens (several: chosen by hashing).
        mask_token: a token mapped to index 0 (``None``: no mask).
        oov_token: what ``get_vocabulary`` shows for the OOV indices.
        vocabulary: the tokens (a list, or the path of a file with one per line); ``None``
            to learn them with ``adapt``.
        output_mode: ``"int"`` (indices), ``"one_hot"``, ``"multi_hot"`` or ``"count"``
            (vectors); int64, as Keras's; or ``"tf_idf"`` (float32 counts times the idf
            weights, given or learned by ``adapt``).
        idf_weights: with ``output_mode="tf_idf"`` and a vocabulary, one weight per token
            (the OOV indices get their mean, as Keras).
        sparse: the vectors (not ``output_mode="int"``) as a ``tf.SparseTensor``, as Keras's.
        adapt: whether ``tensorweave train`` adapts it on the training split before
            training: by default without ``vocabulary``; ``false`` with it.
        invert: map indices (integers) back to their tokens, as Keras's ``invert=True``.
    """

    kind = "string"
    layer_type = "StringLookup"

    def __init__(
        self,
        x: tw.Layer,
        *,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: str | None = None,
        oov_token: str = "[UNK]",
        vocabulary: Sequence[str] | str | None = None,
        output_mode: str = "int",
        adapt: bool | None = None,
        invert: bool = False,
        idf_weights: Sequence[float] | None = None,
        sparse: bool = False,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        super().__init__(
            x, max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
            oov_token=oov_token, vocabulary=vocabulary, output_mode=output_mode, adapt=adapt, name=name, invert=invert,
            share_state_with=share_state_with, idf_weights=idf_weights, sparse=sparse,
        )  # fmt: skip


class IntegerLookup(IndexLookup):
    """Map integers (ids, codes, labels) to contiguous indices; arguments as ``StringLookup``'s,
    with integer tokens (``oov_token=-1``, ``mask_token`` an integer or ``None``)."""

    kind = "int"
    layer_type = "IntegerLookup"

    def __init__(
        self,
        x: tw.Layer,
        *,
        max_tokens: int | None = None,
        num_oov_indices: int = 1,
        mask_token: int | None = None,
        oov_token: int = -1,
        vocabulary: Sequence[int] | str | None = None,
        output_mode: str = "int",
        adapt: bool | None = None,
        invert: bool = False,
        idf_weights: Sequence[float] | None = None,
        sparse: bool = False,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        super().__init__(
            x, max_tokens=max_tokens, num_oov_indices=num_oov_indices, mask_token=mask_token,
            oov_token=oov_token, vocabulary=vocabulary, output_mode=output_mode, adapt=adapt, name=name, invert=invert,
            share_state_with=share_state_with, idf_weights=idf_weights, sparse=sparse,
        )  # fmt: skip
