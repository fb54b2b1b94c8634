"""Cells: Keras 3 oracles step by step, numpy oracle (hypothesis), dropout, DropConnect,
Module-based cells, the conformance kit and error messages."""

from __future__ import annotations

import inspect

import keras
import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave.testing import Case, test_conformance  # noqa: F401
from tensorweave_rnn import CellContractError, GRUCell, LSTMCell, ModuleCell, RNNCell


def dense(x: tw.Layer, n: int, add_bias: bool = True) -> tw.Layer:
    """A Lambda with its own weights: enough to write cells from tw ops."""
    w = tf.Variable(tf.random.normal([x.n_units, n]) * 0.3, name="w")
    b = tf.Variable(tf.random.normal([n]) * 0.1, name="b")
    return tw.Lambda(
        lambda t: t @ w + (b if add_bias else 0.0), x, variables=[w, b] if add_bias else [w]
    )


def minimal_gated(x: tw.Layer, h: tw.Layer) -> tw.Layer:
    """Minimal gated unit (Zhou et al. 2016) composed from tw ops inside a Module."""
    n = h.n_units
    f = tw.ops.sigmoid(dense(x, n) + dense(h, n, add_bias=False))
    candidate = tw.ops.tanh(dense(x, n) + dense(f * h, n, add_bias=False))
    return (1.0 - f) * h + f * candidate


def MinimalGatedCell(x, *state, n_units, name=None, share_state_with=None, **options):
    """A cell factory, as a third-party pack would register it."""
    return ModuleCell(
        x,
        *state,
        n_units=n_units,
        build=minimal_gated,
        name=name,
        share_state_with=share_state_with,
        **options,
    )


def _cell_case(name, n=4, d=3, **kwargs):
    k = 2 if name.startswith("LSTM") else 1
    return Case(name, {"n_units": n, **kwargs}, inputs=[(None, d)] + [(None, n)] * k, kind="cells")


TENSORWEAVE_CASES = [
    _cell_case("RNNCell.v1"),
    _cell_case("GRUCell.v1"),
    _cell_case("GRUCell.v1", reset_after=False),
    _cell_case("LSTMCell.v1"),
    _cell_case("LSTMCell.v1", dropout=0.3, recurrent_dropconnect=0.2, training=False),
    Case("MinimalGated", {"n_units": 3}, inputs=[(None, 2), (None, 3)], factory=MinimalGatedCell),
    Case(
        "StackedCell.v1",
        {"cells": ["LSTMCell.v1", "GRUCell.v1"], "n_units": [3, 2]},
        inputs=[(None, 2), (None, 3), (None, 3), (None, 2)],
        kind="cells",
    ),
]


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


# -- Keras 3 oracles -------------------------------------------------------------------------
@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_matches_keras_step_by_step(reset_after):
    n, d, batch = 5, 3, 4
    ours = GRUCell(tw.Input(n_units=d), n_units=n, reset_after=reset_after)
    ref = keras.layers.GRUCell(n, reset_after=reset_after)
    ref.build((None, d))
    ours.state.bias.assign(_rand(*ours.bias.shape, seed=9))  # non-zero biases, both halves
    ref.set_weights([v.numpy() for v in (ours.kernel, ours.recurrent_kernel, ours.bias)])
    h_ours = h_ref = tf.constant(_rand(batch, n, seed=1))
    for t in range(4):
        x = tf.constant(_rand(batch, d, seed=10 + t))
        out, [h_ours] = ours.step(x, h_ours)
        ref_out, ref_states = ref(x, [h_ref])
        h_ref = ref_states[0]
        np.testing.assert_allclose(out, ref_out, rtol=1e-5, atol=1e-5, err_msg=f"step {t}")
        np.testing.assert_allclose(h_ours, h_ref, rtol=1e-5, atol=1e-5)


def test_lstm_matches_keras_step_by_step():
    n, d, batch = 4, 3, 2
    ours = LSTMCell(tw.Input(n_units=d), n_units=n)
    ref = keras.layers.LSTMCell(n)
    ref.build((None, d))
    ours.state.bias.assign(ours.bias + _rand(4 * n, seed=3) * 0.1)
    ref.set_weights([v.numpy() for v in (ours.kernel, ours.recurrent_kernel, ours.bias)])
    states = [tf.constant(_rand(batch, n, seed=1)), tf.constant(_rand(batch, n, seed=2))]
    ref_states = list(states)
    for t in range(5):
        x = tf.constant(_rand(batch, d, seed=20 + t))
        out, states = ours.step(x, *states)
        ref_out, ref_states = ref(x, ref_states)
        np.testing.assert_allclose(out, ref_out, rtol=1e-5, atol=1e-5, err_msg=f"step {t}")
        for a, b in zip(states, ref_states, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_lstm_layer_graph_matches_step():
    """The cell as a graph node equals step() on the same tensors."""
    x, h, c = tw.Input(n_units=3), tw.Input(n_units=4), tw.Input(n_units=4)
    cell = tw.cells["LSTMCell.v1"](x, h, c, n_units=4)
    values = [_rand(2, 3), _rand(2, 4, seed=1), _rand(2, 4, seed=2)]
    got = tw.compile(tw.Graph.build([x, h, c], cell))(*values)
    want, _ = cell.step(*[tf.constant(v) for v in values])
    np.testing.assert_allclose(got, want, rtol=1e-6)


@given(
    batch=st.integers(1, 5),
    d=st.integers(1, 6),
    n=st.integers(1, 6),
    seed=st.integers(0, 1000),
)
def test_rnn_cell_matches_numpy(batch, d, n, seed):
    cell = RNNCell(tw.Input(n_units=d), n_units=n)
    x, h = _rand(batch, d, seed=seed), _rand(batch, n, seed=seed + 1)
    out, [h1] = cell.step(tf.constant(x), tf.constant(h))
    want = np.tanh(x @ cell.kernel.numpy() + h @ cell.recurrent_kernel.numpy() + cell.bias.numpy())
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(h1, want, rtol=1e-5, atol=1e-5)


def test_initial_values():
    tf.random.set_seed(1)
    x = tw.Input(n_units=6)
    a, b = LSTMCell(x, n_units=5), LSTMCell(x, n_units=5)
    assert not np.allclose(a.kernel.numpy(), b.kernel.numpy()), "cells share initial weights"
    np.testing.assert_allclose(a.bias.numpy()[5:10], 1.0)  # forget gate
    np.testing.assert_allclose(np.delete(a.bias.numpy(), range(5, 10)), 0.0)
    r = a.recurrent_kernel.numpy()  # (5, 20): orthonormal rows
    np.testing.assert_allclose(r @ r.T, np.eye(5), atol=1e-5)
    limit = (6 / (6 + 20)) ** 0.5
    assert np.abs(a.kernel.numpy()).max() <= limit


def _fill(value):
    return lambda shape, dtype: tf.fill(shape, tf.constant(value, dtype))


def test_initializer_options_w_init_u_init_b_init():
    x = tw.Input(n_units=3)
    lstm = LSTMCell(x, n_units=2, w_init=_fill(1.0), u_init=_fill(0.5), b_init=_fill(1.0))
    np.testing.assert_array_equal(lstm.kernel.numpy(), np.ones((3, 8)))
    np.testing.assert_array_equal(lstm.recurrent_kernel.numpy(), np.full((2, 8), 0.5))
    np.testing.assert_array_equal(lstm.bias.numpy(), np.ones(8))
    # unit_forget_bias keeps the forget gate at 1 whatever b_init fills the other gates with
    half = LSTMCell(x, n_units=2, b_init=_fill(0.25))
    np.testing.assert_array_equal(half.bias.numpy(), [0.25, 0.25, 1, 1, 0.25, 0.25, 0.25, 0.25])
    gru = GRUCell(x, n_units=2, b_init=_fill(1.0))
    np.testing.assert_array_equal(gru.bias.numpy(), np.ones((2, 6)))
    if tw.initializers.get("ones", None) is not None:  # a registered name (tensorweave-layers)
        by_name = GRUCell(x, n_units=2, reset_after=False, w_init="ones")
        np.testing.assert_array_equal(by_name.kernel.numpy(), np.ones((3, 6)))
    assert not hasattr(RNNCell(x, n_units=2, add_bias=False).state, "bias")
    with pytest.raises(tw.UnknownComponentError, match="RNNCell: u_init='nope': no initializers"):
        RNNCell(x, n_units=2, u_init="nope")
    with pytest.raises(tw.ShapeError, match="w_init made shape \\[1\\], needed \\[3, 2\\]"):
        RNNCell(x, n_units=2, w_init=lambda shape, dtype: tf.zeros([1], dtype))


@pytest.mark.parametrize("cell", [RNNCell, GRUCell, LSTMCell])
def test_cells_use_the_layers_argument_names(cell):
    """The options of the standard cells are named as in tensorweave-layers (``n_units``,
    ``w_init``, ``b_init``, ``add_bias``, ``activation``, ``training``) plus ``u_init``."""
    params = set()
    for klass in cell.__mro__:
        if "__init__" in vars(klass):
            params |= set(inspect.signature(klass.__init__).parameters)
    want = {"n_units", "w_init", "u_init", "b_init", "add_bias", "activation", "training"}
    assert want <= params, sorted(want - params)
    old = {"use_bias", "bias", "init", "bias_init", "kernel_init", "recurrent_init", "units"}
    assert not old & params, sorted(old & params)
    with pytest.raises(TypeError, match="use_bias"):
        cell(tw.Input(n_units=2), n_units=2, use_bias=False)


# -- dropout and DropConnect -----------------------------------------------------------------
def _copy_cell(x, *state, n_units, name=None, share_state_with=None, **options):
    """h_new = x (+ 0 * h): the output shows the input mask."""
    return ModuleCell(
        x,
        *state,
        n_units=n_units,
        build=lambda x, h: x + 0.0 * h,
        name=name,
        share_state_with=share_state_with,
        **options,
    )


def test_input_dropout_mask_is_shared_across_steps():
    tf.random.set_seed(3)
    seq = tw.Input(batch_shape=(None, None, 64))
    rnn = tw.layers["RNN.v1"](seq, cell=_copy_cell, n_units=64, dropout=0.5, return_sequences=True)
    out = rnn(np.ones((3, 6, 64), "float32")).numpy()
    assert set(np.unique(out)) == {0.0, 2.0}
    for t in range(1, 6):
        np.testing.assert_array_equal(out[:, t], out[:, 0])  # one mask per sequence
    assert not np.array_equal(out[0, 0], out[1, 0])  # one mask per row
    off = rnn.reuse_with(tw.Input(batch_shape=(None, None, 64)), training=False)
    np.testing.assert_array_equal(off(np.ones((3, 6, 64), "float32")), 1.0)
    off = rnn.reuse_with(tw.Input(batch_shape=(None, None, 64)), training=False)
    np.testing.assert_array_equal(off(np.ones((3, 6, 64), "float32")), 1.0)


def test_output_and_state_dropout():
    tf.random.set_seed(4)
    seq = tw.Input(batch_shape=(None, None, 32))
    rnn = tw.layers["RNN.v1"](
        seq, cell=_copy_cell, n_units=32, output_dropout=0.5, return_sequences=True
    )
    out = rnn(np.ones((2, 4, 32), "float32")).numpy()
    assert set(np.unique(out)) == {0.0, 2.0}
    np.testing.assert_array_equal(out[:, 3], out[:, 0])
    # state dropout: h_t = h_{t-1} * m + x  ->  h_t = x * (1 + m + ... + m^t): mask constant
    acc = lambda x, *s, n_units, name=None, share_state_with=None, **o: ModuleCell(  # noqa: E731
        x,
        *s,
        n_units=n_units,
        build=lambda x, h: x + h,
        name=name,
        share_state_with=share_state_with,
        **o,
    )
    rnn = tw.layers["RNN.v1"](
        seq, cell=acc, n_units=32, recurrent_dropout=0.5, return_sequences=True
    )
    out = rnn(np.ones((2, 4, 32), "float32")).numpy()
    m = out[:, 1] - 1.0  # the mask (0 or 2)
    assert set(np.unique(m)) == {0.0, 2.0}
    np.testing.assert_allclose(out[:, 3], 1 + m + m**2 + m**3)


def test_dropconnect_drops_weights_once_per_sequence():
    tf.random.set_seed(5)
    cell = LSTMCell(tw.Input(n_units=8), n_units=8, dropconnect=0.5, recurrent_dropconnect=0.25)
    ctx = cell.begin(2)
    k = ctx.weights["kernel"].numpy()
    dropped = k == 0
    assert 0.3 < dropped.mean() < 0.7
    np.testing.assert_allclose(k[~dropped], 2.0 * cell.kernel.numpy()[~dropped], rtol=1e-6)
    r = ctx.weights["recurrent_kernel"].numpy()
    assert 0.1 < (r == 0).mean() < 0.45
    off = cell.reuse_with(*cell.inputs, training=False)
    assert off.begin(2).weights["kernel"] is cell.state.kernel
    assert off.shares_state_with(cell)
    with tf.GradientTape() as tape:  # gradients reach the weights through the drop
        ctx = cell.begin(2)
        dropped = ctx.weights["kernel"].numpy() == 0
        out, _ = cell.step(tf.ones([2, 8]), tf.ones([2, 8]), tf.zeros([2, 8]), context=ctx)
        loss = tf.reduce_sum(out)
    grads = tape.gradient(loss, [cell.kernel, cell.recurrent_kernel])
    assert all(g is not None for g in grads)
    assert np.all(grads[0].numpy()[dropped] == 0)


def test_dropout_rate_checked():
    with pytest.raises(ValueError, match="dropout must be in"):
        LSTMCell(tw.Input(n_units=2), n_units=2, dropout=1.5)
    with pytest.raises(ValueError, match="dropconnect is not supported"):
        MinimalGatedCell(tw.Input(n_units=2), n_units=2, dropconnect=0.1)


# -- Module cells --------------------------------------------------------------------------
def test_module_cell_from_given_module_and_reuse():
    x_in, h_in = tw.Input(n_units=3), tw.Input(n_units=2)
    module = tw.Module([x_in, h_in], tw.ops.tanh(dense(x_in, 2) + h_in))
    x, h = tw.Input(n_units=3), tw.Input(n_units=2)
    cell = ModuleCell(x, h, module=module)
    assert cell.state_size == [2] and cell.module is module
    again = cell.reuse_with(tw.Input(n_units=3), tw.Input(n_units=2))
    assert again.shares_state_with(cell)
    xv, hv = _rand(2, 3), _rand(2, 2, seed=1)
    np.testing.assert_allclose(cell(xv, hv), module.compute(tf.constant(xv), tf.constant(hv)))
    with pytest.raises(tw.ShapeError, match=r"module's inputs have shapes"):
        ModuleCell(tw.Input(n_units=5), module=module)


# -- errors --------------------------------------------------------------------------------
def test_wrong_state_width_names_cell_and_shapes():
    x, h, c = tw.Input(n_units=3), tw.Input(n_units=4), tw.Input(n_units=5)
    with pytest.raises(tw.ShapeError) as err:
        tw.cells["LSTMCell.v1"](x, h, c, n_units=4, name="enc")
    msg = str(err.value)
    assert "LSTMCell 'enc'" in msg and "(None, 5)" in msg and "state_size[1] is 4" in msg
    with pytest.raises(tw.ShapeError, match=r"got 1 previous state.*state_size is \[4, 4\]"):
        tw.cells["LSTMCell.v1"](x, h, n_units=4)
    with pytest.raises(tw.ShapeError, match=r"GRUCell: the step input .* has shape \(None, 2, 3\)"):
        GRUCell(tw.Input(shape=(2, 3)), n_units=4)


def test_the_cells_kind_refuses_broken_cells():
    class NoStates(tw.Layer):
        def __init__(self, x, n_units=2, name=None, share_state_with=None):
            super().__init__(x, shape=(None, n_units), name=name)

        def step(self, x):
            return x, []

    with tw.cells.scoped(), pytest.raises(tw.InvalidComponentError) as err:
        tw.cells.register("NoStates.v1", NoStates)
    assert "no *previous_state" in str(err.value) and "NoStates" in str(err.value)

    class NoStep(tw.Layer):
        def __init__(self, x, *state, n_units=2, name=None, share_state_with=None):
            super().__init__(x, *state, shape=(None, n_units), name=name)

    with tw.cells.scoped(), pytest.raises(tw.InvalidComponentError, match="must define step"):
        tw.cells.register("NoStep.v1", NoStep)
    seq = tw.Input(batch_shape=(None, None, 3))
    with pytest.raises(CellContractError, match=r"RNN \(cell 'NoStep'\).*must define step"):
        tw.layers["RNN.v1"](seq, cell=NoStep, n_units=2, return_sequences=True)

    class NoStateSize(NoStep):  # passes the static check, fails once built
        def step(self, x, *states):
            return x, list(states)

    with pytest.raises(CellContractError, match=r"cell NoStateSize .* has state_size=None"):
        tw.layers["RNN.v1"](seq, cell=NoStateSize, n_units=2, return_sequences=True)

    class WrongStep(NoStep):  # step returns too many states: caught when the loop traces
        state_size = [2]

        def step(self, x, *states):
            return states[0], [states[0], states[0]]

    rnn = tw.layers["RNN.v1"](seq, cell=WrongStep, n_units=2, return_sequences=True)
    with pytest.raises(CellContractError, match=r"WrongStep .*step returned 2 new state\(s\)"):
        rnn(np.ones((1, 2, 3), "float32"))


def test_registered_cell_classes_pass_the_contract():
    from tensorweave_rnn.contract import static_problems

    for name in tw.cells.names():
        assert static_problems(tw.cells[name]) == [], name


@pytest.mark.parametrize("dropconnect", [0.0, 0.5])
def test_fused_lstm_gradient_equals_autodiff(dropconnect):
    x = tw.Input(n_units=3)
    fused = LSTMCell(x, n_units=4, dropconnect=dropconnect)
    plain = LSTMCell(
        x, n_units=4, dropconnect=dropconnect, fused_gradient=False, share_state_with=fused
    )
    assert plain.shares_state_with(fused)
    values = [tf.constant(_rand(2, 3)), tf.constant(_rand(2, 4, seed=1)),
              tf.constant(_rand(2, 4, seed=2))]  # fmt: skip
    grads = []
    for cell in (fused, plain):
        if dropconnect:  # the same DropConnect mask for both: rewind the shared generator
            fused.state.rng.reset_from_seed(7)
        with tf.GradientTape() as tape:
            tape.watch(values)
            out, (_, c) = cell.step(*values)
            loss = tf.reduce_sum(out * out) + tf.reduce_sum(tf.sin(c))
        grads.append(tape.gradient(loss, [*values, *fused.trainable_variables]))
    for a, b in zip(*grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_the_cells_kind_is_declared_by_this_pack_with_the_contract_as_its_check():
    from importlib.metadata import entry_points

    (declared,) = [e for e in entry_points(group="tensorweave.kinds") if e.name == "cells"]
    assert declared.dist is not None and declared.dist.name == "tensorweave-rnn"
    kind = declared.load()
    assert isinstance(kind, tw.Kind) and kind.name == "cells" and kind.doc

    def no_state(x, n_units=2, name=None):  # no *previous_state: refused by the check
        return x

    assert "no *previous_state" in kind.check(no_state)
    with tw.cells.scoped(), pytest.raises(tw.InvalidComponentError) as err:
        tw.cells.register("NoState.v1", no_state)
    assert "check of tensorweave-rnn" in str(err.value)


def test_a_bare_cell_name_and_an_unknown_one_resolve_like_every_option():
    seq = tw.Input(batch_shape=(None, None, 3))
    rnn = tw.layers["RNN.v1"](seq, cell="GRUCell", n_units=2, return_sequences=True)
    assert type(rnn.cell).__name__ == "GRUCell"
    with pytest.raises(tw.UnknownComponentError, match=r"RNN.*cell='GRUCel'"):
        tw.layers["RNN.v1"](seq, cell="GRUCel", n_units=2, return_sequences=True)
