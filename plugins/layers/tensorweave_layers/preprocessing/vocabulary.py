"""Learning a lookup's vocabulary with ``adapt``, as Keras's ``IndexLookup``: token counts
(most frequent first, ties by the larger token) and, for ``output_mode="tf_idf"``, the
inverse document frequencies ``log(1 + documents / (1 + documents with the token))``, the
special (OOV) indices getting their mean and the indices past the vocabulary 0.

>>> [round(float(w), 3) for w in idf_weights([1, 3], documents=3, depth=4, token_start=1)]
[0.738, 0.916, 0.56, 0.0]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

import tensorweave as tw
from tensorweave_layers.preprocessing._adapt import no_data

__all__ = ["Counts", "idf_weights", "learn_vocabulary", "padded_idf"]


def padded_idf(idf: Any, depth: int, token_start: int) -> np.ndarray:
    """``depth`` weights: the mean of ``idf`` for the ``token_start`` special indices, then
    ``idf`` (one per token), then 0 (as Keras pads given or learned weights)."""
    idf = np.asarray(idf, "float32").reshape([-1])
    weights = np.zeros([depth], "float32")
    weights[:token_start] = idf.mean() if len(idf) else 0.0
    weights[token_start : token_start + len(idf)] = idf
    return weights


def idf_weights(
    holding: Sequence[int], *, documents: int, depth: int, token_start: int
) -> np.ndarray:
    """The ``depth`` tf-idf weights of tokens held by ``holding`` of ``documents`` documents
    each (Keras's ``log(1 + documents / (1 + holding))``), padded by ``padded_idf``."""
    docs = np.asarray(holding, "float64")
    return padded_idf(np.log(1 + documents / (1 + docs)), depth, token_start)


class Counts:
    """Token counts (and, for ``tf_idf``, document counts) over batches of a lookup's tokens.

    As Keras's, a batch of rank 1 is one document; a batch of rank 2 has one per row.
    """

    def __init__(self, layer: Any) -> None:  # an IndexLookup
        self.layer = layer
        self.counts: Counter[Any] = Counter()
        self.documents: Counter[Any] = Counter()
        self.rows = 0
        self.seen = False

    def update(self, batch: np.ndarray) -> None:
        """Count the tokens of ``batch``."""
        layer = self.layer
        if layer.kind == "string" and batch.dtype.kind not in "USO":
            raise tw.InputValueError(
                f"{layer.owner}.adapt got {batch.dtype} values, not strings. Fix: adapt on "
                "the string column (numbers go to IntegerLookup.v1 or Normalization.v1)."
            )
        if layer.kind == "int" and batch.dtype.kind not in "iu":
            raise tw.InputValueError(f"{layer.owner}.adapt got {batch.dtype} values, not integers.")
        if not batch.size:
            return
        self.seen = True
        values, n = np.unique(batch.ravel(), return_counts=True)
        for value, k in zip(values.tolist(), n.tolist(), strict=True):
            self.counts[layer._plain(value)] += k
        if layer.output_mode == "tf_idf":
            rows = batch.reshape([1, -1]) if batch.ndim <= 1 else batch.reshape([len(batch), -1])
            self.rows += len(rows)
            for row in rows:
                self.documents.update({layer._plain(v) for v in row.tolist()})

    def finish(self) -> None:
        """Set the vocabulary and idf weights (``AdaptError`` when no token came)."""
        layer = self.layer
        if not self.seen:
            raise no_data(layer.owner)
        specials = [layer._plain(t) for t in (layer.mask_token, layer.oov_token) if t is not None]
        learn_vocabulary(layer, self.counts, self.documents, self.rows, specials=specials)


def learn_vocabulary(
    layer: Any,
    counts: Counter[Any],
    documents: Counter[Any],
    rows: int,
    *,
    specials: Sequence[Any] = (),
) -> None:
    """Set ``layer``'s vocabulary from token ``counts`` as Keras ranks it (most frequent
    first, ties by the larger token; ``specials`` left out; cut to ``max_tokens``) and, for
    ``output_mode="tf_idf"``, its idf weights from the ``documents`` holding each token of
    ``rows`` documents. The one rule of the lookups and ``TextVectorization``."""
    for special in specials:
        counts.pop(special, None)
    ranked = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    if layer.max_tokens is not None:
        ranked = ranked[: max(layer.max_tokens - layer.token_start, 0)]
    layer.set_vocabulary([t for t, _ in ranked])
    if layer.output_mode == "tf_idf":
        holding = [documents[t] for t, _ in ranked]
        layer.state.idf_weights.assign(
            idf_weights(holding, documents=rows, depth=layer.depth, token_start=layer.token_start)
        )
