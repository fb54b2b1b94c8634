"""Operators on layers and TensorFlow ops as layer factories (tw.op, tw.ops.*)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave.drawing.summarize import summary_rows
from tests.strategies import values, widths

A = np.array([[1.0, -2.0, 4.0]], "float32")
B = np.array([[3.0, 5.0, -1.0]], "float32")


@pytest.fixture
def ab():
    return tw.Input(n_units=3, name="a", value=A), tw.Input(n_units=3, name="b", value=B)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda a, b: a + b, A + B),
        (lambda a, b: a - b, A - B),
        (lambda a, b: a * b, A * B),
        (lambda a, b: a / b, A / B),
        (lambda a, b: a**2, A**2),
        (lambda a, b: -a, -A),
        (lambda a, b: a + 1.0, A + 1.0),
        (lambda a, b: 1.0 + a, 1.0 + A),
        (lambda a, b: 10.0 - a, 10.0 - A),
        (lambda a, b: 2.0 * b, 2.0 * B),
        (lambda a, b: 1.0 / b, 1.0 / B),
        (lambda a, b: a[:, 1:], A[:, 1:]),
        (lambda a, b: a[..., 0], A[..., 0]),
        (lambda a, b: np.float32(3.0) * a, 3.0 * A),
        (lambda a, b: np.full((3,), 2.0, "float32") * a, 2.0 * A),
        (lambda a, b: (a - b) ** 2 / 2.0, (A - B) ** 2 / 2.0),
    ],
)
def test_operators_build_lambda_nodes_with_the_right_values(ab, build, expected):
    a, b = ab
    node = build(a, b)
    assert isinstance(node, tw.Lambda)
    assert set(node.graph.inputs) <= {a, b}
    assert node.shape == (None, *expected.shape[1:])
    np.testing.assert_allclose(node().numpy(), expected, rtol=1e-6)


def test_operator_nodes_read_the_layers_they_combine(ab):
    a, b = ab
    assert (a + b).inputs == (a, b)
    assert (2.0 * a).inputs == (a,)
    assert (a[:, :1]).inputs == (a,)


def test_matmul_with_constants_and_layers():
    x = tw.Input(n_units=3, value=A)
    w = np.arange(6, dtype="float32").reshape(3, 2)
    y = x @ w
    assert y.shape == (None, 2)
    np.testing.assert_allclose(y().numpy(), A @ w)
    np.testing.assert_allclose(
        (w.T @ tw.Input(shape=(3, 1)))((np.ones((1, 3, 1)))), [w.T @ np.ones((3, 1))]
    )
    left = tw.Input(shape=(2, 3), value=np.ones((1, 2, 3), "float32"))
    right = tw.Input(shape=(3, 4), value=np.ones((1, 3, 4), "float32"))
    z = left @ right
    assert z.shape == (None, 2, 4) and z.inputs == (left, right)
    np.testing.assert_allclose(z().numpy(), np.full((1, 2, 4), 3.0))


@given(width=widths, seed=st.integers(0, 1000))
def test_operator_graph_matches_numpy(width, seed):
    x = tw.Input(n_units=width, name="x")
    value = values((None, width), 3, seed)
    y = (x * 2.0 - 1.0) ** 2 + (-x)[:, :1]
    expected = (value * 2.0 - 1.0) ** 2 + (-value)[:, :1]
    np.testing.assert_allclose(y(value).numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tw.compile(y)(value).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_tw_op_builds_layers_from_tf_functions(ab):
    a, _ = ab
    erfc = tw.op("tf.math.erfc")
    node = erfc(a)
    assert isinstance(node, tw.Lambda) and node.name == "erfc"
    np.testing.assert_allclose(node().numpy(), tf.math.erfc(A).numpy(), rtol=1e-6)
    assert tw.op("tensorflow.nn.relu")(a)().numpy().tolist() == [[1.0, 0.0, 4.0]]


@pytest.mark.parametrize(
    ("op", "kwargs", "reference"),
    [
        ("relu", {}, tf.nn.relu),
        ("softmax", {"axis": -1}, lambda t: tf.nn.softmax(t, axis=-1)),
        ("reduce_sum", {"axis": -1, "keepdims": True}, lambda t: tf.reduce_sum(t, -1, True)),
        ("erfc", {}, tf.math.erfc),
        ("cumsum", {"axis": 1}, lambda t: tf.math.cumsum(t, axis=1)),
        ("cast", {"dtype": tf.int32}, lambda t: tf.cast(t, tf.int32)),
    ],
)
def test_tw_ops_namespace_finds_ops(ab, op, kwargs, reference):
    a, _ = ab
    node = getattr(tw.ops, op)(a, **kwargs)
    expected = reference(tf.constant(A))
    assert node.dtype == expected.dtype
    np.testing.assert_allclose(node().numpy(), expected.numpy(), rtol=1e-6)


def test_op_layers_mix_layers_and_constants(ab):
    a, b = ab
    node = tw.ops.maximum(a, 0.5)
    assert node.inputs == (a,)
    np.testing.assert_allclose(node().numpy(), np.maximum(A, 0.5))
    both = tw.ops.squared_difference(a, b, name="sqdiff")
    assert both.name == "sqdiff" and both.inputs == (a, b)
    np.testing.assert_allclose(both().numpy(), (A - B) ** 2)


def test_factories_are_cached():
    assert tw.op("tf.nn.relu") is tw.op("tf.nn.relu")
    assert tw.ops.relu is tw.ops.relu
    assert tw.ops.relu is tw.op("tf.nn.relu")
    assert tw.ops.erfc is tw.op("tf.math.erfc")


def test_factory_carries_the_op_docstring():
    erfc = tw.ops.erfc
    assert erfc.__name__ == "erfc" and erfc.__wrapped__ is tf.math.erfc
    assert erfc.__doc__.startswith("``tf.math.erfc`` as a tensorweave layer.")
    assert tf.math.erfc.__doc__.strip().splitlines()[0] in erfc.__doc__


def test_unknown_op_lists_close_matches():
    with pytest.raises(tw.UnknownComponentError) as err:
        tw.op("tf.math.erfcc")
    message = str(err.value)
    assert "no TensorFlow op 'tf.math.erfcc'" in message and "tf.math.erfc" in message
    with pytest.raises(tw.UnknownComponentError, match=r"tf\.nn\.relu"):
        tw.op("tf.nn.rellu")
    with pytest.raises(tw.UnknownComponentError, match=r"tf\.mth.*tf\.math"):
        tw.op("tf.mth.erfc")


def test_private_names_and_non_functions_are_refused():
    with pytest.raises(tw.UnknownComponentError):
        tw.op("tf._api")
    with pytest.raises(tw.UnknownComponentError, match="not a TensorFlow function"):
        tw.op("tf.Variable")
    with pytest.raises(tw.UnknownComponentError, match="not a TensorFlow function"):
        tw.op("tf.float32")


def test_unknown_ops_attribute_says_where_it_looked():
    with pytest.raises(AttributeError, match=r"no op 'erfcc'.*tf\.math.*tw\.op"):
        _ = tw.ops.erfcc
    with pytest.raises(AttributeError):
        _ = tw.ops._private


def test_lift_needs_a_layer():
    with pytest.raises(TypeError, match="at least one argument must be a Layer"):
        tw.ops.lift(tf.add, 1.0, 2.0)


def test_layers_inside_list_arguments_become_inputs(ab):
    a, b = ab
    joined = tw.ops.concat([a, b], axis=-1)
    assert joined.inputs == (a, b) and joined.shape == (None, 6)
    np.testing.assert_allclose(joined().numpy(), np.concatenate([A, B], -1))
    stacked = tw.ops.stack((a, b, a), axis=1)
    assert stacked.inputs == (a, b, a) and stacked.shape == (None, 3, 3)
    np.testing.assert_allclose(stacked().numpy(), np.stack([A, B, A], 1))
    total = tw.ops.add_n([a, tw.Input(n_units=3, value=B)])
    np.testing.assert_allclose(total().numpy(), A + B)
    reshaped = tw.ops.reshape(a, [-1, 3, 1])  # a list of constants stays a constant
    assert reshaped.inputs == (a,) and reshaped.shape == (None, 3, 1)


def test_unnamed_ops_get_distinct_names_so_a_summary_has_one_row_each():
    tw.reset_names()
    x = tw.Input(batch_shape=(None, 2, 3), name="x")
    per_row, per_col = tw.ops.reduce_sum(x, axis=1), tw.ops.reduce_sum(x, axis=2)
    first, second = tw.ops.abs(per_row), tw.ops.abs(per_col)
    assert (per_row.name, per_col.name) == ("reduce_sum", "reduce_sum_1")
    assert (first.name, second.name) == ("abs", "abs_1")
    rows = [r.name for r in summary_rows([first, second])]
    assert len(rows) == len(set(rows)) == 5
    assert tw.ops.reduce_sum(x, axis=1, name="total").name == "total"
