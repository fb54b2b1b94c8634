"""LayerOperators: Python's operators on every layer build nodes; comparisons keep
identity (``tensorweave.graph.layer_operators``; the node builders are ``ops``)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.layer_operators import LayerOperators


def test_every_layer_has_the_operators():
    x = tw.Input(n_units=2, name="x")
    y = tw.Lambda(tf.identity, x)
    assert isinstance(x, LayerOperators) and isinstance(y, LayerOperators)
    assert all(isinstance(node, tw.Lambda) for node in (x + y, y @ tf.eye(2), -y, y[:, :1]))


def test_numpy_defers_to_the_layer():
    x = tw.Input(n_units=2, name="x", value=[[1.0, 2.0]])
    node = np.float32(3.0) * x  # __rmul__, not numpy broadcasting over an object
    assert isinstance(node, tw.Layer)
    np.testing.assert_allclose(node().numpy(), [[3.0, 6.0]])


def test_layers_hash_by_identity():
    x = tw.Input(n_units=2)
    a, b = tw.Lambda(tf.identity, x), tw.Lambda(tf.identity, x)
    assert len({a, b, a}) == 2
    assert a == a and a != b


def test_ordering_layers_builds_no_node_and_names_the_op():
    x = tw.Input(n_units=2, name="x")
    with pytest.raises(tw.ArgumentError, match=r"tw.ops.less\(x, 0\)"):
        _ = x < 0
