"""Lookup: numpy oracle, padding, fixed length, batch padding, sparse weighted bags (TensorX)
and sparse ids, combiners, sparse gradients."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

IDS = np.array([[1, 4, 0, 0], [3, 3, 2, 0]], "int64")


def _ids(shape=(None, None), sparse=False):
    return tw.Input(batch_shape=shape, dtype=tf.int64, sparse=sparse)


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
    sparse = dense.reuse_with(_ids((None, 4), sparse=True), pad_id=None, sparse_values="ids")
    assert sparse.shape == (None, 4, 3) and sparse.state is dense.state
    sp = tf.sparse.from_dense(IDS)  # id 0 is padding: from_dense drops it
    np.testing.assert_allclose(sparse(sp).numpy(), dense(IDS).numpy())
    np.testing.assert_allclose(tw.compile(sparse)(sp).numpy(), dense(IDS).numpy())
    assert isinstance(_grad(sparse, sp), tf.IndexedSlices)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_sparse_bags_with_combiner(combiner):
    layer = tw.layers["tensorweave-layers:Lookup.v1"](
        _ids((None, 4), sparse=True),
        vocab_size=5,
        n_units=3,
        combiner=combiner,
        sparse_values="ids",
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


def _bags(rng, rows, vocab):
    dense = rng.standard_normal((rows, vocab)).astype("float32")
    return dense * (rng.random((rows, vocab)) < 0.4)


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_sparse_rows_are_weighted_bags_of_ids_as_in_tensorx(combiner):
    rng = np.random.default_rng(7)
    x = tw.Input(shape=(6,), sparse=True)
    layer = tw.layers["tensorweave-layers:Lookup.v1"](
        x, vocab_size=6, n_units=3, seq_len=2, combiner=combiner
    )
    assert layer.shape == (None, 2, 3)
    bags = _bags(rng, 8, 6)
    bags[3] = 0.0  # an empty row: a zero vector
    table = layer.embeddings.numpy()
    total = bags @ table
    scale = {
        "sum": np.ones(8),
        "mean": bags.sum(1),
        "sqrtn": np.sqrt((bags**2).sum(1)),
    }[combiner]
    want = np.where(scale[:, None] != 0, total / np.where(scale == 0, 1, scale)[:, None], 0)
    sp = tf.sparse.from_dense(bags)
    np.testing.assert_allclose(layer(sp).numpy(), want.reshape(4, 2, 3), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        tw.compile(layer)(sp).numpy(), want.reshape(4, 2, 3), rtol=1e-5, atol=1e-5
    )
    assert isinstance(_grad(layer, sp), tf.IndexedSlices)
    if combiner == "sum":  # TensorX's call, on rows that are not empty
        ids = tf.SparseTensor(sp.indices, sp.indices[:, 1], sp.dense_shape)
        tf_out = tf.nn.embedding_lookup_sparse(layer.embeddings, ids, sp, combiner="sum")
        np.testing.assert_allclose(tf_out.numpy()[:3], want[:3], rtol=1e-5, atol=1e-5)


def test_one_bag_per_row_without_seq_len_and_int_counts():
    x = tw.Input(shape=(4,), dtype=tf.int64, sparse=True)
    layer = tw.layers["tensorweave-layers:Lookup.v1"](x, vocab_size=4, n_units=2)
    assert layer.shape == (None, 2)
    counts = np.array([[2, 0, 1, 0], [0, 0, 0, 3]], "int64")
    want = counts.astype("float32") @ layer.embeddings.numpy()
    np.testing.assert_allclose(layer(tf.sparse.from_dense(counts)).numpy(), want, rtol=1e-6)


@pytest.mark.parametrize("sparse", [False, True])
def test_batch_padding_to_a_fixed_batch_size(sparse):
    rng = np.random.default_rng(2)
    if sparse:
        x = tw.Input(shape=(5,), sparse=True)
        kwargs = {"seq_len": 2}
        value = _bags(rng, 6, 5)  # 3 sequences of 2 rows
        feed = tf.sparse.from_dense(value)
    else:
        x = _ids()
        kwargs = {}
        value = feed = IDS  # 2 sequences
    layer = tw.layers["tensorweave-layers:Lookup.v1"](
        x, vocab_size=5, n_units=3, batch_size=4, **kwargs
    )
    unpadded = tw.layers["tensorweave-layers:Lookup.v1"](x, vocab_size=5, n_units=3, **kwargs)
    unpadded.embeddings.assign(layer.embeddings)
    assert layer.shape[0] == 4 and layer.shape[1:] == unpadded.shape[1:]
    run = tw.compile(layer)
    got, want = run(feed).numpy(), unpadded(feed).numpy()
    n = len(want)
    assert got.shape[0] == 4
    np.testing.assert_allclose(got[:n], want, rtol=1e-6)
    np.testing.assert_array_equal(got[n:], 0.0)
    if not sparse:
        with pytest.raises(tf.errors.InvalidArgumentError, match="larger than batch_size=4"):
            run(np.ones((5, 4), "int64"))
        exact = tw.layers["tensorweave-layers:Lookup.v1"](
            x, vocab_size=5, n_units=3, batch_size=2, batch_padding=False
        )
        assert exact(IDS).shape == (2, 4, 3)
        with pytest.raises((ValueError, tf.errors.InvalidArgumentError)):
            exact(IDS[:1])


def test_errors():
    with pytest.raises(TypeError, match=r"(?s)float32.*integer ids"):
        tw.layers["tensorweave-layers:Lookup.v1"](tw.Input(n_units=3), vocab_size=5, n_units=2)
    with pytest.raises(tw.ShapeError, match=r"\(batch, steps\)"):
        tw.layers["tensorweave-layers:Lookup.v1"](_ids((None, 2, 3)), vocab_size=5, n_units=2)
    with pytest.raises(ValueError, match="combiner"):
        tw.layers["tensorweave-layers:Lookup.v1"](_ids(), vocab_size=5, n_units=2, combiner="mean")
    with pytest.raises(ValueError, match="seq_len"):
        tw.layers["tensorweave-layers:Lookup.v1"](_ids((None,)), vocab_size=5, n_units=2, seq_len=3)
    bags = tw.Input(shape=(6,), sparse=True, name="bags")
    with pytest.raises(tw.ShapeError, match=r"(?s)'bags' \(None, 6\) sparse.*vocab_size=5.*'ids'"):
        tw.layers["tensorweave-layers:Lookup.v1"](bags, vocab_size=5, n_units=2)
    with pytest.raises(ValueError, match="sparse_values='values'"):
        tw.layers["tensorweave-layers:Lookup.v1"](bags, 6, 2, sparse_values="values")
    with pytest.raises(TypeError, match="float32"):  # float values are never ids
        tw.layers["tensorweave-layers:Lookup.v1"](bags, 6, 2, sparse_values="ids")
    with pytest.raises(tw.ArgumentError, match="batch_size"):
        tw.layers["tensorweave-layers:Lookup.v1"](_ids(), 6, 2, batch_size=0)


def test_a_batch_of_bags_not_a_multiple_of_seq_len_pads_the_last_sequence():
    x = tw.Input(shape=(3,), sparse=True)
    layer = tw.layers["tensorweave-layers:Lookup.v1"](
        x, vocab_size=3, n_units=2, seq_len=2, w_init="ones"
    )
    rows = tf.sparse.from_dense(np.array([[1.0, 0, 0], [0, 2.0, 0], [0, 0, 3.0]], "float32"))
    for run in (layer, tw.compile(layer)):
        out = run(rows).numpy()  # 3 rows: one sequence of 2, then 1 row and a zero row
        assert out.tolist() == [[[1.0, 1.0], [2.0, 2.0]], [[3.0, 3.0], [0.0, 0.0]]]


def test_mask_zero_marks_padding_as_the_padding_mask():
    ids = _ids()
    layer = tw.layers["tensorweave-layers:Lookup.v1"](ids, vocab_size=5, n_units=2, mask_zero=True)
    assert layer.padding_mask.shape == (None, None) and layer.padding_mask.dtype == tf.bool
    np.testing.assert_array_equal(layer.padding_mask.compute(IDS), IDS != 0)
    padded = tw.layers["tensorweave-layers:Lookup.v1"](
        ids, vocab_size=5, n_units=2, mask_zero=True, seq_len=5, batch_size=3
    )
    mask = tw.compile(padded.padding_mask)(IDS).numpy()  # padded like the embeddings
    assert mask.shape == (3, 5) and mask.sum() == 5 and not mask[2].any() and not mask[:, 4].any()
    assert (
        tw.layers["tensorweave-layers:Lookup.v1"](ids, vocab_size=5, n_units=2).padding_mask is None
    )


def test_mask_zero_on_sparse_ids_marks_the_given_nonzero_ids():
    ids = _ids(sparse=True)
    layer = tw.layers["tensorweave-layers:Lookup.v1"](
        ids, vocab_size=5, n_units=2, sparse_values="ids", mask_zero=True
    )
    sparse = tf.sparse.from_dense(IDS)
    np.testing.assert_array_equal(layer.padding_mask.compute(sparse), IDS != 0)


def test_mask_zero_needs_steps():
    bags = tw.Input(shape=(4,), sparse=True, name="bags")
    with pytest.raises(tw.ArgumentError, match=r"(?s)weighted bags.*Fix"):
        tw.layers["tensorweave-layers:Lookup.v1"](bags, vocab_size=4, n_units=2, mask_zero=True)
