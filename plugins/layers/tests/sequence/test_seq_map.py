"""SeqMap: per-step application with shared weights, against an explicit loop over steps."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

SeqMap = tw.layers["SeqMap.v1"]
RNG = np.random.default_rng(8)


def test_equals_a_loop_over_steps_and_shares_weights():
    x = tw.Input(batch_shape=(None, None, 3), name="seq")
    mapped = SeqMap(x, "DropConnect.v1", n_units=4, training=False)
    inner = mapped.step.output
    assert mapped.shape == (None, None, 4)
    value = RNG.standard_normal((2, 5, 3)).astype("float32")
    got = tw.compile(mapped)(value).numpy()
    loop = np.stack([inner.compute(value[:, t]).numpy() for t in range(5)], axis=1)
    np.testing.assert_allclose(got, loop, rtol=1e-5, atol=1e-6)
    again = mapped.reuse_with(tw.Input(shape=(2, 3)))
    assert again.shape == (None, 2, 4)
    assert {id(v) for v in again.variables} == {id(v) for v in mapped.variables} != set()
    np.testing.assert_allclose(again.compute(value[:, :2]).numpy(), got[:, :2], rtol=1e-6)


def test_factory_of_several_layers_and_multi_axis_steps():
    x = tw.Input(shape=(4, 6, 6, 2))

    def step(img):
        return tw.layers["GlobalMaxPool.v1"](tw.layers["Conv2D.v1"](img, n_units=3, padding="same"))

    mapped = SeqMap(x, step)
    assert mapped.shape == (None, 4, 3)
    assert len(mapped.trainable_variables) == 2
    value = RNG.standard_normal((2, 4, 6, 6, 2)).astype("float32")
    got = mapped.compute(tf.constant(value)).numpy()
    np.testing.assert_allclose(
        got[:, 1], mapped.step.compute(value[:, 1]).numpy(), rtol=1e-5, atol=1e-6
    )


def test_reuse_options_reach_the_step_layers():
    x = tw.Input(batch_shape=(None, None, 5))
    mapped = SeqMap(x, lambda s: tw.layers["Dropout.v1"](s, rate=0.9))
    infer = mapped.reuse_with(x, training=False)
    value = np.ones((2, 3, 5), "float32")
    np.testing.assert_array_equal(infer.compute(value).numpy(), value)
    assert infer.shares_state_with(mapped)


def test_with_linear_when_installed():
    name = "tensorweave-layers:Linear.v1"  # qualified: other installed packs may offer one too
    if name not in tw.layers:
        pytest.skip("Linear.v1 (part A) is not installed")
    x = tw.Input(batch_shape=(None, None, 3))
    mapped = SeqMap(x, name, n_units=2)
    value = RNG.standard_normal((2, 4, 3)).astype("float32")
    got = mapped.compute(value).numpy()
    want = np.stack([mapped.step.compute(value[:, t]).numpy() for t in range(4)], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_errors():
    with pytest.raises(tw.ShapeError, match=r"SeqMap.*rank >= 3.*\(None, 3\)"):
        SeqMap(tw.Input(n_units=3), "LayerNorm.v1")
    with pytest.raises(tw.UnknownComponentError, match=r"SeqMap: layer='LayerNrom.v1'"):
        SeqMap(tw.Input(batch_shape=(None, None, 3)), "LayerNrom.v1")
    with pytest.raises(TypeError, match="SeqMap: layer must be a registered layers name"):
        SeqMap(tw.Input(batch_shape=(None, None, 3)), 42)
    mapped = SeqMap(tw.Input(batch_shape=(None, None, 3)), "LayerNorm.v1")
    with pytest.raises(tw.ShapeError, match="steps of shape"):
        mapped.reuse_with(tw.Input(batch_shape=(None, None, 4)))


def test_a_bare_name_is_the_latest_version_like_rnn_cells():
    """SeqMap(x, "LayerNorm") resolves through tw.resolve, as RNN(cell="LSTMCell") does."""
    x = tw.Input(batch_shape=(None, None, 3))
    bare, versioned = SeqMap(x, "LayerNorm"), SeqMap(x, "LayerNorm.v1")
    assert type(bare.step.inner_graph.outputs[0]) is type(versioned.step.inner_graph.outputs[0])
    value = RNG.standard_normal((2, 4, 3)).astype("float32")
    np.testing.assert_allclose(bare.compute(value), versioned.compute(value), rtol=1e-6)
