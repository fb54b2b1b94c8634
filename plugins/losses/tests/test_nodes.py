"""The dual-use mechanism: tensors in, value out; layers in, a graph node out."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave_losses import LossLayer, LossValueError
from tensorweave_losses.base import reduce_loss
from tensorweave_losses.losses.cross_entropy import sparse_categorical_cross_entropy
from tensorweave_losses.losses.regression import mse

RNG = np.random.default_rng(0)


def test_layer_mode_builds_a_loss_node_equal_to_the_function():
    labels = tw.Input(shape=(), dtype="int64", name="labels")
    logits = tw.Input(n_units=5, name="logits")
    node = sparse_categorical_cross_entropy(labels, logits, label_smoothing=0.1, from_logits=True)
    assert isinstance(node, LossLayer) and node.shape == () and node.dtype == tf.float32
    assert node.function is sparse_categorical_cross_entropy.function
    assert node.options == {"label_smoothing": 0.1, "from_logits": True}
    assert node.name == "sparse_categorical_cross_entropy"
    y = RNG.integers(0, 5, size=7)
    z = RNG.standard_normal((7, 5)).astype("float32")
    want = sparse_categorical_cross_entropy(y, z, label_smoothing=0.1, from_logits=True)
    np.testing.assert_allclose(node(y, z), want, rtol=1e-6)
    np.testing.assert_allclose(tw.compile(node)(y, z), want, rtol=1e-6)


def test_training_graph_ends_in_loss_node_and_gradients_reach_upstream_variables():
    x = tw.Input(n_units=3, name="x")
    y = tw.Input(n_units=2, name="y")
    w = tf.Variable(tf.random.normal([3, 2]), name="w")
    h = tw.Lambda(lambda t: t @ w, x, variables=[w], name="linear")
    loss = mse(y, h, name="loss")
    assert loss.name == "loss"
    assert [v.name for v in loss.graph.trainable_variables] == ["w:0"]
    xs, ys = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 2))
    graph = tw.Graph.build(inputs=[x, y], outputs=loss)
    with tf.GradientTape() as tape:
        value = graph(xs, ys)
    grad = tape.gradient(value, w)
    want = 2 * xs.T @ (xs @ w.numpy() - ys) / ys.size
    np.testing.assert_allclose(grad, want, rtol=1e-4, atol=1e-5)


def test_layer_and_tensor_arguments_mix_and_keyword_layers_become_inputs():
    y = tw.Input(n_units=2, name="y")
    weights = tw.Input(shape=(), name="weights")
    target = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    node = mse(target, y, sample_weight=weights)
    assert node.inputs == (y, weights)
    got = node(np.zeros((2, 2), "float32"), np.array([1.0, 0.0], "float32"))
    np.testing.assert_allclose(got, (1 + 4) / 2 / 2)


def test_reuse_with_keeps_options_and_shares_variables():
    w = tf.Variable(tf.zeros([10, 3]))
    b = tf.Variable(tf.zeros([10]))
    ids, h = tw.Input(shape=(1,), dtype="int64"), tw.Input(n_units=3)
    node = tw.losses["sampled_softmax.v1"](ids, h, weights=w, biases=b, num_sampled=2)
    assert {id(v) for v in node.variables} == {id(w), id(b)}
    ids2, h2 = tw.Input(shape=(1,), dtype="int64"), tw.Input(n_units=3)
    again = node.reuse_with(ids2, h2)
    assert isinstance(again, LossLayer) and again.shares_state_with(node)
    assert again.options == node.options


def test_bad_shapes_fail_when_the_node_is_built_naming_the_loss():
    with pytest.raises(tw.ShapeError, match="mse"):
        mse(tw.Input(n_units=2), tw.Input(n_units=3))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_reductions_and_weights_against_numpy(reduction):
    losses = RNG.random((4, 3)).astype("float32")
    weights = RNG.random(4).astype("float32")
    got = reduce_loss("demo", tf.constant(losses), weights, reduction)
    weighted = losses * weights[:, None]
    want = {"mean": weighted.mean(), "sum": weighted.sum(), "none": weighted}[reduction]
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_zero_weights_give_zero_not_nan():
    assert float(reduce_loss("demo", tf.ones([3]), tf.zeros([3]))) == 0.0
    assert float(reduce_loss("demo", tf.zeros([0]))) == 0.0


def test_reduction_and_weight_errors():
    with pytest.raises(LossValueError, match="unknown reduction 'avg'"):
        mse([[1.0]], [[1.0]], reduction="avg")
    with pytest.raises(tw.ShapeError, match="sample_weight of shape"):
        mse(np.ones((4, 2)), np.ones((4, 2)), sample_weight=np.ones(3))


def test_registered_names_resolve_to_dual_use_functions():
    for name in tw.losses.names():
        if tw.losses.info(name).distribution != "tensorweave-losses":
            continue
        assert hasattr(tw.losses[name], "function"), name
    assert tw.losses["tensorweave-losses:mse.v1"] is mse


def test_reuse_inside_a_module_with_options_and_overrides():
    y, p = tw.Input(n_units=2, name="y"), tw.Input(n_units=2, name="p")
    module = tw.Module([y, p], mse(y, p))
    y2, p2 = tw.Input(n_units=2), tw.Input(n_units=2)
    again = module.reuse_with(y2, p2, training=False)
    a, b = np.zeros((2, 2), "float32"), np.ones((2, 2), "float32")
    np.testing.assert_allclose(again.compute(tf.constant(a), tf.constant(b)), 1.0)
    node = mse(y, p).reuse_with(y2, p2, reduction="none")
    assert node.shape == (None,) and node.options == {"reduction": "none"}
