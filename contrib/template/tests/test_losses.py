"""``template_log_cosh.v1`` against numpy, on tensors and as a graph node."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tensorweave as tw

NAME = "tensorweave-template:template_log_cosh.v1"


def oracle(labels, predictions):
    return np.mean(np.log(np.cosh(np.float64(predictions) - np.float64(labels))))


@settings(deadline=None, max_examples=25)
@given(
    hnp.arrays(
        np.float32,
        st.tuples(st.integers(1, 5), st.integers(1, 4)),
        elements=st.floats(-20, 20, width=32),
    )
)
def test_matches_numpy(p):
    t = np.roll(p, 1)
    np.testing.assert_allclose(tw.losses[NAME](t, p), oracle(t, p), rtol=1e-5, atol=1e-6)


def test_stable_for_large_errors():
    value = float(tw.losses[NAME]([-1e4], [1e4]))
    assert value == pytest.approx(2e4 - np.log(2.0))


def test_gradient_is_mean_tanh():
    p = tf.constant([[0.5, -2.0, 3.0]])
    t = tf.zeros_like(p)
    with tf.GradientTape() as tape:
        tape.watch(p)
        loss = tw.losses[NAME](t, p)  # labels first, then predictions
    np.testing.assert_allclose(tape.gradient(loss, p), np.tanh(p.numpy()) / 3, rtol=1e-5)


def test_on_layers_is_a_graph_node():
    label, pred = tw.Input(n_units=2, name="label"), tw.Input(n_units=2, name="pred")
    node = tw.losses[NAME](label, pred)
    assert isinstance(node, tw.Lambda) and node.inputs == (label, pred)
    t, p = np.array([[0.0, 4.0]], "float32"), np.array([[1.0, 2.0]], "float32")
    np.testing.assert_allclose(tw.compile(node)(t, p), oracle(t, p), rtol=1e-6)


def test_a_constant_label_is_bound():
    pred = tw.Input(n_units=2, value=[[1.0, 1.0]])
    node = tw.losses[NAME](np.zeros((1, 2), "float32"), pred)
    assert node.inputs == (pred,)
    np.testing.assert_allclose(node(), oracle(0.0, 1.0), rtol=1e-6)


def test_mismatched_shapes_are_refused():
    with pytest.raises(tw.ShapeError, match="no silent broadcasting"):
        tw.losses[NAME](np.ones((3, 1)), np.ones(3))
