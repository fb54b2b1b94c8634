"""Layer: the contract (compute, call, inputs, shape, state), sharing state, tracking,
freezing."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


class Dense(tw.Layer):
    """A tiny dense layer whose weights come from tf.random, as the contract asks."""

    def __init__(self, x, n_units, *, use_bias=True, name=None, share_state_with=None):
        self.use_bias = use_bias
        self.n_in = x.n_units
        super().__init__(
            x,
            shape=(*x.shape[:-1], n_units),
            dtype=x.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def init_state(self):
        self.state.weights = tf.Variable(tf.random.normal([self.n_in, self.n_units]), name="w")
        if self.use_bias:
            self.state.bias = tf.Variable(tf.zeros([self.n_units]), name="b")

    def compute(self, x):
        y = x @ self.state.weights
        return y + self.state.bias if self.use_bias else y


class Pair(tw.Layer):
    """Two inputs, no state: a + 2 * b."""

    def __init__(self, a, b, *, name=None, share_state_with=None):
        super().__init__(a, b, shape=a.shape, name=name, share_state_with=share_state_with)

    def compute(self, a, b):
        return a + 2.0 * b


def test_attributes_describe_the_layer():
    x = tw.Input(n_units=3, name="x")
    y = Dense(x, 4, name="dense")
    assert y.inputs == (x,)
    assert y.shape == (None, 4)
    assert y.n_units == 4
    assert y.dtype == tf.float32
    assert y.name == "dense"
    assert not y.sparse
    assert y.spec == tf.TensorSpec((None, 4), tf.float32, name="dense")
    assert {v.name.split(":")[0] for v in y.trainable_variables} == {f"{y.name}/w", f"{y.name}/b"}
    assert "dense" in repr(y) and "'x'" in repr(y)


def test_compute_applies_the_layer_alone():
    x = tw.Input(n_units=3)
    y = Dense(x, 2)
    value = np.arange(6, dtype="float32").reshape(2, 3)
    got = y.compute(tf.constant(value))
    expected = value @ y.state.weights.numpy() + y.state.bias.numpy()
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


def test_calling_runs_the_whole_graph_from_input_values():
    a = tw.Input(n_units=2, value=[[1.0, 2.0]])
    b = tw.Input(n_units=2, value=[[10.0, 20.0]])
    z = Pair(a, b)
    assert z().numpy().tolist() == [[21.0, 42.0]]
    # explicit values, one per graph input, in the order of z.graph.inputs
    assert z.graph.inputs == (a, b)
    assert z([[0.0, 0.0]], [[1.0, 1.0]]).numpy().tolist() == [[2.0, 2.0]]


def test_weights_read_through_the_state():
    y = Dense(tw.Input(n_units=3), 2)
    assert y.weights is y.state.weights
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = y.nope


def test_variables_are_the_layers_own_not_upstream():
    x = tw.Input(n_units=3)
    h = Dense(x, 4)
    y = Dense(h, 2, use_bias=False)
    assert [id(v) for v in y.variables] == [id(y.state.weights)]
    assert len(h.variables) == 2
    assert set(map(id, y.graph.variables)) == set(map(id, h.variables + y.variables))


def test_reuse_with_shares_the_same_variable_objects():
    x1, x2 = tw.Input(n_units=3, name="x1"), tw.Input(n_units=3, name="x2")
    a = Dense(x1, 2)
    b = a.reuse_with(x2)
    assert b.inputs == (x2,)
    assert b.shares_state_with(a) and b.state is a.state
    assert all(v is w for v, w in zip(a.trainable_variables, b.trainable_variables, strict=True))
    value = np.ones((2, 3), "float32")
    np.testing.assert_allclose(a.compute(value).numpy(), b.compute(value).numpy())
    a.state.bias.assign_add(tf.ones([2]))  # a change through one is seen through the other
    np.testing.assert_allclose(a.compute(value).numpy(), b.compute(value).numpy())
    assert b.name != a.name


def test_sharing_state_across_classes_is_refused():
    x = tw.Input(n_units=3)
    with pytest.raises(TypeError, match="cannot share the state"):
        Dense(x, 3, share_state_with=tw.Lambda(tf.identity, x))


def test_non_layer_input_is_refused_with_a_fix():
    class Take(tw.Layer):
        def __init__(self, a, b, *, name=None, share_state_with=None):
            super().__init__(a, b, shape=(None, 1), name=name, share_state_with=share_state_with)

    with pytest.raises(TypeError, match=r"(?s)Take: input 1 is a ndarray.*tw\.Input"):
        Take(tw.Input(n_units=1), np.ones((2, 3)))


def test_distinct_layers_do_not_start_from_identical_weights():
    x = tw.Input(n_units=8)
    a, b = Dense(x, 8), Dense(x, 8)
    assert not np.allclose(a.state.weights.numpy(), b.state.weights.numpy())


def test_global_seed_makes_weights_reproducible():
    tf.random.set_seed(7)
    first = Dense(tw.Input(n_units=4), 4).state.weights.numpy()
    tf.random.set_seed(7)
    second = Dense(tw.Input(n_units=4), 4).state.weights.numpy()
    np.testing.assert_array_equal(first, second)


def test_layers_are_tf_modules():
    y = Dense(tw.Input(n_units=3), 2)
    assert isinstance(y, tf.Module) and isinstance(y.state, tf.Module)
    # tf.Module tracking sees the state's variables, and not the upstream graph
    assert {id(v) for v in tf.Module.trainable_variables.fget(y)} == set(map(id, y.variables))


def test_checkpoint_round_trip_restores_the_variables(tmp_path):
    x = tw.Input(n_units=3, value=np.ones((1, 3), "float32"))
    y = Dense(x, 2)
    before = y().numpy()
    path = tf.train.Checkpoint(layer=y).write(str(tmp_path / "ckpt"))
    for v in y.variables:
        v.assign(v + 5.0)
    assert not np.allclose(y().numpy(), before)
    tf.train.Checkpoint(layer=y).read(path).assert_consumed()
    np.testing.assert_allclose(y().numpy(), before)


def test_checkpoint_restores_into_a_fresh_layer(tmp_path):
    x = tw.Input(n_units=3)
    y = Dense(x, 2)
    path = tf.train.Checkpoint(layer=y).write(str(tmp_path / "ckpt"))
    fresh = Dense(tw.Input(n_units=3), 2)
    tf.train.Checkpoint(layer=fresh).read(path).assert_consumed()
    np.testing.assert_array_equal(fresh.state.weights.numpy(), y.state.weights.numpy())


def test_gradients_reach_the_state():
    x = tw.Input(n_units=3, value=np.ones((2, 3), "float32"))
    y = Dense(x, 2)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(y())
    grads = tape.gradient(loss, y.trainable_variables)
    by_name = {
        v.name.split(":")[0].rsplit("/", 1)[-1]: g
        for v, g in zip(y.trainable_variables, grads, strict=True)
    }
    np.testing.assert_allclose(by_name["w"].numpy(), np.full((3, 2), 2.0))
    np.testing.assert_allclose(by_name["b"].numpy(), np.full((2,), 2.0))


def test_layer_without_compute_says_so():
    class Empty(tw.Layer):
        def __init__(self, x, *, name=None, share_state_with=None):
            super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    with pytest.raises(NotImplementedError, match="Empty does not implement compute"):
        Empty(tw.Input(n_units=1)).compute(tf.ones([1, 1]))


def test_graph_property_is_cached():
    y = Dense(tw.Input(n_units=3), 2)
    assert y.graph is y.graph
    assert y.graph.outputs == (y,)


# -- freezing -------------------------------------------------------------------------
def test_freeze_leaves_variables_out_of_every_trainable_list():
    x = tw.Input(n_units=3, name="x")
    h = Dense(x, 4, name="h")
    y = Dense(h, 2, name="y")
    twin = h.reuse_with(tw.Input(n_units=3))  # shares h's state: frozen with it
    graph = tw.Graph.build(inputs=x, outputs=y)
    assert h.freeze() is h
    assert not h.trainable and not twin.trainable
    assert h.trainable_variables == () and len(h.variables) == 2
    assert {v.ref() for v in graph.trainable_variables} == {v.ref() for v in y.variables}
    assert len(graph.variables) == 4  # still saved and restored: only training skips them
    h.unfreeze()
    assert h.trainable and len(graph.trainable_variables) == 4


def test_freezing_a_module_freezes_the_layers_inside_it():
    x = tw.Input(n_units=3, name="x")
    inner = Dense(Dense(x, 4), 2)
    block = tw.Module(x, inner, name="block")
    outer = Dense(block, 1)
    block.trainable = False
    assert not inner.trainable and inner.trainable_variables == ()
    graph = tw.Graph.build(inputs=x, outputs=outer)
    assert {v.ref() for v in graph.trainable_variables} == {v.ref() for v in outer.variables}
    block.trainable = True
    assert inner.trainable and len(graph.trainable_variables) == 6


def test_freezing_an_inner_layer_keeps_the_module_trainable():
    x = tw.Input(n_units=3, name="x")
    first = Dense(x, 4)
    block = tw.Module(x, Dense(first, 2))
    first.freeze()
    assert block.trainable
    assert len(block.trainable_variables) == 2 and len(block.variables) == 4


def test_freeze_does_not_change_gradients_of_an_explicit_tape():
    x = tw.Input(n_units=2, name="x")
    h = Dense(x, 1).freeze()
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(h.compute(tf.ones([1, 2])))
    assert all(g is not None for g in tape.gradient(out, h.variables))


def test_trainable_must_be_a_bool():
    h = Dense(tw.Input(n_units=2), 1)
    with pytest.raises(TypeError, match=r"trainable must be True or False.*freeze\(\)"):
        h.trainable = "no"  # type: ignore[assignment]
