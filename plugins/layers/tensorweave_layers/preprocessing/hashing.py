"""``Hashing``: each value to one of ``num_bins`` buckets by its hash, as
``keras.layers.Hashing`` (FarmHash64 of the value's string form, or keyed SipHash with a
``salt``). Strings, integers and floats (cast to int64 first, as Keras) are hashed; nothing
to adapt, so unseen values are never a problem: the same value always lands in the same bin.

>>> import tensorweave as tw
>>> x = tw.Input(shape=(), dtype="string", name="city")
>>> bins = tw.compile(Hashing(x, num_bins=3))(["paris", "rome", "paris"]).numpy().tolist()
>>> bins[0] == bins[2] and all(0 <= b < 3 for b in bins)
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import tensorflow as tf

import tensorweave as tw
from tensorweave_layers._shapes import owner as name_owner
from tensorweave_layers._spatial import describe
from tensorweave_layers.preprocessing._encode import check_mode, encode, encoded_shape

__all__ = ["Hashing"]


class Hashing(tw.Layer):
    """Hash values into ``num_bins`` buckets.

    Args:
        x: strings or numbers.
        num_bins: how many buckets (with ``mask_value``, bucket 0 is the mask's).
        mask_value: a value mapped to bucket 0; the others hash into ``1 ... num_bins - 1``.
        salt: a key for a keyed (SipHash) hash: one integer or two.
        output_mode: ``"int"`` (int64 bins), ``"one_hot"``, ``"multi_hot"`` or ``"count"``.
    """

    def __init__(
        self,
        x: tw.Layer,
        *,
        num_bins: int,
        mask_value: Any = None,
        salt: int | Sequence[int] | None = None,
        output_mode: str = "int",
        name: str | None = None,
        share_state_with: tw.Layer | None = None,
    ) -> None:
        owner = name_owner("Hashing", name)
        if x.dtype != tf.string and not (x.dtype.is_integer or x.dtype.is_floating):
            raise tw.InputValueError(f"{owner} hashes strings or numbers, not {describe(x)}.")
        self.num_bins = tw.positive_int(num_bins, "num_bins", owner)
        self.mask_value = mask_value
        if salt is None or isinstance(salt, int):
            self.salt = None if salt is None else [salt, salt]
        elif len(salt) == 2:
            self.salt = [int(s) for s in salt]
        else:
            raise tw.ArgumentError(f"{owner}: salt is one integer or two, got {salt!r}.")
        self.output_mode = check_mode(output_mode, owner)
        if output_mode != "int" and (x.sparse or len(x.shape) > 2):
            raise tw.ShapeError(
                f"{owner}: output_mode={output_mode!r} takes an input of rank 1 or 2, got "
                f"{describe(x)}. Fix: reshape it, or use output_mode='int'."
            )
        shape = encoded_shape(x.shape, output_mode, self.num_bins)
        out = tf.int64 if output_mode == "int" else tf.float32
        super().__init__(x, shape=shape, dtype=out, name=name, share_state_with=share_state_with)

    def compute(self, x: Any) -> tf.Tensor:
        """The bin of each value, encoded as ``output_mode`` says."""
        bins, mask = self.num_bins, None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            mask = tf.equal(x, tf.constant(self.mask_value, x.dtype))
        values = tf.cast(x, tf.int64) if x.dtype.is_floating else x
        if values.dtype != tf.string:
            values = tf.strings.as_string(values)
        if self.salt is not None:
            index = tf.strings.to_hash_bucket_strong(values, bins, key=self.salt)
        else:
            index = tf.strings.to_hash_bucket_fast(values, bins)
        if mask is not None:
            index = tf.where(mask, tf.zeros_like(index), index + 1)
        dtype = tf.int64 if self.output_mode == "int" else self.compute_dtype
        return encode(index, self.output_mode, self.num_bins, dtype)
