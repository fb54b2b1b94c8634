"""XLA: tw.compile(jit_compile=True) runs like the plain function, and a layer XLA cannot
compile is named in the error."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.compile import XLAError, explain


def _ids_to_text(v: tf.Tensor) -> tf.Tensor:
    return tf.strings.to_number(tf.strings.as_string(v))  # AsString: no XLA kernel


def test_jit_compile_gives_the_same_numbers():
    x = tw.Input(n_units=3, name="x")
    y = tw.Lambda(lambda a: tf.nn.softmax(a * 2.0 + 1.0), x, name="soft")
    data = np.random.default_rng(0).normal(size=(5, 3)).astype("float32")
    plain, xla = tw.compile(y)(data), tw.compile(y, jit_compile=True)(data)
    np.testing.assert_allclose(plain.numpy(), xla.numpy(), rtol=1e-6)


def test_unsupported_layer_named_with_its_package():
    x = tw.Input(n_units=2, name="x")
    ok = tw.Lambda(lambda a: a * 2.0, x, name="double")
    bad = tw.Lambda(_ids_to_text, ok, name="as_text")
    f = tw.compile(bad, jit_compile=True)
    with pytest.raises(XLAError, match=r"op AsString, emitted by layer 'as_text'") as info:
        f(np.ones((2, 2), "float32"))
    message = str(info.value)
    assert "'double'" not in message and "jit_compile=False" in message
    assert isinstance(info.value.__cause__, tf.errors.InvalidArgumentError)
    # without XLA the same graph runs
    assert tw.compile(bad)(np.ones((2, 2), "float32")).shape == (2, 2)


def test_other_errors_are_not_mapped():
    x = tw.Input(n_units=2, name="x")
    graph = tw.Graph.build(x, tw.Lambda(tf.identity, x))
    assert explain(tf.errors.InvalidArgumentError(None, None, "shape mismatch"), graph, "f") is None
