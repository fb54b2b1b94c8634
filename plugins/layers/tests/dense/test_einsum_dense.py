"""EinsumDense: the shapes an equation gives (ellipses on either side), and errors."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_layers.dense.einsum_dense import EinsumDense, einsum_shapes


@given(
    lead=st.lists(st.integers(1, 4), min_size=0, max_size=2),
    width=st.integers(1, 5),
    units=st.integers(1, 5),
)
def test_an_ellipsis_passes_any_leading_axes_through(lead, width, units):
    shape = (None, *lead, width)
    kernel, bias, out = einsum_shapes("...b,bc->...c", shape, units, "c")
    assert kernel == [width, units] and bias == [units] and out == [None, *lead, units]


def test_a_right_ellipsis_and_its_bias():
    kernel, bias, out = einsum_shapes("abc...,cd->abd...", (None, 5, 3, 7), (None, 2), "d")
    assert kernel == [3, 2] and bias == [2, 1] and out == [None, 5, 2, 7]


def test_the_layer_applies_the_equation():
    x = tw.Input(shape=(4, 3), name="x")
    layer = EinsumDense(x, "abc,cd->abd", (None, 2), bias_axes="d")
    value = np.random.default_rng(0).standard_normal((2, 4, 3)).astype("float32")
    want = value @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(layer.compute(tf.constant(value)).numpy(), want, rtol=1e-5)
    assert layer.shape == (None, 4, 2)


def test_errors_say_what_the_equation_lacks():
    x = tw.Input(batch_shape=(None, None, 3), name="x")
    with pytest.raises(tw.ArgumentError, match=r"(?s)not of the form.*Fix"):
        EinsumDense(x, "abc->abd", (None, 2))
    with pytest.raises(tw.ArgumentError, match="bias axes"):
        EinsumDense(x, "abc,cd->abd", (None, 2), bias_axes="z")
    with pytest.raises(tw.ShapeError, match=r"(?s)a size neither .*output_shape"):
        EinsumDense(x, "abc,bd->acd", (3, 2))  # the kernel's b is the unknown time axis
