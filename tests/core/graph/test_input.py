"""Input: dynamic batch, value validation that names the input and both shapes, sparse."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given

import tensorweave as tw
from tests.strategies import batch_sizes, shapes, values


def test_n_units_gives_a_dynamic_batch():
    x = tw.Input(n_units=3, name="x")
    assert x.shape == (None, 3) and x.n_units == 3 and x.dtype == tf.float32
    assert x.inputs == () and x.value is None


def test_shape_is_one_examples_shape_as_in_keras():
    assert tw.Input(shape=(8, 8, 1)).shape == (None, 8, 8, 1)
    assert tw.Input(shape=(64,)).shape == (None, 64)
    assert tw.Input(shape=(), dtype="int64").shape == (None,)
    assert tw.Input(shape=(4, None, 8)).shape == (None, 4, None, 8)
    assert tw.Input(shape=tf.TensorShape([3])).shape == (None, 3)


def test_batch_shape_is_the_full_shape():
    assert tw.Input(batch_shape=(None, None, 8)).shape == (None, None, 8)
    assert tw.Input(batch_shape=(None,)).shape == (None,)
    with pytest.raises(tw.ArgumentError, match=r"must start with None.*batch_shape=\(None, 8\)"):
        tw.Input(batch_shape=(32, 8))
    with pytest.raises(tw.ArgumentError, match=r"shape= \(one example\) or batch_shape="):
        tw.Input(shape=(8,), batch_shape=(None, 8))


def test_a_leading_none_is_a_dynamic_first_axis_as_in_keras():
    assert tw.Input(shape=(None, 8)).shape == (None, None, 8)
    assert tw.Input(shape=(None,)).shape == (None, None)


def test_shapes_that_can_only_be_mistakes_are_refused_with_the_fix():
    with pytest.raises(tw.ArgumentError, match=r"tuple of dimensions, got 8\. Fix: shape=\(8,\)"):
        tw.Input(shape=8)
    with pytest.raises(tw.ArgumentError, match=r"shape\[1\] must be None"):
        tw.Input(shape=(3, -2))
    with pytest.raises(tw.ArgumentError, match="tuple of dimensions"):
        tw.Input(shape="8, 8")


def test_dtype_is_checked_at_the_door():
    with pytest.raises(tw.ArgumentError, match=r"dtype='bogus' is not a dtype.*float32.*int64"):
        tw.Input(n_units=3, dtype="bogus")
    with pytest.raises(tw.ArgumentError, match=r"Did you mean 'int64'\?"):
        tw.Input(n_units=3, dtype="int46")
    with pytest.raises(tw.ArgumentError, match="sparse must be True or False"):
        tw.Input(n_units=3, sparse="yes")
    assert tw.Input(n_units=1, dtype=np.int32).dtype == tf.int32


@given(shape=shapes(), batch=batch_sizes)
def test_any_batch_size_is_accepted(shape, batch):
    x = tw.Input(batch_shape=shape, name="x")
    x.value = values(shape, batch)
    assert x.value.shape.as_list() == [batch, *shape[1:]]
    assert x.value.dtype == tf.float32


def test_initial_value_and_compute():
    x = tw.Input(n_units=2, value=[[1, 2]])  # ints are cast to the input's float dtype
    assert x.compute().dtype == tf.float32
    assert x().numpy().tolist() == [[1.0, 2.0]]


def test_no_value_is_a_clear_error():
    x = tw.Input(n_units=2, name="empty")
    with pytest.raises(tw.InputValueError, match=r"Input 'empty' has no value.*empty\.value"):
        x.compute()


def test_wrong_rank_names_the_input_and_both_shapes():
    x = tw.Input(n_units=3, name="features")
    with pytest.raises(tw.ShapeError) as err:
        x.value = np.ones((2, 3, 1))
    message = str(err.value)
    assert "'features'" in message
    assert "(None, 3)" in message and "(2, 3, 1)" in message
    assert "rank 2" in message and "rank 3" in message


def test_wrong_width_names_the_input_and_both_shapes():
    x = tw.Input(n_units=3, name="features")
    with pytest.raises(tw.ShapeError) as err:
        x.value = np.ones((5, 4))
    message = str(err.value)
    assert "'features'" in message and "(None, 3)" in message and "(5, 4)" in message
    assert "dimension 1 is 4, not 3" in message
    assert x.value is None  # a refused value is not kept


def test_wrong_numpy_dtype_kind_is_refused():
    x = tw.Input(n_units=2, name="ids", dtype=tf.int32)
    with pytest.raises(
        tw.InputValueError, match=r"'ids' expects int32.*float64.*dtype=tf\.float32"
    ):
        x.value = np.ones((1, 2))


def test_wrong_tensor_dtype_is_refused_with_a_cast_hint():
    x = tw.Input(n_units=2, name="x")
    with pytest.raises(
        tw.InputValueError, match=r"'x' expects dtype float32, got float64.*tf\.cast"
    ):
        x.value = tf.ones((1, 2), tf.float64)


def test_errors_are_builtin_exceptions_too():
    x = tw.Input(n_units=2)
    with pytest.raises(ValueError):
        x.value = np.ones((1, 3))
    with pytest.raises(TypeError):
        x.value = tf.ones((1, 2), tf.int32)


def test_integer_and_string_inputs():
    ids = tw.Input(n_units=2, dtype=tf.int64, value=np.array([[1, 2]], "int32"))
    assert ids.value.dtype == tf.int64
    words = tw.Input(n_units=1, dtype=tf.string, value=[["a"]])
    assert words.value.numpy().tolist() == [[b"a"]]


def test_a_variable_is_accepted_as_a_value():
    x = tw.Input(n_units=2)
    x.value = tf.Variable([[1.0, 2.0]])
    assert isinstance(x.value, tf.Tensor)


def test_sparse_input_takes_sparse_tensors():
    x = tw.Input(n_units=4, sparse=True, name="bag")
    assert x.sparse and isinstance(x.spec, tf.SparseTensorSpec)
    x.value = tf.sparse.from_dense(np.eye(3, 4, dtype="float32"))
    assert isinstance(x.value, tf.SparseTensor)
    with pytest.raises(tw.InputValueError, match=r"'bag' is sparse.*tf\.sparse\.from_dense"):
        x.value = np.eye(3, 4, dtype="float32")
    with pytest.raises(tw.ShapeError, match=r"'bag' expects shape \(None, 4\), got \(3, 5\)"):
        x.value = tf.sparse.from_dense(np.eye(3, 5, dtype="float32"))


def test_dense_input_refuses_sparse_tensors():
    x = tw.Input(n_units=4, name="dense_in")
    with pytest.raises(tw.InputValueError, match=r"'dense_in' is dense.*sparse=True"):
        x.value = tf.sparse.from_dense(np.eye(2, 4, dtype="float32"))


def test_sparse_input_runs_through_a_graph():
    x = tw.Input(n_units=3, sparse=True, name="bag")
    dense = tw.Lambda(tf.sparse.to_dense, x)
    y = tw.Lambda(tf.reduce_sum, dense, axis=-1)
    assert len(dense.shape) == 2 and not dense.sparse and y.shape == (None,)
    value = np.array([[0, 2, 0], [1, 0, 3]], "float32")
    x.value = tf.sparse.from_dense(value)
    np.testing.assert_allclose(y().numpy(), value.sum(-1))
    # and with the value passed in rather than set
    np.testing.assert_allclose(y(tf.sparse.from_dense(2 * value)).numpy(), 2 * value.sum(-1))


def test_sparse_output_is_tracked():
    x = tw.Input(n_units=3)
    s = tw.Lambda(tf.sparse.from_dense, x)
    assert s.sparse and isinstance(s.spec, tf.SparseTensorSpec)


def test_bad_constructions_are_refused():
    with pytest.raises(tw.ShapeError, match="n_units=, shape= or batch_shape="):
        tw.Input()
    with pytest.raises(tw.ShapeError, match="n_units=3 disagrees"):
        tw.Input(n_units=3, shape=(4,))
    with pytest.raises(tw.ShapeError, match="n_units=3 disagrees"):
        tw.Input(n_units=3, shape=())
    with pytest.raises(TypeError, match="no state to share"):
        tw.Input(n_units=1, share_state_with=tw.Input(n_units=1))


def test_inputs_cannot_be_reused():
    x = tw.Input(n_units=1, name="x")
    with pytest.raises(TypeError, match="'x' cannot be reused"):
        x.reuse_with()


def test_repr_shows_shape_dtype_and_sparsity():
    assert repr(tw.Input(n_units=2, name="x")) == "Input('x', shape=(None, 2), dtype=float32)"
    assert "sparse=True" in repr(tw.Input(n_units=2, sparse=True))
