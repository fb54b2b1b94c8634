"""Precision: mixed precision policies, how the executor runs each layer under one."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw

BF16 = tf.bfloat16


class Scale(tw.Layer):
    """``x * s + offset`` as a third-party layer writes it: no precision code at all. It
    records the dtypes it saw, and keeps a non-trainable counter it assigns."""

    def __init__(self, x, *, name=None, share_state_with=None):
        self.seen: list[tuple[str, str, str]] = []
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def init_state(self):
        self.state.s = tf.Variable(tf.fill([self.n_units], 1.5), name="s")
        self.state.calls = tf.Variable(0.0, trainable=False, name="calls")

    def compute(self, x):
        self.state.calls.assign_add(1.0)  # a non-trainable variable is read as it is
        s = self.state.s
        self.seen.append((x.dtype.name, s.dtype.name, self.compute_dtype.name))
        return x * s + tf.constant(0.25, self.compute_dtype)


class Stats(Scale):
    """The same layer declaring float32 (as normalization statistics do)."""

    compute_precision = "float32"


class Probe(tw.Layer):
    """Records the dtype it receives; declares the ``compute_precision`` it is given."""

    def __init__(self, x, *, how="compute", name=None, share_state_with=None):
        self.compute_precision = how
        self.seen: list[str] = []
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x):
        self.seen.append(x.dtype.name)
        return x


def test_policies_name_their_dtypes_and_bad_names_are_refused():
    mixed = tw.Precision("mixed_bfloat16")
    assert (mixed.compute_dtype, mixed.variable_dtype, mixed.loss_scaling) == (
        BF16,
        tf.float32,
        False,
    )
    assert tw.Precision("mixed_float16").loss_scaling and not tw.Precision("float32").mixed
    assert tw.Precision.of("mixed_bfloat16") == mixed and tw.Precision.of(mixed) is mixed
    assert tw.Precision.NAMES == ("float32", "mixed_bfloat16", "mixed_float16")
    with pytest.raises(
        tw.ArgumentError, match=r"Close matches: mixed_bfloat16, mixed_float16\. Fix: use one of"
    ):
        tw.Precision("mixed_bfloat")
    with pytest.raises(tw.ArgumentError, match="Model 'm': precision must be a name"):
        tw.Precision.of(16, owner="Model 'm'")


def test_scope_sets_the_current_policy_and_restores_it_after_an_error():
    assert tw.Precision.current().name == "float32"
    with pytest.raises(RuntimeError), tw.Precision("mixed_bfloat16"):
        assert tw.Precision.current().name == "mixed_bfloat16"
        with tw.Precision("float32"):
            assert tw.Precision.of(None).name == "float32"
        raise RuntimeError
    assert tw.Precision.current().name == "float32"


def test_a_layer_without_precision_code_computes_in_bfloat16_with_float32_variables():
    x = tw.Input(n_units=3, name="x")
    y = Scale(x)
    values = np.array([[1.0, -2.0, 3.0]], "float32")
    f = tw.compile(y, precision="mixed_bfloat16")
    out = f(values)
    assert out.dtype == tf.float32  # the graph's output comes back in its declared dtype
    assert y.seen[-1] == ("bfloat16", "bfloat16", "bfloat16")
    assert y.state.s.dtype == tf.float32 and float(y.state.calls) == 1.0  # assigned as is
    np.testing.assert_allclose(out, values * 1.5 + 0.25, rtol=1e-2)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(f(values))
    (grad,) = tape.gradient(loss, [y.state.s])
    assert grad.dtype == tf.float32
    np.testing.assert_allclose(grad, values[0], rtol=1e-2)


def test_a_layer_declaring_float32_gets_float32_inputs_and_variables():
    x = tw.Input(n_units=2, name="x")
    low = Probe(x)
    stats = Stats(low)
    after = Probe(stats)
    tw.compile(after, precision="mixed_bfloat16")(np.ones((2, 2), "float32"))
    assert low.seen[-1] == "bfloat16"
    assert stats.seen[-1] == ("float32", "float32", "float32")
    assert after.seen[-1] == "bfloat16"  # cast down again by the next layer


def test_lambdas_compute_in_their_inputs_dtype_or_float32_with_variables():
    x = tw.Input(n_units=2, name="x")
    t = tw.Input(n_units=2, name="t")
    low = Probe(x)
    w = tf.Variable([[1.0, 0.0], [0.0, 2.0]])
    same = tw.Lambda(tf.square, low)
    mixed = low - t  # bfloat16 and float32: the wider
    closure = tw.Lambda(lambda a: a @ w, low, variables=[w])
    policy = tw.Precision("mixed_bfloat16")
    ones = tf.ones([1, 2])
    assert policy.apply(same, tf.ones([1, 2], BF16)).dtype == BF16
    assert policy.apply(mixed, tf.ones([1, 2], BF16), ones).dtype == tf.float32
    assert closure.compute_precision == "float32"
    assert closure.reuse_with(x).compute_precision == "float32"  # the shared variables
    out = tw.compile([same, mixed, closure], precision=policy)(np.ones((1, 2), "f4"), ones)
    assert [o.dtype for o in out] == [tf.float32] * 3
    np.testing.assert_allclose(out[2], [[1.0, 2.0]])


def test_a_module_hands_its_inner_layers_dtypes_on_and_only_the_graph_output_is_cast():
    inner_in = tw.Input(n_units=2, name="inner_in")
    inner = Probe(Stats(inner_in), how="inputs")
    module = tw.Module(inner_in, inner)
    after = Probe(module, how="inputs")
    out = tw.compile(after, precision="mixed_bfloat16")(np.ones((1, 2), "float32"))
    assert inner.seen[-1] == "float32" and after.seen[-1] == "float32"
    assert out.dtype == tf.float32
    low = Probe(inner_in)
    low_module = tw.Module(inner_in, low)
    with tw.Precision("mixed_bfloat16"):  # eager, inside the scope
        eager = Probe(low_module, how="inputs")(np.ones((1, 2), "float32"))
    assert low.seen[-1] == "bfloat16" and eager.dtype == tf.float32


def test_integer_inputs_are_not_cast_and_float32_policies_cast_nothing():
    ids = tw.Input(shape=(), dtype="int64", name="ids")
    counted = tw.Lambda(lambda i: tf.cast(i, tf.float32) * 2.0, ids)
    assert tw.compile(counted, precision="mixed_bfloat16")(np.array([1, 2])).numpy().tolist() == [
        2.0,
        4.0,
    ]
    x = tw.Input(n_units=2, name="x")
    probe = Probe(x)
    with tw.Precision("mixed_bfloat16"):
        tw.compile(probe, precision="float32")(np.ones((1, 2), "float32"))
    assert probe.seen[-1] == "float32"


def test_compile_takes_the_policy_in_scope_when_it_is_made():
    x = tw.Input(n_units=2, name="x")
    probe = Probe(x)
    with tw.Precision("mixed_bfloat16"):
        f = tw.compile(probe)
    assert f.precision.name == "mixed_bfloat16"
    f(np.ones((1, 2), "float32"))  # called outside the scope: still its own policy
    assert probe.seen[-1] == "bfloat16"


def test_a_compiled_graph_called_inside_another_function_runs_under_its_policy():
    x = tw.Input(n_units=2, name="x")
    y = Scale(x)
    inner = tw.compile(y, precision="mixed_bfloat16")

    @tf.function
    def outer(v):
        return inner(v) * 2.0

    assert outer(tf.ones([1, 2])).dtype == tf.float32
    assert y.seen[-1][0] == "bfloat16"


def test_an_unknown_compute_precision_names_the_layer():
    x = tw.Input(n_units=2, name="x")
    probe = Probe(x, how="half", name="odd")
    policy = tw.Precision("mixed_bfloat16")
    with pytest.raises(tw.ArgumentError, match="Probe 'odd': compute_precision is 'half'"):
        policy.apply(probe, tf.ones([1, 2]))
    with pytest.raises(Exception, match=r"Probe 'odd': compute_precision is 'half'\. Fix"):
        tw.compile(probe, precision=policy)(np.ones((1, 2), "float32"))  # while tracing


def test_eager_graphs_inside_a_scope_cast_like_compiled_ones():
    x = tw.Input(n_units=2, name="x")
    y = Scale(x)
    with tw.Precision("mixed_bfloat16"):
        out = y(np.ones((1, 2), "float32"))
    assert out.dtype == tf.float32 and y.seen[-1][0] == "bfloat16"
    assert float(y.state.calls) == 1.0
    y(np.ones((1, 2), "float32"))  # outside: float32 again
    assert y.seen[-1] == ("float32", "float32", "float32")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(["compute", "float32", "inputs"]), min_size=1, max_size=5))
def test_each_layer_of_a_chain_receives_the_dtype_it_declares(kinds):
    """Whatever the order of declarations, a "compute" layer gets bfloat16, a "float32"
    one float32 and an "inputs" one what the layer before it produced."""
    x = tw.Input(n_units=2, name="x")
    layers, node = [], x
    for how in kinds:
        node = Probe(node, how=how)
        layers.append(node)
    out = tw.compile(node, precision="mixed_bfloat16")(np.ones((1, 2), "float32"))
    assert out.dtype == tf.float32
    previous = "float32"  # the fed input
    for how, layer in zip(kinds, layers, strict=True):
        want = {"compute": "bfloat16", "float32": "float32", "inputs": previous}[how]
        assert layer.seen[-1] == want, (kinds, how)
        previous = want
