"""Warm starts: which variables load, which are skipped and why, from Python and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tensorweave as tw
import tensorweave_train as twt
from tensorweave.cli import main as cli_main
from tensorweave_train import TrainState
from tensorweave_train.runs.directory import resolve_run
from tensorweave_train.runs.job import build_model
from tensorweave_train.runs.warm_start import WarmStart, parse_rename, variable_names, warm_start

pytestmark = pytest.mark.usefixtures("cli")

TINY = [
    "--data.limit=150",
    "--data.workers=0",
    "--train.epochs=1",
    "--train.batch_size=64",
    "--dims.hidden=8",
]


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("warm") / "source"
    twt.train_job(twt.load_config("digits", TINY), run_dir=where, out=None, progress=False)
    return where


def _model(*overrides: str) -> object:
    return build_model(twt.load_config("digits", [*TINY, *overrides]))


def _values(model: object) -> dict[str, np.ndarray]:
    return {k: v.numpy() for k, v in variable_names(model).items()}


def test_every_variable_loads_into_the_same_architecture(source: Path) -> None:
    model = _model()
    report = warm_start(model, source)
    theirs = _values(twt.Run.open(source).model())
    assert {here for here, _ in report.loaded} == set(theirs)
    assert not report.skipped and not report.unused
    for name, value in _values(model).items():
        np.testing.assert_array_equal(value, theirs[name])


def test_include_exclude_and_their_reasons(source: Path) -> None:
    model = _model()
    before = _values(model)
    report = warm_start(model, source, include=["h*"], exclude=["h2/linear/bias"])
    loaded = {here for here, _ in report.loaded}
    assert loaded == {"h1/linear/weights", "h1/linear/bias", "h2/linear/weights"}
    reasons = dict(report.skipped)
    assert reasons["h2/linear/bias"] == "excluded by 'h2/linear/bias'"
    assert reasons["logits/weights"].startswith("not included")
    after = _values(model)
    np.testing.assert_array_equal(after["logits/weights"], before["logits/weights"])
    assert "logits/weights" in report.unused


def test_shape_mismatch_is_skipped_with_both_shapes(source: Path) -> None:
    report = warm_start(_model("--dims.hidden=4"), source)
    reasons = dict(report.skipped)
    assert reasons["h1/linear/weights"] == "shape mismatch: source (64, 8), here (64, 4)"
    assert [here for here, _ in report.loaded] == ["logits/bias"]


def test_rename_maps_source_names_onto_new_layers(source: Path) -> None:
    cfg = twt.load_config("digits", TINY)
    nodes = cfg["model"]["nodes"]
    nodes["first"] = nodes.pop("h1")
    nodes["h2"]["inputs"] = ["first"]
    model = build_model(cfg)
    plain = warm_start(_clone(cfg), source)
    assert dict(plain.skipped)["first/linear/weights"].startswith("not found in the source")
    report = warm_start(model, source, rename=["h1/=first/"])
    assert ("first/linear/weights", "h1/linear/weights") in report.loaded
    np.testing.assert_array_equal(
        _values(model)["first/linear/weights"],
        _values(twt.Run.open(source).model())["h1/linear/weights"],
    )


def _clone(cfg: dict[str, Any]) -> object:
    return build_model(json.loads(json.dumps(cfg)))


def test_loading_nothing_is_an_error_naming_the_fix(source: Path) -> None:
    with pytest.raises(tw.TensorweaveError, match=r"(?s)loaded no variable.*Fix: check --include"):
        warm_start(_model(), source, include=["nothing*"])
    with pytest.raises(ValueError, match="old=new"):
        parse_rename(["no-equals-sign"])


def test_references_resolve_through_the_hook(source: Path, tmp_path: Path) -> None:
    class Resolver:
        @tw.hookimpl
        def tensorweave_resolve_run(self, reference: str) -> str | None:
            return str(source) if reference == "demo@1" else None

    with pytest.raises(twt.RunDirError, match="does not exist"):
        resolve_run(tmp_path / "missing")
    plugin = Resolver()
    tw.plugins.manager.register(plugin, name="test:resolver")
    try:
        assert resolve_run("demo@1") == source
        assert warm_start(_model(), "demo@1").loaded
    finally:
        tw.plugins.manager.unregister(plugin)


def test_callback_skips_a_resumed_run(source: Path) -> None:
    model = _model()
    before = _values(model)
    cb = WarmStart(str(source), quiet=True)
    cb(None, TrainState(step=5, model=model))  # type: ignore[arg-type]
    assert cb.report is None
    np.testing.assert_array_equal(_values(model)["h1/linear/weights"], before["h1/linear/weights"])
    cb(None, TrainState(step=0, model=model))  # type: ignore[arg-type,unused-ignore]
    report: Any = cb.report  # set by the call (mypy keeps the earlier None)
    assert len(report.loaded) == 6


def test_cli_warm_start_reports_and_records_it(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = tmp_path / "warm"
    argv = ["train", *TINY, "--run-dir", str(where), "--warm-start", str(source)]
    code = cli_main([*argv, "--exclude", "logits", "--rename", "h2=h2"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"warm start from {source}: 4 loaded, 2 skipped" in out
    assert "skipped  logits/weights: excluded by 'logits'" in out
    callbacks = json.loads((where / "config.json").read_text())["callbacks"]
    assert callbacks[-1]["@callbacks"] == "WarmStart.v1"
    assert callbacks[-1]["source"] == str(source) and callbacks[-1]["exclude"] == ["logits"]


def test_cli_warm_start_mistakes(
    source: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["train", *TINY, "--include", "h1"]) == 2
    assert "need --warm-start" in capsys.readouterr().err
    assert cli_main(["train", *TINY, "--warm-start", str(source), "--rename", "h1"]) == 2
    assert "old=new" in capsys.readouterr().err
    missing = tmp_path / "nope"
    code = cli_main(
        ["train", *TINY, "--run-dir", str(tmp_path / "r"), "--warm-start", str(missing)]
    )
    assert code == 2  # a missing run directory is a usage error
    assert "does not exist" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
    narrow = ["--dims.hidden=4", "--exclude", "logits"]
    code = cli_main(
        ["train", *TINY, "--run-dir", str(tmp_path / "r"), "--warm-start", str(source), *narrow]
    )
    assert code == 1
    err = capsys.readouterr().err
    assert "loaded no variable" in err and "shape mismatch: source (64, 8), here (64, 4)" in err
    assert not (tmp_path / "r").exists()  # checked before the run directory is made
