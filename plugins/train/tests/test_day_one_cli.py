"""Day one through the real ``tensorweave`` command: the summary before training,
TensorBoard events in the run directory, epochs numbered alike in the display, log.csv,
History and TensorBoard, ``export``, ``predict --probabilities/--top-k``, ``draw``."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

pytestmark = pytest.mark.slow  # real subprocesses (each imports TensorFlow): ~2.5 min in all

TINY = ["--data.limit=200", "--train.epochs=2", "--train.batch_size=64", "--dims.hidden=8"]


def _tensorweave(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("tensorweave")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "tensorweave_train.commands"]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run(
        [*command, *argv], capture_output=True, text=True, env=env, timeout=300, cwd=cwd
    )


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    where = tmp_path_factory.mktemp("dayone") / "run"
    done = _tensorweave("train", *TINY, "--run-dir", str(where))
    assert done.returncode == 0, done.stderr
    return where, done.stdout


def test_train_prints_the_summary_before_the_first_epoch(trained) -> None:
    _, out = trained
    lines = out.splitlines()
    total = next(i for i, x in enumerate(lines) if x.startswith("Total params: "))
    first_epoch = next(i for i, x in enumerate(lines) if x.startswith("epoch 1/2"))
    assert total < first_epoch
    # 64*8+8 + 8*8+8 + 8*10+10 parameters (h1, h2, logits at --dims.hidden=8)
    assert lines[total].startswith("Total params: 682 (trainable 682")
    assert any(x.startswith("accuracy (LossLayer) [metric]") for x in lines)


def _events(logdir: Path) -> dict[str, dict[int, float]]:
    found: dict[str, dict[int, float]] = {}
    files = list(logdir.rglob("events.out.tfevents.*"))
    assert files, f"no event file under {logdir}"
    for path in files:
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                found.setdefault(value.tag, {})[event.step] = float(tf.make_ndarray(value.tensor))
    return found


def test_tensorboard_events_and_epoch_numbers_agree(trained) -> None:
    where, out = trained
    with (where / "log.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["epoch"] for r in rows] == ["1", "2"]
    summary = json.loads((where / "summary.json").read_text())
    assert [h["epoch"] for h in summary["history"]] == [1.0, 2.0]
    assert [x.split()[1] for x in out.splitlines() if x.startswith("epoch ")] == ["1/2", "2/2"]
    events = _events(where / "tensorboard")
    steps = [int(r["step"]) for r in rows]
    assert events["epoch/epoch"] == {steps[0]: 1.0, steps[1]: 2.0}
    for r in rows:
        assert events["epoch/val_loss"][int(r["step"])] == pytest.approx(float(r["val_loss"]))


def test_tensorboard_can_be_switched_off(tmp_path: Path) -> None:
    done = _tensorweave(
        "train",
        *TINY,
        "--train.epochs=1",
        "--run.tensorboard=false",
        "--quiet",
        "--run-dir",
        str(tmp_path / "r"),
    )
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "r" / "tensorboard").exists()


def test_predict_probabilities_and_top_k(trained, tmp_path: Path) -> None:
    from sklearn.datasets import load_digits

    where, _ = trained
    np.save(tmp_path / "x.npy", load_digits().data[:3])
    ids = json.loads(_tensorweave("predict", str(where), "--input", str(tmp_path / "x.npy")).stdout)
    done = _tensorweave(
        "predict", str(where), "--input", str(tmp_path / "x.npy"), "--probabilities"
    )
    assert done.returncode == 0, done.stderr
    probs = np.asarray(json.loads(done.stdout))
    assert probs.shape == (3, 10) and np.allclose(probs.sum(axis=1), 1.0, atol=1e-4)
    assert probs.argmax(axis=1).tolist() == ids
    done = _tensorweave("predict", str(where), "--input", str(tmp_path / "x.npy"), "--top-k", "2")
    top = json.loads(done.stdout)
    assert [len(t) for t in top] == [2, 2, 2] and [t[0][0] for t in top] == ids
    assert all(t[0][1] >= t[1][1] for t in top)
    bad = _tensorweave("predict", str(where), "--input", str(tmp_path / "x.npy"), "--top-k", "0")
    assert bad.returncode == 2 and "--top-k must be >= 1" in bad.stderr


def test_export_writes_a_savedmodel_with_its_processors(trained, tmp_path: Path) -> None:
    from sklearn.datasets import load_digits

    import tensorweave_train as twt

    where, _ = trained
    out = tmp_path / "exported"
    done = _tensorweave("export", str(where), str(out))
    assert done.returncode == 0, done.stderr
    assert (out / "model" / "saved_model.pb").is_file() and (out / "predictor.json").is_file()
    raw = load_digits().data[:4]
    np.save(tmp_path / "x.npy", raw)
    via_cli = json.loads(
        _tensorweave("predict", str(where), "--input", str(tmp_path / "x.npy")).stdout
    )
    assert np.asarray(twt.Predictor.load(out)(raw)).tolist() == via_cli
    again = _tensorweave("export", str(where), str(out))
    assert again.returncode == 2 and "not empty" in again.stderr
    model = twt.load_run(where)
    assert isinstance(model, twt.Model) and model.summary(print_fn=None).count("[metric]") == 1


def test_draw_prints_the_summary_and_writes_a_png(tmp_path: Path) -> None:
    done = _tensorweave("draw", "-o", str(tmp_path / "g.png"))
    assert done.returncode == 0, done.stderr
    assert "Total params: 26,122" in done.stdout and "[metric]" in done.stdout
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"
