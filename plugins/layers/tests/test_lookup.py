"""Lookup: numpy oracle, padding, fixed length, sparse ids, combiners, sparse gradients."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

IDS = np.array([[1, 4, 0, 0], [3, 3, 2, 0]], "int64")


def _ids(shape=(None, None), sparse=False):
    return tw.Input(shape=shape, dtype=tf.int64, sparse=sparse)


def _grad(layer, value):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(value) ** 2)
    return tape.gradient(loss, layer.embeddings)


def test_dense_ids_match_numpy_and_gradient_is_indexed_slices():
    layer = tw.layers["tensorweave-layers:Lookup.v1"](_ids(), vocab_size=5, n_units=3)
    assert layer.shape == (None, None, 3)
    table = layer.embeddings.numpy()
    np.testing.assert_array_equal(layer(IDS).numpy(), table[IDS])
    grad = _grad(layer, IDS)
    assert isinstance(grad, tf.IndexedSlices)
    dense = tf.convert_to_tensor(grad).numpy()
    want = np.zeros_like(table)
    np.add.at(want, IDS.ravel(), 2 * table[IDS].reshape(-1, 3))
    np.testing.assert_allclose(dense, want, rtol=1e-5, atol=1e-6)


def test_single_ids():
    layer = tw.layers["tensorweave-layers:Lookup.v1"](_ids((None,)), vocab_size=5, n_units=2)
    assert layer.shape == (None, 2)
    np.testing.assert_array_equal(layer(np.array([4, 1])).numpy(), layer.embeddings.numpy()[[4, 1]])


def test_padding_and_seq_len():
    layer = tw.layers["tensorweave-layers:Lookup.v1"](
        _ids(), vocab_size=5, n_units=2, pad_id=0, seq_len=6
    )
    assert layer.shape == (None, 6, 2)
    table = layer.embeddings.numpy()
    want = np.zeros((2, 6, 2), "float32")
    want[:, :4] = table[IDS] * (IDS != 0)[..., None]
    np.testing.assert_array_equal(layer(IDS).numpy(), want)
    assert isinstance(_grad(layer, IDS), tf.IndexedSlices)
    short = tw.layers["tensorweave-layers:Lookup.v1"](_ids(), vocab_size=5, n_units=2, seq_len=2)
    np.testing.assert_array_equal(short(IDS).numpy(), short.embeddings.numpy()[IDS[:, :2]])


def test_sparse_sequences_equal_padded_dense():
    dense = tw.layers["tensorweave-layers:Lookup.v1"](
        _ids((None, 4)), vocab_size=5, n_units=3, pad_id=0
    )
    sparse = dense.reuse_with(_ids((None, 4), sparse=True), pad_id=None)
    assert sparse.shape == (None, 4, 3) and sparse.state is dense.state
    sp = tf.sparse.from_dense(IDS)  # id 0 is padding: from_dense drops it
    np.testing.assert_allclose(sparse(sp).numpy(), dense(IDS).numpy())
    np.testing.assert_allclose(tw.compile(sparse)(sp).numpy(), dense(IDS).numpy())
    assert isinstance(_grad(sparse, sp), tf.IndexedSlices)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_sparse_bags_with_combiner(combiner):
    layer = tw.layers["tensorweave-layers:Lookup.v1"](
        _ids((None, 4), sparse=True), vocab_size=5, n_units=3, combiner=combiner
    )
    assert layer.shape == (None, 3)
    ids = np.array([[1, 4, 0, 0], [0, 0, 0, 0], [3, 3, 2, 0]], "int64")
    table = layer.embeddings.numpy()
    want = []
    for row in ids:
        rows = table[row[row != 0]]
        n = len(rows)
        total = rows.sum(0) if n else np.zeros(3, "float32")
        scale = {"sum": 1, "mean": max(n, 1), "sqrtn": np.sqrt(max(n, 1))}[combiner]
        want.append(total / scale)
    out = layer(tf.sparse.from_dense(ids)).numpy()
    np.testing.assert_allclose(out, np.array(want), rtol=1e-5, atol=1e-6)
    assert isinstance(_grad(layer, tf.sparse.from_dense(ids)), tf.IndexedSlices)


def test_errors():
    with pytest.raises(TypeError, match=r"(?s)float32.*integer ids"):
        tw.layers["tensorweave-layers:Lookup.v1"](tw.Input(n_units=3), vocab_size=5, n_units=2)
    with pytest.raises(tw.ShapeError, match=r"\(batch, steps\)"):
        tw.layers["tensorweave-layers:Lookup.v1"](_ids((None, 2, 3)), vocab_size=5, n_units=2)
    with pytest.raises(ValueError, match="combiner"):
        tw.layers["tensorweave-layers:Lookup.v1"](_ids(), vocab_size=5, n_units=2, combiner="mean")
    with pytest.raises(ValueError, match="seq_len"):
        tw.layers["tensorweave-layers:Lookup.v1"](_ids((None,)), vocab_size=5, n_units=2, seq_len=3)
