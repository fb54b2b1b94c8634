"""The merging layers against Keras 3: ``Dot`` (axes, ``normalize``), ``Subtract``,
``Average``, ``Maximum`` and ``Minimum`` give Keras's outputs and gradients."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

RNG = np.random.default_rng(12)


def _run(fn, inputs):
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        out = fn(*inputs)
        loss = tf.reduce_sum(tf.sin(3.0 * out))
    return [out, *tape.gradient(loss, inputs)]


def _compare(ours, ref, shapes):
    values = [tf.constant(RNG.standard_normal(s).astype("float32")) for s in shapes]
    layers = [tw.Input(shape=s[1:], name=f"x{i}") for i, s in enumerate(shapes)]
    layer = ours(*layers)
    got = _run(tw.compile(layer), values)
    want = _run(lambda *v: ref(list(v)), values)
    assert got[0].shape == want[0].shape
    assert all(a is None or a == b for a, b in zip(layer.shape, want[0].shape, strict=True))
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("axes", "normalize", "shapes"),
    [
        (1, True, [(3, 4), (3, 4)]),
        (2, False, [(2, 3, 4), (2, 5, 4)]),
        ((1, 2), True, [(2, 3, 4), (2, 5, 3)]),
        (-1, False, [(2, 4), (2, 3, 4)]),
    ],
)
def test_dot_matches_keras(axes, normalize, shapes):
    _compare(
        lambda a, b: tw.layers["Dot.v1"](a, b, axes=axes, normalize=normalize),
        keras.layers.Dot(axes=axes, normalize=normalize),
        shapes,
    )


@pytest.mark.parametrize(
    ("name", "ref", "n"),
    [
        ("Subtract.v1", keras.layers.Subtract, 2),
        ("Average.v1", keras.layers.Average, 3),
        ("Maximum.v1", keras.layers.Maximum, 3),
        ("Minimum.v1", keras.layers.Minimum, 2),
    ],
)
def test_elementwise_merges_match_keras(name, ref, n):
    _compare(lambda *xs: tw.layers[name](*xs), ref(), [(2, 3, 4)] * n)
