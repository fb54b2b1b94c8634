"""Streaming metrics equal their metric on the concatenated batches; reset; tf.function."""

import numpy as np
import pytest
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorweave as tw
from tensorweave_losses.metrics import auc as auc_mod
from tensorweave_losses.metrics import classification as cls
from tensorweave_losses.metrics import mean as mean_mod
from tensorweave_losses.metrics import perplexity as seq

CLASSES = 4


def _batches(seed, n_batches):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_batches):
        b = int(rng.integers(1, 6))
        ids = rng.integers(0, CLASSES, size=b)
        out.append(
            {
                "ids": ids,
                "onehot": np.eye(CLASSES, dtype="float32")[ids],
                "scores": rng.standard_normal((b, CLASSES)).astype("float32"),
                "binary": rng.integers(0, 2, size=(b, CLASSES)).astype("float32"),
                "probs": rng.random((b, CLASSES)).astype("float32"),
                "weights": rng.random(b).astype("float32"),
                "tokens": rng.integers(0, CLASSES, size=(b, 3)),
                "logits": rng.standard_normal((b, 3, CLASSES)).astype("float32"),
                "lengths": rng.integers(0, 4, size=b),
            }
        )
    return out


def _cat(batches, key):
    return np.concatenate([b[key] for b in batches])


# (streaming class, ctor kwargs, function, argument keys)
TABLE = [
    (cls.StreamingAccuracy, {}, cls.accuracy, ("onehot", "scores")),
    (cls.StreamingSparseAccuracy, {}, cls.sparse_accuracy, ("ids", "scores")),
    (cls.StreamingTopKAccuracy, {"k": 2}, cls.top_k_accuracy, ("ids", "scores")),
    (cls.StreamingBinaryAccuracy, {"threshold": 0.3}, cls.binary_accuracy, ("binary", "probs")),
    (cls.StreamingPrecision, {"threshold": 0.3}, cls.precision, ("binary", "probs")),
    (cls.StreamingRecall, {"threshold": 0.3}, cls.recall, ("binary", "probs")),
    (cls.StreamingF1, {"threshold": 0.3}, cls.f1, ("binary", "probs")),
    (auc_mod.StreamingAUC, {"num_thresholds": 50}, auc_mod.auc, ("binary", "probs")),
    (mean_mod.StreamingMean, {}, mean_mod.mean, ("probs",)),
]


@settings(max_examples=6)
@given(st.integers(0, 2**31 - 1), st.integers(1, 4), st.booleans())
def test_streaming_equals_function_on_concatenated_batches(seed, n_batches, weighted):
    batches = _batches(seed, n_batches)
    for metric_cls, kwargs, fn, keys in TABLE:
        metric = metric_cls(**kwargs)
        for b in batches:
            w = b["weights"] if weighted and metric_cls is not mean_mod.StreamingMean else None
            metric.update(*[b[k] for k in keys], sample_weight=w)
        w_all = (
            _cat(batches, "weights")
            if weighted and metric_cls is not mean_mod.StreamingMean
            else None
        )
        want = fn(*[_cat(batches, k) for k in keys], sample_weight=w_all, **kwargs)
        np.testing.assert_allclose(
            metric.result(), want, rtol=1e-5, atol=1e-6, err_msg=metric_cls.__name__
        )


def test_streaming_perplexity_equals_function_on_all_batches():
    batches = _batches(3, 3)
    metric = seq.StreamingPerplexity()
    for b in batches:
        metric.update(b["tokens"], b["logits"], lengths=b["lengths"])
    want = seq.perplexity(
        _cat(batches, "tokens"), _cat(batches, "logits"), lengths=_cat(batches, "lengths")
    )
    np.testing.assert_allclose(metric.result(), want, rtol=1e-5)


@pytest.mark.parametrize("metric_cls, kwargs, fn, keys", TABLE[:2] + TABLE[6:8])
def test_reset_and_tf_function(metric_cls, kwargs, fn, keys):
    batches = _batches(7, 2)
    metric = metric_cls(**kwargs)
    update = tf.function(lambda *args: metric.update(*args))
    for b in batches:
        update(*[tf.constant(b[k]) for k in keys])
    want = fn(*[_cat(batches, k) for k in keys], **kwargs)
    np.testing.assert_allclose(metric.result(), want, rtol=1e-5, atol=1e-6)
    metric.reset()
    assert float(metric.result()) == 0.0
    update(*[tf.constant(batches[1][k]) for k in keys])
    np.testing.assert_allclose(
        metric.result(), fn(*[batches[1][k] for k in keys], **kwargs), rtol=1e-5, atol=1e-6
    )


def test_variables_are_tracked_non_trainable_and_checkpoint(tmp_path):
    metric = auc_mod.StreamingAUC(num_thresholds=10)
    assert metric.name == "streaming_auc"
    assert len(metric.variables) == 2 and not metric.trainable_variables
    metric.update([1.0, 0.0, 1.0], [0.9, 0.4, 0.3])
    before = float(metric.result())
    path = tf.train.Checkpoint(metric=metric).write(str(tmp_path / "ckpt"))
    metric.reset()
    tf.train.Checkpoint(metric=metric).read(path).assert_consumed()
    assert float(metric.result()) == before


def test_registered_by_name():
    metric = tw.metrics["streaming_sparse_accuracy.v1"]()
    metric.update([1], [[0.1, 0.9]])
    assert float(metric.result()) == 1.0
    np.testing.assert_allclose(tw.metrics["mean.v1"]([1.0, 3.0]), 2.0)
