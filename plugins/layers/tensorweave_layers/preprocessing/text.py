"""``TextVectorization``: raw text to token indices or vectors, as
``keras.layers.TextVectorization``.

Each string is standardized (``"lower_and_strip_punctuation"``: lower case, then Keras's
punctuation removed; ``"lower"``; ``"strip_punctuation"``; ``None``), split
(``"whitespace"``, ``"character"``, ``None``: the whole string is one token), turned into
n-grams (``ngrams=2``: the words and the pairs of words, joined by a space) and looked up in
the vocabulary, in Keras's index space: in ``output_mode="int"`` 0 is the padding (``""``),
1 the out-of-vocabulary index (``"[UNK]"``), then the vocabulary, the rows padded with 0 (or
cut) to ``output_sequence_length``; in ``"multi_hot"``, ``"count"`` and ``"tf_idf"`` one
entry per index (0: OOV), ``max_tokens`` wide. ``adapt`` learns the vocabulary (most
frequent first, ties by the larger token, as Keras; at most ``max_tokens`` indices) and, for
``tf_idf``, the inverse document frequencies ``log(1 + documents / (1 + documents with the
token))`` (the OOV index gets their mean, as Keras).

>>> import tensorweave as tw
>>> text = tw.Input(shape=(), dtype="string", name="text")
>>> vec = TextVectorization(text, output_sequence_length=4)
>>> vec.adapt(["The cat sat.", "the dog!", "a cat"])
>>> vec.get_vocabulary()
['', '[UNK]', 'the', 'cat', 'sat', 'dog', 'a']
>>> tw.compile(vec)(["the bird sat"]).numpy().tolist()
[[2, 1, 4, 0]]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.preprocessing._adapt import Adapter, adapt_option, no_data
from tensorweave_layers.preprocessing._encode import check_mode
from tensorweave_layers.preprocessing.index_lookup import IndexLookup
from tensorweave_layers.preprocessing.vocabulary import learn_vocabulary

__all__ = ["TextVectorization"]

#: Keras's punctuation (``DEFAULT_STRIP_REGEX``)
STRIP = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'
STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
SPLIT = ("whitespace", "character")
MODES = ("int", "multi_hot", "count", "tf_idf")


class TextVectorization(IndexLookup):
    """Turn strings into token indices (``"int"``) or vectors (see the module).

    Args:
        x: strings, one per example (``tw.Input(shape=(), dtype="string")`` or ``(1,)``).
        max_tokens: the most indices, the padding and OOV ones included (``None``: no cap;
            required by the vector modes when the vocabulary is adapted: their width).
        standardize: ``"lower_and_strip_punctuation"`` (default), ``"lower"``,
            ``"strip_punctuation"`` or ``None``.
        split: ``"whitespace"`` (default), ``"character"`` or ``None``.
        ngrams: ``None``, ``n`` (all n-grams from 1 to n) or a list of widths.
        output_mode: ``"int"`` (default), ``"multi_hot"``, ``"count"`` or ``"tf_idf"``.
        output_sequence_length: ``"int"`` rows padded with 0 or cut to this length
            (``None``: to the longest row of the batch).
        vocabulary: the tokens (a list or a file with one per line); ``None``: ``adapt``.
        idf_weights: with ``output_mode="tf_idf"`` and a vocabulary, one weight per token.
        adapt: whether ``tensorweave train`` adapts it on the training split (by default
            without ``vocabulary``).
    """

    kind = "string"
    layer_type = "TextVectorization"

    def __init__(
        self,
        x: tw.Layer,
        *,
        max_tokens: int | None = None,
        standardize: str | None = "lower_and_strip_punctuation",
        split: str | None = "whitespace",
        ngrams: int | Sequence[int] | None = None,
        output_mode: str = "int",
        output_sequence_length: int | None = None,
        vocabulary: Sequence[str] | str | None = None,
        idf_weights: Sequence[float] | None = None,
        adapt: bool | None = None,
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("TextVectorization", name)
        self.owner = owner
        if x.dtype != tf.string or x.sparse:
            raise tw.InputValueError(
                f"{owner} takes strings, but {describe(x)} is {x.dtype.name}. Fix: give it an "
                "input of dtype string (tw.Input(shape=(), dtype='string'))."
            )
        if len(x.shape) > 2 or (len(x.shape) == 2 and x.shape[-1] != 1):
            raise tw.ShapeError(
                f"{owner} takes one string per example, shape [batch] or [batch, 1], got "
                f"{describe(x)}."
            )
        if standardize not in (*STANDARDIZE, None):
            raise tw.ArgumentError(
                f"{owner}: standardize must be one of {STANDARDIZE} or None, got {standardize!r}."
            )
        if split not in (*SPLIT, None):
            raise tw.ArgumentError(f"{owner}: split must be one of {SPLIT} or None, got {split!r}.")
        self.standardize, self.split = standardize, split
        if ngrams is None:
            self.ngrams: tuple[int, ...] | None = None
        elif isinstance(ngrams, int):
            self.ngrams = tuple(range(1, tw.positive_int(ngrams, "ngrams", owner) + 1))
        else:
            self.ngrams = tuple(tw.positive_int(n, "ngrams", owner) for n in ngrams)
        if self.ngrams is not None and split is None:
            raise tw.ArgumentError(f"{owner}: ngrams needs split (the tokens to join).")
        self.output_mode = check_mode(output_mode, owner, MODES)
        if output_sequence_length is not None and output_mode != "int":
            raise tw.ArgumentError(
                f"{owner}: output_sequence_length is for output_mode='int' only."
            )
        self.output_sequence_length = (
            None
            if output_sequence_length is None
            else tw.positive_int(output_sequence_length, "output_sequence_length", owner)
        )
        self.mask_token, self.oov_token, self.num_oov_indices = "", "[UNK]", 1
        self.max_tokens = (
            None if max_tokens is None else tw.positive_int(max_tokens, "max_tokens", owner)
        )
        self.oov_start = 1 if output_mode == "int" else 0
        self.token_start = self.oov_start + 1
        self.vocabulary = (
            vocabulary if isinstance(vocabulary, str) or vocabulary is None else list(vocabulary)
        )
        self.given = None if vocabulary is None else self._tokens(self._read(vocabulary))
        self.adapt_from_config = adapt_option(adapt, self.given is not None, owner, "vocabulary=")
        self.idf_given = None if idf_weights is None else [float(w) for w in idf_weights]
        if output_mode == "tf_idf" and self.given is not None and self.idf_given is None:
            raise tw.ArgumentError(
                f"{owner}: output_mode='tf_idf' with a vocabulary needs idf_weights (one per "
                "token). Fix: give them, or adapt the layer instead."
            )
        if self.idf_given is not None and (
            output_mode != "tf_idf" or self.given is None or len(self.idf_given) != len(self.given)
        ):
            raise tw.ArgumentError(
                f"{owner}: idf_weights go with output_mode='tf_idf' and a vocabulary, one per "
                "token."
            )
        if output_mode == "int":
            self.depth = 0
            shape: tuple[int | None, ...] = (x.shape[0], self.output_sequence_length)
        else:
            if self.max_tokens is not None:
                self.depth = self.max_tokens
            elif self.given is not None:
                self.depth = self.token_start + len(self.given)
            else:
                raise tw.ArgumentError(
                    f"{owner}: output_mode={output_mode!r} makes vectors of one entry per "
                    "index, so their width must be known when the layer is built. Fix: give "
                    "max_tokens=N (or the vocabulary)."
                )
            shape = (x.shape[0], self.depth)
        out = tf.int64 if output_mode == "int" else tf.float32
        tw.Layer.__init__(self, x, shape=shape, dtype=out, name=name,
                          share_state_with=share_state_with)  # fmt: skip

    # --- text to tokens ------------------------------------------------------------------
    def tokenize(self, x: Any) -> tf.Tensor | tf.RaggedTensor:
        """The tokens of each string: standardized, split and n-grammed (ragged when split)."""
        x = tf.convert_to_tensor(x, tf.string)
        if self.split is not None and x.shape.rank == 2:
            x = tf.squeeze(x, -1)
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            x = tf.strings.lower(x)
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            x = tf.strings.regex_replace(x, STRIP, "")
        if self.split == "whitespace":
            x = tf.strings.split(x)
        elif self.split == "character":
            x = tf.strings.unicode_split(x, "UTF-8")
        if self.ngrams is not None:
            x = tf.strings.ngrams(x, ngram_width=self.ngrams, separator=" ")
        return x

    def adapter(self) -> Adapter:
        """A pass counting the tokens (and the documents holding each, for ``tf_idf``)."""
        return _TextCounts(self)

    def compute(self, x: Any) -> tf.Tensor:
        """Token indices (``"int"``) or one vector per string."""
        tokens = self.tokenize(x)
        if not isinstance(tokens, tf.RaggedTensor):  # no split: one token per string
            tokens = tf.RaggedTensor.from_tensor(tf.reshape(tokens, [-1, 1]))
        ids = tokens.with_flat_values(self.indices(tokens.flat_values))
        if self.output_mode == "int":
            length = self.output_sequence_length
            if length is None:
                return ids.to_tensor(default_value=0)
            return ids.to_tensor(default_value=0, shape=[None, length])
        hot = tf.one_hot(ids.to_tensor(default_value=-1), self.depth, dtype=tf.float32)
        if self.output_mode == "multi_hot":
            return tf.reduce_max(hot, axis=1)
        counts = tf.reduce_sum(hot, axis=1)
        if self.output_mode == "tf_idf":
            return counts * self.state.idf_weights
        return counts

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[Any]:
        """The tokens in index order, ``""`` and ``"[UNK]"`` first (int mode)."""
        tokens = [t.decode() for t in self.state.vocabulary.numpy().tolist()]
        if not include_special_tokens:
            return tokens
        return ([""] if self.oov_start else []) + ["[UNK]"] + tokens

    def adapted(self) -> dict[str, Any]:
        """The adapted vocabulary's size and first tokens, for a run's record."""
        return {"vocabulary_size": self.vocabulary_size(),
                "vocabulary_head": self.get_vocabulary()[:10]}  # fmt: skip


class _TextCounts:
    """Token and document counts over batches of strings."""

    def __init__(self, layer: TextVectorization) -> None:
        self.layer = layer
        self.counts: Counter[bytes] = Counter()
        self.documents: Counter[bytes] = Counter()
        self.rows = 0

    def update(self, batch: np.ndarray) -> None:
        """Count the tokens of ``batch`` (strings)."""
        if batch.dtype.kind not in "USO":
            raise tw.InputValueError(
                f"{self.layer.owner}.adapt got {batch.dtype} values, not strings. Fix: adapt "
                "on the text column."
            )
        if not batch.size:
            return
        tokens = self.layer.tokenize(tf.constant(batch.astype(object)))
        rows = tokens.to_list() if isinstance(tokens, tf.RaggedTensor) else [
            [t] for t in tokens.numpy().reshape(-1).tolist()
        ]  # fmt: skip
        self.rows += len(rows)
        for row in rows:
            self.counts.update(row)
            if self.layer.output_mode == "tf_idf":
                self.documents.update(set(row))

    def finish(self) -> None:
        """Set the vocabulary (Keras's order) and, for ``tf_idf``, the idf weights."""
        layer = self.layer
        if not self.rows:
            raise no_data(layer.owner)
        learn_vocabulary(layer, self.counts, self.documents, self.rows, specials=[b"", b"[UNK]"])
