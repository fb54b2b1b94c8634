"""Model.evaluate reports the figures of the whole set, for any batch size: F1, precision,
recall and AUC equal scikit-learn on all predictions at once (imbalanced labels), and the
loss is the mean over examples."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from sklearn import metrics as skm

import tensorweave as tw
import tensorweave_train as twt


def _classifier(**kw):
    tw.reset_names()
    tf.random.set_seed(4)
    x, t = tw.Input(n_units=5, name="x"), tw.Input(shape=(), name="t")
    logit = tw.layers["Linear.v1"](x, n_units=1)
    p = tw.Lambda(lambda z: tf.sigmoid(z[:, 0]), logit, name="p")
    metrics = {
        "f1": tw.metrics["f1.v1"](t, p),
        "precision": tw.metrics["precision.v1"](t, p),
        "recall": tw.metrics["recall.v1"](t, p, threshold=0.3),
        "auc": tw.metrics["auc.v1"](t, p),
        "accuracy": tw.metrics["binary_accuracy.v1"](t, p),
    }
    loss = tw.losses["binary_cross_entropy.v1"](t, p, from_logits=False)
    return twt.Model(inputs=x, outputs=p, targets=t, loss=loss, metrics=metrics, **kw)


def _imbalanced(n=151, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 5)).astype("float32")
    t = ((x[:, 0] + 0.8 * rng.normal(size=n)) > 1.3).astype("float32")  # ~10% positives
    return {"x": x, "t": t}


@pytest.mark.parametrize("batch_size", [1, 13, 1000])
def test_evaluate_equals_sklearn_on_the_whole_set_for_any_batch_size(batch_size):
    model = _classifier()
    data = _imbalanced()
    assert 0.03 < data["t"].mean() < 0.2
    p = model.predict({"x": data["x"]})
    got = model.evaluate(data, batch_size=batch_size)
    t = data["t"]
    want = {
        "f1": skm.f1_score(t, p > 0.5),
        "precision": skm.precision_score(t, p > 0.5, zero_division=0.0),
        "recall": skm.recall_score(t, p > 0.3),
        "auc": skm.roc_auc_score(t, p),
        "accuracy": skm.accuracy_score(t, p > 0.5),
        "loss": skm.log_loss(t, np.clip(p, 1e-7, 1 - 1e-7)),
    }
    assert set(got) == set(want)
    for name, value in want.items():
        np.testing.assert_allclose(got[name], value, rtol=2e-6, atol=1e-6, err_msg=name)


def test_figures_do_not_depend_on_the_batch_size():
    model = _classifier()
    data = _imbalanced()
    runs = [model.evaluate(data, batch_size=b) for b in (3, 16, 151)]
    for name in ("f1", "precision", "recall", "auc", "accuracy"):
        assert runs[0][name] == runs[1][name] == runs[2][name], name
    assert model.eval_function.experimental_get_tracing_count() == 1


def test_a_figure_is_one_float32_value():
    model = _classifier()
    got = model.evaluate(_imbalanced(), batch_size=32)
    for value in got.values():  # the float32 it is, as its shortest decimal
        assert repr(value) == str(np.float32(value))


def test_xla_models_evaluate_too():
    """The exact AUC's accumulators grow, which XLA cannot compile: evaluation then runs
    without XLA (the train step keeps it) and gives the same figures."""
    data = _imbalanced()
    plain = _classifier().evaluate(data, batch_size=16)
    jitted = _classifier(jit_compile=True).evaluate(data, batch_size=16)
    for name in ("f1", "precision", "recall", "auc", "accuracy"):
        assert jitted[name] == plain[name], name


# -- the training figures beside the loss ----------------------------------------------------
def test_training_metrics_stream_over_the_epoch_as_validation_does():
    data = _imbalanced()
    model = _classifier(optimizer=twt.SGD(0.0))  # the weights stay: each batch sees them
    h = model.train(data, epochs=1, batch_size=13, validation=data, verbose=0)
    record = h[-1]
    for name in ("f1", "precision", "recall", "auc", "accuracy"):
        assert record[name] == record[f"val_{name}"], name  # the whole set, not a batch mean
    assert list(record)[:4] == ["epoch", "step", "loss", "f1"]  # beside the loss


def test_training_metrics_are_updated_inside_the_compiled_step():
    data = _imbalanced()
    one = _classifier(optimizer=twt.SGD(0.5), steps_per_execution=1)
    many = _classifier(optimizer=twt.SGD(0.5), steps_per_execution=8)
    h_one = one.train(data, epochs=2, batch_size=8, shuffle=False, verbose=0)
    h_many = many.train(data, epochs=2, batch_size=8, shuffle=False, verbose=0)
    assert h_one.history == h_many.history
    assert h_many[0]["accuracy"] != h_many[1]["accuracy"]  # reset at each epoch
    assert many.train_trace_count == 1 and many.steps.train.trace_count == 0


def test_training_metrics_survive_a_resume_within_an_epoch(tmp_path):
    from twtrain_helpers import Crash, crash_at

    def train(cbs=(), resume=None):
        model = _classifier(optimizer=twt.Adam(0.05))
        return model.train(
            _imbalanced(), epochs=2, batch_size=16, callbacks=list(cbs), resume=resume, verbose=0
        )

    whole = train()
    with pytest.raises(Crash):
        train([twt.CheckpointCallback(tmp_path, every_steps=4), crash_at(6)])  # 10 per epoch
    assert train([twt.CheckpointCallback(tmp_path)], resume=tmp_path).history == whole.history
