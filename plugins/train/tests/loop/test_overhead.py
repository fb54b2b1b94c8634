"""The per-step work of ``Model.train`` outside the kernels, counted, not timed (issue 39).

A shared machine moves wall-clock figures by 10% and more; counts do not move. Each test
counts, over a second ``train`` of a tiny model: the transfers of a tensor to the host
(``EagerTensor.numpy``/``__float__``) per step, the traces of the train step, and the Python
function calls per step (``cProfile``), against bounds measured when the loop was tightened
(``benchmarks/bench_step_anatomy.py --loop`` prints the same counts beside a hand-written loop).
"""

from __future__ import annotations

import cProfile
import pstats

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import regression_data, regression_model, weights

from tensorweave_train.loop.metrics import figure

N, BATCH, EPOCHS = 400, 8, 2  # the counted train: 2 epochs of 50 steps
STEPS = EPOCHS * N // BATCH


@pytest.fixture
def host_syncs(monkeypatch):
    """A counter of the eager tensors brought to the host (``.numpy()``, ``float()``)."""
    eager = type(tf.constant(0.0))
    count = [0]
    for name in ("numpy", "__float__"):
        original = getattr(eager, name)

        def counted(self, _original=original):
            count[0] += 1
            return _original(self)

        monkeypatch.setattr(eager, name, counted)
    return count


def _counted_train(k, host_syncs):
    """A model trained once (traced, warm), then the counts of a second 2-epoch train."""
    data = regression_data(n=N)
    model = regression_model(seed=3, steps_per_execution=k)
    model.train(data, epochs=1, batch_size=BATCH, verbose=0)
    traces = model.train_trace_count
    host_syncs[0] = 0
    profile = cProfile.Profile()
    profile.enable()
    history = model.train(data, epochs=EPOCHS, batch_size=BATCH, verbose=0)
    profile.disable()
    return {
        "syncs_per_epoch": host_syncs[0] / EPOCHS,
        "calls": pstats.Stats(profile).total_calls / STEPS,
        "retraces": model.train_trace_count - traces,
        "steps": history.state.step,
    }


@pytest.mark.slow
@pytest.mark.parametrize(("k", "max_calls"), [(1, 900), ("auto", 300)])
def test_per_step_host_syncs_python_calls_and_no_retrace(k, max_calls, host_syncs):
    got = _counted_train(k, host_syncs)
    assert got["steps"] == STEPS
    # per epoch: the step losses in one transfer (it was one per step with one step per
    # call: 52 an epoch here), the metric, the NaN check of the weights
    assert got["syncs_per_epoch"] <= 4, got
    assert got["retraces"] == 0, got  # traced once, in the first train
    # measured 699 (one step per call: mostly TensorFlow's own call of the function) and 191
    # ("auto", with the fixed cost of a train over only 100 steps); a hand-written
    # ``for x, y in dataset: step(x, y)`` costs ~1800 per step
    assert got["calls"] <= max_calls, got


def test_loss_is_the_float32_sum_of_the_step_losses_and_weights_bit_exact():
    """``Model.train`` runs exactly ``train_on_batch``'s steps: the same weights, bit for bit,
    and the epoch's loss the float32 sum of the step losses, left to right."""
    data = regression_data(n=61)  # 7 batches of 8 and one of 5
    trained = regression_model(seed=3, steps_per_execution=1)
    history = trained.train(data, epochs=1, batch_size=8, shuffle=False, verbose=0)
    by_hand = regression_model(seed=3)
    losses = [
        by_hand.train_on_batch([data["x"][i : i + 8], data["t"][i : i + 8]]).numpy()
        for i in range(0, 61, 8)
    ]
    for a, b in zip(weights(trained), weights(by_hand), strict=True):
        assert np.array_equal(a, b)
    total = np.float32(0.0)
    for loss in losses:
        total = total + loss
    assert history[0]["loss"] == figure(float(total) / len(losses))


def test_a_train_call_walks_the_variables_only_when_the_step_or_the_frozen_layers_change():
    data = regression_data(n=16)
    model = regression_model(seed=3)
    model.train(data, epochs=1, batch_size=8, verbose=0)
    every = model.trainable_variables
    assert model.trainable_variables is every  # remembered: the traced step's variables
    profile = cProfile.Profile()
    profile.enable()
    model.train(data, epochs=1, batch_size=8, verbose=0)  # 2 steps: the call's fixed cost
    profile.disable()
    # measured 2,600 (it was 11,400: two walks of every layer's modules per call)
    assert pstats.Stats(profile).total_calls <= 3500
    (y,) = [layer for layer in model.layers if layer.name == "y"]
    y.freeze()
    assert {id(v) for v in model.trainable_variables} == {
        id(v) for v in every if all(v is not w for w in y.variables)
    }
    model.train(data, epochs=1, batch_size=8, verbose=0)
    assert len(model.trainable_variables) == len(every) - 2
