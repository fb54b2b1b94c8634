"""``Augment.v1``: augments while training, the identity otherwise; consumes an augmenter
given by name, as an object, or as a config block of this pack's own kind."""

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave import config
from tensorweave_augment.augmenters import Scale

NAME = "tensorweave-augment:Augment.v1"
X = np.linspace(0.0, 1.0, 12, dtype="float32").reshape(3, 4)


def _layer(**options):
    return tw.layers[NAME](tw.Input(n_units=4, value=X), **options)


def test_training_augments_and_inference_is_the_identity():
    noisy = _layer(augmenter="AugmentJitter.v1")
    assert not np.allclose(noisy().numpy(), X)
    np.testing.assert_array_equal(noisy.reuse_with(noisy.inputs[0], training=False)().numpy(), X)
    [inference] = tw.with_options([noisy], training=False)
    np.testing.assert_array_equal(inference().numpy(), X)
    np.testing.assert_array_equal(_layer(training=False)().numpy(), X)


def test_strength_mixes_the_augmented_batch_with_the_original():
    doubled = _layer(augmenter=Scale(low=2.0, high=2.0))
    np.testing.assert_allclose(doubled().numpy(), 2 * X)
    doubled.strength.assign(0.5)
    np.testing.assert_allclose(doubled().numpy(), 1.5 * X)
    again = doubled.reuse_with(tw.Input(n_units=4, value=X))
    assert again.strength is doubled.strength  # reuse shares the state
    doubled.strength.assign(0.0)
    np.testing.assert_allclose(again().numpy(), X)


def test_the_randomness_is_the_layers_generator_seeded_by_tf_random():
    tf.random.set_seed(3)
    first = _layer()().numpy()
    tf.random.set_seed(3)
    assert np.array_equal(_layer()().numpy(), first)


def test_a_config_block_of_the_new_kind_is_consumed_by_the_layer():
    block = {
        "m": {
            "nodes": {
                "x": {"input": [4]},
                "a": {
                    "@layers": NAME,
                    "inputs": "x",
                    "augmenter": {"@augmenters": "AugmentScale.v1", "low": 3.0, "high": 3.0},
                },
            }
        }
    }
    assert config.validate(block) == []
    graph = config.resolve(block)["m"]
    layer = graph["a"]
    assert isinstance(layer.augmenter, Scale) and layer.augmenter.low == 3.0
    np.testing.assert_allclose(tw.compile(layer)(X).numpy(), 3 * X)
    bad = config.validate({"a": {"@augmenters": "AugmentScale.v1", "lo": 1.0}})
    assert bad and "Did you mean 'low'" in bad[0][1]


def test_wrong_inputs_and_unknown_augmenters_say_which_layer_and_option():
    with pytest.raises(TypeError, match="floating-point input"):
        tw.layers[NAME](tw.Input(n_units=2, dtype="int32"))
    with pytest.raises(tw.UnknownComponentError, match=r"Augment a: augmenter='Jiter\.v1'"):
        tw.layers[NAME](tw.Input(n_units=2), augmenter="Jiter.v1", name="a")
