"""``tensorweave predict`` (and ``evaluate``): arrays through the run's processors, raw input
it cannot take refused as usage errors, and a run whose training callback's pack is gone
still used."""

from __future__ import annotations

import json
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
