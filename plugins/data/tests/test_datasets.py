"""Datasets that ship without a download: digits and the stdlib character corpus."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tensorweave as tw
from tensorweave_data.datasets import corpus

datasets = tw.registry("datasets")


def test_registered_under_datasets_kind() -> None:
    assert {"digits.v1", "stdlib_chars.v1"} <= set(datasets.names())
    assert datasets.info("digits.v1").distribution == "tensorweave-data"


def test_digits_splits_and_scaling() -> None:
    from sklearn.datasets import load_digits

    d = datasets["digits.v1"](valid_fraction=0.25, seed=1, workers=2)
    raw = load_digits()
    assert len(d.train["y"]) + len(d.valid["y"]) == len(raw.target)
    assert len(d.valid["y"]) == round(len(raw.target) * 0.25)
    assert d.train["x"].dtype == np.float32 and d.train["x"].shape[1] == 64
    assert d.train["x"].min() >= 0.0 and d.train["x"].max() <= 1.0
    assert sorted(set(d.train["y"].tolist())) == list(range(10))
    # the samples are the library's, scaled: every training row is some raw row / 16
    rows = {tuple((r / 16.0).astype("float32")) for r in raw.data}
    assert all(tuple(x) in rows for x in d.train["x"][:20])
    again = datasets["digits.v1"](valid_fraction=0.25, seed=1, workers=0)
    np.testing.assert_array_equal(again.train["y"], d.train["y"])


def test_digits_images_and_predict_steps() -> None:
    d = datasets["digits.v1"](image=True, limit=50, workers=0)
    assert d.train["x"].shape[1:] == (8, 8, 1)
    pre = tw.registry("pipelines")["Pipeline.v1"](d.preprocess, workers=0)
    raw = np.full((2, 64), 16.0)
    assert pre(raw).shape == (2, 8, 8, 1) and float(pre(raw).max()) == 1.0
    assert d.postprocess == [{"@processors": "argmax.v1"}]


def test_chars_windows_shift_and_held_out_tail() -> None:
    from tensorweave_data.datasets import corpus

    d = datasets["stdlib_chars.v1"](seq_len=32, limit=20000, workers=2)
    vocab = d.info["vocab"]
    assert d.train["x"].shape[1] == 32 and d.train["x"].dtype == np.int32
    np.testing.assert_array_equal(d.train["x"][:, 1:], d.train["y"][:, :-1])
    text = corpus()[:20000]
    decode = tw.processors["detokenize_chars.v1"]
    cut = int(20000 * 0.9)
    first_valid = decode(np.concatenate([d.valid["x"][0], d.valid["y"][0][-1:]]), vocab=vocab)
    assert text[cut:].startswith(first_valid)
    sample = decode(d.train["x"][5], vocab=vocab)
    assert sample in text[:cut]
    # windows tile the training text with no gap: 1 window per 32 characters
    assert len(d.train["x"]) == (cut - 1) // 32
    assert d.info["n_classes"] == len(vocab) and vocab[0] == "\x00"


def test_chars_too_little_text_is_a_clear_error() -> None:
    with pytest.raises(tw.TensorweaveError, match="no 65-character window"):
        datasets["stdlib_chars.v1"](limit=100, workers=0)
    with pytest.raises(tw.TensorweaveError, match="cannot read the source"):
        datasets["stdlib_chars.v1"](modules=["sys"], workers=0)


def test_chars_module_names_never_import_or_leave_the_stdlib(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A module name in a config is read as a file of the standard library, never imported:
    no import-time code runs (``this`` prints the Zen of Python when imported), a module
    on ``sys.path`` outside the stdlib is refused, and so are paths."""
    marker = tmp_path / "ran"
    (tmp_path / "tw_evil_mod.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(tw.TensorweaveError, match="cannot read the source of module 'tw_evil_mod'"):
        datasets["stdlib_chars.v1"](modules=["tw_evil_mod"], workers=0)
    assert not marker.exists() and "tw_evil_mod" not in sys.modules
    for bad in ("../../etc/passwd", "/etc/passwd", "os/../../x", ""):
        with pytest.raises(tw.TensorweaveError, match="not a module name"):
            datasets["stdlib_chars.v1"](modules=[bad], workers=0)
    sys.modules.pop("this", None)
    text = corpus(["this"])
    assert "Beautiful is better" not in capsys.readouterr().out
    assert "this" not in sys.modules and "s = " in text
