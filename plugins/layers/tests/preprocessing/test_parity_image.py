"""Resizing, CenterCrop and the geometric augmentations against Keras 3: the same outputs
(and gradients where differentiable) for the same images; the random layers give Keras's
images for Keras's own draw (its ``transform_images`` on the transformation it drew), draw
from Keras's distributions, and are the identity (RandomCrop: the centre) at inference."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def _images(n=3, h=6, w=8, c=2, seed=0):
    return (np.random.default_rng(seed).random((n, h, w, c)) * 255).astype("float32")


def _layer(name, images, **options):
    return tw.layers[name](tw.Input(shape=images.shape[1:], name="img"), **options)


def _grads(fn, images):
    x = tf.constant(images)
    weights = tf.constant(np.random.default_rng(1).random(fn(x).shape).astype("float32"))
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(fn(x) * weights)
    return tape.gradient(loss, x).numpy()


@pytest.mark.parametrize(
    "options",
    [
        {"height": 3, "width": 4},
        {"height": 9, "width": 5, "interpolation": "nearest"},
        {"height": 4, "width": 4, "crop_to_aspect_ratio": True},
        {"height": 4, "width": 3, "crop_to_aspect_ratio": True, "interpolation": "bicubic"},
        {"height": 8, "width": 4, "pad_to_aspect_ratio": True, "fill_value": 7.0},
        {"height": 3, "width": 4, "interpolation": "area", "antialias": True},
    ],
)
def test_resizing_equals_keras(options):
    images = _images()
    ours = tw.compile(_layer("Resizing.v1", images, **options))
    theirs = keras.layers.Resizing(**options)
    np.testing.assert_allclose(ours(images).numpy(), theirs(images).numpy(), atol=1e-4)
    if options.get("interpolation", "bilinear") == "bilinear":
        np.testing.assert_allclose(
            _grads(ours, images), _grads(lambda x: theirs(x), images), atol=1e-5
        )


@pytest.mark.parametrize("size", [(4, 4), (6, 3), (3, 8), (8, 4), (10, 10)])
def test_center_crop_equals_keras(size):
    images = _images()
    ours = tw.compile(_layer("CenterCrop.v1", images, height=size[0], width=size[1]))
    theirs = keras.layers.CenterCrop(*size)
    np.testing.assert_allclose(ours(images).numpy(), theirs(images).numpy(), atol=1e-4)
    np.testing.assert_allclose(_grads(ours, images), _grads(lambda x: theirs(x), images), atol=1e-5)


def _their_draw(layer, images):
    return layer.get_random_transformation(tf.constant(images), training=True)


@pytest.mark.parametrize(
    ("name", "options", "matrix"),
    [
        ("RandomRotation", {"factor": 0.2}, lambda t, h, w: ("rotation", t["angle"])),
        (
            "RandomRotation",
            {"factor": (0.1, 0.3), "fill_mode": "constant", "fill_value": 9.0,
             "interpolation": "nearest"},
            lambda t, h, w: ("rotation", t["angle"]),
        ),
        ("RandomZoom", {"height_factor": 0.4}, None),
        ("RandomZoom", {"height_factor": (-0.3, 0.2), "width_factor": 0.5, "fill_mode": "wrap"},
         None),
        ("RandomTranslation", {"height_factor": 0.3, "width_factor": (-0.2, 0.4)}, None),
        ("RandomTranslation", {"height_factor": 0.5, "width_factor": 0.5, "fill_mode": "nearest"},
         None),
    ],
)  # fmt: skip
def test_geometric_augmentations_give_kerass_images_for_kerass_draw(name, options, matrix):
    from tensorweave_layers.preprocessing import geometric

    images = _images()
    ours = _layer(f"{name}.v1", images, **options)
    theirs = getattr(keras.layers, name)(**options, seed=3)
    drawn = _their_draw(theirs, images)
    h, w = images.shape[1:3]
    if name == "RandomRotation":
        m = geometric.rotation_matrix(tf.constant(drawn["angle"]), h, w)
    elif name == "RandomZoom":
        zooms = tf.concat([drawn["width_zoom"], drawn["height_zoom"]], axis=1)
        m = geometric.zoom_matrix(tf.cast(zooms, tf.float32), h, w)
    else:
        m = geometric.translation_matrix(tf.constant(drawn["translations"]))
    expected = theirs.transform_images(tf.constant(images), drawn, training=True)
    got = ours.apply(tf.constant(images), m)
    np.testing.assert_allclose(got.numpy(), np.asarray(expected), atol=1e-3)
    # at inference: the images as they are (also through the trainer's inference graph)
    off = tw.with_options(ours, training=False)
    np.testing.assert_array_equal(tw.compile(off)(images).numpy(), images)
    np.testing.assert_array_equal(np.asarray(theirs(images, training=False)), images)


def _angles(matrices):
    return np.degrees(np.arctan2(matrices[:, 3], matrices[:, 0]))


def test_random_rotation_and_zoom_draw_from_kerass_ranges():
    """One draw per image, uniform over Keras's range (mean and extremes of 2,000 draws)."""
    images = np.zeros((2000, 4, 4, 1), "float32")
    rng = tf.random.Generator.from_seed(0)
    rotation = _layer("RandomRotation.v1", images, factor=(-0.1, 0.05))
    angles = _angles(rotation.matrix(tf.constant(images), rng).numpy())
    assert -36.0 <= angles.min() < -35.0 and 17.0 < angles.max() <= 18.0
    assert abs(angles.mean() - (-9.0)) < 1.0
    zoom = _layer("RandomZoom.v1", images, height_factor=(-0.2, 0.3), width_factor=0.1)
    m = zoom.matrix(tf.constant(images), rng).numpy()
    assert 0.8 <= m[:, 4].min() < 0.81 and 1.29 < m[:, 4].max() <= 1.3  # height
    assert m[:, 0].min() >= 0.9 and m[:, 0].max() <= 1.1 and abs(m[:, 0].mean() - 1.0) < 0.01
    assert np.corrcoef(m[:, 0], m[:, 4])[0, 1] < 0.1  # drawn apart
    shift = _layer("RandomTranslation.v1", images, height_factor=0.5, width_factor=(0.0, 0.25))
    m = shift.matrix(tf.constant(images), rng).numpy()
    assert -2.0 <= m[:, 5].min() < -1.9 and 1.9 < m[:, 5].max() <= 2.0  # -dy, in pixels
    assert m[:, 2].min() >= -1.0 and m[:, 2].max() <= 0.0  # -dx


def test_augmented_images_differ_while_training_and_are_reproduced_by_the_seed():
    images = _images(n=8)

    def run():
        tf.random.set_seed(5)
        return tw.compile(_layer("RandomRotation.v1", images, factor=0.25))(images).numpy()

    first, again = run(), run()
    np.testing.assert_array_equal(first, again)
    assert not np.allclose(first, images)
    assert len({round(float(v), 3) for v in first.reshape(8, -1).sum(axis=1)}) == 8


def test_random_crop_is_kerass_crop_while_training_and_the_centre_at_inference():
    images = _images(n=4, h=6, w=8)
    ours = _layer("RandomCrop.v1", images, height=4, width=5)
    theirs = keras.layers.RandomCrop(4, 5, seed=2)
    top, left = (int(v) for v in theirs.get_random_transformation(images, training=True))
    expected = theirs.transform_images(tf.constant(images), (top, left), training=True)
    np.testing.assert_array_equal(ours.crop_at(tf.constant(images), top, left).numpy(), expected)
    # drawn offsets cover every position, one per batch
    tf.random.set_seed(0)
    run = tw.compile(ours)
    seen = set()
    for _ in range(60):
        out = run(images).numpy()
        found = [
            (t, s)
            for t in range(3)
            for s in range(4)
            if np.array_equal(out, images[:, t : t + 4, s : s + 5])
        ]
        assert len(found) == 1
        seen.add(found[0])
    assert len(seen) == 12
    # at inference: the centred box of the crop's aspect ratio, resized (Keras's
    # Resizing(crop_to_aspect_ratio=True); Keras 3's RandomCrop returns the images unchanged)
    centre = tw.compile(tw.with_options(ours, training=False))(images).numpy()
    smart = keras.layers.Resizing(4, 5, crop_to_aspect_ratio=True)
    np.testing.assert_allclose(centre, np.asarray(smart(images)), atol=1e-4)
    assert centre.shape == (4, 4, 5, 2)


@pytest.mark.parametrize(
    "options",
    [
        {"height": 4, "width": 6},
        {"height": 4, "width": 6, "crop_to_aspect_ratio": True},
        {"height": 5, "width": 3, "crop_to_aspect_ratio": True, "interpolation": "bicubic"},
        {"height": 8, "width": 4, "pad_to_aspect_ratio": True, "fill_value": 7.0},
    ],
)
def test_resizing_takes_images_of_any_size_as_keras(options):
    """An input of unknown height and width: the crop/pad box is computed at run time,
    for each size met, the same box as Keras's (and as for a known size)."""
    layer = tw.compile(
        tw.layers["Resizing.v1"](tw.Input(batch_shape=(None, None, None, 2)), **options)
    )
    rng = np.random.default_rng(3)
    for size in [(9, 7), (5, 12), (6, 6)]:
        images = rng.random((2, *size, 2)).astype("float32")
        theirs = keras.layers.Resizing(**options)(images)
        np.testing.assert_allclose(layer(images).numpy(), np.asarray(theirs), atol=1e-4)


def test_resizing_offers_every_tf_image_resize_method():
    images = _images()
    for method in ("gaussian", "mitchellcubic"):
        ours = tw.compile(_layer("Resizing.v1", images, height=3, width=5, interpolation=method))
        expected = tf.image.resize(images, (3, 5), method=method)
        np.testing.assert_allclose(ours(images).numpy(), expected.numpy(), atol=1e-5)
    with pytest.raises(tw.ArgumentError, match="interpolation must be one of"):
        tw.layers["Resizing.v1"](
            tw.Input(shape=(4, 4, 1)), height=2, width=2, interpolation="cubic"
        )


def test_image_layers_name_bad_inputs():
    with pytest.raises(tw.ShapeError, match="rank 4"):
        tw.layers["Resizing.v1"](tw.Input(n_units=3), height=2, width=2)
    with pytest.raises(tw.ShapeError, match="height and width must be known"):
        tw.layers["RandomCrop.v1"](tw.Input(shape=(None, None, 3)), height=2, width=2)
    with pytest.raises(tw.ArgumentError, match="fill_mode"):
        tw.layers["RandomRotation.v1"](tw.Input(shape=(4, 4, 1)), factor=0.1, fill_mode="mirror")
    with pytest.raises(tw.ArgumentError, match="exclude each other"):
        tw.layers["Resizing.v1"](tw.Input(shape=(4, 4, 1)), height=2, width=2,
                                 crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)  # fmt: skip
