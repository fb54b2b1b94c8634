"""The ``Optimizer`` base: every optimizer's options are explicit (a config's misspelled one is
refused with the closest match), constraints apply after each update, a sparse gradient
reaches a rule without a row-wise form as its dense form."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
import tensorweave.config as twc
import tensorweave_train as twt

SHARED = [
    name
    for name, p in inspect.signature(twt.Optimizer.__init__).parameters.items()
    if p.kind is p.KEYWORD_ONLY
]
OPTIMIZERS = sorted(
    n for n in tw.optimizers.names() if "tensorweave-train" in tw.optimizers.providers(n)
)


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_every_optimizer_names_its_options(name: str) -> None:
    params = inspect.signature(tw.optimizers[name].__init__).parameters
    assert not any(p.kind is p.VAR_KEYWORD for p in params.values()), f"{name} takes **kw"
    assert set(SHARED) <= set(params), set(SHARED) - set(params)
    assert params["learning_rate"].default > 0


def test_a_misspelled_option_is_refused_with_the_closest_match() -> None:
    cfg = twt.load_config("digits", ["--optimizer.learnin_rate=0.1", "--train.epochs=1"])
    with pytest.raises(twc.ConfigError, match="learnin_rate") as info:
        twt.validate_config(cfg, parts=["optimizer"])
    assert "learning_rate" in str(info.value)
    with pytest.raises(TypeError, match="learnin_rate"):
        twt.Adam(learnin_rate=0.1)  # type: ignore[call-arg]


def test_shared_options_are_checked() -> None:
    with pytest.raises(tw.ArgumentError, match="accumulate_steps must be a positive integer"):
        twt.SGD(accumulate_steps=0)
    with pytest.raises(tw.ArgumentError, match="ema must be True/False or a momentum"):
        twt.SGD(ema=1.5)
    with pytest.raises(tw.ArgumentError, match="ema_overwrite_frequency=3 needs averages"):
        twt.SGD(ema_overwrite_frequency=3)
    with pytest.raises(tw.ArgumentError, match="beta_1 must be in"):
        twt.Lion(beta_1=0.0)
    with pytest.raises(tw.ArgumentError, match="learning_rate_power must be <= 0"):
        twt.Ftrl(learning_rate_power=0.5)


def _digits_model(overrides: list[str]) -> twt.Model:
    cfg = twt.load_config("digits", ["--dims.hidden=8", *overrides])
    cfg["optimizer"] = {"@optimizers": "SGD.v1", "learning_rate": 2.0}
    return twt.build_model(cfg)


def _column_norms(model: twt.Model, layer: str) -> np.ndarray:
    (w,) = [v for v in model.variables if v.name.startswith(f"{layer}/") and v.shape.rank == 2]
    return np.linalg.norm(w.numpy(), axis=0)


def test_a_config_constraint_holds_after_every_update_of_train() -> None:
    rng = np.random.default_rng(0)
    data = {"x": rng.uniform(0, 4, (64, 64)).astype("float32"), "y": rng.integers(0, 10, 64)}
    free = _digits_model([])
    free.train(data, epochs=2, batch_size=16, verbose=0)
    assert _column_norms(free, "h1").max() > 2.0  # without the constraint: norms grow past 2
    held = _digits_model(["--model.nodes.h1.w_constraint=max_norm"])
    held.train(data, epochs=2, batch_size=16, verbose=0)
    assert _column_norms(held, "h1").max() <= 2.0 + 1e-5  # max_norm's default max_value


def test_constraints_follow_sparse_and_accumulated_updates() -> None:
    table = tf.Variable(tf.fill([4, 2], 0.45), constraint=lambda w: tf.minimum(w, 0.5))
    grad = tf.IndexedSlices(tf.constant([[-9.0, 9.0]]), tf.constant([2]), tf.constant([4, 2]))
    twt.Adam(0.1).apply_gradients([(grad, table)])  # the first step: ~lr each way
    np.testing.assert_allclose(table.numpy()[2], [0.5, 0.35], rtol=1e-5)  # 0.55 held at 0.5
    w = tf.Variable([3.0], constraint=tf.math.abs)
    opt = twt.SGD(1.0, accumulate_steps=2)
    for _ in range(2):
        opt.apply_gradients([(tf.constant([5.0]), w)])
    assert float(w[0]) == 2.0  # |3 - 5|, applied with the update


@pytest.mark.parametrize("cls", [twt.Lamb, twt.Adafactor])
def test_a_rule_without_a_row_form_applies_a_sparse_gradient_as_dense(cls) -> None:
    init = np.arange(12, dtype="float32").reshape(6, 2) / 10
    dense_v, sparse_v = tf.Variable(init), tf.Variable(init)
    grad = tf.IndexedSlices(
        tf.constant([[1.0, -2.0], [0.5, 0.5], [3.0, 1.0]]), tf.constant([1, 4, 1]), [6, 2]
    )
    cls(0.1).apply_gradients([(grad, sparse_v)])
    cls(0.1).apply_gradients([(tf.convert_to_tensor(grad), dense_v)])
    np.testing.assert_allclose(sparse_v.numpy(), dense_v.numpy(), rtol=1e-6)
