"""Several steps per compiled call: the same weights, losses and events as one step per call."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st
from twtrain_helpers import regression_data, regression_model, weights

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_train import Callback, Event, LambdaCallback, on_step
from tensorweave_train.loop.execution import _room, chunk_size


def _train(k, data, epochs=2, batch_size=8, callbacks=(), optimizer=None, **kw):
    model = regression_model(seed=3, steps_per_execution=k, optimizer=optimizer)
    history = model.train(
        data, epochs=epochs, batch_size=batch_size, shuffle=True, callbacks=callbacks, **kw
    )
    return model, history


@pytest.mark.parametrize("k", [2, 5, "auto"])
def test_same_weights_and_losses_as_one_step_per_call(k):
    data = regression_data(n=61)  # 7 batches of 8 and a remainder of 5
    ref, ref_history = _train(1, data, optimizer=twt.Adam(0.01))
    got, history = _train(k, data, optimizer=twt.Adam(0.01))
    for a, b in zip(weights(ref), weights(got), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    assert [h["loss"] for h in history] == pytest.approx([h["loss"] for h in ref_history])
    assert history.state.step == ref_history.state.step == 16
    assert int(got.optimizer.iterations) == 16
    assert got.train_trace_count == 1  # one trace for every chunk length and batch size
    assert got.steps.train_many.trace_count == 1 and got.steps.train.trace_count == 0


def test_every_step_event_seen_with_its_own_loss_and_counters():
    seen = {1: [], 4: []}
    for k in (1, 4):

        class Record(Callback):
            triggers = (on_step(), on_step(at="start"))
            exact_steps = False

            def __call__(self, event, state, seen=seen[k]):
                seen.append((event.name, state.step, state.epoch_step, float(state.loss or 0)))

        _train(k, regression_data(n=40), callbacks=[Record()])
    assert len(seen[4]) == 2 * 2 * 5  # start and end of 5 steps per epoch, 2 epochs
    ends = [s for s in seen[4] if s[0] == "STEP_END"]
    ref_ends = [s for s in seen[1] if s[0] == "STEP_END"]
    assert [s[:3] for s in ends] == [s[:3] for s in ref_ends]
    np.testing.assert_allclose([s[3] for s in ends], [s[3] for s in ref_ends], rtol=1e-6)


def test_replayed_events_only_at_the_steps_their_triggers_match():
    seen = {1: [], 8: []}
    for k in (1, 8):

        class EveryThird(Callback):
            triggers = (on_step(every=3), on_step(every=4, at="start"))
            exact_steps = False

            def __call__(self, event, state, seen=seen[k]):
                seen.append((event.name, state.step, state.epoch_step, float(state.loss or 0)))

        _train(k, regression_data(n=64), epochs=2, callbacks=[EveryThird()])
    assert [s[:2] for s in seen[8]] == [s[:2] for s in seen[1]]
    ends = [s[1] for s in seen[8] if s[0] == "STEP_END"]
    starts = [s[1] for s in seen[8] if s[0] == "STEP_START"]
    assert ends == [3, 6, 9, 12, 15] and starts == [3, 7, 11, 15]  # start: steps done before
    np.testing.assert_allclose(
        [s[3] for s in seen[8] if s[0] == "STEP_END"],
        [s[3] for s in seen[1] if s[0] == "STEP_END"],
        rtol=1e-6,
    )


def test_exact_callback_sees_the_weights_of_its_step_and_can_stop_there():
    snaps = {}
    for k in (1, 8):
        got = snaps.setdefault(k, [])

        def look(ev, state, got=got):
            got.append((state.step, [v.numpy().copy() for v in state.model.variables]))
            if state.step == 9:
                state.request_stop("enough")

        model, history = _train(
            k, regression_data(n=64), epochs=3, callbacks=[LambdaCallback(look, on_step(every=3))]
        )
        assert history.state.step == 9 and int(model.optimizer.iterations) == 9
    assert [s for s, _ in snaps[8]] == [3, 6, 9]
    for (_, a), (_, b) in zip(snaps[1], snaps[8], strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)


@settings(max_examples=40, deadline=None)
@given(
    step=st.integers(0, 50),
    limit=st.integers(1, 16),
    every=st.integers(1, 7),
    at=st.sampled_from(["start", "end"]),
)
def test_room_never_skips_a_wanted_step(step, limit, every, at):
    cb = LambdaCallback(print, on_step(every=every, at=at))
    room = _room([cb], step, limit)
    assert 1 <= room <= limit
    for s in range(step, step + room):  # the steps this chunk runs: s done before each
        if at == "end" and s + 1 < step + room:
            assert not cb.wants(Event.STEP_END, twt.TrainState(step=s + 1))
        if at == "start" and s > step:
            assert not cb.wants(Event.STEP_START, twt.TrainState(step=s))


def test_dataset_and_list_sources_chunk_too():
    data = regression_data(n=48)
    ds = tf.data.Dataset.from_tensor_slices(data).batch(8)
    a = regression_model(seed=3, steps_per_execution=1)
    b = regression_model(seed=3, steps_per_execution=4)
    a.train(ds, epochs=2)
    b.train(ds, epochs=2)
    for x, y in zip(weights(a), weights(b), strict=True):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-7)


def test_auto_chunk_size_and_bad_setting():
    assert chunk_size("auto", [np.zeros((128, 24, 24, 3), "float32")]) == 4
    assert chunk_size("auto", [np.zeros((128,), "int64")]) == 32
    with pytest.raises(tw.ArgumentError, match="steps_per_execution"):
        regression_model(steps_per_execution=0)


def test_jit_compile_trains_like_the_plain_model():
    data = regression_data(n=40)
    plain, _ = _train(4, data)
    xla = regression_model(seed=3, steps_per_execution=4, jit_compile=True)
    xla.train(data, epochs=2, batch_size=8, shuffle=True)
    for a, b in zip(weights(plain), weights(xla), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_jit_compile_error_names_the_layer():
    from tensorweave.graph.compile import XLAError

    x = tw.Input(n_units=2, name="x")
    w = tf.Variable([[1.0], [1.0]])
    y = tw.Lambda(lambda a: a @ w, x, variables=[w], name="y")
    text = tw.Lambda(lambda a: tf.strings.to_number(tf.strings.as_string(a)), y, name="texty")
    loss = tw.Lambda(tf.reduce_mean, text, name="loss")
    model = twt.Model(inputs=x, outputs=y, loss=loss, jit_compile=True)
    with pytest.raises(XLAError, match="emitted by layer 'texty'"):
        model.train({"x": np.ones((8, 2), "float32")}, epochs=1, batch_size=4)


def test_consecutive_batches_are_stacked_as_a_view_others_copied():
    from tensorweave_train.loop.execution import _block

    x = np.arange(60, dtype="float32").reshape(10, 2, 3)
    view = _block([x[0:2], x[2:4], x[4:6]])
    np.testing.assert_array_equal(view, np.stack([x[0:2], x[2:4], x[4:6]]))
    assert np.shares_memory(view, x) and not view.flags.writeable
    gap = _block([x[0:2], x[4:6]])  # not end to end
    np.testing.assert_array_equal(gap, np.stack([x[0:2], x[4:6]]))
    assert not np.shares_memory(gap, x)
    other = x[2:4].copy()  # end to end by chance would still need the same allocation
    assert not np.shares_memory(_block([x[0:2], other]), x)
    strided = x[:, :, ::2]  # pieces that are not contiguous: copied
    assert not np.shares_memory(_block([strided[0:2], strided[2:4]]), x)
    np.testing.assert_array_equal(_block([x[0:2]]), x[0:2][None])


@pytest.mark.parametrize("shuffle", [False, True])
def test_stacked_views_train_like_one_step_per_call(shuffle):
    data = regression_data(n=61)
    ref = regression_model(seed=3, steps_per_execution=1)
    got = regression_model(seed=3, steps_per_execution=4)
    for m in (ref, got):
        m.train(data, epochs=2, batch_size=8, shuffle=shuffle, verbose=0)
    for a, b in zip(weights(ref), weights(got), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
