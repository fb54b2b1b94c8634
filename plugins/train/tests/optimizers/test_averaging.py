"""Weight averages (``ema=``): Keras's ``use_ema`` rule, swapped in for validation by
``SwapEMAWeights``, left in the weights when training ends, saved and resumed exactly, the
same with several steps per call."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import Crash, crash_at, regression_data, regression_model, weights

import tensorweave as tw
import tensorweave_train as twt


def test_averages_match_keras_use_ema() -> None:
    rng = np.random.default_rng(0)
    init = rng.normal(size=(3, 2)).astype("float32")
    mine, ref = tf.Variable(init), keras.Variable(init)
    ours = twt.Adam(0.05, ema=0.9, ema_overwrite_frequency=3)
    theirs = keras.optimizers.Adam(0.05, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3)
    for _ in range(5):
        g = tf.constant(rng.normal(size=(3, 2)).astype("float32"))
        ours.apply_gradients([(g, mine)])
        theirs.apply_gradients([(g, ref)])
    np.testing.assert_allclose(mine.numpy(), np.asarray(ref), rtol=1e-5, atol=1e-6)
    average = np.asarray(theirs._model_variables_moving_average[0])
    np.testing.assert_allclose(ours.slot(mine, "average").numpy(), average, rtol=1e-5, atol=1e-6)


def test_swap_and_finalize() -> None:
    v = tf.Variable([1.0])
    opt = twt.SGD(1.0, ema=0.5)
    for _ in range(2):
        opt.apply_gradients([(tf.constant([-1.0]), v)])  # v: 2, 3; average: 2, 2.5
    opt.swap_averages()
    assert (float(v[0]), float(opt.slot(v, "average")[0])) == (2.5, 3.0)
    opt.finalize_variable_values()  # the averages are in: they stay, and equal the average
    assert (float(v[0]), float(opt.slot(v, "average")[0])) == (2.5, 2.5)
    assert not bool(opt.averages_in_model)
    with pytest.raises(tw.ArgumentError, match=r"keeps no weight averages.*ema=True"):
        twt.SGD(1.0).swap_averages([v])


def _data():
    return regression_data(n=32), regression_data(n=16, seed=2)


def test_validation_on_the_averages_and_the_averages_kept_at_the_end() -> None:
    train, valid = _data()
    runs = {}
    for swapped in (False, True):
        model = regression_model(seed=3, optimizer=twt.Adam(0.05, ema=0.8))
        cbs = [twt.SwapEMAWeights()] if swapped else []
        h = model.train(train, epochs=3, batch_size=8, validation=valid, callbacks=cbs, verbose=0)
        runs[swapped] = (model, h)
    plain, swap = runs[False], runs[True]
    for a, b in zip(weights(plain[0]), weights(swap[0]), strict=True):
        np.testing.assert_array_equal(a, b)  # swapping around validation changes no step
    final = swap[0].evaluate(valid)["loss"]  # after training: the weights are the averages
    assert swap[1][-1]["val_loss"] == final != plain[1][-1]["val_loss"]
    assert swap[1][-1]["loss"] == plain[1][-1]["loss"]
    opt = swap[0].optimizer
    for v in swap[0].trainable_variables:
        np.testing.assert_array_equal(v.numpy(), opt.slot(v, "average").numpy())


def test_swap_on_epoch_leaves_training_as_it_was() -> None:
    train, valid = _data()
    finals = []
    for cbs in ([], [twt.SwapEMAWeights(swap_on_epoch=True)]):
        model = regression_model(seed=3, optimizer=twt.SGD(0.05, ema=True))
        model.train(train, epochs=3, batch_size=8, validation=valid, callbacks=cbs, verbose=0)
        finals.append(weights(model))
    for a, b in zip(*finals, strict=True):
        np.testing.assert_array_equal(a, b)


def test_swap_ema_weights_needs_averages() -> None:
    model = regression_model()
    with pytest.raises(tw.ArgumentError, match="SwapEMAWeights needs an optimizer"):
        model.train(regression_data(n=8), epochs=1, callbacks=[twt.SwapEMAWeights()], verbose=0)


def _train(run_dir=None, crash=None, resume=None, steps_per_execution=1):
    model = regression_model(
        seed=5,
        optimizer=twt.Adam(0.02, ema=0.9, accumulate_steps=3),
        steps_per_execution=steps_per_execution,
    )
    cbs = []
    if run_dir is not None:
        cbs.append(twt.CheckpointCallback(run_dir, every_steps=5, every_epochs=None))
    if crash is not None:
        cbs.append(crash_at(crash))
    h = model.train(regression_data(n=32), epochs=3, batch_size=8, callbacks=cbs, resume=resume)
    return model, h


def test_averages_and_accumulators_resume_exactly_and_run_several_steps_per_call(tmp_path):
    ref_model, ref_hist = _train()
    many_model, _ = _train(steps_per_execution=4)
    with pytest.raises(Crash):
        _train(tmp_path, crash=7)  # saved at step 5: two gradients accumulated
    model, hist = _train(tmp_path, resume=tmp_path)
    for a, b, c in zip(weights(ref_model), weights(model), weights(many_model), strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(c, a, rtol=1e-6, atol=1e-7)
    assert int(model.optimizer.updates) == 4 and int(model.optimizer.iterations) == 12
    assert [e["loss"] for e in hist] == pytest.approx([e["loss"] for e in ref_hist], rel=1e-5)
