"""Fixtures of the layer tests: ``parity``, the check every parity test runs against its
reference (a Keras 3 layer, or a plain TensorFlow/numpy function)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw

Check = Callable[..., None]


def check_parity(
    ours: tw.Layer,
    reference: Callable[..., Any],
    values: Sequence[np.ndarray],
    *,
    weights: Sequence[tf.Variable] = (),
    reference_weights: Sequence[Any] = (),
    atol: float = 1e-5,
    rtol: float = 1e-5,
) -> None:
    """``ours`` (built on ``tw.Input`` s, one per value) and ``reference(*tensors)`` give the
    same output and the same gradients of a random projection of it, with respect to the
    inputs and to the weights.

    ``reference_weights`` (a Keras layer's, in its order) are copied into ``weights`` (ours,
    in the same order) first; both lists then get their gradients compared pairwise.
    """
    assert len(weights) == len(reference_weights), "pair every weight with its reference"
    for mine, theirs in zip(weights, reference_weights, strict=True):
        value = np.asarray(theirs.numpy() if hasattr(theirs, "numpy") else theirs)
        assert tuple(mine.shape) == value.shape, f"{mine.name}: {mine.shape} vs {value.shape}"
        mine.assign(value)
    graph = tw.Graph.build(inputs=list(ours.graph.inputs), outputs=ours)
    assert len(graph.inputs) == len(values), "one value per input of the layer's graph"
    tensors = [tf.constant(v) for v in values]
    floats = [t for t in tensors if t.dtype.is_floating]

    def run(fn: Callable[..., Any], variables: Sequence[Any]) -> tuple[Any, list[Any]]:
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(floats)
            out = tf.convert_to_tensor(fn(*tensors))
            cotangent = tf.constant(
                np.random.default_rng(7).standard_normal(out.shape.as_list()), out.dtype
            )
            loss = tf.reduce_sum(out * cotangent)
        grads = tape.gradient(loss, [*floats, *variables])
        return out.numpy(), [None if g is None else tf.convert_to_tensor(g).numpy() for g in grads]

    got, got_grads = run(graph.compute, list(weights))
    want, want_grads = run(reference, list(reference_weights))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg="outputs differ")
    names = [f"input {i}" for i in range(len(floats))] + [w.name for w in weights]
    for name, a, b in zip(names, got_grads, want_grads, strict=True):
        assert (a is None) == (b is None), f"gradient of {name}: {a} vs {b}"
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"gradient of {name}")


@pytest.fixture
def parity() -> Check:
    """``parity(ours, reference, values, weights=..., reference_weights=...)``: see
    ``check_parity``."""
    tf.random.set_seed(0)
    return check_parity


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded numpy generator for input values."""
    return np.random.default_rng(0)


def normal(rng: np.random.Generator, *shape: int) -> np.ndarray:
    """Standard-normal float32 values."""
    return rng.standard_normal(shape).astype("float32")


@pytest.fixture
def randn(rng: np.random.Generator) -> Callable[..., np.ndarray]:
    """``randn(2, 5, 3)``: standard-normal float32 values of that shape."""
    return lambda *shape: normal(rng, *shape)
