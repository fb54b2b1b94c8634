"""``Model.runner`` (``loop.model_running.Runner``): train/evaluate/predict over every data
source, no retracing across batch sizes, seeded shuffling, the data mistakes they name."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import mse, regression_data, regression_model, weights

import tensorweave as tw
import tensorweave_train as twt


def test_train_lowers_loss_and_evaluate_matches_numpy():
    model = regression_model()
    data = regression_data()
    before = model.evaluate(data, batch_size=16)["loss"]
    history = model.train(data, epochs=5, batch_size=8)
    after = model.evaluate(data, batch_size=16)
    assert len(history) == 5 and after["loss"] < before
    pred = model.predict({"x": data["x"]}, batch_size=10)
    assert pred.shape == (64, 1)
    np.testing.assert_allclose(after["loss"], np.mean((pred - data["t"]) ** 2), rtol=1e-5)
    np.testing.assert_allclose(after["mae"], np.mean(np.abs(pred - data["t"])), rtol=1e-5)


def test_train_step_traced_once_across_batch_sizes():
    model = regression_model()
    data = regression_data(n=50)
    model.train(data, epochs=1, batch_size=7)  # 7 batches of 7 and one of 1
    model.train(data, epochs=2, batch_size=13)
    assert model.train_trace_count == 1
    model.evaluate(data, batch_size=9)
    model.evaluate(data, batch_size=4)
    assert model.eval_function.experimental_get_tracing_count() == 1


def _run(data, **kw):
    model = regression_model(seed=3)
    model.train(data, epochs=2, shuffle=False, **kw)
    return weights(model)


def test_data_sources_agree():
    data = regression_data(n=24)
    batches = [{"x": data["x"][i : i + 8], "t": data["t"][i : i + 8]} for i in range(0, 24, 8)]
    ref = _run(data, batch_size=8)
    others = [
        _run((data["x"], data["t"]), batch_size=8),
        _run(batches),
        _run(lambda: iter(batches)),
        _run(tf.data.Dataset.from_tensor_slices(data).batch(8)),
        _run([(b["x"], b["t"]) for b in batches]),
    ]
    for got in others:
        for a, b in zip(ref, got):
            np.testing.assert_allclose(a, b, rtol=1e-6)


def test_one_shot_generator_serves_one_epoch_only():
    model = regression_model()
    data = regression_data(n=16)
    gen = ({"x": data["x"][i : i + 8], "t": data["t"][i : i + 8]} for i in (0, 8))
    with pytest.raises(ValueError, match="one-shot"):
        model.train(gen, epochs=2)


def test_seeded_runs_are_identical_and_shuffle_depends_on_seed():
    data = regression_data()
    runs = []
    for seed in (5, 5, 6):
        model = regression_model(seed=0)
        h = model.train(data, epochs=3, batch_size=8, seed=seed)
        runs.append([e["loss"] for e in h])
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_sparse_input_trains_and_evaluates():
    tf.random.set_seed(0)
    x = tw.Input(n_units=6, sparse=True, name="x")
    t = tw.Input(n_units=1, name="t")
    w = tf.Variable(tf.zeros([6, 1]))
    y = tw.Lambda(lambda s: tf.sparse.sparse_dense_matmul(s, w), x, variables=[w], name="y")
    model = twt.Model(inputs=x, outputs=y, targets=t, loss=tw.Lambda(mse, y, t))
    dense = np.eye(6, dtype="float32")
    batches = [
        (tf.sparse.from_dense(dense[i : i + n]), np.ones((n, 1), "float32"))
        for i, n in ((0, 2), (2, 3), (5, 1))
    ]
    model.optimizer.learning_rate.assign(0.5)
    model.train(batches, epochs=30)
    assert model.train_trace_count == 1
    assert model.evaluate(batches)["loss"] < 1e-3
    np.testing.assert_allclose(model.predict([b[:1] for b in batches]), np.ones((6, 1)), atol=0.05)


def test_predict_refuses_object_strings_and_complex_arrays():
    model = regression_model()
    for bad in (
        np.array([[1.0, None, 0.0, 0.0]], dtype=object),
        np.array([["1", "2", "3", "4"]]),
        np.ones((2, 4), dtype=complex),
    ):
        with pytest.raises(tw.InputValueError, match="Input 'x' expects float32"):
            model.predict({"x": bad})
    assert model.predict({"x": np.ones((2, 4))}).shape == (2, 1)


def test_nan_in_training_data_is_reported_with_the_step():
    from tensorweave_train import NonFiniteWarning

    model = regression_model()
    data = regression_data(n=16)
    data["x"][5, 1] = np.nan
    with pytest.warns(NonFiniteWarning) as record:
        model.train(data, epochs=2, batch_size=8)
    messages = [str(w.message) for w in record]
    assert "the training data's field 'x' has NaN or inf values (first at example 5)" in messages
    assert any("after epoch 1 (step 2)" in m for m in messages)
