"""DCGANGenerator and DCGANDiscriminator: the TensorFlow tutorial's parameter counts (and a
Keras build of the tutorial's networks), shapes, and options refused."""

from __future__ import annotations

import keras
import numpy as np
import pytest
from twmodels_helpers import assert_same_as_keras, count

import tensorweave as tw


def keras_tutorial_generator():
    """TensorFlow's DCGAN tutorial generator (tensorflow.org/tutorials/generative/dcgan)."""
    L = keras.layers
    return keras.Sequential(
        [
            keras.Input((100,)),
            L.Dense(7 * 7 * 256, use_bias=False),
            L.BatchNormalization(),
            L.LeakyReLU(),
            L.Reshape((7, 7, 256)),
            L.Conv2DTranspose(128, 5, strides=1, padding="same", use_bias=False),
            L.BatchNormalization(),
            L.LeakyReLU(),
            L.Conv2DTranspose(64, 5, strides=2, padding="same", use_bias=False),
            L.BatchNormalization(),
            L.LeakyReLU(),
            L.Conv2DTranspose(1, 5, strides=2, padding="same", use_bias=False, activation="tanh"),
        ]
    )


def keras_tutorial_discriminator():
    L = keras.layers
    return keras.Sequential(
        [
            keras.Input((28, 28, 1)),
            L.Conv2D(64, 5, strides=2, padding="same"),
            L.LeakyReLU(),
            L.Dropout(0.3),
            L.Conv2D(128, 5, strides=2, padding="same"),
            L.LeakyReLU(),
            L.Dropout(0.3),
            L.Flatten(),
            L.Dense(1),
        ]
    )


def test_the_generator_is_the_tutorials():
    ours = tw.models["DCGANGenerator.v1"]((100,))
    assert count(ours) == 2_330_944  # the tutorial's summary
    assert_same_as_keras(ours, keras_tutorial_generator())


def test_the_discriminator_is_the_tutorials():
    ours = tw.models["DCGANDiscriminator.v1"]((28, 28, 1))
    assert count(ours) == 212_865
    assert_same_as_keras(ours, keras_tutorial_discriminator())


def test_the_discriminator_scores_generated_images_and_shares_weights_on_real_ones():
    z = tw.Input(shape=(16,), name="z")
    real = tw.Input(shape=(8, 8, 1), name="real")
    fake = tw.models["DCGANGenerator.v1"](z, image_shape=(8, 8, 1), width=0.125)
    on_fake = tw.models["DCGANDiscriminator.v1"](fake, width=0.125, dropout=0.0)
    on_real = on_fake.reuse_with(real)
    assert {id(v) for v in on_real.variables} == {id(v) for v in on_fake.variables}
    images = tw.compile(fake)(np.zeros((3, 16), "float32")).numpy()
    assert images.shape == (3, 8, 8, 1) and np.abs(images).max() <= 1.0  # tanh
    scores = tw.compile(tw.Graph.build([z, real], [on_fake, on_real]))
    a, b = scores(np.zeros((2, 16), "float32"), np.zeros((2, 8, 8, 1), "float32"))
    assert a.shape == b.shape == (2, 1)


def test_depth_sets_the_doublings_and_the_image_size_must_allow_them():
    assert tw.models["DCGANGenerator.v1"](
        (8,), image_shape=(32, 32, 3), depth=3, width=0.125
    ).shape == (
        None,
        32,
        32,
        3,
    )
    with pytest.raises(tw.ShapeError, match=r"multiples of 2 \*\* depth = 4"):
        tw.models["DCGANGenerator.v1"]((8,), image_shape=(30, 30, 1))
    with pytest.raises(tw.ShapeError, match="image size must be fixed"):
        tw.models["DCGANDiscriminator.v1"]((None, None, 1))
