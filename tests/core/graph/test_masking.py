"""Padding masks (``Layer.padding_mask``): made, passed on, combined, checked."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tests.strategies import dags


class Sum(tw.Layer):
    """Sums its inputs; passes padding masks on when its class says so."""

    def __init__(self, *inputs, name=None, share_state_with=None):
        first = inputs[0]
        super().__init__(
            *inputs,
            shape=first.shape,
            dtype=first.dtype,
            name=name,
            share_state_with=share_state_with,
        )

    def compute(self, *tensors):
        return tf.add_n(list(tensors))


class KeepingSum(Sum):
    keeps_padding_mask = True


def _sequence(name):
    return tw.Input(batch_shape=(None, None, 2), name=name)


def _mask(name):
    return tw.Input(batch_shape=(None, None), dtype=tf.bool, name=name)


@given(dag=dags(max_inputs=3, max_nodes=10), data=st.data())
def test_masks_pass_along_paths_of_keeping_layers_and_combine_with_and(dag, data):
    masked = data.draw(st.lists(st.booleans(), min_size=dag.n_inputs, max_size=dag.n_inputs))
    keeps = data.draw(st.lists(st.booleans(), min_size=len(dag.parents), max_size=len(dag.parents)))
    inputs = [_sequence(f"x{i}") for i in range(dag.n_inputs)]
    masks = {}
    for i, (x, m) in enumerate(zip(inputs, masked)):
        if m:
            masks[i] = _mask(f"m{i}")
            x.padding_mask = masks[i]
    nodes: list[tw.Layer] = list(inputs)
    sources: list[set[int]] = [{i} if m else set() for i, m in enumerate(masked)]
    for parents, keep in zip(dag.parents, keeps):
        kind = KeepingSum if keep else Sum
        nodes.append(kind(*[nodes[p] for p in parents]))
        sources.append(set().union(*(sources[p] for p in parents)) if keep else set())
    rng = np.random.default_rng(0)
    values = {i: rng.random((2, 4)) > 0.3 for i in masks}
    for i, m in masks.items():
        m.value = values[i]
    for node, reached in zip(nodes, sources):
        if not reached:
            assert node.padding_mask is None
        elif len(reached) == 1:
            assert node.padding_mask is masks[next(iter(reached))]
        else:
            want = np.logical_and.reduce([values[i] for i in sorted(reached)])
            np.testing.assert_array_equal(node.padding_mask().numpy(), want)


def test_a_layer_without_keeps_padding_mask_drops_it():
    x = _sequence("x")
    x.padding_mask = _mask("m")
    assert KeepingSum(x).padding_mask is x.padding_mask
    assert Sum(x).padding_mask is None
    assert tw.Lambda(tf.nn.relu, x).padding_mask is None  # a function may reorder steps


def test_arithmetic_operators_keep_the_mask_and_reductions_drop_it():
    x, pos = _sequence("x"), _sequence("pos")
    x.padding_mask = _mask("m")
    assert (x + pos).padding_mask is x.padding_mask
    assert (-(x * 2.0) / 3.0).padding_mask is x.padding_mask
    assert tw.ops.reduce_sum(x, axis=1).padding_mask is None


def test_an_explicit_mask_replaces_the_inherited_one():
    x = _sequence("x")
    x.padding_mask = _mask("m")
    y = KeepingSum(x)
    own = _mask("own")
    y.padding_mask = own
    assert y.padding_mask is own and KeepingSum(y).padding_mask is own
    y.padding_mask = None
    assert y.padding_mask is None


def test_masks_that_do_not_fit_are_refused_with_a_fix():
    x = _sequence("x")
    with pytest.raises(tw.ArgumentError, match=r"(?s)must be a layer .* Fix: .*not_equal"):
        x.padding_mask = np.ones((2, 3), bool)
    with pytest.raises(tw.ArgumentError, match=r"dense boolean layer, got .floats. \(float32\)"):
        x.padding_mask = tw.Input(batch_shape=(None, None), name="floats")
    with pytest.raises(tw.ShapeError, match=r"leading axes"):
        x.padding_mask = tw.Input(batch_shape=(None, None, 2), dtype=tf.bool, name="too_deep")
    fixed = tw.Input(shape=(4, 2), name="fixed")
    with pytest.raises(tw.ShapeError, match=r"\(None, 5\)"):
        fixed.padding_mask = tw.Input(shape=(5,), dtype=tf.bool, name="five")


def test_a_deep_chain_passes_the_mask_without_recursion():
    x = _sequence("x")
    x.padding_mask = _mask("m")
    h = x
    for _ in range(3000):
        h = KeepingSum(h)
    assert h.padding_mask is x.padding_mask


def test_a_module_keeps_the_inner_mask_it_takes_as_an_input():
    x, m = _sequence("x"), _mask("m")
    x.padding_mask = m
    zeroed = KeepingSum(x) * tw.ops.cast(m, tf.float32)[:, :, None]  # reads the mask
    block = tw.Module([x, m], zeroed)
    assert block.padding_mask is m
    x2, m2 = _sequence("x2"), _mask("m2")
    assert block.reuse_with(x2, m2).padding_mask is None  # x2 has no mask of its own
    x2.padding_mask = m2
    assert block.reuse_with(x2, m2).padding_mask is m2
    assert tw.Module(x, KeepingSum(x)).padding_mask is None  # the mask is not an input


def test_the_mask_node_runs_compiled_with_its_layer():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    seq = tw.Lambda(lambda t: tf.one_hot(t, 3), ids)
    seq.padding_mask = tw.ops.not_equal(ids, 0)
    out = KeepingSum(seq)
    mask = tw.compile(out.padding_mask)(np.array([[1, 0, 2]]))
    assert mask.numpy().tolist() == [[True, False, True]]
