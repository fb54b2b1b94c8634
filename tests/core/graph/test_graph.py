"""Graph.build: validation (missing inputs, cycles, unreached inputs), order and running."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tests.strategies import Add, build_dag, dags, numpy_dag, sinks


class Feedback(tw.Layer):
    """A layer whose ``inputs`` can gain an extra edge later: the only way to make a cycle."""

    def __init__(self, x, *, name=None, share_state_with=None):
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)
        object.__setattr__(self, "loop_from", None)

    @property
    def inputs(self):
        extra = () if self.loop_from is None else (self.loop_from,)
        return super().inputs + extra

    def compute(self, *tensors):
        return tensors[0]


class Step(tw.Layer):
    """A stateless ``x + 1``: cheap enough to chain thousands of times."""

    def __init__(self, x, *, name=None, share_state_with=None):
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x):
        return x + 1.0


def _position(graph):
    return {id(n): i for i, n in enumerate(graph.nodes)}


def test_linear_graph_in_order_and_runs():
    x = tw.Input(n_units=2, name="x")
    h = Add(x, name="h")
    y = Add(h, h, name="y")
    g = tw.Graph.build(inputs=x, outputs=y)
    assert [n.name for n in g.nodes] == ["x", "h", "y"]
    assert g.inputs == (x,) and g.outputs == (y,) and len(g) == 3
    assert h in g and Add(x) not in g
    value = np.ones((1, 2), "float32")
    b1, b2 = h.state.bias.numpy(), y.state.bias.numpy()
    np.testing.assert_allclose(g(value).numpy(), 2 * (value + b1) + b2, rtol=1e-6)
    assert "nodes=3" in repr(g)


def test_missing_inputs_are_reported_per_output():
    a, b, c = (tw.Input(n_units=2, name=n) for n in "abc")
    o1 = Add(a, b, name="o1")
    o2 = Add(b, c, name="o2")
    o3 = Add(a, name="o3")
    with pytest.raises(tw.GraphError) as err:
        tw.Graph.build(inputs=a, outputs=[o1, o2, o3])
    message = str(err.value)
    assert "output 'o1' needs 'b'" in message
    assert "output 'o2' needs 'b', 'c'" in message
    assert "'o3'" not in message
    assert "add_missing_inputs=True" in message


def test_add_missing_inputs_appends_them():
    a, b = tw.Input(n_units=2, name="a"), tw.Input(n_units=2, name="b")
    g = tw.Graph.build(inputs=a, outputs=Add(a, b), add_missing_inputs=True)
    assert g.inputs == (a, b)


def test_inputs_none_finds_every_input_left_to_right():
    a, b, c = (tw.Input(n_units=2, name=n) for n in "abc")
    y = Add(Add(c, a), b)
    assert tw.Graph.build(outputs=y).inputs == (c, a, b)


def test_cycle_is_reported_with_its_layers():
    x = tw.Input(n_units=2, name="x")
    first = Feedback(x, name="first")
    second = Add(first, name="second")
    first.loop_from = second
    with pytest.raises(tw.GraphError, match=r"cycle: .*first -> second -> first|cycle: .*second"):
        tw.Graph.build(inputs=x, outputs=second)


def test_self_loop_is_a_cycle():
    x = tw.Input(n_units=2, name="x")
    node = Feedback(x, name="selfish")
    node.loop_from = node
    with pytest.raises(tw.GraphError, match="cycle: selfish -> selfish"):
        tw.Graph.build(inputs=x, outputs=node)


def test_input_that_reaches_no_output_is_reported():
    a, unused = tw.Input(n_units=2, name="a"), tw.Input(n_units=2, name="unused")
    with pytest.raises(tw.GraphError, match=r"\['unused'\] reach no output"):
        tw.Graph.build(inputs=[a, unused], outputs=Add(a))


def test_no_outputs_and_non_layers_are_refused():
    with pytest.raises(tw.GraphError, match="at least one output"):
        tw.Graph.build(inputs=None, outputs=[])
    with pytest.raises(TypeError, match="expects layers, got int"):
        tw.Graph.build(outputs=[Add(tw.Input(n_units=1)), 3])


def test_several_outputs_share_upstream_nodes_once():
    x = tw.Input(n_units=2, name="x")
    h = Add(x, name="h")
    y1, y2 = Add(h, name="y1"), Add(h, h, name="y2")
    g = tw.Graph.build(inputs=x, outputs=[y1, y2])
    assert [n.name for n in g.nodes] == ["x", "h", "y1", "y2"]
    value = np.zeros((3, 2), "float32")
    out1, out2 = g(value)
    np.testing.assert_allclose(out1.numpy(), y1.compute(h.compute(value)).numpy())
    np.testing.assert_allclose(out2.numpy(), y2.compute(h.compute(value), h.compute(value)))


def test_a_non_input_entry_is_fed_and_the_walk_stops_there():
    x = tw.Input(n_units=2, name="x")
    h = Add(x, name="h")
    y = Add(h, name="y")
    g = tw.Graph.build(inputs=h, outputs=y)
    assert [n.name for n in g.nodes] == ["h", "y"]
    value = np.ones((1, 2), "float32")
    np.testing.assert_allclose(g(value).numpy(), value + y.state.bias.numpy())


def test_feed_overrides_any_layer():
    x = tw.Input(n_units=2, name="x", value=np.zeros((1, 2), "float32"))
    h = Add(x, name="h")
    y = Add(h, name="y")
    g = y.graph
    fed = g.compute(feed={h: np.full((1, 2), 3.0, "float32")})
    np.testing.assert_allclose(fed.numpy(), 3.0 + y.state.bias.numpy()[None])
    with pytest.raises(tw.GraphError, match="not in this graph"):
        g.compute(feed={Add(x, name="stranger"): np.zeros((1, 2))})
    with pytest.raises(TypeError, match="not both"):
        g.compute(np.zeros((1, 2)), feed={h: np.zeros((1, 2))})
    with pytest.raises(TypeError, match=r"got 2 values for 1 inputs \['x'\]"):
        g.compute(np.zeros((1, 2)), np.zeros((1, 2)))


def test_values_are_validated_by_their_input():
    x = tw.Input(n_units=2, name="x")
    g = tw.Graph.build(inputs=x, outputs=Add(x))
    with pytest.raises(tw.ShapeError, match=r"'x' expects shape \(None, 2\), got \(1, 5\)"):
        g(np.zeros((1, 5), "float32"))


@given(dag=dags())
def test_every_node_comes_after_all_its_inputs(dag):
    tw.reset_names()
    _, nodes = build_dag(dag)
    outs = sinks(dag, nodes)
    g = tw.Graph.build(inputs=None, outputs=outs)
    pos = _position(g)
    assert len(pos) == len(g.nodes)  # each node once
    for node in g.nodes:
        assert all(pos[id(i)] < pos[id(node)] for i in node.inputs)
    assert set(g.outputs) == set(outs)
    # deterministic: building again gives the very same order
    again = tw.Graph.build(inputs=None, outputs=outs)
    assert [n.name for n in again.nodes] == [n.name for n in g.nodes]


@given(dag=dags(), seed=st.integers(0, 2**16))
def test_random_dag_computes_like_numpy(dag, seed):
    tw.reset_names()
    inputs, nodes = build_dag(dag)
    outs = sinks(dag, nodes)
    g = tw.Graph.build(inputs=None, outputs=outs)
    rng = np.random.default_rng(seed)
    feeds = [rng.standard_normal((2, 2)).astype("float32") for _ in inputs]
    got = g.compute(feed={x: feeds[inputs.index(x)] for x in g.inputs})
    got = got if isinstance(got, tuple) else (got,)
    oracle = numpy_dag(dag, nodes, feeds)
    for out, value in zip(outs, got, strict=True):
        np.testing.assert_allclose(value.numpy(), oracle[nodes.index(out)], rtol=1e-5, atol=1e-5)


def test_a_5000_node_chain_builds_without_recursion():
    x = tw.Input(n_units=1, name="x")
    node = x
    for _ in range(5000):
        node = Step(node)
    g = tw.Graph.build(inputs=x, outputs=node)
    nodes = g.nodes
    assert len(nodes) == 5001
    assert nodes[0] is x and nodes[-1] is node
    assert all(nodes[k].inputs == (nodes[k - 1],) for k in range(1, 5001))
    np.testing.assert_allclose(g(np.zeros((1, 1), "float32")).numpy(), [[5000.0]])
    assert node.graph.nodes[0] is x  # the cached graph of the last layer, too


def test_shared_subgraphs_are_walked_once():
    # 80 stacked diamonds: 2**80 paths, so a walk that revisits nodes would never end.
    x = tw.Input(n_units=1, name="x")
    node = x
    for _ in range(80):
        node = Add(Step(node), Step(node))
    g = tw.Graph.build(inputs=x, outputs=node)
    assert len(g) == 1 + 3 * 80


def test_graph_checkpoint_sees_every_layer(tmp_path):
    x = tw.Input(n_units=2)
    y = Add(Add(x), x)
    g = y.graph
    assert len(g.variables) == 2 and len(g.trainable_variables) == 2
    path = tf.train.Checkpoint(graph=g).write(str(tmp_path / "g"))
    saved = [v.numpy().copy() for v in g.variables]
    for v in g.variables:
        v.assign(v * 0.0)
    tf.train.Checkpoint(graph=g).read(path).assert_consumed()
    for v, s in zip(g.variables, saved, strict=True):
        np.testing.assert_array_equal(v.numpy(), s)


def test_shared_state_is_counted_once():
    x1, x2 = tw.Input(n_units=2), tw.Input(n_units=2)
    a = Add(x1)
    b = a.reuse_with(x2)
    g = tw.Graph.build(inputs=[x1, x2], outputs=[a, b])
    assert len(g.variables) == 1
