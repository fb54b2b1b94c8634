"""Dropout: drop rate and scaling, shared masks, sparse inputs, noise_shape, inference."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

Dropout = tw.layers["Dropout.v1"]


def _ones(*shape):
    return np.ones(shape, "float32")


def test_drops_about_p_and_scales_the_rest():
    tf.random.set_seed(1)
    x = tw.Input(n_units=500, name="x")
    out = tw.compile(Dropout(x, rate=0.3))(_ones(8, 500)).numpy()
    np.testing.assert_allclose(np.unique(out), [0.0, 1 / 0.7], rtol=1e-6)
    assert abs((out == 0).mean() - 0.3) < 0.03
    assert abs(out.mean() - 1.0) < 0.05  # inverted dropout keeps the expectation


def test_training_false_and_zero_probability_are_identity():
    x = tw.Input(n_units=4, name="x")
    drop = Dropout(x, rate=0.5)
    value = np.arange(8.0, dtype="float32").reshape(2, 4)
    infer = drop.reuse_with(x, training=False)
    assert infer.mask is None and infer.inputs == (x,)
    np.testing.assert_array_equal(tw.compile(infer)(value).numpy(), value)
    np.testing.assert_array_equal(Dropout(x, rate=0.0).compute(value).numpy(), value)


def test_shared_mask_drops_the_same_entries_every_run():
    x1, x2 = tw.Input(n_units=50, name="a"), tw.Input(n_units=50, name="b")
    drop = Dropout(x1, rate=0.5)
    locked = drop.reuse_with(x2, shared_mask=True)
    also = drop.reuse_with(x2, locked=True)
    fresh = drop.reuse_with(x2)
    assert locked.mask is drop.mask and fresh.mask is not drop.mask
    run = tw.compile([drop, locked, also, fresh])
    masks = []
    for _ in range(2):
        a, b, c, d = (t.numpy() != 0 for t in run(_ones(4, 50), 2 * _ones(4, 50)))
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
        assert not np.array_equal(a, d)
        masks.append(a)
    assert not np.array_equal(masks[0], masks[1])  # a new mask per run, shared within it


def test_sparse_input_drops_stored_values():
    tf.random.set_seed(3)
    x = tw.Input(n_units=400, sparse=True, name="sp")
    drop = Dropout(x, rate=0.5)
    assert drop.sparse
    dense = np.zeros((4, 400), "float32")
    dense[:, ::2] = 3.0
    out = tw.compile(drop)(tf.sparse.from_dense(dense))
    assert isinstance(out, tf.SparseTensor)
    values = out.values.numpy()
    np.testing.assert_allclose(values, 6.0)  # kept values are rescaled, dropped ones removed
    assert 0.4 < len(values) / 800 < 0.6
    kept = tf.sparse.to_dense(out).numpy() != 0
    assert not kept[:, 1::2].any()  # nothing appears where the input had no value
    infer = drop.reuse_with(x, training=False)
    same = tw.compile(infer)(tf.sparse.from_dense(dense))
    np.testing.assert_array_equal(tf.sparse.to_dense(same).numpy(), dense)


def test_noise_shape_locks_features_across_time():
    x = tw.Input(batch_shape=(None, None, 30), name="seq")
    drop = Dropout(x, rate=0.5, noise_shape=(None, 1, None))
    assert drop.mask.shape == (None, 1, 30)
    out = drop.compute(tf.ones((2, 5, 30)), drop.mask.compute(tf.ones((2, 5, 30)))).numpy()
    for t in range(1, 5):
        np.testing.assert_array_equal(out[:, t], out[:, 0])


def test_module_reuse_training_false_gives_identity():
    x = tw.Input(n_units=6)
    block = tw.Module(x, Dropout(x, rate=0.9))
    x2 = tw.Input(n_units=6)
    infer = block.reuse_with(x2, training=False)
    value = np.ones((2, 6), "float32")
    np.testing.assert_array_equal(infer.compute(tf.constant(value)).numpy(), value)
    again = block.reuse_with(tw.Input(n_units=6))  # training copy with its own mask node
    assert again.output.mask is not block.output.mask


def test_errors():
    x = tw.Input(n_units=3, name="x")
    with pytest.raises(ValueError, match=r"Dropout.*rate.*\[0, 1\)"):
        Dropout(x, rate=1.0)
    with pytest.raises(ValueError, match="no mask to share"):
        Dropout(x, training=False).reuse_with(x, shared_mask=True)
    drop = Dropout(x, rate=0.2)
    with pytest.raises(tw.ShapeError, match="shared mask"):
        drop.reuse_with(tw.Input(n_units=5), shared_mask=True)
    with pytest.raises(tw.ShapeError, match="noise_shape"):
        Dropout(x, noise_shape=(None, 1, 1))
    with pytest.raises(TypeError, match="floating point, not int32"):
        Dropout(tw.Input(n_units=3, dtype="int32"))
