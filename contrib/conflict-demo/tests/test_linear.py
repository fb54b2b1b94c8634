"""This pack's ``Linear.v1``, always asked for by qualified name (the bare name clashes).

Skipped unless the pack is installed: installing it makes the bare ``Linear.v1`` ambiguous
for everything else, so it is installed only for a test's duration
(``tests/integration/test_conflict.py`` installs it and runs these tests).
"""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.testing import Case, test_conformance  # noqa: F401

NAME = "tensorweave-conflict-demo:Linear.v1"
pytestmark = pytest.mark.skipif(
    NAME not in tw.layers,
    reason="tensorweave-conflict-demo is not installed (tests/integration/test_conflict.py "
    "installs it for its run)",
)

# The kit flags a name another installed distribution offers; this pack clashes on purpose.
CLASHES = {"name_is_unique": "clashes with tensorweave-layers on purpose (the demo)"}
TENSORWEAVE_CASES = [
    Case(NAME, {"n_units": 4}, inputs=[(None, 3)], skip=CLASHES),
    Case(NAME, {"n_units": 2, "add_bias": False}, inputs=[(None, 5)], skip=CLASHES),
]


def test_matches_numpy():
    x = np.random.default_rng(0).standard_normal((5, 3)).astype("float32")
    layer = tw.layers[NAME](tw.Input(n_units=3), 2)
    layer.bias.assign([1.0, -1.0])
    expected = x @ layer.weights.numpy() + np.array([1.0, -1.0], "float32")
    np.testing.assert_allclose(layer.compute(x), expected, rtol=1e-5, atol=1e-6)


def test_distinct_layers_start_from_distinct_weights():
    x = tw.Input(n_units=3)
    a, b = tw.layers[NAME](x, 4), tw.layers[NAME](x, 4)
    assert not np.allclose(a.weights.numpy(), b.weights.numpy())
    limit = np.sqrt(6.0 / 7.0)
    assert np.all(np.abs(a.weights.numpy()) <= limit)


def test_rejects_other_ranks():
    with pytest.raises(tw.ShapeError, match="rank-2"):
        tw.layers[NAME](tw.Input(batch_shape=(None, None, 3)), 2)


def test_gradients_reach_weights_and_bias():
    layer = tw.layers[NAME](tw.Input(n_units=3), 2)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer.compute(tf.ones([2, 3])))
    grads = tape.gradient(loss, [layer.weights, layer.bias])
    np.testing.assert_allclose(grads[0], np.full((3, 2), 2.0))
    np.testing.assert_allclose(grads[1], [2.0, 2.0])
