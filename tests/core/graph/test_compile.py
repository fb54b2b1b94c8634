"""compile: one tf.function, equal to eager, no retrace on new batch sizes, clear errors."""

from __future__ import annotations

import logging

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tests.strategies import Add, batch_sizes, shapes, values


class Counting(tw.Layer):
    """Counts how often ``compute`` runs: once per trace inside a tf.function."""

    def __init__(self, x, *, name=None, share_state_with=None):
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)
        object.__setattr__(self, "calls", 0)

    def compute(self, x):
        object.__setattr__(self, "calls", self.calls + 1)
        return tf.tanh(x)


@given(shape=shapes(max_rank=4), batch=batch_sizes, seed=st.integers(0, 1000))
def test_eager_equals_compiled(shape, batch, seed):
    x = tw.Input(batch_shape=shape, name="x")
    y = tw.ops.reduce_sum(Add(x) * x - 1.0, axis=-1)
    value = values(shape, batch, seed)
    eager = tw.Graph.build(inputs=x, outputs=y)(value)
    compiled = tw.compile(y)(value)
    np.testing.assert_allclose(compiled.numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)


def test_batch_size_changes_do_not_retrace():
    x = tw.Input(n_units=3, name="x")
    counting = Counting(x)
    f = tw.compile(Add(counting))
    for batch in (1, 4, 9, 2):
        assert f(np.zeros((batch, 3), "float32")).shape == (batch, 3)
    assert counting.calls == 1
    assert f.trace_count == 1


def test_sequence_length_changes_do_not_retrace():
    x = tw.Input(batch_shape=(None, None, 2), name="seq")
    counting = Counting(x)
    f = tw.compile(counting)
    for batch, steps in ((1, 3), (2, 7), (5, 1)):
        assert f(np.ones((batch, steps, 2), "float32")).shape == (batch, steps, 2)
    assert counting.calls == 1 and f.trace_count == 1


def test_input_signature_leaves_batch_dynamic():
    x = tw.Input(batch_shape=(None, None, 4), name="x")
    f = tw.compile(Counting(x))
    (spec,) = f.function.input_signature
    assert spec.shape.as_list() == [None, None, 4] and spec.dtype == tf.float32


def test_compiled_calls_read_input_values_when_given_none():
    x = tw.Input(n_units=2, name="x", value=[[1.0, -1.0]])
    f = tw.compile(tw.ops.abs(x))
    assert f().numpy().tolist() == [[1.0, 1.0]]
    x.value = [[-3.0, 2.0]]
    assert f().numpy().tolist() == [[3.0, 2.0]]


def test_several_outputs():
    x = tw.Input(n_units=2, name="x")
    doubled, squared = x * 2.0, x**2
    f = tw.compile([doubled, squared])
    a, b = f(np.array([[1.0, 3.0]], "float32"))
    assert a.numpy().tolist() == [[2.0, 6.0]] and b.numpy().tolist() == [[1.0, 9.0]]
    g = tw.Graph.build(inputs=x, outputs=[doubled, squared])
    assert tw.compile(g).graph is g


def test_several_inputs_in_graph_order():
    a, b = tw.Input(n_units=2, name="a"), tw.Input(n_units=2, name="b")
    f = tw.compile(a - b)
    assert [i.name for i in f.graph.inputs] == ["a", "b"]
    assert f([[5.0, 5.0]], [[1.0, 2.0]]).numpy().tolist() == [[4.0, 3.0]]


def test_sparse_inputs():
    x = tw.Input(n_units=3, sparse=True, name="bag")
    y = tw.Lambda(tf.sparse.reduce_sum, x, axis=-1, shape=(None,), dtype=tf.float32)
    f = tw.compile(y)
    value = np.array([[1, 0, 2], [0, 0, 3]], "float32")
    np.testing.assert_allclose(f(tf.sparse.from_dense(value)).numpy(), value.sum(-1))
    np.testing.assert_allclose(f(tf.sparse.from_dense(value[:1])).numpy(), value[:1].sum(-1))
    assert f.trace_count == 1
    x.value = tf.sparse.from_dense(value)
    np.testing.assert_allclose(f().numpy(), y().numpy())


def test_wrong_number_of_values_is_refused():
    a, b = tw.Input(n_units=1, name="a"), tw.Input(n_units=1, name="b")
    f = tw.compile(a + b)
    with pytest.raises(TypeError, match=r"takes 2 value\(s\) \['a', 'b'\], got 1"):
        f([[1.0]])
    with pytest.raises(TypeError, match="got 3"):
        f([[1.0]], [[1.0]], [[1.0]])


def test_wrong_shapes_give_a_tensorweave_error_naming_the_input():
    x = tw.Input(n_units=3, name="features")
    f = tw.compile(x * 2.0)
    with pytest.raises(tw.ShapeError, match=r"'features' expects shape \(None, 3\), got \(2, 4\)"):
        f(np.ones((2, 4), "float32"))
    with pytest.raises(tw.ShapeError, match=r"'features'.*rank 2.*rank 1"):
        f(np.ones((3,), "float32"))
    with pytest.raises(tw.InputValueError, match="'features'"):
        f(tf.ones((1, 3), tf.int32))
    assert f.trace_count == 0  # refused before TensorFlow saw anything


def test_variables_are_shared_with_the_eager_layers():
    x = tw.Input(n_units=2, name="x")
    y = Add(x)
    f = tw.compile(y)
    value = np.zeros((1, 2), "float32")
    first = f(value).numpy()
    y.state.bias.assign_add([1.0, 1.0])
    np.testing.assert_allclose(f(value).numpy(), first + 1.0)
    assert f.trace_count == 1


def test_gradients_flow_through_the_compiled_function():
    x = tw.Input(n_units=2, name="x")
    y = Add(x)
    f = tw.compile(y)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(f(np.ones((3, 2), "float32")))
    (grad,) = tape.gradient(loss, y.trainable_variables)
    np.testing.assert_allclose(grad.numpy(), [3.0, 3.0])


def test_a_non_input_entry_is_an_argument():
    x = tw.Input(n_units=2, name="x")
    h = Add(x, name="h")
    out = h * 10.0
    f = tw.compile(tw.Graph.build(inputs=h, outputs=out))
    assert f([[1.0, 2.0]]).numpy().tolist() == [[10.0, 20.0]]


def test_jit_compile_gives_the_same_result():
    x = tw.Input(n_units=3, name="x")
    y = tw.ops.tanh(x) * 2.0
    value = values((None, 3), 4)
    np.testing.assert_allclose(
        tw.compile(y, jit_compile=True)(value).numpy(), y(value).numpy(), rtol=1e-5
    )


def test_repr_names_the_graph():
    assert "Graph(inputs=['x']" in repr(tw.compile(tw.Input(n_units=1, name="x") + 1.0))


def test_saved_model_round_trip(tmp_path):
    x = tw.Input(n_units=2, name="x")
    y = Add(x) * 3.0
    f = tw.compile(y)
    holder = tf.Module()
    holder.graph = f.graph  # tracked: every layer's variables are saved
    holder.serve = f.function
    tf.saved_model.save(holder, str(tmp_path / "model"))
    loaded = tf.saved_model.load(str(tmp_path / "model"))
    value = np.array([[1.0, 2.0], [3.0, 4.0]], "float32")
    np.testing.assert_allclose(loaded.serve(value).numpy(), f(value).numpy())
    bias = y.inputs[0].state.bias.numpy()
    np.testing.assert_array_equal(loaded.graph.layers[1].state.bias.numpy(), bias)


def _entry_parameter_shapes(fn, *args):
    hlo = fn.experimental_get_compiler_ir(*args)(stage="hlo")
    return next(line for line in hlo.splitlines() if line.startswith("ENTRY"))


def test_called_inside_another_function_runs_inline():
    x = tw.Input(n_units=3, name="x")
    f = tw.compile(Add(x))

    @tf.function
    def outer(v):
        return f(v) * 2.0

    graph = outer.get_concrete_function(tf.TensorSpec([None, 3])).graph
    kinds = {op.type for op in graph.get_operations()}
    assert not kinds & {"PartitionedCall", "StatefulPartitionedCall"}, kinds
    value = np.ones((2, 3), "float32")
    np.testing.assert_allclose(outer(value).numpy(), 2.0 * f(value).numpy(), rtol=1e-6)


def test_inline_call_still_refuses_wrong_shapes():
    x = tw.Input(n_units=3, name="x")
    f = tw.compile(Add(x))

    @tf.function
    def outer(v):
        return f(v)

    with pytest.raises((TypeError, ValueError)):
        outer(np.ones((2, 4), "float32"))


def test_ids_stay_runtime_inputs_of_an_outer_xla_train_step():
    """Under an outer jit_compile step that takes gradients, a nested function call made
    TensorFlow treat its integer inputs as compile-time constants (a recompilation per
    batch); inline, the ids stay parameters of the XLA computation."""
    table = tf.Variable(tf.random.uniform([50, 4]))
    ids = tw.Input(shape=(5,), dtype="int32", name="ids")
    f = tw.compile(tw.Lambda(lambda t: tf.reduce_sum(tf.gather(table, t)), ids, variables=[table]))

    @tf.function(jit_compile=True)
    def step(v):
        with tf.GradientTape() as tape:
            loss = f(v)
        return loss, tf.convert_to_tensor(tape.gradient(loss, table))

    entry = _entry_parameter_shapes(step, tf.zeros([3, 5], tf.int32))
    assert "s32[3,5]" in entry, entry


def test_repeated_eager_calls_reuse_the_trace_and_keep_checking_shapes():
    x = tw.Input(n_units=3, name="x")
    f = tw.compile(Add(x))
    a = tf.ones((2, 3))
    first = f(a).numpy()
    np.testing.assert_array_equal(f(a).numpy(), first)  # the direct call: same result
    np.testing.assert_array_equal(f(tf.ones((5, 3))).numpy()[:2], first)  # new batch size
    assert f.trace_count == 1
    with pytest.raises(tw.ShapeError, match="'x'"):
        f(tf.ones((2, 4)))  # a shape the signature refuses, after fitting ones
    with pytest.raises(tw.InputValueError, match="'x'"):
        f(tf.ones((2, 3), tf.int32))  # and a dtype


def test_compiling_many_graphs_warns_of_no_retracing():
    # TensorFlow counts traces per Python function: one shared by every compiled graph would
    # make eight models built in one process (a notebook, a sweep) warn of "retracing".
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    handler = Collect()
    tf.get_logger().addHandler(handler)
    try:
        for _ in range(8):
            x = tw.Input(shape=(3,), name="x")
            f = tw.compile(tw.layers["Linear.v1"](x, n_units=2))
            assert f(np.ones((2, 3), "float32")).shape == (2, 2)
            assert f.trace_count == 1
    finally:
        tf.get_logger().removeHandler(handler)
    assert not [m for m in messages if "retracing" in m]
