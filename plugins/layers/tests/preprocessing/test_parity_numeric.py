"""Normalization, Rescaling and Discretization against Keras 3 on the same data: the same
adapted state (mean/variance to 1e-6, the same bin edges), the same outputs and, for
Normalization and Rescaling, the same input gradients."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def _data(*shape, seed=0):
    return (np.random.default_rng(seed).standard_normal(shape) * 3.0 + 5.0).astype("float32")


@pytest.mark.parametrize(
    ("axis", "shape"), [(-1, (64, 3)), (None, (64, 3)), ((1, 2), (32, 2, 3)), (1, (32, 4, 2))]
)
def test_normalization_adapts_and_normalizes_as_keras(parity, axis, shape):
    data = _data(*shape)
    ours = tw.layers["Normalization.v1"](tw.Input(batch_shape=(None, *shape[1:])), axis=axis)
    ours.adapt(data)
    ref = keras.layers.Normalization(axis=axis)
    ref.adapt(data)
    np.testing.assert_allclose(
        ours.mean.numpy(), np.reshape(ref.adapt_mean, ours.mean.shape), atol=1e-6, rtol=1e-6
    )
    np.testing.assert_allclose(
        ours.variance.numpy(),
        np.reshape(ref.adapt_variance, ours.variance.shape),
        atol=1e-5,
        rtol=1e-6,
    )
    parity(ours, ref, [data[:5]])


def test_normalization_streams_a_dataset_as_keras_does():
    data = _data(1000, 4, seed=1)
    dataset = tf.data.Dataset.from_tensor_slices((data, np.zeros(1000))).batch(96)
    ours = tw.layers["Normalization.v1"](tw.Input(n_units=4))
    ours.adapt(dataset)  # (x, y) elements: x is used
    ref = keras.layers.Normalization()
    ref.adapt(dataset.map(lambda x, y: x))
    np.testing.assert_allclose(ours.mean.numpy(), ref.adapt_mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ours.variance.numpy(), ref.adapt_variance.numpy(), rtol=1e-6)
    # a streamed pass and the whole array agree: the running statistics are exact
    whole = tw.layers["Normalization.v1"](tw.Input(n_units=4))
    whole.adapt(data)
    np.testing.assert_allclose(ours.mean.numpy(), data.astype("float64").mean(0), rtol=1e-6)
    np.testing.assert_allclose(whole.variance.numpy(), data.astype("float64").var(0), rtol=1e-6)
    assert int(ours.count.numpy()) == 1000


def test_normalization_streams_an_unbatched_dataset_and_an_iterable():
    data = _data(300, 2, seed=2)
    for source in (tf.data.Dataset.from_tensor_slices(data), [data[:100], data[100:]]):
        norm = tw.layers["Normalization.v1"](tw.Input(n_units=2))
        norm.adapt(source)
        np.testing.assert_allclose(norm.mean.numpy(), data.astype("float64").mean(0), rtol=1e-6)


@pytest.mark.parametrize("invert", [False, True])
def test_normalization_with_given_statistics_matches_keras(parity, invert):
    mean, variance = [1.0, -2.0, 0.5], [4.0, 0.25, 0.0]
    ours = tw.layers["Normalization.v1"](
        tw.Input(n_units=3), mean=mean, variance=variance, invert=invert
    )
    ref = keras.layers.Normalization(mean=mean, variance=variance, invert=invert)
    parity(ours, ref, [_data(6, 3)])


def test_normalization_casts_integers_to_float32():
    norm = tw.layers["Normalization.v1"](tw.Input(n_units=1, dtype="int64"), mean=2.0, variance=4.0)
    assert norm.dtype == tf.float32
    assert tw.compile(norm)(np.array([[4]])).numpy().tolist() == [[1.0]]


@pytest.mark.parametrize(
    ("scale", "offset"), [(1 / 255, 0.0), (1 / 127.5, -1.0), ([2.0, 3.0], [0.5, 1.0])]
)
def test_rescaling_matches_keras(parity, scale, offset):
    ours = tw.layers["Rescaling.v1"](tw.Input(n_units=2), scale=scale, offset=offset)
    ref = keras.layers.Rescaling(scale=scale, offset=offset)
    parity(ours, ref, [_data(4, 2)])


def test_rescaling_turns_pixels_into_floats():
    ours = tw.layers["Rescaling.v1"](tw.Input(shape=(2, 2, 1), dtype="uint8"), scale=1 / 255)
    pixels = np.array([[[[0], [255]], [[51], [102]]]], "uint8")
    ref = keras.layers.Rescaling(1 / 255)(pixels)
    np.testing.assert_allclose(tw.compile(ours)(pixels).numpy(), np.asarray(ref), rtol=1e-6)


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("num_bins", [3, 10])
def test_discretization_adapts_the_same_edges_as_keras(num_bins, batched):
    data = _data(2000, 1, seed=3)
    source = tf.data.Dataset.from_tensor_slices(data).batch(300) if batched else data
    ours = tw.layers["Discretization.v1"](tw.Input(n_units=1), num_bins=num_bins)
    ours.adapt(source)
    ref = keras.layers.Discretization(num_bins=num_bins)
    ref.adapt(source)
    np.testing.assert_allclose(ours.bin_boundaries.numpy(), ref.bin_boundaries, rtol=1e-6)
    probe = _data(50, 1, seed=4)
    np.testing.assert_array_equal(tw.compile(ours)(probe).numpy(), np.asarray(ref(probe)))


@pytest.mark.parametrize("mode", ["int", "one_hot", "multi_hot", "count"])
@pytest.mark.parametrize("width", [1, 3])
def test_discretization_output_modes_match_keras(mode, width):
    edges = [0.0, 4.0, 6.0]
    ours = tw.layers["Discretization.v1"](
        tw.Input(n_units=width), bin_boundaries=edges, output_mode=mode
    )
    ref = keras.layers.Discretization(bin_boundaries=edges, output_mode=mode)
    probe = _data(7, width, seed=5)
    got = tw.compile(ours)(probe)
    want = np.asarray(ref(probe))
    assert got.shape == want.shape and ours.shape[1:] == want.shape[1:]
    assert got.dtype.name == str(want.dtype)
    np.testing.assert_array_equal(got.numpy(), want)
