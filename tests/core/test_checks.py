"""Argument and input checks: the Python API refuses what it cannot mean, naming the
component, at the point of the mistake (issue 14)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw


@given(st.integers(1, 10**9))
def test_positive_int_accepts_positive_integers(n: int) -> None:
    assert tw.positive_int(n, "n_units", "Demo") == n
    assert tw.positive_int(np.int64(n), "n_units", "Demo") == n


@pytest.mark.parametrize("bad", [0, -1, 2.5, 3.0, "8", True, None, float("nan")])
def test_positive_int_refuses_what_is_not_a_size(bad: object) -> None:
    with pytest.raises(tw.ArgumentError, match="Demo 'h': n_units must be a positive integer"):
        tw.positive_int(bad, "n_units", "Demo 'h'")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_units": -1}, "Input 'x': n_units must be a positive integer, got -1"),
        ({"n_units": 2.5}, "Input 'x': n_units must be a positive integer, got 2.5"),
        ({"shape": (None, 2.5)}, r"Input 'x': shape\[1\] must be None \(dynamic\) or an int"),
        ({"shape": (None, 4, -3)}, r"Input 'x': shape\[2\] must be None"),
    ],
)
def test_input_refuses_impossible_sizes_at_construction(kwargs: dict, message: str) -> None:
    with pytest.raises(tw.ArgumentError, match=message):
        tw.Input(name="x", **kwargs)


def test_compile_refuses_what_is_not_a_graph() -> None:
    for bad in (None, 3, [], ["x"]):
        with pytest.raises(tw.ArgumentError, match=r"tw\.compile: expected a Graph, a Layer"):
            tw.compile(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (np.array([[1.0, None]], dtype=object), "got an array of object"),
        (np.array([["1", "2"]]), "got an array of <U1"),
        ([["1", "2"]], "got an array of <U1"),
        (np.array([[1 + 2j, 3 + 0j]]), "got an array of complex128"),
    ],
)
def test_compiled_graph_checks_inputs_instead_of_converting(value: object, message: str) -> None:
    x = tw.Input(n_units=2, name="x")
    f = tw.compile(tw.Lambda(lambda a: a * 2.0, x))
    with pytest.raises(tw.InputValueError, match=f"Input 'x' expects float32, {message}"):
        f(value)
    assert f(np.ones((3, 2))).numpy().tolist() == [[2.0, 2.0]] * 3  # float64 numpy: cast
    assert f(tf.ones((1, 2))).numpy().tolist() == [[2.0, 2.0]]
    with pytest.raises(tw.InputValueError, match="expects dtype float32, got complex64"):
        f(tf.complex(tf.ones((1, 2)), tf.ones((1, 2))))
    assert f.trace_count == 1


def test_an_array_of_objects_is_not_told_to_build_an_object_input() -> None:
    x = tw.Input(n_units=2, name="x")
    with pytest.raises(tw.InputValueError, match="Fix: give an array of numbers") as info:
        x.check(np.array([[1.0, None]], dtype=object))
    assert "dtype=" not in str(info.value)
