"""``TemplateScale.v1`` against numpy: values, gradients, training, shared state and errors."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw

NAME = "tensorweave-template:TemplateScale.v1"


def test_registered_by_name():
    from tensorweave_template.scale import Scale

    assert tw.layers[NAME] is Scale
    assert tw.layers.providers("TemplateScale.v1") == ["tensorweave-template"]


@settings(deadline=None, max_examples=15)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
    initial=st.floats(-3, 3),
    seed=st.integers(0, 2**16),
)
def test_matches_numpy(shape, initial, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal([2, *shape]).astype("float32")
    factors = rng.standard_normal(shape[-1]).astype("float32")
    layer = tw.layers[NAME](tw.Input(shape=tuple(shape)), initial=initial)
    np.testing.assert_allclose(layer.compute(x), x * np.float32(initial), rtol=1e-6, atol=1e-6)
    layer.scale.assign(factors)
    np.testing.assert_allclose(layer.compute(x), x * factors, rtol=1e-6, atol=1e-6)


def test_gradient_is_the_input_summed_over_rows():
    x = np.array([[1.0, 2.0], [3.0, -4.0]], "float32")
    layer = tw.layers[NAME](tw.Input(n_units=2))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer.compute(x))
    (grad,) = tape.gradient(loss, layer.trainable_variables)
    np.testing.assert_allclose(grad, x.sum(axis=0))


def test_one_training_step_reduces_the_loss():
    x = tw.Input(n_units=3, value=np.ones((4, 3), "float32"))
    y = tw.layers[NAME](x)
    target = np.full((4, 3), 2.0, "float32")
    step = tf.keras.optimizers.SGD(learning_rate=0.1)
    losses = []
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((y() - target) ** 2)
        step.apply_gradients(zip(tape.gradient(loss, y.trainable_variables), y.trainable_variables))
        losses.append(float(loss))
    assert losses[1] < losses[0]


def test_reuse_shares_the_factors():
    a = tw.layers[NAME](tw.Input(n_units=2), initial=2.0)
    b = a.reuse_with(tw.Input(n_units=2))
    a.scale.assign([5.0, 7.0])
    np.testing.assert_allclose(b.compute(np.ones((1, 2), "float32")), [[5.0, 7.0]])


def test_deprecated_name_warns_and_gives_the_new_one():
    old = NAME.replace("TemplateScale.v1", "TemplateRescale.v1")
    with pytest.warns(DeprecationWarning, match=r"'TemplateRescale\.v1' is deprecated"):
        assert tw.layers[old] is tw.layers[NAME]


def test_rejects_unknown_width_and_integers():
    with pytest.raises(tw.ShapeError, match="known last dimension"):
        tw.layers[NAME](tw.Input(batch_shape=(None, None)))
    with pytest.raises(TypeError, match="floating-point"):
        tw.layers[NAME](tw.Input(n_units=2, dtype="int32"))


def test_activation_option_is_resolved_by_tw_resolve():
    x = np.array([[1.0, -2.0]], "float32")
    layer = tw.layers[NAME](tw.Input(n_units=2), activation=tf.abs)
    np.testing.assert_allclose(layer.compute(x), [[1.0, 2.0]])
    with pytest.raises(tw.UnknownComponentError, match="Scale s: activation='nope'"):
        tw.layers[NAME](tw.Input(n_units=2), activation="nope", name="s")
    if tw.activations.get("relu", None) is None:
        pytest.skip("no registered activations (tensorweave-layers) installed")
    relu = tw.layers[NAME](tw.Input(n_units=2), activation="relu")
    np.testing.assert_allclose(relu.compute(x), [[1.0, 0.0]])
