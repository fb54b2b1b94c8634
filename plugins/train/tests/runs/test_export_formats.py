"""Export formats as a registered kind: ``savedmodel`` from this pack, ``--format`` listing what
is installed, and the checks every export makes before writing anything (a path that exists,
a quantization the format lacks, calibration without int8, a run with no checkpoint)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf
from twtrain_helpers import files_of, regression_data, regression_model, run_cli

import tensorweave as tw
from tensorweave_train.runs.export.formats import ExportError, export_formats


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tensorweave.cli import main as cli_main

    where = tmp_path_factory.mktemp("run") / "run"
    tiny = ["--data.limit=100", "--train.epochs=1", "--dims.hidden=4", "--run-dir", str(where)]
    assert cli_main(["train", *tiny]) == 0
    return where


def test_savedmodel_is_a_registered_export_format_of_this_pack() -> None:
    assert "exporters" in tw.kinds()
    assert ("savedmodel", "tensorweave-train 0.1.0") in export_formats()
    assert tw.registry("exporters").info("savedmodel").distribution == "tensorweave-train"


def test_format_alone_lists_the_installed_formats_and_an_unknown_one_too(capsys, tmp_path) -> None:
    code, out, _ = run_cli(capsys, "export", "--format")
    assert code == 0 and "savedmodel  (tensorweave-train 0.1.0)" in out
    code, _, err = run_cli(capsys, "export", str(tmp_path), "--format", "tensorrt", "-o", "x")
    assert code == 2 and "no export format 'tensorrt'" in err and "savedmodel" in err


def test_model_export_writes_the_savedmodel_and_model_json(tmp_path) -> None:
    model = regression_model()
    where = model.export(tmp_path / "out")
    assert sorted(p.name for p in where.iterdir()) == ["model", "model.json"]
    assert where.stat().st_mode & 0o755 == 0o755  # not the temporary directory's 0700
    spec = json.loads((where / "model.json").read_text())
    assert spec["written_by"] == "tensorweave export" and spec["format"] == "savedmodel"
    assert spec["inputs"] == [{"name": "x", "shape": [None, 4], "dtype": "float32"}]
    assert spec["outputs"] == [{"name": "y", "shape": [None, 1], "dtype": "float32"}]
    serving = tf.saved_model.load(str(where / "model")).signatures["serving_default"]
    x = regression_data(n=5)["x"]
    np.testing.assert_allclose(
        serving(x=tf.constant(x))["output_0"].numpy(), model.predict(x), rtol=1e-6
    )
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp left


def test_an_existing_path_is_refused_unless_overwrite_and_an_earlier_export(tmp_path) -> None:
    model = regression_model()
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    before = files_of(tmp_path)
    with pytest.raises(ExportError, match=r"exists.*--overwrite"):
        model.export(mine)
    with pytest.raises(ExportError, match="not a tensorweave export"):
        model.export(mine, overwrite=True)
    assert files_of(tmp_path) == before
    first = model.export(tmp_path / "out")
    stamp = (first / "model.json").stat().st_mtime_ns
    model.export(tmp_path / "out", overwrite=True)
    assert (first / "model.json").stat().st_mtime_ns != stamp
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes", "out"]


def test_quantize_for_a_format_without_it_and_calibration_without_int8(tmp_path) -> None:
    model = regression_model()
    with pytest.raises(ExportError, match="savedmodel format has no int8 quantization"):
        model.export(tmp_path / "q", quantize="int8", calibration=np.zeros((2, 4), "float32"))
    with pytest.raises(ExportError, match="calibration data is for int8"):
        model.export(tmp_path / "q", calibration=np.zeros((2, 4), "float32"))
    with pytest.raises(ExportError, match=r"(?s)no export format .coreml.*savedmodel"):
        model.export(tmp_path / "q", format="coreml")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # trains a tiny run (~15 s)
def test_the_command_exports_a_run_and_refuses_one_without_checkpoint(
    capsys, saved_run, tmp_path
) -> None:
    code, _, err = run_cli(capsys, "export", str(saved_run), "-o", str(tmp_path / "e"))
    assert code == 0, err
    assert {"model", "model.json"} <= {p.name for p in (tmp_path / "e").iterdir()}
    code, _, err = run_cli(capsys, "export", str(saved_run), "-o", str(tmp_path / "e"))
    assert code == 2 and "--overwrite" in err
    code, _, err = run_cli(
        capsys, "export", str(saved_run), "-o", str(tmp_path / "f"), "--calibration", "5"
    )
    assert code == 2 and "--calibration is for int8" in err
    bare = tmp_path / "bare"
    shutil.copytree(saved_run, bare)
    shutil.rmtree(bare / "checkpoints")
    code, _, err = run_cli(capsys, "export", str(bare), "-o", str(tmp_path / "g"))
    assert code != 0 and "no valid checkpoint" in err and "Fix:" in err
    assert not (tmp_path / "f").exists() and not (tmp_path / "g").exists()


def test_run_export_and_export_run_write_what_the_command_writes(
    capsys, saved_run, tmp_path
) -> None:
    import tensorweave_train as twt

    code, _, err = run_cli(capsys, "export", str(saved_run), "-o", str(tmp_path / "cli"))
    assert code == 0, err
    by_method = twt.Run(saved_run).export(tmp_path / "method")
    by_function = twt.export_run(saved_run, tmp_path / "function")
    names = {p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*")}
    assert Path("model.json") in names and Path("predictor.json") in names
    for where in (by_method, by_function):
        assert {p.relative_to(where) for p in where.rglob("*")} == names
        for name in ("model.json", "predictor.json"):
            mine, cli = (json.loads((w / name).read_text()) for w in (where, tmp_path / "cli"))
            assert mine == cli
    with pytest.raises(ExportError, match="--overwrite"):
        twt.export_run(saved_run, by_function)
    assert twt.export_run(saved_run, by_function, overwrite=True) == by_function
