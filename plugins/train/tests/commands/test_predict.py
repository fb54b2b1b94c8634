"""``tensorweave predict`` (and ``evaluate``): arrays through the run's processors, one array
per input by name (``.npz``, a JSON object), raw input it cannot take refused as usage
errors, and a run whose training callback's pack is gone still used."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from twtrain_helpers import copied, run_cli

import tensorweave as tw
import tensorweave_train as twt

pytestmark = pytest.mark.usefixtures("cli")


@pytest.fixture
def run_dir(digits_run: Path) -> Path:
    return digits_run


def test_predict_from_npy(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sklearn.datasets import load_digits

    path = tmp_path / "x.npy"
    np.save(path, load_digits().data[:3])
    code, out, err = run_cli(capsys, "predict", str(run_dir), "--input", str(path))
    assert code == 0, err
    ids = json.loads(out)
    assert len(ids) == 3 and all(0 <= i < 10 for i in ids)


# -- predict ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def chars_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tw.plugins.block("tensorweave-conflict-demo")
    run = tmp_path_factory.mktemp("chars") / "run"
    cfg = twt.load_config(
        "chars",
        [
            "--data.limit=3000",
            "--data.seq_len=8",
            "--data.workers=0",
            "--model.nodes.embed.n_units=4",
            "--model.nodes.lstm.n_units=4",
            "--train.epochs=1",
            "--train.batch_size=64",
        ],
    )
    twt.train_job(cfg, run_dir=run, out=None)
    return run


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the input text is empty"),
        ("d\u00e9f \u4e2d", "2 character(s) outside the model's vocabulary: '\u00e9', '\u4e2d'"),
    ],
)
def test_predict_refuses_empty_text_and_unknown_characters(
    chars_run: Path, text: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "predict", str(chars_run), "--text", text, "--generate", "2")
    assert code == 2 and message in err and "Traceback" not in err, err
    code, out, err = run_cli(capsys, "predict", str(chars_run), "--text", "def ", "--generate", "2")
    assert code == 0 and out.startswith("def "), err


def test_predict_text_on_a_digits_model_is_a_clear_usage_error(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(capsys, "predict", str(run_dir), "--text", "hello")
    assert code == 2 and "this model does not take text" in err and "--input" in err


def test_a_missing_training_callback_pack_stops_neither_evaluate_nor_predict(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sklearn.datasets import load_digits

    copy = copied(run_dir, tmp_path / "run")
    config = json.loads((copy / "config.json").read_text())
    gone = {"@callbacks": "tensorweave-gone:Gone.v1", "@provider": "tensorweave-gone 1.0"}
    config["callbacks"] = [*config.get("callbacks", []), gone]
    (copy / "config.json").write_text(json.dumps(config))
    np.save(tmp_path / "x.npy", load_digits().data[:2])
    code, out, err = run_cli(capsys, "predict", str(copy), "--input", str(tmp_path / "x.npy"))
    assert code == 0 and len(json.loads(out)) == 2, err
    code, out, err = run_cli(capsys, "evaluate", str(copy))
    assert code == 0 and "accuracy" in json.loads(out), err
    code, _, err = run_cli(capsys, "resume", str(copy), "--train.epochs=2")  # trains: needs it
    assert code == 3 and "tensorweave-gone" in err


# -- one array per input: .npz and JSON objects ------------------------------------------------
@pytest.fixture(scope="module")
def pair_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of a model with two inputs (``a``: 4 values, ``b``: 3), trained on arrays."""
    rng = np.random.default_rng(0)
    fields = {"a": rng.normal(size=(32, 4)), "b": rng.normal(size=(32, 3))}
    arrays = {k: v.astype("float32") for k, v in fields.items()}
    arrays["y"] = (arrays["a"][:, 0] > arrays["b"][:, 0]).astype("int64")
    nodes = {
        "a": {"input": [4]},
        "b": {"input": [3]},
        "y": {"input": [], "dtype": "int64"},
        "ab": {"@layers": "Concat.v1", "inputs": ["a", "b"]},
        "logits": {"@layers": "Linear.v1", "inputs": ["ab"], "n_units": 2},
        "loss": {
            "@losses": "sparse_categorical_cross_entropy.v1",
            "inputs": ["y", "logits"],
            "from_logits": True,
        },
    }
    cfg = {
        "data": {"@datasets": "pairs.v1"},
        "model": {"inputs": ["a", "b"], "targets": ["y"], "outputs": ["logits"], "loss": "loss"},
        "train": {"epochs": 1, "batch_size": 8},
    }
    cfg["model"]["nodes"] = nodes
    run = tmp_path_factory.mktemp("pairs") / "run"
    tw.plugins.block("tensorweave-conflict-demo")
    with tw.datasets.scoped():
        tw.datasets.register("pairs.v1")(lambda: {"train": arrays, "valid": arrays})
        twt.train_job(cfg, run_dir=run, out=None)
    return run


def test_predict_feeds_each_input_from_an_npz_or_a_json_object(
    pair_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = [[0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 0.0, 2.0]], [[0.5, 0.5, 0.5], [0.0, 1.0, 0.0]]
    np.savez(tmp_path / "x.npz", a=np.array(a, "float32"), b=np.array(b, "float32"))
    (tmp_path / "x.json").write_text(json.dumps({"b": b, "a": a}))
    want = twt.load_model(pair_run).predict({"a": np.array(a), "b": np.array(b)})
    for name in ("x.npz", "x.json"):
        code, out, err = run_cli(capsys, "predict", str(pair_run), "--input", str(tmp_path / name))
        assert code == 0, err
        np.testing.assert_allclose(json.loads(out), want, rtol=1e-6)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            [[0.1, 0.2, 0.3, 0.4]],
            r"this model has 2 inputs \(a, b\).*np.savez\(path, a=..., b=...\)",
        ),
        ({"a": [[0.0] * 4], "bb": [[0.0] * 3]}, r"missing \['b'\].*'bb': did you mean 'b'\?"),
        ({"a": [[0.0] * 4], "b": [[0.0, 1.0], [2.0]]}, r"the input for 'b' is not an array"),
    ],
    ids=["one-array", "misspelled", "ragged"],
)
def test_predict_says_what_a_two_input_model_needs(
    pair_run: Path, tmp_path: Path, given: object, message: str, capsys
) -> None:
    (tmp_path / "x.json").write_text(json.dumps(given))
    code, _, err = run_cli(capsys, "predict", str(pair_run), "--input", str(tmp_path / "x.json"))
    assert code == 2 and re.search(message, err), err
    assert "dtype=" not in err and "Traceback" not in err


def test_a_one_input_model_takes_its_array_by_name_too(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sklearn.datasets import load_digits

    pixels = load_digits().data[:3]
    np.savez(tmp_path / "x.npz", x=pixels)
    np.save(tmp_path / "x.npy", pixels)
    found = [
        run_cli(capsys, "predict", str(run_dir), "--input", str(tmp_path / n))
        for n in ("x.npz", "x.npy")
    ]
    assert found[0][0] == 0 and found[0][1] == found[1][1], found
