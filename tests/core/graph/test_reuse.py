"""Reuse: the default ``reuse_with`` rebuilds a layer from its constructor arguments on
other inputs, sharing its state (``tensorweave.graph.reuse``)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.graph.reuse import rebuilt_on


class Scaled(tw.Layer):
    """One variable times the input, plus an option (``offset``)."""

    def __init__(self, x, *, offset=0.0, name=None, share_state_with=None):
        self.offset = offset
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def init_state(self):
        self.state.scale = tf.Variable(2.0, name="scale")

    def compute(self, x):
        return x * self.state.scale + self.offset


class Difference(tw.Layer):
    """Two inputs, no state: a - b."""

    def __init__(self, a, b, *, name=None, share_state_with=None):
        super().__init__(a, b, shape=a.shape, name=name, share_state_with=share_state_with)

    def compute(self, a, b):
        return a - b


def test_reuse_with_keeps_options_and_takes_overrides():
    a = Scaled(tw.Input(n_units=3), offset=1.0)
    b = a.reuse_with(tw.Input(n_units=3))
    assert b.offset == 1.0 and b.state is a.state
    c = a.reuse_with(tw.Input(n_units=3), offset=5.0, name="again")
    assert c.name == "again" and c.offset == 5.0 and c.state is a.state
    np.testing.assert_allclose(c.compute(tf.ones([1, 3])).numpy(), [[7.0, 7.0, 7.0]])


def test_rebuilt_on_is_the_default_reuse_with():
    x1, x2 = tw.Input(n_units=2, name="x1"), tw.Input(n_units=2, name="x2")
    a = Scaled(x1)
    b = rebuilt_on(a, (x2,), {"offset": 1.0}, node_type=tw.Layer)
    assert type(b) is Scaled and b.inputs == (x2,) and b.offset == 1.0
    assert b.shares_state_with(a) and b.name != a.name


def test_reuse_with_wrong_number_of_inputs_is_refused():
    a = Difference(tw.Input(n_units=2), tw.Input(n_units=2))
    with pytest.raises(TypeError, match="expected 2 input"):
        a.reuse_with(tw.Input(n_units=2))


class Gate(tw.Layer):
    """An input given by keyword: ``Gate(x, gate=g)``."""

    def __init__(self, x, *, gate, name=None, share_state_with=None):
        super().__init__(x, gate, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x, gate):
        return x * tf.sigmoid(gate)


def test_default_reuse_with_handles_inputs_given_by_keyword():
    x, g = tw.Input(n_units=2, name="x"), tw.Input(n_units=2, name="g")
    a = Gate(x, gate=g)
    x2, g2 = tw.Input(n_units=2, name="x2"), tw.Input(n_units=2, name="g2")
    b = a.reuse_with(x2, g2)
    assert b.inputs == (x2, g2) and b.state is a.state
    out = b(np.ones((1, 2), "float32"), np.zeros((1, 2), "float32"))
    np.testing.assert_allclose(out.numpy(), [[0.5, 0.5]])


def test_default_reuse_with_of_a_varargs_layer_takes_any_number_of_inputs():
    from tests.strategies import Add

    xs = [tw.Input(n_units=1) for _ in range(3)]
    a = Add(xs[0], xs[1])
    b = a.reuse_with(*xs)
    assert b.inputs == tuple(xs) and b.state is a.state
