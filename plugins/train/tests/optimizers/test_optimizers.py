"""Optimizers against Keras 3, hyperparameters as variables, lazy slots, sparse updates,
clipping, schedules against Keras schedules."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt

CASES = [
    ("SGD", twt.SGD, keras.optimizers.SGD, {"learning_rate": 0.1}),
    ("momentum", twt.SGD, keras.optimizers.SGD, {"learning_rate": 0.1, "momentum": 0.9}),
    (
        "nesterov",
        twt.SGD,
        keras.optimizers.SGD,
        {"learning_rate": 0.1, "momentum": 0.8, "nesterov": True},
    ),
    ("Adam", twt.Adam, keras.optimizers.Adam, {"learning_rate": 0.01}),
    ("amsgrad", twt.Adam, keras.optimizers.Adam, {"learning_rate": 0.01, "amsgrad": True}),
    ("AdamW", twt.AdamW, keras.optimizers.AdamW, {"learning_rate": 0.01, "weight_decay": 0.1}),
    ("RMSprop", twt.RMSprop, keras.optimizers.RMSprop, {"learning_rate": 0.01}),
    (
        "RMSprop-centered-momentum",
        twt.RMSprop,
        keras.optimizers.RMSprop,
        {"learning_rate": 0.01, "momentum": 0.5, "centered": True},
    ),
    ("Adagrad", twt.Adagrad, keras.optimizers.Adagrad, {"learning_rate": 0.1}),
    ("Nadam", twt.Nadam, keras.optimizers.Nadam, {"learning_rate": 0.01}),
    ("Adamax", twt.Adamax, keras.optimizers.Adamax, {"learning_rate": 0.01}),
    ("Adadelta", twt.Adadelta, keras.optimizers.Adadelta, {"learning_rate": 1.0}),
    (
        "Ftrl",
        twt.Ftrl,
        keras.optimizers.Ftrl,
        {
            "learning_rate": 0.1,
            "l1_regularization_strength": 0.01,
            "l2_regularization_strength": 0.1,
            "l2_shrinkage_regularization_strength": 0.05,
            "beta": 0.5,
        },
    ),
    ("Lion", twt.Lion, keras.optimizers.Lion, {"learning_rate": 0.01}),
    ("Lamb", twt.Lamb, keras.optimizers.Lamb, {"learning_rate": 0.01}),
    ("Adafactor", twt.Adafactor, keras.optimizers.Adafactor, {"learning_rate": 0.1}),
]


@pytest.mark.parametrize("label,ours,theirs,kw", CASES, ids=[c[0] for c in CASES])
def test_matches_keras_3(label, ours, theirs, kw):
    rng = np.random.default_rng(0)
    init = rng.normal(size=(3, 2)).astype("float32")
    grads = [rng.normal(size=(3, 2)).astype("float32") for _ in range(5)]
    mine = tf.Variable(init)
    ref = keras.Variable(init)
    opt_a, opt_b = ours(**kw), theirs(**kw)
    for g in grads:
        opt_a.apply_gradients([(tf.constant(g), mine)])
        opt_b.apply_gradients([(tf.constant(g), ref)])
        np.testing.assert_allclose(mine.numpy(), np.asarray(ref), rtol=1e-5, atol=1e-6)
    assert int(opt_a.iterations) == 5


def test_hyperparameters_change_without_retracing():
    v = tf.Variable([1.0])
    opt = twt.SGD(0.1, momentum=0.0)

    @tf.function
    def step():
        opt.apply_gradients([(tf.constant([1.0]), v)])

    step()
    opt.learning_rate.assign(0.5)
    step()
    np.testing.assert_allclose(v.numpy(), [1.0 - 0.1 - 0.5])
    assert step.experimental_get_tracing_count() == 1


def test_slots_are_lazy_and_the_variable_list_can_grow():
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([[3.0]])
    opt = twt.Adam(0.1)
    opt.apply_gradients([(tf.constant([1.0, 1.0]), a)])
    assert len(opt.slots) == 1
    opt.apply_gradients([(tf.constant([1.0, 1.0]), a), (tf.constant([[1.0]]), b)])
    assert len(opt.slots) == 2 and opt.slot(b, "m").shape == (1, 1)
    # a second model's variables, inside a tf.function traced after the first
    c = tf.Variable([0.0])

    @tf.function
    def step():
        opt.apply_gradients([(tf.constant([1.0]), c)])

    step()
    step()
    assert opt.slot(c, "v").numpy()[0] > 0 and len(opt.slots) == 3
    # None gradients are skipped
    opt.apply_gradients([(None, a)])


def _sparse_and_dense(opt_cls, steps=1, **kw):
    init = np.arange(12, dtype="float32").reshape(6, 2) / 10
    dense_v, sparse_v = tf.Variable(init), tf.Variable(init)
    opt_d, opt_s = opt_cls(**kw), opt_cls(**kw)
    for k in range(steps):
        values = tf.constant([[1.0, -2.0], [0.5, 0.5], [3.0, 1.0]]) * (k + 1)
        indices = tf.constant([1, 4, 1])  # duplicate index 1
        grad = tf.IndexedSlices(values, indices, tf.constant([6, 2]))
        opt_s.apply_gradients([(grad, sparse_v)])
        opt_d.apply_gradients([(tf.convert_to_tensor(grad), dense_v)])
    return init, dense_v.numpy(), sparse_v.numpy()


@pytest.mark.parametrize("cls", [twt.SGD, twt.Adagrad])
def test_sparse_updates_equal_dense_for_sgd_and_adagrad(cls):
    _, dense, sparse = _sparse_and_dense(cls, steps=3, learning_rate=0.1)
    np.testing.assert_allclose(dense, sparse, rtol=1e-6)


@pytest.mark.parametrize(
    "cls,kw",
    [
        (twt.Adam, {}),
        (twt.SGD, {"momentum": 0.9}),
        (twt.RMSprop, {"momentum": 0.5, "centered": True}),
    ],
)
def test_lazy_sparse_updates_touch_only_given_rows(cls, kw):
    init, dense, sparse = _sparse_and_dense(cls, steps=1, learning_rate=0.1, **kw)
    np.testing.assert_allclose(dense, sparse, rtol=1e-5, atol=1e-7)  # step 1: same as dense
    init, dense, sparse = _sparse_and_dense(cls, steps=3, learning_rate=0.1, **kw)
    untouched = [0, 2, 3, 5]
    np.testing.assert_array_equal(sparse[untouched], init[untouched])
    np.testing.assert_allclose(sparse[[1, 4]], dense[[1, 4]], rtol=0.2)


def test_clipping_value_norm_global_norm_and_sparse():
    g1, g2 = tf.constant([3.0, 4.0]), tf.constant([0.0, 12.0])
    by_global, _ = tf.clip_by_global_norm([g1, g2], 5.0)
    got = twt.clip_gradients([g1, g2, None], clip_global_norm=5.0)
    np.testing.assert_allclose(got[0], by_global[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], by_global[1], rtol=1e-6)
    assert got[2] is None
    np.testing.assert_allclose(twt.clip_gradients([g1], clip_norm=1.0)[0], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(twt.clip_gradients([g1], clip_value=3.5)[0], [3.0, 3.5])
    sparse = tf.IndexedSlices(tf.constant([[3.0, 4.0]]), tf.constant([2]), tf.constant([5, 2]))
    for kw in ({"clip_value": 1.0}, {"clip_norm": 1.0}, {"clip_global_norm": 1.0}):
        out = twt.clip_gradients([sparse], **kw)[0]
        assert isinstance(out, tf.IndexedSlices), kw
    v = tf.Variable([0.0, 0.0])
    twt.SGD(1.0, clip_global_norm=1.0).apply_gradients([(g1, v)])
    np.testing.assert_allclose(v.numpy(), [-0.6, -0.8], rtol=1e-6)


def test_schedules_match_keras():
    ks = keras.optimizers.schedules
    pairs = [
        (twt.ExponentialDecay(10, 0.5), ks.ExponentialDecay(1.0, 10, 0.5)),
        (twt.ExponentialDecay(10, 0.5, True), ks.ExponentialDecay(1.0, 10, 0.5, staircase=True)),
        (twt.CosineDecay(20, alpha=0.1), ks.CosineDecay(1.0, 20, alpha=0.1)),
    ]
    for ours, theirs in pairs:
        for step in (0, 3, 10, 17, 25):
            np.testing.assert_allclose(float(ours(step)), float(theirs(step)), rtol=1e-5)
    assert [float(twt.StepDecay(3, 0.5)(s)) for s in (0, 2, 3, 6)] == [1.0, 1.0, 0.5, 0.25]
    warm = twt.WarmUp(4, then=twt.ExponentialDecay(1, 0.5))
    np.testing.assert_allclose(
        [float(warm(s)) for s in range(7)], [0.25, 0.5, 0.75, 1, 1, 0.5, 0.25]
    )


def test_optimizer_uses_schedule_of_its_step():
    v = tf.Variable([0.0])
    opt = twt.SGD(1.0, schedule=twt.StepDecay(2, gamma=0.5))
    for _ in range(4):
        opt.apply_gradients([(tf.constant([1.0]), v)])
    np.testing.assert_allclose(v.numpy(), [-(1 + 1 + 0.5 + 0.5)])


def test_registered_names():
    tw.plugins.refresh()
    assert tw.optimizers["Adam.v1"] is twt.Adam
    assert tw.optimizers["SGD.v1"] is twt.SGD
    assert tw.schedules["CosineDecay.v1"] is twt.CosineDecay
    for name in ("AdamW.v1", "RMSprop.v1", "Adagrad.v1"):
        assert name in tw.optimizers
    for name in ("StepDecay.v1", "ExponentialDecay.v1", "WarmUp.v1", "Constant.v1"):
        assert name in tw.schedules
