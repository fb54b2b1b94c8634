"""The new initializers against Keras 3's. Draws are random in both libraries, so they
are compared as distributions on a large weight: the same bounds (truncation at two
standard deviations, uniform limits) and the same spread, to 3%."""

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

INIT = keras.initializers
SHAPE = (300, 200)  # fan_in 300, fan_out 200
CASES = [
    ("truncated_normal", {}, INIT.TruncatedNormal()),
    ("truncated_normal", {"mean": 1.0, "stddev": 0.2}, INIT.TruncatedNormal(1.0, 0.2)),
    ("lecun_normal", {}, INIT.LecunNormal()),
    ("lecun_uniform", {}, INIT.LecunUniform()),
    ("variance_scaling", {}, INIT.VarianceScaling()),
    ("variance_scaling", {"scale": 2.0, "mode": "fan_out", "distribution": "uniform"},
     INIT.VarianceScaling(2.0, "fan_out", "uniform")),
    ("variance_scaling", {"scale": 0.5, "mode": "fan_avg", "distribution": "untruncated_normal"},
     INIT.VarianceScaling(0.5, "fan_avg", "untruncated_normal")),
]  # fmt: skip


@pytest.mark.parametrize(("name", "options", "ref"), CASES, ids=[c[0] for c in CASES])
def test_initializer_draws_as_keras(name, options, ref):
    tf.random.set_seed(0)
    ours = tw.initializers[f"{name}.v1"](SHAPE, tf.float32, **options).numpy()
    theirs = np.asarray(ref(SHAPE, "float32"))
    assert ours.shape == theirs.shape == SHAPE and ours.dtype == np.float32
    mean = float(theirs.mean())
    assert float(ours.mean()) == pytest.approx(mean, abs=0.01 * max(1.0, abs(mean)))
    assert ours.std() == pytest.approx(theirs.std(), rel=0.03)
    spread = max(abs(ours.min() - ours.mean()), abs(ours.max() - ours.mean()))
    bound = max(abs(theirs.min() - theirs.mean()), abs(theirs.max() - theirs.mean()))
    if "untruncated" not in str(options):  # both bounded: the same bound
        assert spread == pytest.approx(bound, rel=0.03)


def test_glorot_and_he_are_variance_scaling():
    """The older initializers are its special cases: the same draws from the same seed."""
    for name, options in [
        ("glorot_uniform", {"mode": "fan_avg", "distribution": "uniform"}),
        ("he_normal", {"scale": 2.0}),
        ("lecun_normal", {}),
    ]:
        tf.random.set_seed(1)
        a = tw.initializers[f"{name}.v1"]((4, 5))
        tf.random.set_seed(1)
        b = tw.initializers["variance_scaling.v1"]((4, 5), **options)
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_variance_scaling_refuses_unknown_modes():
    with pytest.raises(ValueError, match="mode in"):
        tw.initializers["variance_scaling.v1"]((2, 2), mode="fan_sum")
