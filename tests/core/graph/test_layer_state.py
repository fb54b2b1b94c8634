"""LayerState: the regularizers of its variables, and ``tw.regularization_loss`` over layers."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw


def l2(w: tf.Tensor) -> tf.Tensor:
    return 0.5 * tf.reduce_sum(tf.square(w))


class Scale(tw.Layer):
    """``x * s`` with a regularized factor (and, optionally, a constrained one)."""

    def __init__(self, x, *, start=(1.0, 2.0), constraint=None, name=None, share_state_with=None):
        self.start = start
        self.constraint = constraint
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def init_state(self):
        s = tf.Variable(self.start, name="s", constraint=self.constraint)
        self.state.s = self.state.regularize(s, l2)

    def compute(self, x):
        return x * self.state.s


class Tied(tw.Layer):
    """Holds another layer's variable (tied weights) and regularizes it too."""

    def __init__(self, x, other, *, name=None, share_state_with=None):
        self.other = other
        super().__init__(x, shape=x.shape, name=name, share_state_with=share_state_with)

    def init_state(self):
        self.state.s = self.state.regularize(self.other.state.s, l2)

    def compute(self, x):
        return x * self.state.s


def test_a_layer_term_is_the_penalty_of_its_variable():
    y = Scale(tw.Input(n_units=2), start=(3.0, 4.0))
    assert [v is y.state.s for v, _ in y.state.regularizers] == [True]
    assert float(tw.regularization_loss(y)) == pytest.approx(12.5)


def test_shared_states_and_tied_variables_count_once():
    x = tw.Input(n_units=2)
    a = Scale(x)
    b = a.reuse_with(a)  # the same state
    c = Tied(b, a)  # another state, the same variable
    d = Scale(c, start=(1.0, 1.0))
    graph = tw.Graph.build(inputs=x, outputs=d)
    want = 0.5 * (1 + 4) + 0.5 * (1 + 1)
    assert float(tw.regularization_loss(graph)) == pytest.approx(want)
    assert float(tw.regularization_loss(graph.nodes)) == pytest.approx(want)
    assert float(tw.regularization_loss([a, b, c])) == pytest.approx(2.5)


def test_layers_inside_a_module_are_found():
    x = tw.Input(n_units=2)
    block = tw.Module(x, Scale(Scale(x), start=(2.0, 2.0)))
    outer = block.reuse_with(tw.Input(n_units=2))
    assert float(tw.regularization_loss(outer)) == pytest.approx(2.5 + 4.0)


def test_nothing_regularized_is_zero():
    x = tw.Input(n_units=2)
    loss = tw.regularization_loss(tw.Lambda(tf.abs, x))
    assert loss.dtype == tf.float32 and float(loss) == 0.0


def test_the_term_follows_the_variable_inside_a_compiled_step():
    y = Scale(tw.Input(n_units=2))
    step = tf.function(lambda: tw.regularization_loss(y))
    first = float(step())
    y.state.s.assign([0.0, 0.0])
    assert first == pytest.approx(2.5) and float(step()) == 0.0


def test_the_term_is_differentiable():
    y = Scale(tw.Input(n_units=2), start=(3.0, -1.0))
    with tf.GradientTape() as tape:
        loss = tw.regularization_loss(y)
    np.testing.assert_allclose(tape.gradient(loss, y.state.s).numpy(), [3.0, -1.0])


def test_a_regularizer_must_be_callable():
    state = tw.LayerState("bad")
    with pytest.raises(TypeError, match=r"regularizer of .* must be a function"):
        state.regularize(tf.Variable(1.0), "l2")
    assert state.regularize(tf.Variable(1.0), None) is not None and state.regularizers == ()


def test_the_record_is_not_checkpointed_and_constraints_stay_tensorflows(tmp_path):
    y = Scale(tw.Input(n_units=2), constraint=lambda w: tf.clip_by_value(w, 0.0, 1.5))
    assert [v.name for v in y.variables] == [y.state.s.name]
    path = tf.train.Checkpoint(layer=y).write(str(tmp_path / "ckpt"))
    names = {name for name, _ in tf.train.list_variables(path)}
    assert not any("penalties" in n for n in names), names
    s = y.state.s
    s.assign(s.constraint(s))  # what a trainer does after an update
    assert s.numpy().tolist() == [1.0, 1.5]
