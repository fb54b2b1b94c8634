"""Comparisons on layers: identity between layers, the op to use against data, and a Python
bool where a layer belongs refused with the same fix."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


class Masked(tw.Layer):
    def __init__(
        self, x: tw.Layer, *, mask: tw.Layer | None = None, name=None, share_state_with=None
    ):
        self.mask = mask
        inputs = (x,) if mask is None else (x, mask)
        super().__init__(*inputs, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x, mask=None):
        return x if mask is None else tf.where(mask, x, tf.zeros_like(x))


@pytest.mark.parametrize(
    ("compare", "op"),
    [
        (lambda t: t != 0, "not_equal"),
        (lambda t: t == 0, "equal"),
        (lambda t: 0 != t, "not_equal"),  # noqa: SIM300  (the reflected operator)
        (lambda t: t == np.int64(1), "equal"),
        (lambda t: t < 3, "less"),
        (lambda t: t >= tf.constant(1, tf.int64), "greater_equal"),
    ],
)
def test_comparing_a_layer_with_data_names_the_op(compare, op):
    tokens = tw.Input(n_units=3, dtype="int64", name="tokens")
    with pytest.raises(
        tw.ArgumentError, match=rf"builds no graph node.*Fix: tw\.ops\.{op}\(tokens, "
    ):
        compare(tokens)
    assert getattr(tw.ops, op)(tokens, 1).dtype == tf.bool  # the op it names exists


def test_layers_keep_identity_equality_for_sets_dicts_and_in():
    a, b = tw.Input(n_units=1), tw.Input(n_units=1)
    assert a == a and a != b and not (a == b)  # noqa: SIM201  (both operators)
    assert a in [b, a] and a not in (None, "auto") and {a: 1}[a] == 1
    assert (a == None) is False  # noqa: E711  (None is not data)
    with pytest.raises(tw.ArgumentError, match=r"Fix: tw\.ops\.less\("):
        _ = a < b


def test_a_python_bool_for_a_layer_argument_names_the_op():
    tokens = tw.Input(n_units=3, dtype="int64", name="tokens")
    other = tw.Input(n_units=3, dtype="int64")
    x = tw.Input(n_units=3)
    with pytest.raises(
        tw.ArgumentError, match=r"Masked: mask= is a Python bool \(True\).*tw\.ops\.not_equal"
    ):
        Masked(x, mask=tokens != other)  # identity: a bool, not a node
    with pytest.raises(tw.ArgumentError, match=r"Masked: x is a Python bool \(False\)"):
        Masked(tokens == other)
    with pytest.raises(tw.ArgumentError, match=r"Lambda: inputs\[0\] is a Python bool"):
        tw.Lambda(tf.identity, True)
    masked = Masked(x, mask=tw.ops.not_equal(tokens, 0))
    x.value, tokens.value = np.ones((1, 3), "float32"), np.array([[1, 0, 2]])
    assert masked().numpy().tolist() == [[1.0, 0.0, 1.0]]


def test_bool_options_are_not_layers():
    x = tw.Input(n_units=2)
    layer = tw.layers["tensorweave-layers:Dropout.v1"](x, rate=0.5, training=False)
    assert layer.shape == (None, 2)
