"""``IndexLookup``, what ``StringLookup``, ``IntegerLookup`` and ``TextVectorization`` share:
Keras's index space (the mask token, if any, at 0 in ``output_mode="int"``, then
``num_oov_indices`` out-of-vocabulary indices chosen by hashing, then the vocabulary), the
vocabulary kept in variables (the tokens in index order, and a sorted key per token with its
position, searched at run time: no hash table, so checkpoints and SavedModels carry it), the
encoding of ``output_mode`` (int64 vectors, float32 ``tf_idf``, dense or ``sparse``) and
``invert``. Adapting it is ``tensorweave_layers.preprocessing.vocabulary``'s.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.preprocessing._adapt import Adaptable, Adapter, adapt_option
from tensorweave_layers.preprocessing._encode import MODES, check_mode, encode, encoded_shape
from tensorweave_layers.preprocessing.vocabulary import Counts, padded_idf

__all__ = ["IndexLookup", "Vocabulary"]

Vocabulary = Sequence[Any] | str | None


class IndexLookup(Adaptable, tw.Layer):
    """What both lookups share; subclasses set the token kind."""

    kind = "string"  # or "int"
    layer_type = "StringLookup"

    def __init__(
        self,
        x: tw.Layer,
        *,
        max_tokens: int | None,
        num_oov_indices: int,
        mask_token: Any,
        oov_token: Any,
        vocabulary: Vocabulary,
        output_mode: str,
        adapt: bool | None,
        name: str | None,
        share_state_with: tw.Layer | None,
        invert: bool = False,
        idf_weights: Sequence[float] | None = None,
        sparse: bool = False,
    ) -> None:
        owner = name_owner(self.layer_type, name)
        self.owner = owner
        self.invert = bool(invert)
        wants = tf.string if self.kind == "string" else None
        if invert and (not x.dtype.is_integer or output_mode != "int"):
            raise tw.InputValueError(
                f"{owner}: invert=True maps indices back to tokens, so it takes integers and "
                f"output_mode='int'; got {describe(x)} {x.dtype.name}, output_mode="
                f"{output_mode!r}. Fix: feed it the indices of a lookup."
            )
        if invert:
            pass
        elif (wants and x.dtype != wants) or (not wants and not x.dtype.is_integer):
            need = "strings" if wants else "integers"
            raise tw.InputValueError(
                f"{owner} looks up {need}, but {describe(x)} is {x.dtype.name}. Fix: give it an "
                f"input of dtype {'string' if wants else 'int64'}"
                + (" (tw.Input(dtype='string'))." if wants else ", or use StringLookup.v1.")
            )
        if x.sparse:
            raise tw.ShapeError(f"{owner} expects a dense input, got {describe(x)}.")
        self.output_mode = check_mode(output_mode, owner, (*MODES, "tf_idf"))
        if sparse and output_mode == "int":
            raise tw.ArgumentError(
                f"{owner}: sparse=True makes the vectors of output_mode 'one_hot', 'multi_hot', "
                "'count' or 'tf_idf' tf.SparseTensors; output_mode='int' has none. Fix: drop "
                "sparse=True, or choose a vector output_mode."
            )
        self.num_oov_indices = int(num_oov_indices)
        if self.num_oov_indices < 0:
            raise tw.ArgumentError(f"{owner}: num_oov_indices must be >= 0, got {num_oov_indices}.")
        self.mask_token = mask_token
        self.oov_token = oov_token
        self.max_tokens = (
            None if max_tokens is None else tw.positive_int(max_tokens, "max_tokens", owner)
        )
        self.oov_start = 1 if mask_token is not None and output_mode == "int" else 0
        self.token_start = self.oov_start + self.num_oov_indices
        self.vocabulary = (
            vocabulary if isinstance(vocabulary, str) or vocabulary is None else list(vocabulary)
        )
        self.given = None if vocabulary is None else self._tokens(self._read(vocabulary))
        given = self.given
        self.idf_given = None if idf_weights is None else [float(w) for w in idf_weights]
        if output_mode == "tf_idf" and given is not None and self.idf_given is None:
            raise tw.ArgumentError(
                f"{owner}: output_mode='tf_idf' with a vocabulary needs idf_weights (one per "
                "token), as Keras's. Fix: give idf_weights=[...], or drop the vocabulary and adapt."
            )
        if self.idf_given is not None and (
            output_mode != "tf_idf" or given is None or len(self.idf_given) != len(given)
        ):
            raise tw.ArgumentError(
                f"{owner}: idf_weights go with output_mode='tf_idf' and a vocabulary, one per "
                f"token (got {len(self.idf_given)} weights, output_mode={output_mode!r}). Fix: "
                "give one weight per vocabulary token, or drop idf_weights."
            )
        self.adapt_from_config = adapt_option(adapt, given is not None, owner, "vocabulary=")
        if (
            self.max_tokens is not None
            and given
            and self.token_start + len(given) > self.max_tokens
        ):
            raise tw.ArgumentError(
                f"{owner}: {len(given)} tokens and {self.token_start} special indices "
                f"exceed max_tokens={self.max_tokens}. Fix: raise max_tokens or trim the "
                "vocabulary."
            )
        if output_mode == "int":
            self.depth = 0
        elif self.given is not None and self.max_tokens is None:
            self.depth = self.token_start + len(self.given)
        elif self.max_tokens is not None:
            self.depth = self.max_tokens
        else:
            raise tw.ArgumentError(
                f"{owner}: output_mode={output_mode!r} makes vectors of one entry per index, so "
                "their width must be known when the layer is built. Fix: give the vocabulary, "
                "or max_tokens=N for one learned by adapt (the width is then N, as Keras's "
                "pad_to_max_tokens=True)."
            )
        if output_mode != "int" and len(x.shape) > 2:
            raise tw.ShapeError(
                f"{owner}: output_mode={output_mode!r} takes an input of rank 1 or 2, got "
                f"{describe(x)}. Fix: reshape it, or use output_mode='int'."
            )
        shape = encoded_shape(x.shape, output_mode, self.depth)
        out = (tf.string if self.kind == "string" else tf.int64) if invert else tf.int64
        out = tf.float32 if output_mode == "tf_idf" else out
        super().__init__(x, shape=shape, dtype=out, name=name, share_state_with=share_state_with,
                         sparse=bool(sparse))  # fmt: skip

    # --- the vocabulary -------------------------------------------------------------------
    def _read(self, vocabulary: Sequence[Any] | str) -> list[Any]:
        if not isinstance(vocabulary, str):
            return list(vocabulary)
        if not os.path.isfile(vocabulary):
            raise tw.ArgumentError(
                f"{self.owner}: the vocabulary file {vocabulary!r} does not exist. Fix: give "
                "the path of a text file with one token per line, or a list of tokens."
            )
        with open(vocabulary, encoding="utf-8") as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        return lines

    def _tokens(self, tokens: Sequence[Any]) -> list[Any]:
        """``tokens`` as stored (bytes or ints), the special tokens at its head dropped."""
        if self.kind == "string":
            out: list[Any] = [t.encode() if isinstance(t, str) else bytes(t) for t in tokens]
        else:
            out = [int(t) for t in tokens]
        specials = self._specials()
        if specials and out[: len(specials)] == specials:
            out = out[len(specials) :]
        if len(set(out)) != len(out):
            dup = next(t for t, n in Counter(out).items() if n > 1)
            raise tw.ArgumentError(f"{self.owner}: the vocabulary repeats the token {dup!r}.")
        for special in (self.mask_token, self.oov_token):
            if special is not None and self._plain(special) in out:
                raise tw.ArgumentError(
                    f"{self.owner}: the vocabulary holds the special token {special!r}. Fix: "
                    "remove it (the layer adds its special indices itself)."
                )
        return out

    def _plain(self, token: Any) -> Any:
        if self.kind == "string":
            return token.encode() if isinstance(token, str) else token
        return int(token)

    def _specials(self) -> list[Any]:
        head = [self._plain(self.mask_token)] if self.oov_start else []
        return head + [self._plain(self.oov_token)] * self.num_oov_indices

    def _key(self, tokens: Any) -> tf.Tensor:
        if self.kind == "string":
            return tf.strings.to_hash_bucket_fast(tokens, 2**63 - 1)
        return tf.cast(tokens, tf.int64)

    def _arrays(self, tokens: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        dtype = object if self.kind == "string" else "int64"
        vocab = np.array(tokens, dtype=dtype).reshape([-1])
        keys = self._key(tf.constant(vocab, tf.string if self.kind == "string" else tf.int64))
        keys = keys.numpy()
        order = np.argsort(keys, kind="stable")
        if len(np.unique(keys)) != len(keys):
            raise tw.ArgumentError(f"{self.owner}: two tokens of the vocabulary hash alike.")
        return vocab, keys[order], order.astype("int64")

    def init_state(self) -> None:
        """``vocabulary`` (tokens in index order), ``keys`` (sorted) and ``order`` (the
        vocabulary position of each key): not trained, any length."""
        vocab, keys, order = self._arrays(self.given or [])
        dtype = tf.string if self.kind == "string" else tf.int64
        for name, value, vdtype in (("vocabulary", vocab, dtype), ("keys", keys, tf.int64),
                                    ("order", order, tf.int64)):  # fmt: skip
            setattr(self.state, name, tf.Variable(
                tf.constant(value, vdtype), shape=tf.TensorShape([None]), trainable=False, name=name
            ))  # fmt: skip
        if self.output_mode == "tf_idf":
            weights = padded_idf(self.idf_given or [], self.depth, self.token_start)
            self.state.idf_weights = tf.Variable(weights, trainable=False, name="idf_weights")

    def set_vocabulary(
        self, tokens: Sequence[Any], idf_weights: Sequence[float] | None = None
    ) -> None:
        """Replace the vocabulary (without the special tokens), as Keras's (and, for
        ``tf_idf``, the idf weights, one per token)."""
        tokens = self._tokens(tokens)
        if idf_weights is not None:
            if self.output_mode != "tf_idf" or len(idf_weights) != len(tokens):
                raise tw.ArgumentError(
                    f"{self.owner}: idf_weights go with output_mode='tf_idf', one per token "
                    f"(got {len(idf_weights)} for {len(tokens)} tokens)."
                )
            weights = padded_idf(idf_weights, self.depth, self.token_start)
            self.state.idf_weights.assign(weights)
        if self.max_tokens is not None and self.token_start + len(tokens) > self.max_tokens:
            tokens = tokens[: self.max_tokens - self.token_start]
        vocab, keys, order = self._arrays(tokens)
        self.state.vocabulary.assign(vocab)
        self.state.keys.assign(keys)
        self.state.order.assign(order)

    def get_vocabulary(self, include_special_tokens: bool = True) -> list[Any]:
        """The tokens in index order (strings decoded), special tokens first."""
        tokens = self.state.vocabulary.numpy().tolist()
        if self.kind == "string":
            tokens = [t.decode() for t in tokens]
        if not include_special_tokens:
            return tokens
        head = [self.mask_token] if self.oov_start else []
        return head + [self.oov_token] * self.num_oov_indices + tokens

    def vocabulary_size(self) -> int:
        """How many indices there are, special ones included."""
        return self.token_start + int(tf.size(self.state.vocabulary))

    def adapter(self) -> Adapter:
        """A pass counting the tokens and keeping the most frequent (Keras's order: by
        count, ties by the larger token), at most ``max_tokens`` indices."""
        return Counts(self)

    def adapted(self) -> dict[str, Any]:
        """The adapted vocabulary's size and first tokens, for a run's record."""
        return {
            "vocabulary_size": self.vocabulary_size(),
            "vocabulary_head": self.get_vocabulary()[:10],
        }

    # --- the lookup ----------------------------------------------------------------------
    def compute(self, x: Any) -> tf.Tensor:
        """The index of each token, encoded as ``output_mode`` says (with ``invert``: the
        token of each index, the OOV token for an index out of range)."""
        if self.invert:
            return self.tokens(x)
        if self.output_mode == "tf_idf":
            counts = encode(self.indices(x), "count", self.depth, tf.float32)
            out = counts * self.state.idf_weights
        else:
            out = encode(self.indices(x), self.output_mode, self.depth, tf.int64)
        return tf.sparse.from_dense(out) if self.sparse else out

    def tokens(self, x: Any) -> tf.Tensor:
        """The token of each index of ``x`` (``invert=True``)."""
        dtype = tf.string if self.kind == "string" else tf.int64
        specials = tf.constant(self._specials() or [], dtype=dtype, shape=[len(self._specials())])
        table = tf.concat([specials, tf.cast(self.state.vocabulary, dtype)], axis=0)
        index = tf.cast(x, tf.int64)
        inside = (index >= 0) & (index < tf.size(table, out_type=tf.int64))
        oov = tf.constant(self._plain(self.oov_token), dtype)
        return tf.where(inside, tf.gather(table, tf.clip_by_value(index, 0, tf.maximum(
            tf.size(table, out_type=tf.int64) - 1, 0))), oov)  # fmt: skip

    def indices(self, x: Any) -> tf.Tensor:
        """The index of each token of ``x`` (any shape), in Keras's index space."""
        flat = tf.reshape(x, [-1])
        keys, order, vocab = self.state.keys, self.state.order, self.state.vocabulary
        size = tf.size(keys, out_type=tf.int64)
        pos = tf.searchsorted(keys, self._key(flat), side="left", out_type=tf.int64)
        pos = tf.minimum(pos, tf.maximum(size - 1, 0))
        found = tf.cond(
            size > 0,
            lambda: tf.gather(order, pos),
            lambda: tf.zeros_like(pos),
        )
        hit = tf.cond(
            size > 0,
            lambda: tf.equal(tf.gather(vocab, found), flat),
            lambda: tf.zeros_like(flat, tf.bool),
        )
        index = tf.where(hit, found + self.token_start, self._oov(flat))
        if self.mask_token is not None:
            masked = tf.equal(flat, tf.constant(self._plain(self.mask_token), flat.dtype))
            index = tf.where(
                masked, tf.constant(0 if self.output_mode == "int" else -1, tf.int64), index
            )
        if self.num_oov_indices == 0:
            tf.debugging.assert_non_negative(
                index,
                message=f"{self.owner}: a token is not in the vocabulary and num_oov_indices=0. "
                "Fix: num_oov_indices=1 gives unseen tokens an index.",
            )
        return tf.reshape(index, tf.shape(x))

    def _oov(self, flat: tf.Tensor) -> tf.Tensor:
        n = self.num_oov_indices
        if n == 0:
            return tf.fill(tf.shape(flat), tf.constant(-1, tf.int64))
        if n == 1:
            return tf.fill(tf.shape(flat), tf.constant(self.oov_start, tf.int64))
        if self.kind == "int":
            bucket = tf.math.floormod(tf.cast(flat, tf.int64), n)
        else:
            bucket = tf.strings.to_hash_bucket_fast(flat, n)
        return bucket + self.oov_start
