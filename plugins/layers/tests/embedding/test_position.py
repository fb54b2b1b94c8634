"""PositionEmbedding: one learned row per step, the padding mask passes, length checks."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def test_rows_per_step_and_the_mask_of_the_tokens():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    tokens = tw.layers["Lookup.v1"](ids, vocab_size=5, n_units=2, mask_zero=True)
    positions = tw.layers["PositionEmbedding.v1"](tokens, seq_len=4)
    both = tokens + positions
    assert (
        positions.padding_mask is tokens.padding_mask and both.padding_mask is tokens.padding_mask
    )
    out = tw.compile(positions)(np.array([[1, 2, 0]], "int64")).numpy()
    np.testing.assert_allclose(out[0], positions.embeddings.numpy()[:3])


def test_sequences_longer_than_seq_len_fail():
    with pytest.raises(tw.ShapeError, match=r"(?s)more than seq_len=3.*Fix"):
        tw.layers["PositionEmbedding.v1"](tw.Input(shape=(5, 2)), seq_len=3)
    layer = tw.layers["PositionEmbedding.v1"](tw.Input(batch_shape=(None, None, 2)), seq_len=3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="longer than seq_len"):
        layer.compute(tf.zeros((1, 4, 2)))
    with pytest.raises(tw.ArgumentError, match="seq_len"):
        tw.layers["PositionEmbedding.v1"](tw.Input(batch_shape=(None, None, 2)), seq_len=0)
