"""RandomFlip, RandomContrast and RandomBrightness: Keras's transformations while training
(checked by their distributions), the identity at inference (also through
``tw.with_options(..., training=False)``, as a trainer's inference graph), and draws that a
seed and a checkpoint reproduce."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

N = 400


def _images(n=N, h=2, w=3, c=2, seed=0):
    return (np.random.default_rng(seed).random((n, h, w, c)) * 200 + 20).astype("float32")


def _layer(name, **options):
    return tw.layers[name](tw.Input(shape=(2, 3, 2), name="img"), **options)


@pytest.mark.parametrize(
    ("mode", "axes"), [("horizontal", [2]), ("vertical", [1]), ("horizontal_and_vertical", [1, 2])]
)
def test_random_flip_flips_half_of_the_images_along_its_axes(mode, axes):
    images = _images()
    out = tw.compile(_layer("RandomFlip.v1", mode=mode))(images).numpy()
    kinds = {"none": images}
    for a in axes:
        kinds[f"flip{a}"] = np.flip(images, a)
    if len(axes) == 2:
        kinds["both"] = np.flip(images, [1, 2])
    which = np.array([[np.array_equal(o, k[i]) for k in kinds.values()] for i, o in enumerate(out)])
    assert which.any(axis=1).all(), "every image is the original or a flip of it"
    share = which.mean(axis=0)
    expected = 1 / len(kinds)
    assert np.all(np.abs(share - expected) < 0.08), (share, expected)


def test_random_contrast_draws_keras_s_factors():
    images = _images() * 0.25 + 95.0  # in [100, 150]: no pixel clipped at 255
    factor = (0.2, 0.5)
    out = tw.compile(_layer("RandomContrast.v1", factor=factor))(images).numpy()
    mean = images.mean(axis=(1, 2), keepdims=True)
    ratio = ((out - mean) / (images - mean)).reshape(N, -1)
    per_image = ratio[:, 0]
    np.testing.assert_allclose(ratio, per_image[:, None] * np.ones_like(ratio), rtol=1e-3)
    assert per_image.min() >= 0.8 - 1e-4 and per_image.max() <= 1.5 + 1e-4
    assert per_image.min() < 0.85 and per_image.max() > 1.45  # the whole range is drawn
    # one draw, the same transformation as Keras's with that factor
    k = float(per_image[0])
    want = np.clip((images[:1] - mean[:1]) * k + mean[:1], 0, 255)
    np.testing.assert_allclose(out[:1], want, rtol=1e-5)
    assert keras.layers.RandomContrast(factor).factor == factor


def test_random_brightness_adds_one_delta_per_image_within_keras_s_range():
    images = _images() * 0 + 100.0
    out = tw.compile(_layer("RandomBrightness.v1", factor=0.2))(images).numpy()
    delta = (out - images).reshape(N, -1)
    np.testing.assert_allclose(delta, delta[:, :1] * np.ones_like(delta), atol=1e-4)
    assert delta.min() >= -0.2 * 255 - 1e-3 and delta.max() <= 0.2 * 255 + 1e-3
    assert delta.min() < -0.18 * 255 and delta.max() > 0.18 * 255
    clipped = tw.compile(_layer("RandomBrightness.v1", factor=(0.9, 1.0), value_range=(0, 1)))
    assert float(clipped(images / 100.0).numpy().min()) == 1.0  # clipped to the range


@pytest.mark.parametrize(
    ("name", "options"),
    [("RandomFlip.v1", {}), ("RandomContrast.v1", {"factor": 0.5}),
     ("RandomBrightness.v1", {"factor": 0.5})],
)  # fmt: skip
def test_inference_is_the_identity_without_being_asked(name, options):
    layer = _layer(name, **options)
    images = _images(8)
    for infer in (layer.reuse_with(layer.inputs[0], training=False),
                  tw.with_options(layer, training=False)):  # fmt: skip
        np.testing.assert_array_equal(tw.compile(infer)(images).numpy(), images)
    assert not np.array_equal(tw.compile(layer)(images).numpy(), images)


def test_a_seed_and_a_checkpoint_reproduce_the_draws(tmp_path):
    images = _images(16)
    tf.random.set_seed(7)
    a = _layer("RandomBrightness.v1", factor=0.5)
    f = tw.compile(a)
    first = f(images).numpy()
    path = tf.train.Checkpoint(layer=a).write(str(tmp_path / "ckpt"))
    second = f(images).numpy()  # what an uninterrupted run draws next
    tf.random.set_seed(7)
    again = _layer("RandomBrightness.v1", factor=0.5)
    np.testing.assert_array_equal(tw.compile(again)(images).numpy(), first)
    resumed = _layer("RandomBrightness.v1", factor=0.5)
    tf.train.Checkpoint(layer=resumed).read(path).assert_consumed()
    np.testing.assert_array_equal(tw.compile(resumed)(images).numpy(), second)


def test_options_and_inputs_are_checked():
    with pytest.raises(tw.ShapeError, match=r"RandomFlip.*\[batch, height, width, channels\].*Fix"):
        tw.layers["RandomFlip.v1"](tw.Input(n_units=4))
    with pytest.raises(tw.ArgumentError, match="mode"):
        _layer("RandomFlip.v1", mode="diagonal")
    with pytest.raises(tw.ArgumentError, match="factor"):
        _layer("RandomContrast.v1", factor=1.5)
    with pytest.raises(tw.ArgumentError, match="factor"):
        _layer("RandomBrightness.v1", factor=(0.5, 0.1))
