"""Module: a graph folded into one layer; reuse shares every inner variable; nesting."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tests.strategies import Add, batch_sizes, values, widths


class Dropoutish(tw.Layer):
    """Scales by ``rate`` when training: a per-use option taken by an overridden reuse_with."""

    def __init__(self, x, *, rate=0.5, training=True, name=None, share_state_with=None):
        self.rate, self.training = rate, training
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x):
        return x * self.rate if self.training else x

    def reuse_with(self, x, *, training=None, name=None):
        training = self.training if training is None else training
        return Dropoutish(x, rate=self.rate, training=training, name=name, share_state_with=self)


class Mode(tw.Layer):
    """Takes ``training`` in its constructor; relies on the default reuse_with."""

    def __init__(self, x, *, training=True, name=None, share_state_with=None):
        self.training = training
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def compute(self, x):
        return x + (1.0 if self.training else 0.0)


def _block(x):
    return Add(Add(x) * 2.0, x)


@given(width=widths, batch=batch_sizes, seed=st.integers(0, 1000))
def test_module_output_equals_its_graph(width, batch, seed):
    x = tw.Input(n_units=width, name="x")
    out = _block(x)
    module = tw.Module(x, out, name="block")
    value = values((None, width), batch, seed)
    expected = tw.Graph.build(inputs=x, outputs=out)(value)
    np.testing.assert_allclose(module.compute(tf.constant(value)).numpy(), expected.numpy())
    # and as a node of an outer graph on another input
    x2 = tw.Input(n_units=width, name="x2")
    np.testing.assert_allclose(module.reuse_with(x2)(value).numpy(), expected.numpy())


def test_module_describes_itself():
    x = tw.Input(n_units=3, name="x")
    out = Add(x, name="inner")
    module = tw.Module(x, out, name="m")
    assert module.inputs == (x,) and module.output is out
    assert module.shape == (None, 3) and module.dtype == tf.float32 and module.name == "m"
    assert module.inner_graph.outputs == (out,)
    assert [id(v) for v in module.variables] == [id(out.state.bias)]


def test_reuse_with_shares_every_inner_variable():
    x = tw.Input(n_units=3, name="x")
    module = tw.Module(x, _block(x))
    again = module.reuse_with(tw.Input(n_units=3, name="x2"))
    assert again.state is module.state
    assert len(module.variables) == 2
    assert {id(v) for v in again.variables} == {id(v) for v in module.variables}
    inner = [n for n in again.inner_graph.nodes if isinstance(n, Add)]
    originals = [n for n in module.inner_graph.nodes if isinstance(n, Add)]
    assert all(a.state is b.state for a, b in zip(inner, originals, strict=True))
    assert all(a is not b for a, b in zip(inner, originals, strict=True))
    value = np.ones((2, 3), "float32")
    np.testing.assert_allclose(again.compute(value).numpy(), module.compute(value).numpy())


def test_reuse_with_checks_the_number_of_inputs():
    a, b = tw.Input(n_units=2, name="a"), tw.Input(n_units=2, name="b")
    module = tw.Module([a, b], Add(a, b))
    with pytest.raises(TypeError, match=r"expected 2 input\(s\) \(\['a', 'b'\]\), got 1"):
        module.reuse_with(tw.Input(n_units=2))


def test_modules_with_several_inputs_keep_their_order():
    a, b = tw.Input(n_units=2, name="a"), tw.Input(n_units=2, name="b")
    module = tw.Module([a, b], a - b)
    assert module.inputs == (a, b)
    out = module.compute(tf.constant([[5.0, 5.0]]), tf.constant([[1.0, 2.0]]))
    assert out.numpy().tolist() == [[4.0, 3.0]]


def test_modules_nest_and_nested_reuse_shares_everything():
    x = tw.Input(n_units=2, name="x")
    inner = tw.Module(x, _block(x), name="inner")
    y = tw.Input(n_units=2, name="y")
    used = inner.reuse_with(y)
    outer = tw.Module(y, Add(used), name="outer")
    assert {id(v) for v in inner.variables} <= {id(v) for v in outer.variables}
    assert len(outer.variables) == 3
    copy = outer.reuse_with(tw.Input(n_units=2, name="z"))
    assert {id(v) for v in copy.variables} == {id(v) for v in outer.variables}
    value = np.arange(4, dtype="float32").reshape(2, 2)
    expected = used.compute(value) + outer.output.state.bias
    np.testing.assert_allclose(outer.compute(value).numpy(), expected.numpy())
    np.testing.assert_allclose(copy.compute(value).numpy(), expected.numpy())


def test_options_are_forwarded_to_layers_that_take_them():
    x = tw.Input(n_units=2, name="x")
    out = Add(Mode(Dropoutish(x)) * 3.0)  # Lambda and Add take no `training`
    module = tw.Module(x, out)
    inference = module.reuse_with(tw.Input(n_units=2, name="x2"), training=False)
    drop, mode = (
        next(n for n in inference.inner_graph.nodes if isinstance(n, cls))
        for cls in (Dropoutish, Mode)
    )
    assert drop.training is False and mode.training is False
    value = np.ones((1, 2), "float32")
    bias = out.state.bias.numpy()[None]
    np.testing.assert_allclose(module.compute(value).numpy(), (0.5 + 1.0) * 3.0 + bias)
    np.testing.assert_allclose(inference.compute(value).numpy(), 1.0 * 3.0 + bias)


def test_options_reach_modules_nested_inside_modules():
    x = tw.Input(n_units=2, name="x")
    inner = tw.Module(x, Dropoutish(x), name="inner")
    y = tw.Input(n_units=2, name="y")
    outer = tw.Module(y, inner.reuse_with(y) + 1.0, name="outer")
    value = np.ones((1, 2), "float32")
    assert outer.compute(value).numpy().tolist() == [[1.5, 1.5]]
    inference = outer.reuse_with(tw.Input(n_units=2), training=False)
    assert inference.compute(value).numpy().tolist() == [[2.0, 2.0]]


def test_module_checkpoint_round_trip(tmp_path):
    x = tw.Input(n_units=2)
    module = tw.Module(x, _block(x))
    path = tf.train.Checkpoint(m=module).write(str(tmp_path / "m"))
    saved = {id(v): v.numpy().copy() for v in module.variables}
    for v in module.variables:
        v.assign(v + 1.0)
    tf.train.Checkpoint(m=module).read(path).assert_consumed()
    assert all(np.array_equal(v.numpy(), saved[id(v)]) for v in module.variables)


def test_module_with_a_missing_input_is_refused():
    a, b = tw.Input(n_units=2, name="a"), tw.Input(n_units=2, name="b")
    with pytest.raises(tw.GraphError, match="needs 'b'"):
        tw.Module(a, Add(a, b))
