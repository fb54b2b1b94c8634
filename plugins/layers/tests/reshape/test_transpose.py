"""Transpose: every permutation of ranks 2-4 against numpy (batch axis included); errors."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw

Transpose = tw.layers["tensorweave-layers:Transpose.v1"]
V = np.arange(24, dtype="float32").reshape(1, 2, 3, 4)
ALL_PERMS = [(rank, perm) for rank in (2, 3, 4) for perm in itertools.permutations(range(rank))]


def test_default_reverses_non_batch_axes():
    x = tw.Input(shape=(2, 3, 4))
    layer = Transpose(x)
    assert layer.shape == (None, 4, 3, 2)
    np.testing.assert_array_equal(layer(V).numpy(), V.transpose(0, 3, 2, 1))


def test_explicit_non_batch_perm():
    x = tw.Input(shape=(2, 3, 4))
    layer = Transpose(x, (2, 3, 1))
    assert layer.shape == (None, 3, 4, 2)
    np.testing.assert_array_equal(layer(V).numpy(), V.transpose(0, 2, 3, 1))


@pytest.mark.parametrize(("rank", "perm"), ALL_PERMS, ids=str)
def test_every_full_permutation_matches_numpy(rank, perm):
    dims = (5, 2, 3, 4)[:rank]
    value = np.arange(np.prod(dims), dtype="float32").reshape(dims)
    layer = Transpose(tw.Input(batch_shape=(None, *dims[1:])), perm)
    assert layer.shape == tuple(None if p == 0 else dims[p] for p in perm)
    np.testing.assert_array_equal(layer(value).numpy(), value.transpose(perm))
    if perm[0] == 0:  # the same permutation written over the non-batch axes only
        short = Transpose(tw.Input(batch_shape=(None, *dims[1:])), perm[1:])
        assert short.shape == layer.shape
        np.testing.assert_array_equal(short(value).numpy(), value.transpose(perm))


@settings(max_examples=15, deadline=None)
@given(
    dims=st.lists(st.integers(1, 4), min_size=2, max_size=4),
    data=st.data(),
)
def test_compiled_random_shapes_match_numpy(dims, data):
    perm = data.draw(st.permutations(range(len(dims))))
    value = np.random.default_rng(0).standard_normal(dims).astype("float32")
    layer = Transpose(tw.Input(batch_shape=(None, *dims[1:])), perm)
    np.testing.assert_array_equal(tw.compile(layer)(value).numpy(), value.transpose(perm))


def test_rank_two_default_refuses_instead_of_a_silent_identity():
    x = tw.Input(n_units=3, name="x")
    with pytest.raises(ValueError, match=r"(?s)'x' \(None, 3\).*unchanged.*perm=\(1, 0\)"):
        Transpose(x)


def test_bad_perm():
    x = tw.Input(shape=(2, 3), name="x")
    with pytest.raises(ValueError, match=r"(?s)perm=\(0, 1\).*\(0, 1, 2\).*\(1, 2\).*'x'"):
        Transpose(x, (0, 1))
    with pytest.raises(ValueError, match=r"perm=\(0, 0, 1\)"):
        Transpose(x, (0, 0, 1))
