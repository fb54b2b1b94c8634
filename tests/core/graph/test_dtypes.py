"""as_dtype: dtype arguments checked at the public door, with the valid choices."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.dtypes import DTYPE_NAMES, as_dtype


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_every_listed_name_is_a_dtype(name):
    assert as_dtype(name, "dtype", "X") == tf.as_dtype(name)


def test_dtypes_numpy_types_and_numpy_dtypes_pass():
    assert as_dtype(tf.int32, "dtype", "X") is tf.int32
    assert as_dtype(np.float64, "dtype", "X") == tf.float64
    assert as_dtype(np.dtype("uint8"), "dtype", "X") == tf.uint8


@pytest.mark.parametrize("bad", ["bogus", "float23", 3, None, int, [tf.float32]])
def test_anything_else_names_the_argument_and_the_choices(bad):
    with pytest.raises(
        tw.ArgumentError, match=r"^Input 'x': dtype=.* is not a dtype\..*Choices: float16"
    ):
        as_dtype(bad, "dtype", "Input 'x'")


def test_the_public_constructors_check_their_dtype():
    x = tw.Input(n_units=2, name="x")
    with pytest.raises(
        tw.ArgumentError, match=r"Lambda 'f': dtype='flaot32'.*Did you mean 'float32'"
    ):
        tw.Lambda(tf.identity, x, dtype="flaot32", name="f")
    with pytest.raises(tw.ArgumentError, match=r"Input: dtype='bogus'"):
        tw.Input(n_units=3, dtype="bogus")
