"""``tw.with_options``: per-use options set through a whole graph, state shared, the rest kept."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tests.strategies import Add, dags, values


class Noise(tw.Layer):
    """Adds ``shift`` (a variable) in training, the identity otherwise; default reuse_with."""

    def __init__(self, x, *, training=True, name=None, share_state_with=None):
        self.training = training
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def init_state(self):
        self.state.shift = tf.Variable(1.5, name="shift")

    def compute(self, x):
        return x + self.state.shift if self.training else tf.identity(x)


class Gate(tw.Layer):
    """Two inputs, an explicit ``reuse_with`` naming ``training``."""

    def __init__(self, a, b, *, training=True, name=None, share_state_with=None):
        self.training = training
        super().__init__(a, b, shape=a.shape, name=name, share_state_with=share_state_with)

    def compute(self, a, b):
        return a * b if self.training else a + b

    def reuse_with(self, a, b, *, training=None, name=None):
        return Gate(
            a, b, training=self.training if training is None else training, share_state_with=self
        )


def _run(outputs, inputs, feeds):
    graph = tw.Graph.build(None, outputs)
    return graph.compute(feed={i: f for i, f in zip(inputs, feeds, strict=True) if i in graph})


@settings(max_examples=25, deadline=None)
@given(dag=dags(max_nodes=8), noisy=st.sets(st.integers(0, 7)), batch=st.integers(1, 3))
def test_random_dags_switch_every_noise_off_and_keep_the_rest(dag, noisy, batch):
    tw.reset_names()
    inputs = [tw.Input(n_units=2, name=f"in{i}") for i in range(dag.n_inputs)]
    nodes: list[tw.Layer] = list(inputs)
    clean: list[tw.Layer] = list(inputs)  # the same graph built without noise: the oracle
    for k, parents in enumerate(dag.parents):
        node = Add(*[nodes[p] for p in parents], name=f"n{k}")
        twin = Add(*[clean[p] for p in parents], name=f"c{k}", share_state_with=node)
        if k in noisy:
            node = Noise(node, name=f"noise{k}")
        nodes.append(node)
        clean.append(twin)
    outs = nodes[dag.n_inputs :]
    infer = tw.with_options(outs, training=False)
    feeds = [values((None, 2), batch, seed=i) for i in range(dag.n_inputs)]
    got = _run(infer, inputs, feeds)
    want = _run(clean[dag.n_inputs :], inputs, feeds)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
    # every variable is shared, none is new
    old_vars = {id(v) for v in tw.Graph.build(None, outs).variables}
    assert {id(v) for v in tw.Graph.build(None, infer).variables} <= old_vars
    # a node with no noise upstream (itself included) is the very same object
    upstream_noise: set[int] = set()
    for k, parents in enumerate(dag.parents):
        if k in noisy or any(p - dag.n_inputs in upstream_noise for p in parents):
            upstream_noise.add(k)
    for k, (old, new) in enumerate(zip(outs, infer, strict=True)):
        assert (old is new) == (k not in upstream_noise)
        assert new.shares_state_with(old)
    # idempotent: the inference graph already has training=False everywhere
    again = tw.with_options(infer, training=False)
    assert all(a is b for a, b in zip(again, infer, strict=True))


def test_explicit_reuse_with_and_two_inputs():
    x, y = tw.Input(n_units=2, name="x"), tw.Input(n_units=2, name="y")
    gate = Gate(Noise(x), y)
    out = tw.Lambda(tf.negative, gate)
    infer = tw.with_options(out, training=False)
    a, b = np.array([[1.0, 2.0]], "float32"), np.array([[3.0, 4.0]], "float32")
    np.testing.assert_allclose(infer(a, b).numpy(), -(a + b))
    np.testing.assert_allclose(out(a, b).numpy(), -((a + 1.5) * b))


def test_explicit_inference_branch_is_kept():
    x = tw.Input(n_units=2, name="x")
    train = Noise(x)
    infer = train.reuse_with(x, training=False)
    out = tw.Lambda(tf.square, infer)
    assert tw.with_options(out, training=False) is out
    assert tw.with_options([out, x], training=False) == [out, x]
    assert tw.with_options(out) is out  # no options: nothing to do


def test_module_with_a_stochastic_layer_inside_is_switched():
    x = tw.Input(n_units=2, name="x")
    block = tw.Module(x, tw.Lambda(tf.square, Noise(x)), name="block")
    plain = tw.Module(x, tw.Lambda(tf.square, x), name="plain")
    z = tw.Input(n_units=2, name="z")
    out = block.reuse_with(z) + plain.reuse_with(z)
    assert tw.takes_option(block, "training") and not tw.takes_option(plain, "training")
    infer = tw.with_options(out, training=False)
    v = np.array([[1.0, 2.0]], "float32")
    np.testing.assert_allclose(infer(v).numpy(), 2 * v**2)
    np.testing.assert_allclose(out(v).numpy(), (v + 1.5) ** 2 + v**2)
    kept = tw.with_options(infer, training=False)
    assert kept is infer


class Wrap(tw.Layer):
    """A composite layer: an inner module in its state, options forwarded by reuse_with."""

    def __init__(self, x, inner=None, *, name=None, share_state_with=None):
        if inner is None:
            step = tw.Input(n_units=x.n_units)
            inner = tw.Module(step, Noise(step))
        object.__setattr__(self, "_inner", inner)
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def init_state(self):
        self.state.inner = self._inner

    def compute(self, x):
        return self._inner.compute(x)

    def reuse_with(self, x, *, name=None, **options):
        inner = self._inner
        if options:
            inner = inner.reuse_with(tw.Input(n_units=x.n_units), **options)
        return Wrap(x, inner, name=name, share_state_with=self)


def test_a_composite_layer_forwarding_options_is_switched():
    x = tw.Input(n_units=2, name="x")
    out = tw.Lambda(tf.square, Wrap(x))
    assert tw.takes_option(out.inputs[0], "training")
    infer = tw.with_options(out, training=False)
    v = np.array([[1.0, 2.0]], "float32")
    np.testing.assert_allclose(infer(v).numpy(), v**2)
    np.testing.assert_allclose(out(v).numpy(), (v + 1.5) ** 2)
    again = tw.with_options(infer, training=False)  # rebuilt (it cannot tell), still off
    np.testing.assert_allclose(again(v).numpy(), v**2)
    plain = tw.Lambda(tf.square, x)
    assert not tw.takes_option(plain, "training")


def test_a_node_that_cannot_be_rebuilt_is_named():
    class Stubborn(tw.Layer):
        def __init__(self, x, *, name=None, share_state_with=None):
            super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

        def compute(self, x):
            return x

        def reuse_with(self, *inputs, **options):
            raise RuntimeError("no copies")

    x = tw.Input(n_units=2, name="x")
    out = Stubborn(Noise(x), name="stubborn")
    with pytest.raises(tw.GraphError, match=r"Stubborn 'stubborn'.*no copies"):
        tw.with_options(out, training=False)
