"""The gallery's character language model on a folder of text files (examples/text_lm) and
its Keras 3 version (examples/keras/text_lm.py): the script's folder (about 12 kB of the
standard library's docstrings), one epoch of each."""

from __future__ import annotations

import math
import runpy
from pathlib import Path

import pytest

import tensorweave.config as twc
from tests.examples.gallery import EXAMPLES, script


def test_text_lm_config_and_keras_version_train_one_epoch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tensorweave_train as twt

    folder = tmp_path / "data" / "docstrings"
    n_files = script("text_lm/make_texts.py").write(folder, max_bytes=12_000)
    texts = sorted(folder.glob("*.txt"))
    assert n_files == len(texts) >= 2
    assert 11_000 <= sum(p.stat().st_size for p in texts) <= 12_100
    held = tmp_path / "held_out"  # one file for validation: a tiny folder has few windows
    held.mkdir()
    texts[-1].rename(held / texts[-1].name)
    cfg = twc.load(
        EXAMPLES / "text_lm/text_lm.toml",
        overrides=["--train.epochs=1", f"--data.paths={folder}", f"--data.valid={held}"],
    )
    summary = twt.train_job(cfg, run_dir=tmp_path / "run", out=None, progress=False)
    assert summary["epochs"] == 1 and summary["train_examples"] > 0
    assert {"loss", "perplexity", "accuracy"} <= set(summary["valid"])  # the held-out file
    assert 1.0 < summary["valid"]["perplexity"] < 1e4 and math.isfinite(summary["valid"]["loss"])
    assert 0.0 <= summary["valid"]["accuracy"] <= 1.0

    (held / texts[-1].name).rename(texts[-1])  # Keras: the whole folder, every 10th window held out
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EPOCHS", "1")
    keras_run = runpy.run_path(str(EXAMPLES / "keras/text_lm.py"))
    history = keras_run["history"].history
    assert len(history["loss"]) == 1 and math.isfinite(history["val_loss"][0])
    assert keras_run["model"].output_shape == (None, None, keras_run["vocab"])
    assert "e" in keras_run["chars"].get_vocabulary()
