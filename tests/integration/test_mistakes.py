"""Deliberate user mistakes, as a Keras user makes them (issue #34): each is refused, or
warned about once, with a message that names the component and the fix; none passes
silently, none surfaces as a raw TensorFlow trace. Python, configs and (a few, fast) real
``tensorweave`` commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import tensorflow as tf

import tensorweave as tw
import tensorweave_train as twt
from tensorweave_losses.base import ProbabilitiesAsLogitsWarning
from tensorweave_train.callbacks.monitors import MonitorError

FC, Linear = tw.layers["FC.v1"], tw.layers["Linear.v1"]
SCCE = tw.losses["sparse_categorical_cross_entropy.v1"]

#: what a raw TensorFlow error looks like: none of these may reach a user's message
RAW = ("Graph execution error", "Traceback", "node __inference", "OpKernel", "[[{{node")


def clean(err: BaseException) -> str:
    """The message of ``err``, asserted free of TensorFlow's raw trace."""
    text = str(err)
    assert not any(raw in text for raw in RAW), text
    assert isinstance(err, tw.TensorweaveError), (type(err), text)
    return text


def classifier(n_in: int = 4, n_classes: int = 3, **model: Any) -> twt.Model:
    """``x -> Linear(n_classes)`` logits, sparse cross-entropy from logits."""
    x = tw.Input(n_units=n_in, name="x")
    y = tw.Input(n_units=1, dtype="int64", name="y")
    logits = Linear(x, n_units=n_classes, name="logits")
    loss = SCCE(y, logits, from_logits=True)
    return twt.Model(x, logits, targets=y, loss=loss, **model)


def data(n: int = 32, n_in: int = 4, n_classes: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, n_in)).astype("float32")
    return x, rng.integers(0, n_classes, size=(n, 1))


# -- silent failures: each must raise or warn once ------------------------------------------
def test_trains_a_layer_outside_the_model_is_refused() -> None:
    z = tw.Input(n_units=2, name="z")
    g = tw.Module(z, Linear(z, n_units=3), name="generator")
    x = tw.Input(n_units=3, name="x")
    d = Linear(x, n_units=1, name="critic")
    score = tw.Lambda(tf.reduce_mean, d, name="score")
    with pytest.raises(tw.ArgumentError) as err:
        twt.Model(
            x,
            d,
            loss={"generator": score, "discriminator": score},
            optimizer={"generator": "Adam.v1", "discriminator": "Adam.v1"},
            trains={"generator": g},
        )
    text = clean(err.value)
    assert "trains['generator']" in text and "outside the model's graph" in text
    assert "Fix:" in text


def test_probabilities_into_a_loss_reading_logits_warn_once_naming_from_logits() -> None:
    x = tw.Input(n_units=4, name="x")
    y = tw.Input(n_units=1, dtype="int64", name="y")
    probs = FC(x, n_units=3, activation="softmax", name="probs")
    with pytest.warns(ProbabilitiesAsLogitsWarning) as caught:
        SCCE(y, probs, from_logits=True)
    (only,) = caught
    text = str(only.message)
    assert "sparse_categorical_cross_entropy" in text and "from_logits=False" in text
    assert "'probs'" in text and only.filename == __file__  # points at the user's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # probabilities with from_logits=False: no warning
        SCCE(y, probs)


@pytest.mark.parametrize(
    ("monitor", "validation", "fix"),
    [
        ("val_acc", True, "monitor='val_accuracy'"),
        ("val_loss", False, "validation=(x, y)"),
    ],
)
def test_early_stopping_on_a_figure_nobody_reports_says_which_there_are(
    monitor: str, validation: bool, fix: str
) -> None:
    x = tw.Input(n_units=4, name="x")
    y = tw.Input(n_units=1, dtype="int64", name="y")
    logits = Linear(x, n_units=3, name="logits")
    loss = SCCE(y, logits, from_logits=True)
    accuracy = tw.metrics["sparse_accuracy.v1"](y, logits)
    model = twt.Model(x, logits, targets=y, loss=loss, metrics={"accuracy": accuracy})
    xs, ys = data()
    es = twt.EarlyStopping(monitor=monitor)
    kw: dict[str, Any] = {"validation": (xs, ys)} if validation else {}
    with pytest.raises(MonitorError) as err:
        model.train(xs, ys, epochs=5, callbacks=[es], verbose=0, **kw)
    text = clean(err.value)
    assert fix in text and "The figures at the end of epoch 1: loss" in text


def test_reduce_lr_on_plateau_on_a_missing_figure_is_refused_too() -> None:
    model = classifier()
    xs, ys = data()
    with pytest.raises(MonitorError, match=r"monitor='loss'"):
        model.train(xs, ys, callbacks=[twt.ReduceLROnPlateau()], verbose=0)


# -- Keras habits: they work, or say what to write ----------------------------------------
@pytest.mark.parametrize(
    ("method", "fix"),
    [("fit", "model.train(x, y, epochs="), ("compile", "Model(inputs, outputs, loss=")],
)
def test_keras_model_methods_name_the_tensorweave_spelling(method: str, fix: str) -> None:
    model = classifier()
    assert not hasattr(model, method)
    with pytest.raises(AttributeError) as err:
        getattr(model, method)
    assert fix in clean(err.value) and "Keras's spelling" in str(err.value)


def test_validation_data_says_validation() -> None:
    xs, ys = data()
    with pytest.raises(tw.ArgumentError, match=r"write validation=\(x_val, y_val\)") as err:
        classifier().train(xs, ys, validation_data=(xs, ys), verbose=0)
    clean(err.value)


def test_a_misspelt_train_keyword_gets_a_did_you_mean() -> None:
    xs, ys = data()
    with pytest.raises(tw.ArgumentError, match="Did you mean 'batch_size'") as err:
        classifier().train(xs, ys, batchsize=8, verbose=0)
    clean(err.value)


def test_a_keras_callback_says_which_tensorweave_callback_to_use() -> None:
    keras = pytest.importorskip("keras")
    xs, ys = data()
    with pytest.raises(tw.ArgumentError) as err:
        classifier().train(xs, ys, callbacks=[keras.callbacks.EarlyStopping()], verbose=0)
    text = clean(err.value)
    assert "keras.callbacks.EarlyStopping" in text and "EarlyStopping.v1" in text


def test_something_that_is_not_a_callback_says_how_to_make_one() -> None:
    xs, ys = data()
    with pytest.raises(tw.ArgumentError, match="LambdaCallback") as err:
        classifier().train(xs, ys, callbacks=[print], verbose=0)
    clean(err.value)


@pytest.mark.parametrize(
    ("component", "options", "keras", "ours"),
    [
        ("Conv2D.v1", {"filters": 4, "kernel_size": 3}, "filters", "n_units"),
        ("FC.v1", {"units": 4}, "units", "n_units"),
        ("Linear.v1", {"n_units": 4, "use_bias": False}, "use_bias", "add_bias"),
        ("Lookup.v1", {"input_dim": 10, "n_units": 4}, "input_dim", "vocab_size"),
        ("Lookup.v1", {"vocab_size": 10, "output_dim": 4}, "output_dim", "n_units"),
        (
            "MHAttention.v1",
            {"num_heads": 2, "n_units": 4},
            "num_heads",
            "n_heads",
        ),
        (
            "Conv2D.v1",
            {"n_units": 4, "kernel_size": 3, "kernel_initializer": "ones"},
            "kernel_initializer",
            "w_init",
        ),
    ],
)
def test_keras_argument_names_are_answered_with_ours(
    component: str, options: dict[str, Any], keras: str, ours: str
) -> None:
    x = tw.Input(shape=(6, 6, 3) if "Conv" in component else (4,), name="x")
    if component == "Lookup.v1":
        x = tw.Input(shape=(4,), dtype="int64", name="ids")
    if component == "MHAttention.v1":
        x = tw.Input(shape=(5, 4), name="x")
        options = {"key": x, "value": x, **options}
    with pytest.raises(tw.ArgumentError) as err:
        tw.layers[component](x, **options)
    assert f"Keras's {keras!r} is {ours!r} here" in clean(err.value)


@pytest.mark.parametrize(
    ("component", "options", "says"),
    [
        ("FC.v1", {"units": 4}, "Keras's 'units' is 'n_units' here"),
        (
            "TransformerEncoderBlock.v1",
            {"num_heads": 2, "intermediate_dim": 8},
            "Keras's 'num_heads' is 'n_heads' here",
        ),
    ],
)
def test_keras_argument_names_are_answered_in_a_config_too(
    component: str, options: dict[str, Any], says: str
) -> None:
    import tensorweave.config as twc

    cfg = {
        "model": {
            "inputs": ["x"],
            "outputs": ["h"],
            "nodes": {
                "x": {"input": [5, 4]},
                "h": {"@layers": component, "inputs": ["x"], **options},
            },
        }
    }
    problems = list(twc.validate(cfg))
    assert any(says in str(p) for p in problems), problems


def test_a_loss_by_its_keras_name_and_one_value_per_example_labels_just_work() -> None:
    x = tw.Input(shape=(4,), name="x")
    logits = FC(x, n_units=3, activation="softmax", name="probs")
    model = twt.Model({"x": x}, logits, loss="sparse_categorical_crossentropy")
    assert [t.name for t in model.targets] == ["y"]
    xs, ys = data()
    history = model.train(xs, ys.ravel(), epochs=2, validation=(xs, ys.ravel()), verbose=0)
    assert np.isfinite(history[-1]["val_loss"])
    assert model.predict(xs).shape == (32, 3)


def test_a_loss_name_nobody_registers_lists_the_close_ones() -> None:
    x = tw.Input(shape=(4,), name="x")
    with pytest.raises(tw.UnknownComponentError, match="sparse_categorical_cross_entropy") as err:
        twt.Model(x, Linear(x, n_units=3), loss="sparse_categorical_crossentropi")
    clean(err.value)


def test_dict_inputs_must_be_keyed_by_the_input_names() -> None:
    x = tw.Input(shape=(4,), name="pixels")
    with pytest.raises(tw.ArgumentError, match=r"name='x'") as err:
        twt.Model({"x": x}, Linear(x, n_units=3))
    clean(err.value)


def test_the_number_of_epochs_where_the_targets_go_says_epochs() -> None:
    xs, ys = data()
    with pytest.raises(tw.ArgumentError, match="epochs=5") as err:
        classifier().train({"x": xs, "y": ys}, 5, verbose=0)
    clean(err.value)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: twt.EarlyStopping(mode="maximize"), "mode='auto'"),
        (lambda: twt.EarlyStopping(patience=-1), "patience must be an integer >= 0"),
        (lambda: twt.ReduceLROnPlateau(factor=2.0), "factor=0.1"),
        (lambda: twt.EarlyStopping(patiense=2), "Did you mean 'patience'"),
    ],
)
def test_callback_options_that_cannot_mean_anything(make: Any, match: str) -> None:
    with pytest.raises(tw.ArgumentError, match=match) as err:
        make()
    clean(err.value)


def test_a_loss_weight_for_a_loss_nobody_named_gets_a_did_you_mean() -> None:
    x = tw.Input(n_units=2, name="x")
    a, b = tw.ops.reduce_mean(x), tw.ops.reduce_sum(x)
    with pytest.raises(tw.ArgumentError, match="Did you mean 'recon'") as err:
        twt.Model(x, x, loss={"recon": a, "kl": b}, loss_weights={"recn": 0.5})
    clean(err.value)


def test_training_a_model_without_a_loss_says_loss() -> None:
    x = tw.Input(n_units=2, name="x")
    with pytest.raises(tw.GraphError, match="loss=") as err:
        twt.Model(x, Linear(x, n_units=1)).train(np.ones((4, 2), "float32"), verbose=0)
    clean(err.value)


# -- errors that name the component, before training where the data allow -------------------
def lookup_model() -> twt.Model:
    ids = tw.Input(shape=(5,), dtype="int64", name="ids")
    e = tw.layers["Lookup.v1"](ids, vocab_size=100, n_units=4, name="embed")
    logits = Linear(tw.layers["Flatten.v1"](e), n_units=3, name="logits")
    y = tw.Input(shape=(1,), dtype="int64", name="y")
    return twt.Model(ids, logits, targets=y, loss=SCCE(y, logits, from_logits=True))


def id_data(bad_id: int = 0, bad_label: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    ids, ys = rng.integers(0, 100, size=(16, 5)), rng.integers(0, 3, size=(16, 1))
    if bad_id:
        ids[3, 2] = bad_id
    if bad_label:
        ys[5, 0] = bad_label
    return {"ids": ids, "y": ys}


def test_an_id_past_the_vocabulary_names_the_lookup_before_training() -> None:
    model = lookup_model()
    with pytest.raises(tw.InputValueError) as err:
        model.train(id_data(bad_id=353), verbose=0)
    text = clean(err.value)
    assert "Lookup 'embed'" in text and "353" in text and "vocab_size=354" in text
    assert model.steps._train is None and model.steps._train_many is None  # nothing ran


def test_a_label_out_of_range_names_the_loss_and_the_classes_before_training() -> None:
    with pytest.raises(tw.InputValueError) as err:
        lookup_model().evaluate(id_data(bad_label=7))
    text = clean(err.value)
    assert "'sparse_categorical_cross_entropy' scores 3 classes" in text
    assert "'logits' n_units=8" in text


@pytest.mark.parametrize(
    ("bad_id", "bad_label", "says"), [(353, 0, "vocab_size=354"), (0, 7, "[0, 3)")]
)
def test_out_of_range_ids_in_a_dataset_are_named_when_tensorflow_finds_them(
    bad_id: int, bad_label: int, says: str
) -> None:
    ds = tf.data.Dataset.from_tensor_slices(id_data(bad_id, bad_label)).batch(8)
    with pytest.raises(tw.InputValueError) as err:
        lookup_model().train(ds, verbose=0)
    assert says in clean(err.value)


def test_a_gan_whose_parts_do_not_fit_names_both_at_construction() -> None:
    z, x = tw.Input(n_units=2, name="z"), tw.Input(n_units=3, name="x")
    g = tw.Module(z, Linear(z, n_units=4), name="generator")
    d = tw.Module(x, Linear(x, n_units=1), name="critic")
    with pytest.raises(tw.ShapeError) as err:
        twt.GAN(g, d)
    text = clean(err.value)
    assert "'generator' makes examples of shape (4,)" in text
    assert "'critic' reads examples of shape (3,)" in text


def lrn_model(**lrn: Any) -> twt.Model:
    x = tw.Input(shape=(4, 4, 3), name="x")
    h = tw.layers["Conv2D.v1"](x, n_units=4, kernel_size=3)
    n = tw.Lambda(tf.nn.local_response_normalization, h, name="lrn", **lrn)
    logits = Linear(tw.layers["Flatten.v1"](n), n_units=3)
    return twt.Model(x, logits, loss="sparse_categorical_crossentropy", precision="mixed_bfloat16")


def test_an_op_without_a_bfloat16_kernel_names_the_node_and_the_fix() -> None:
    xs = np.random.default_rng(0).random((8, 4, 4, 3)).astype("float32")
    ys = np.zeros((8,), "int64")
    with pytest.raises(tw.ArgumentError) as err:
        lrn_model().train(xs, ys, verbose=0)
    text = clean(err.value)
    assert "Lambda 'lrn'" in text and "'LRN'" in text
    assert 'compute_precision="float32"' in text and "LocalResponseNorm.v1" in text
    history = lrn_model(compute_precision="float32").train(xs, ys, verbose=0)  # the fix works
    assert np.isfinite(history[-1]["loss"])


# -- the command line: real ``tensorweave`` processes (few, each short) ---------------------
def tensorweave(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("tensorweave")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "tensorweave_train.commands"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TF_CPP_MIN_LOG_LEVEL": "3"}
    return subprocess.run(
        [*command, *argv], capture_output=True, text=True, env=env, timeout=600, cwd=cwd
    )


def no_trace(done: subprocess.CompletedProcess[str]) -> str:
    text = done.stdout + done.stderr
    assert not any(raw in text for raw in RAW), text[-3000:]
    return text


@pytest.mark.slow
def test_cli_a_keras_argument_name_in_a_config_override_is_refused_naming_ours(
    tmp_path: Path,
) -> None:
    done = tensorweave("train", "digits", "--model.nodes.h1.units=64", cwd=tmp_path)
    text = no_trace(done)
    assert done.returncode != 0 and "model.nodes.h1.units" in text
    assert "Keras's 'units' is 'n_units' here" in text
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.slow
def test_cli_labels_past_the_classes_are_refused_before_training(tmp_path: Path) -> None:
    done = tensorweave(
        "train", "digits", "--model.nodes.logits.n_units=5", "--train.epochs=1", cwd=tmp_path
    )
    text = no_trace(done)
    assert done.returncode != 0, text[-2000:]
    assert "scores 5 classes" in text and "'logits' n_units=10" in text
    assert "Epoch 1/1" not in text  # refused before the first step


@pytest.mark.slow
def test_cli_a_gan_without_validation_data_trains_and_writes_its_summary(tmp_path: Path) -> None:
    done = tensorweave(
        "train",
        "dcgan",
        "--data.valid_fraction=0.0",
        "--train.epochs=1",
        "--train.batch_size=600",
        "--run.tensorboard=false",
        cwd=tmp_path,
    )
    text = no_trace(done)
    assert done.returncode == 0, text[-3000:]
    (summary,) = (tmp_path / "runs").glob("*/summary.json")
    figures = json.loads(summary.read_text())
    assert figures["valid"] == {} and figures["epochs"] == 1
    assert "validation: none (no data)" in text


@pytest.mark.parametrize("name", ["TransformerEncoderBlock.v1", "TransformerDecoderBlock.v1"])
def test_python_keras_num_heads_on_a_function_component_names_n_heads(name: str) -> None:
    """A component written as a function gets the same words as a class: Keras's name
    mapped (``tw.checks_keywords``), not Python's bare TypeError."""
    x = tw.Input(shape=(4, 8))
    with pytest.raises(tw.ArgumentError, match="Keras's 'num_heads' is 'n_heads' here"):
        tw.layers[name](x, num_heads=2, intermediate_dim=8)
    with pytest.raises(tw.ArgumentError, match="Did you mean 'intermediate_dim'"):
        tw.layers[name](x, n_heads=2, intermediate_dimm=8)


def test_every_function_component_of_the_first_party_packs_checks_its_keywords() -> None:
    """Each registered layer or model that is a plain function is ``tw.checks_keywords``'d
    (a class gets the check from ``tw.Stateful``)."""
    import inspect

    for kind in ("layers", "models"):
        registry = tw.registry(kind)
        for name in registry:
            found = registry.get(name)
            if inspect.isfunction(found) and found.__module__.startswith(
                ("tensorweave_layers", "tensorweave_models")
            ):
                assert hasattr(found, "__wrapped__"), f"{kind} {name}: add @tw.checks_keywords"
