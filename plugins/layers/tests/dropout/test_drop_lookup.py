"""DropLookup: whole ids dropped per sample, with or without the ids input."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

DropLookup = tw.layers["DropLookup.v1"]


def _lookup(ids, dim=3):
    table = np.arange(1.0, 1.0 + 10 * dim, dtype="float32").reshape(10, dim)
    return table[np.asarray(ids)]


def test_same_id_same_fate_within_a_sample():
    tf.random.set_seed(6)
    ids = np.array([[1, 2, 1, 3, 2, 1, 4, 4]] * 64)
    emb = _lookup(ids)
    with_ids = DropLookup(
        tw.Input(batch_shape=(None, None, 3)),
        tw.Input(batch_shape=(None, None), dtype="int64"),
        rate=0.5,
    )
    without = DropLookup(tw.Input(batch_shape=(None, None, 3)), rate=0.5)
    for out in (
        with_ids.compute(tf.constant(emb), tf.constant(ids)).numpy(),
        without.compute(tf.constant(emb)).numpy(),
    ):
        kept = out.any(axis=-1)  # [batch, seq]
        for token in (1, 2, 3, 4):
            cols = kept[:, ids[0] == token]
            assert (cols == cols[:, :1]).all(), "an id was dropped at some positions only"
        assert 0.3 < 1 - kept.mean() < 0.7
        assert len({tuple(row) for row in kept}) > 1  # samples draw independently
        np.testing.assert_allclose(out[kept], 2 * emb[kept])  # kept vectors scaled by 1/(1-p)


def test_no_scale_and_inference_identity():
    x = tw.Input(batch_shape=(None, None, 3))
    emb = _lookup([[1, 2, 3]])
    out = DropLookup(x, rate=0.5, scale=False).compute(tf.constant(emb)).numpy()
    kept = out.any(-1)
    np.testing.assert_array_equal(out[kept], emb[kept])
    infer = DropLookup(x, rate=0.5).reuse_with(x, training=False)
    np.testing.assert_array_equal(infer.compute(tf.constant(emb)).numpy(), emb)


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"DropLookup.*\(None, 4\).*Dropout.v1"):
        DropLookup(tw.Input(n_units=4))
    with pytest.raises(tw.ShapeError, match="ids must be dense integers"):
        DropLookup(tw.Input(batch_shape=(None, None, 4)), tw.Input(batch_shape=(None, None)))
    with pytest.raises(tw.ShapeError, match="sequence length"):
        DropLookup(tw.Input(shape=(5, 4)), tw.Input(shape=(6,), dtype="int32"))
