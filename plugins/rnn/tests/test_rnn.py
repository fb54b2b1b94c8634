"""RNN and Bidirectional: plain-TensorFlow-loop oracles, no retracing, lengths and masks,
stateful mode, stacks, third-party cells, conformance and errors."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
from tensorweave.testing import Case, InputSpec, test_conformance  # noqa: F401
from tensorweave_rnn import RNN, Bidirectional, CellContractError, ModuleCell

LENGTHS = InputSpec((None,), "int32", maxval=4)
MASK = InputSpec((None, None), "bool")


def _rnn_with(aux):
    def factory(seq, extra, **kwargs):
        return tw.layers["RNN.v1"](seq, **{aux: extra}, **kwargs)

    return factory


def _bi_lengths(seq, lengths, **kwargs):
    return tw.layers["Bidirectional.v1"](seq, lengths=lengths, **kwargs)


def _mgu(x, *state, n_units, name=None, share_state_with=None, **options):
    def build(x, h):
        w = tf.Variable(tf.random.normal([x.n_units + h.n_units, 2 * h.n_units]) * 0.3)
        z = tw.Lambda(lambda a, b: tf.concat([a, b], -1) @ w, x, h, variables=[w])
        f, cand = tw.ops.sigmoid(z[:, : h.n_units]), tw.ops.tanh(z[:, h.n_units :])
        return (1.0 - f) * h + f * cand

    return ModuleCell(
        x,
        *state,
        n_units=n_units,
        build=build,
        name=name,
        share_state_with=share_state_with,
        **options,
    )


SEQ = (None, None, 3)
TENSORWEAVE_CASES = [
    Case("RNN.v1", {"cell": "LSTMCell.v1", "n_units": 4}, inputs=[SEQ]),
    Case(
        "RNN.v1",
        {"cell": "GRUCell.v1", "n_units": 3, "reverse": True, "return_sequences": False},
        inputs=[SEQ],
    ),
    Case(
        "RNN+lengths",
        {"cell": "GRUCell.v1", "n_units": 3},
        inputs=[SEQ, LENGTHS],
        factory=_rnn_with("lengths"),
    ),
    Case(
        "RNN+mask",
        {"cell": "RNNCell.v1", "n_units": 3, "time_major": True, "return_sequences": False},
        inputs=[SEQ, MASK],
        factory=_rnn_with("mask"),
    ),
    Case("RNN.v1", {"cell": ["LSTMCell.v1", "GRUCell.v1"], "n_units": [4, 2]}, inputs=[SEQ]),
    Case("RNN.v1", {"cell": "LSTMCell.v1", "n_units": 2}, inputs=[SEQ, (None, 2), (None, 2)]),
    Case("RNN.v1", {"cell": _mgu, "n_units": 3, "return_sequences": False}, inputs=[SEQ]),
    Case(
        "Bidirectional.v1",
        {"cell": "LSTMCell.v1", "n_units": 2},
        inputs=[SEQ, LENGTHS],
        factory=_bi_lengths,
    ),
]


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


# -- oracles ---------------------------------------------------------------------------------
def lstm_step(cell):
    """Plain-TF LSTM maths on the cell's variables (Keras layout i, f, c, o)."""
    w, u, b = cell.kernel, cell.recurrent_kernel, cell.bias

    def step(x, h, c):
        i, f, g, o = tf.split(tf.matmul(x, w) + tf.matmul(h, u) + b, 4, axis=1)
        c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, [h, c]

    return step


def keras_gru_step(cell):
    ref = keras.layers.GRUCell(cell.n_units)
    ref.build((None, cell.input_size))
    ref.set_weights([v.numpy() for v in (cell.kernel, cell.recurrent_kernel, cell.bias)])

    def step(x, h):
        out, states = ref(x, [h])
        return out, list(states)

    return step


def tf_loop(step, seq, states, lengths=None, reverse=False):
    """A plain Python loop over time (batch-major), masks applied by hand."""
    seq = np.asarray(seq)
    batch, steps = seq.shape[:2]
    states = [tf.constant(s) for s in states]
    outs = [None] * steps
    last = tf.zeros([batch, 0])
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for t in order:
        out, new = step(tf.constant(seq[:, t]), *states)
        if lengths is not None:
            m = tf.constant((t < np.asarray(lengths))[:, None])
            new = [tf.where(m, n, s) for n, s in zip(new, states, strict=True)]
            out = tf.where(m, out, 0.0)
            last = out if last.shape[1] == 0 else tf.where(m, out, last)
        else:
            last = out
        states = new
        outs[t] = out
    return np.stack([o.numpy() for o in outs], axis=1), last.numpy(), [s.numpy() for s in states]


VARIANTS = {
    "plain": {},
    "reverse": {"reverse": True},
    "lengths": {"lengths": True},
    "lengths_reverse": {"lengths": True, "reverse": True},
    "last": {"return_sequences": False, "lengths": True},
    "time_major": {"time_major": True},
    "initial_state": {"initial": True},
}


@pytest.mark.parametrize("cell_name", ["LSTMCell.v1", "GRUCell.v1"])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_rnn_matches_plain_tf_loop(cell_name, variant):
    opts = dict(VARIANTS[variant])
    batch, steps, d, n = 3, 6, 4, 5
    seq_v = _rand(batch, steps, d)
    lengths_v = np.array([6, 2, 0], "int32")
    use_lengths = opts.pop("lengths", False)
    use_initial = opts.pop("initial", False)
    time_major = opts.get("time_major", False)
    seq = tw.Input(batch_shape=(None, None, d), name="seq")
    inputs, values = [seq], [np.transpose(seq_v, (1, 0, 2)) if time_major else seq_v]
    kwargs = {}
    if use_lengths:
        lengths = tw.Input(shape=(), dtype="int32", name="lengths")
        kwargs["lengths"] = lengths
        inputs.append(lengths)
        values.append(lengths_v)
    k = 2 if cell_name.startswith("LSTM") else 1
    init_v = [_rand(batch, n, seed=7 + i) for i in range(k)]
    initial = []
    if use_initial:
        initial = [tw.Input(n_units=n, name=f"s{i}") for i in range(k)]
        inputs += initial
        values += init_v
    rnn = RNN(
        seq, *initial, cell=cell_name, n_units=n, **{"return_sequences": True, **opts}, **kwargs
    )
    rnn.cell.state.bias.assign(_rand(*rnn.cell.bias.shape, seed=5) * 0.3)
    finals = rnn.final_state
    f = tw.compile(tw.Graph.build(inputs, [rnn, *finals]))
    got, *got_states = f(*values)
    step = lstm_step(rnn.cell) if k == 2 else keras_gru_step(rnn.cell)
    want_seq, want_last, want_states = tf_loop(
        step,
        seq_v,
        init_v if use_initial else [np.zeros((batch, n), "float32")] * k,
        lengths=lengths_v if use_lengths else None,
        reverse=opts.get("reverse", False),
    )
    if opts.get("return_sequences", True):
        want = np.transpose(want_seq, (1, 0, 2)) if time_major else want_seq
    else:
        want = want_last
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for a, b in zip(got_states, want_states, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    # eager run, the same numbers
    np.testing.assert_allclose(rnn(*values), got, rtol=1e-5, atol=1e-5)


def test_gradients_match_plain_tf_loop():
    seq = tw.Input(batch_shape=(None, None, 3))
    rnn = RNN(seq, cell="LSTMCell.v1", n_units=4, return_sequences=True)
    cell = rnn.cell
    x = _rand(2, 5, 3)
    variables = list(cell.trainable_variables)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tw.compile(rnn)(x) ** 2)
    got = tape.gradient(loss, variables)
    with tf.GradientTape() as tape:
        h = c = tf.zeros([2, 4])
        total = 0.0
        step = lstm_step(cell)
        for t in range(5):
            h, (h, c) = step(tf.constant(x[:, t]), h, c)
            total += tf.reduce_sum(h**2)
    want = tape.gradient(total, variables)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_mask_equals_lengths_and_arbitrary_masks_skip_steps():
    seq = tw.Input(batch_shape=(None, None, 3))
    lengths = tw.Input(shape=(), dtype="int32")
    mask = tw.Input(batch_shape=(None, None), dtype="bool")
    by_len = RNN(seq, cell="GRUCell.v1", n_units=4, lengths=lengths, return_sequences=True)
    by_mask = RNN(
        seq, cell=by_len.cell, n_units=4, mask=mask, return_sequences=True
    )  # a built cell: shared weights
    x, lv = _rand(3, 5, 3), np.array([5, 3, 1], "int32")
    mv = np.arange(5)[None, :] < lv[:, None]
    np.testing.assert_allclose(by_len(x, lv), by_mask(x, mv), rtol=1e-6)
    # a hole in the middle: the state carries over step 2, whose output is zero
    holes = np.ones((3, 5), bool)
    holes[:, 2] = False
    out = tw.compile(by_mask)(x, holes).numpy()
    np.testing.assert_array_equal(out[:, 2], 0.0)
    squeezed = tw.compile(by_mask)(np.delete(x, 2, axis=1), np.ones((3, 4), bool)).numpy()
    np.testing.assert_allclose(out[:, [0, 1, 3, 4]], squeezed, rtol=1e-5, atol=1e-6)


def test_compiled_once_for_any_batch_and_length_with_a_while_loop():
    seq = tw.Input(batch_shape=(None, None, 3))
    lengths = tw.Input(shape=(), dtype="int32")
    rnn = RNN(
        seq, cell=["LSTMCell.v1", "LSTMCell.v1"], n_units=4, lengths=lengths, return_sequences=True
    )
    f = tw.compile(tw.Graph.build([seq, lengths], rnn))
    for batch, steps in [(2, 5), (3, 9), (1, 1), (7, 35)]:
        out = f(_rand(batch, steps, 3), np.full([batch], steps, "int32"))
        assert out.shape == (batch, steps, 4)
    assert f.trace_count == 1
    graph = f.function.get_concrete_function().graph
    kinds = {op.type for op in graph.get_operations()}
    assert kinds & {"While", "StatelessWhile"}, "no while loop in the compiled graph"
    matmuls = [op for op in graph.get_operations() if op.type == "MatMul"]
    # only the first cell's input projection (all steps at once) is outside the loop
    assert len(matmuls) == 1, "step maths must live inside the loop body, not unrolled"


def test_stateful_carries_state_and_resets():
    seq = tw.Input(batch_shape=(None, None, 3))
    rnn = RNN(seq, cell="LSTMCell.v1", n_units=4, stateful=True, return_sequences=True)
    plain = RNN(seq, cell=rnn.cell, n_units=4, return_sequences=True)
    f, g = tw.compile(rnn), tw.compile(plain)
    x = _rand(2, 6, 3)
    whole = g(x).numpy()
    first, second = f(x[:, :3]).numpy(), f(x[:, 3:]).numpy()
    np.testing.assert_allclose(np.concatenate([first, second], 1), whole, rtol=1e-5, atol=1e-6)
    rnn.reset()
    np.testing.assert_allclose(f(x[:, :3]), whole[:, :3], rtol=1e-5, atol=1e-6)
    # a new batch size starts from zeros
    np.testing.assert_allclose(f(x[:1, :3]), whole[:1, :3], rtol=1e-5, atol=1e-6)
    assert f.trace_count == 1
    assert all(not v.trainable for v in rnn.state.carry)
    with pytest.raises(ValueError, match="not stateful"):
        plain.reset()


def test_stack_equals_chained_cells():
    seq = tw.Input(batch_shape=(None, None, 3))
    rnn = RNN(seq, cell=["LSTMCell.v1", "GRUCell.v1"], n_units=[4, 2], return_sequences=False)
    lower, upper = rnn.cell.cells
    assert rnn.state_size == [4, 4, 2]
    x = _rand(2, 4, 3)
    h1, _, _ = tf_loop(lower.step, x, [np.zeros((2, 4), "float32")] * 2)
    _, last, _ = tf_loop(upper.step, h1, [np.zeros((2, 2), "float32")])
    np.testing.assert_allclose(tw.compile(rnn)(x), last, rtol=1e-5, atol=1e-6)


def test_bidirectional_matches_two_loops():
    seq = tw.Input(batch_shape=(None, None, 3))
    lengths = tw.Input(shape=(), dtype="int32")
    bi = Bidirectional(seq, cell="GRUCell.v1", n_units=3, lengths=lengths, return_sequences=True)
    x, lv = _rand(2, 5, 3), np.array([5, 2], "int32")
    zeros = [np.zeros((2, 3), "float32")]
    fw, _, _ = tf_loop(bi.forward.cell.step, x, zeros, lengths=lv)
    bw, _, _ = tf_loop(bi.backward.cell.step, x, zeros, lengths=lv, reverse=True)
    got = tw.compile(tw.Graph.build([seq, lengths], bi))(x, lv)
    np.testing.assert_allclose(got, np.concatenate([fw, bw], -1), rtol=1e-5, atol=1e-6)
    # the backward half of row 1 starts at its last real step (1): reversing the real part
    # of the row and running forward gives the same outputs, in reverse order
    row = x[1:, :2][:, ::-1]
    fw_on_reversed, _, _ = tf_loop(bi.backward.cell.step, row.copy(), [zeros[0][:1]])
    np.testing.assert_allclose(got[1, :2, 3:], fw_on_reversed[0, ::-1], rtol=1e-5, atol=1e-6)
    last = Bidirectional(seq, cell="GRUCell.v1", n_units=3, merge="sum", return_sequences=False)
    assert last.shape == (None, 3) and bi.shape == (None, None, 6)
    again = bi.reuse_with(tw.Input(batch_shape=(None, None, 3)), tw.Input(shape=(), dtype="int32"))
    assert {id(v) for v in again.variables} == {id(v) for v in bi.variables}


def test_third_party_cell_by_registered_name():
    with tw.cells.scoped():
        tw.cells.register("MinimalGated.v1", _mgu)
        seq = tw.Input(batch_shape=(None, None, 3))
        rnn = tw.layers["RNN.v1"](seq, cell="MinimalGated.v1", n_units=4, return_sequences=True)
        assert isinstance(rnn.cell, ModuleCell)
        x = _rand(2, 5, 3)
        want, _, _ = tf_loop(rnn.cell.step, x, [np.zeros((2, 4), "float32")])
        np.testing.assert_allclose(tw.compile(rnn)(x), want, rtol=1e-5, atol=1e-6)
        # the unversioned name finds the latest version
        assert (
            type(RNN(seq, cell="MinimalGated", n_units=4, return_sequences=True).cell) is ModuleCell
        )


def test_reuse_shares_weights_and_switches_regularization():
    seq = tw.Input(batch_shape=(None, None, 3))
    rnn = RNN(
        seq,
        cell="LSTMCell.v1",
        n_units=4,
        recurrent_dropout=0.5,
        dropconnect=0.3,
        return_sequences=True,
    )
    evaluation = rnn.reuse_with(tw.Input(batch_shape=(None, None, 3)), training=False)
    assert evaluation.cell.shares_state_with(rnn.cell) and not evaluation.cell.training
    assert rnn.cell.training
    x = _rand(2, 4, 3)
    a, b = evaluation(x), evaluation(x)
    np.testing.assert_array_equal(a, b)  # deterministic once regularization is off
    module = tw.Module(seq, rnn)
    inference = module.reuse_with(tw.Input(batch_shape=(None, None, 3)), training=False)
    np.testing.assert_allclose(inference.compute(tf.constant(x)), a, rtol=1e-6)


# -- errors --------------------------------------------------------------------------------
def test_rank2_sequence_is_a_clear_error():
    with pytest.raises(tw.ShapeError) as err:
        RNN(
            tw.Input(n_units=3, name="tokens"),
            cell="LSTMCell.v1",
            n_units=4,
            name="enc",
            return_sequences=True,
        )
    msg = str(err.value)
    assert "RNN 'enc' (cell 'LSTMCell.v1')" in msg and "(None, 3) (rank 2)" in msg
    assert "(batch, time, features)" in msg


def test_initial_state_of_wrong_width_names_cell_and_shapes():
    seq = tw.Input(batch_shape=(None, None, 3))
    h, c = tw.Input(n_units=4), tw.Input(n_units=3)
    with pytest.raises(tw.ShapeError) as err:
        RNN(seq, h, c, cell="LSTMCell.v1", n_units=4, return_sequences=True)
    msg = str(err.value)
    assert "LSTMCell" in msg and "[(None, 4), (None, 3)]" in msg and "[4, 4]" in msg


def test_bad_options():
    seq = tw.Input(batch_shape=(None, None, 3))
    with pytest.raises(tw.ShapeError, match=r"lengths .* expected \(None,\) integers"):
        RNN(seq, n_units=2, lengths=tw.Input(shape=(), dtype="float32"), return_sequences=True)
    with pytest.raises(tw.UnknownComponentError, match=r"LSTMCel\.v1"):
        RNN(seq, cell="LSTMCel.v1", n_units=2, return_sequences=True)
    with pytest.raises(ValueError, match="merge must be one of"):
        Bidirectional(seq, n_units=2, merge="max", return_sequences=True)
    with pytest.raises(CellContractError):
        RNN(seq, cell=lambda x, n_units: x, n_units=2, return_sequences=True)


def test_final_state_in_a_module_and_without_the_cached_run():
    seq = tw.Input(batch_shape=(None, None, 3))
    rnn = RNN(seq, cell="LSTMCell.v1", n_units=4, return_sequences=True)
    h, c = rnn.final_state
    x = _rand(2, 5, 3)
    _, (want_h, want_c) = rnn.run(tf.constant(x))
    module = tw.Module(seq, c)
    again = module.reuse_with(tw.Input(batch_shape=(None, None, 3)))
    np.testing.assert_allclose(again.compute(tf.constant(x)), want_c, rtol=1e-6)
    # an output that is not from the cached run: the accessor runs the loop itself
    np.testing.assert_allclose(h.compute(tf.zeros([2, 5, 4]), tf.constant(x)), want_h, rtol=1e-6)


def test_no_hook_module_a_lookup_would_load():
    """The cell contract is the cells kind's check, not a hook: this pack has no hook module."""
    names = [name for name, _ in tw.plugins.manager.list_name_plugin()]
    assert not any(name.startswith("tensorweave-rnn:") for name in names), names


@pytest.mark.parametrize("cell_name", ["LSTMCell.v1", "GRUCell.v1", "RNNCell.v1"])
def test_hoisted_input_projection_equals_per_step_matmuls(cell_name):
    """RNN computes x @ kernel for all steps in one matmul; values and gradients are those
    of the per-step maths, also with input dropout and DropConnect (same seed)."""
    seq = tw.Input(batch_shape=(None, None, 3))
    lengths = tw.Input(shape=(), dtype="int32")
    opts = {"dropout": 0.3, "dropconnect": 0.2, "recurrent_dropout": 0.1}
    hoisted = RNN(seq, cell=cell_name, n_units=4, lengths=lengths, **opts)
    per_step = RNN(seq, cell=cell_name, n_units=4, lengths=lengths, hoist_inputs=False, **opts)
    for a, b in zip(per_step.cell.variables, hoisted.cell.variables, strict=True):
        a.assign(b)
    x, lv = tf.constant(_rand(3, 5, 3)), tf.constant([5, 3, 1])
    results = []
    for rnn in (hoisted, per_step):
        rnn.cell.state.rng.reset_from_seed(11)  # the same masks: the same generator state
        with tf.GradientTape() as tape:
            out = rnn.compute(x, lv)
            loss = tf.reduce_sum(out**2)
        results.append([out, *tape.gradient(loss, list(rnn.cell.trainable_variables))])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_reuse_keeps_the_initial_state_inputs_unless_new_ones_are_given():
    seq = tw.Input(batch_shape=(None, None, 3))
    h0, c0 = tw.Input(n_units=4, name="h0"), tw.Input(n_units=4, name="c0")
    rnn = RNN(seq, h0, c0, cell="LSTMCell.v1", n_units=4, return_sequences=True)
    seq2 = tw.Input(batch_shape=(None, None, 3))
    kept = rnn.reuse_with(seq2)  # as TensorX: the original's initial states
    assert kept.inputs == (seq2, h0, c0) and kept.shares_state_with(rnn)
    x = _rand(2, 5, 3)
    s = [_rand(2, 4), _rand(2, 4)]
    np.testing.assert_allclose(kept.compute(x, *s), rnn.compute(x, *s), rtol=1e-6)
    h1, c1 = tw.Input(n_units=4), tw.Input(n_units=4)
    assert rnn.reuse_with(seq2, h1, c1).inputs == (seq2, h1, c1)
    with pytest.raises(tw.ShapeError, match="initial states"):
        rnn.reuse_with(seq2, h1)  # one of two states: refused, not padded silently


def test_reuse_takes_the_per_use_options_and_keeps_the_rest():
    seq = tw.Input(batch_shape=(None, None, 3))
    lengths = tw.Input(shape=(), dtype="int32")
    rnn = RNN(
        seq, cell="GRUCell.v1", n_units=4, lengths=lengths, dropout=0.5, return_sequences=True
    )
    last = rnn.reuse_with(seq, lengths, return_sequences=False, training=False)
    assert last.shape == (None, 4) and rnn.shape == (None, None, 4)
    assert not last.cell.training and last.inputs == (seq, lengths)
    x, n = _rand(2, 5, 3), np.array([5, 3], "int32")
    full = rnn.reuse_with(seq, lengths, training=False).compute(x, n).numpy()
    np.testing.assert_allclose(last.compute(x, n), full[[0, 1], [4, 2]], rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError):
        rnn.reuse_with(seq, lengths, n_units=8)  # the cell belongs to the shared state


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"reverse": True},
        {"return_sequences": False, "aux": "lengths"},
        {"reverse": True, "aux": "lengths"},
        {"cell": "GRUCell.v1"},
    ],
)
def test_unrolled_static_length_equals_the_while_loop(options):
    """A time axis known when tracing (here 6) is unrolled in Python; a dynamic one runs the
    while_loop: the same outputs, final states and gradients."""
    options = dict(options)
    aux = options.pop("aux", None)
    cell = options.pop("cell", "LSTMCell.v1")
    rng = np.random.default_rng(0)
    data = rng.normal(size=(3, 6, 4)).astype("float32")
    lengths = np.array([6, 2, 4], "int32")
    outs = []
    first = None
    for time in (6, None):
        seq = tw.Input(batch_shape=(None, time, 4), name="seq")
        lens = tw.Input(shape=(), dtype="int32", name="lens")
        extra = {"lengths": lens} if aux else {}
        if first is None:
            rnn = first = RNN(seq, cell=cell, n_units=5, **extra, **options)
        else:
            rnn = first.reuse_with(seq, *([lens] if aux else []))
        f = tw.compile(tw.Graph.build([seq, lens] if aux else [seq], [rnn, rnn.final_state[0]]))
        args = [tf.constant(data)] + ([tf.constant(lengths)] if aux else [])
        variables = f.graph.trainable_variables
        with tf.GradientTape() as tape:
            out, state = f(*args)
            loss = tf.reduce_sum(out * out) + tf.reduce_sum(state)
        grads = tape.gradient(loss, variables)
        graph = f.function.get_concrete_function().graph
        loops = [op for op in graph.get_operations() if op.type in ("While", "StatelessWhile")]
        assert bool(loops) == (time is None)
        outs.append((out.numpy(), state.numpy(), [g.numpy() for g in grads]))
    (a, sa, ga), (b, sb, gb) = outs
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sa, sb, rtol=1e-5, atol=1e-6)
    for x, y in zip(ga, gb, strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-5)


def _masked_ids():
    ids = tw.Input(batch_shape=(None, None), dtype=tf.int64, name="ids")
    return ids, tw.layers["Lookup.v1"](ids, vocab_size=5, n_units=3, mask_zero=True)


def test_the_padding_mask_of_the_sequence_is_the_mask_unless_one_is_given():
    ids, emb = _masked_ids()
    rnn = RNN(emb, cell="GRUCell.v1", n_units=2, return_sequences=True)
    assert rnn.inputs == (emb, emb.padding_mask) and rnn.padding_mask is emb.padding_mask
    value = np.array([[1, 2, 0, 0], [3, 4, 1, 0]], "int64")
    out = tw.compile(rnn)(value).numpy()
    explicit = RNN(
        emb,
        cell="GRUCell.v1",
        n_units=2,
        mask=emb.padding_mask,
        share_state_with=rnn,
        return_sequences=True,
    )
    np.testing.assert_allclose(out, tw.compile(explicit)(value).numpy(), rtol=1e-6)
    assert np.all(out[0, 2:] == 0) and np.all(out[1, 3:] == 0)
    everything = tw.ops.ones_like(ids, dtype=tf.bool)
    unmasked = RNN(
        emb,
        cell="GRUCell.v1",
        n_units=2,
        mask=everything,
        share_state_with=rnn,
        return_sequences=True,
    )
    assert not np.all(tw.compile(unmasked)(value).numpy()[0, 2:] == 0)  # mask= wins
    assert RNN(emb, cell="GRUCell.v1", n_units=2, return_sequences=False).padding_mask is None


def test_reuse_takes_the_new_sequences_padding_mask():
    _, emb = _masked_ids()
    rnn = RNN(emb, cell="GRUCell.v1", n_units=2, return_sequences=True)
    plain = rnn.reuse_with(tw.Input(batch_shape=(None, None, 3), name="plain"))
    assert len(plain.inputs) == 1 and plain.shares_state_with(rnn)
    _, other = _masked_ids()
    again = rnn.reuse_with(other)
    assert again.inputs == (other, other.padding_mask)
    module = tw.Module(emb.inputs[0], rnn)  # a Module passes every input, the mask too
    ids2, _ = _masked_ids()
    value = np.array([[1, 2, 0]], "int64")
    np.testing.assert_allclose(
        tw.compile(module.reuse_with(ids2))(value).numpy(), tw.compile(rnn)(value).numpy()
    )


def test_a_config_lookup_with_mask_zero_masks_the_rnn():
    from tensorweave import config

    cfg = config.loads(
        """
        [model.nodes]
        ids = { input = [-1], dtype = "int64" }
        embed = { "@layers" = "Lookup.v1", inputs = ["ids"], vocab_size = 5, n_units = 3, mask_zero = true }
        lstm = { "@layers" = "RNN.v1", inputs = ["embed"], cell = "LSTMCell.v1", n_units = 2, return_sequences = true }
        pooled = { "@layers" = "GlobalAvgPool.v1", inputs = ["lstm"] }
        """
    )
    nodes = config.resolve(cfg)["model"]
    embed, lstm, pooled = nodes["embed"], nodes["lstm"], nodes["pooled"]
    assert lstm.inputs == (embed, embed.padding_mask)
    assert pooled.inputs == (lstm, embed.padding_mask)
    out = tw.compile(lstm)(np.array([[1, 2, 0, 0]], "int64")).numpy()
    assert np.all(out[0, 2:] == 0) and not np.all(out[0, :2] == 0)
