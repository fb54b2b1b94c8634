"""A run records the files it read (data_manifest.json); ``tensorweave data verify`` re-reads
them and reports changed, missing and new files; resuming on a changed file warns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tensorweave.cli.command import UsageError
from tensorweave_data.verify import ChangedDataWarning, cmd_verify

CONFIG = """[data]
"@datasets" = "table.v1"
paths = "shards/*.csv"
label = "expensive"
columns = ["size"]
types = { size = "float32" }

[model]
inputs = ["size"]
targets = ["expensive"]
outputs = ["logits"]
loss = "loss"

[model.nodes]
size = { input = [] }
expensive = { input = [], dtype = "int64" }
size1 = { "@layers" = "Reshape.v1", inputs = ["size"], shape = [1] }
logits = { "@layers" = "Linear.v1", inputs = ["size1"], n_units = 2 }
loss = { "@losses" = "sparse_categorical_cross_entropy.v1", inputs = ["expensive", "logits"], from_logits = true }

[train]
epochs = 1
batch_size = 16
"""


def _shard(path: Path, seed: int) -> None:
    rows = [
        f"{(seed * 37 + i * 11) % 200}.5,{int((seed * 37 + i * 11) % 200 > 100)}\n"
        for i in range(20)
    ]
    path.write_text("size,expensive\n" + "".join(rows))


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run on three CSV shards (trained once): its folder holds shards/, t.toml, run/."""
    import tensorweave as tw
    import tensorweave_train as twt

    root = tmp_path_factory.mktemp("verify")
    (root / "shards").mkdir()
    for i in range(3):
        _shard(root / "shards" / f"part{i}.csv", i)
    (root / "t.toml").write_text(CONFIG)
    before, cache = os.getcwd(), os.environ.get("TENSORWEAVE_MANIFEST_CACHE")
    os.environ["TENSORWEAVE_MANIFEST_CACHE"] = str(root / "cache")  # not the user's
    os.chdir(root)
    tw.plugins.block("tensorweave-conflict-demo")
    try:
        twt.train_job(twt.load_config(str(root / "t.toml")), run_dir=root / "run", out=None)
    finally:
        tw.plugins.unblock("tensorweave-conflict-demo")
        os.chdir(before)
        if cache is None:
            os.environ.pop("TENSORWEAVE_MANIFEST_CACHE")
        else:
            os.environ["TENSORWEAVE_MANIFEST_CACHE"] = cache
    assert list((root / "cache").rglob("*.json"))  # the hashes were cached there
    return root


@pytest.mark.slow
def test_a_run_records_the_files_it_read(trained: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = json.loads((trained / "run" / "data_manifest.json").read_text())
    paths = [f["path"] for f in manifest["files"]]
    assert paths == [str(trained / "shards" / f"part{i}.csv") for i in range(3)]
    assert all(len(f["sha256"]) == 64 and f["size"] > 0 for f in manifest["files"])
    assert cmd_verify([str(trained / "run")]) == 0
    assert "all 3 files identical" in capsys.readouterr().out
    with pytest.raises(UsageError, match="no config file or run directory"):
        cmd_verify([str(trained / "nowhere")])


@pytest.mark.slow
def test_relative_paths_read_from_elsewhere_are_explained(
    trained: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "shards").mkdir()
    _shard(tmp_path / "shards" / "other.csv", 4)
    monkeypatch.chdir(tmp_path)
    assert cmd_verify([str(trained / "run")]) == 1
    out = capsys.readouterr().out
    assert f"new      {tmp_path / 'shards' / 'other.csv'}" in out
    assert "note: none of the recorded files is read now" in out


@pytest.mark.slow
def test_changed_missing_and_new_files_are_reported_and_warned_on_resume(
    trained: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    monkeypatch.setenv("TENSORWEAVE_MANIFEST_CACHE", str(tmp_path / "cache"))
    import tensorweave_train as twt

    work = tmp_path / "copy"
    shutil.copytree(trained, work)
    # the copy's manifest names the copy's files (as the run would have recorded them)
    text = (work / "run" / "data_manifest.json").read_text()
    (work / "run" / "data_manifest.json").write_text(text.replace(str(trained), str(work)))
    shards = work / "shards"
    _shard(shards / "part0.csv", 99)  # changed
    (shards / "part1.csv").unlink()  # missing
    _shard(shards / "part9.csv", 5)  # new
    env = {
        **os.environ,
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "TENSORWEAVE_BLOCK": "tensorweave-conflict-demo",
    }
    exe = Path(sys.executable).with_name("tensorweave")
    done = subprocess.run(
        [str(exe), "data", "verify", "run"], capture_output=True, text=True, env=env, timeout=300, cwd=work
    )  # fmt: skip
    assert done.returncode == 1, done.stderr[-2000:]
    assert f"changed  {shards / 'part0.csv'}" in done.stdout
    assert f"missing  {shards / 'part1.csv'}" in done.stdout
    assert f"new      {shards / 'part9.csv'}" in done.stdout
    assert "1 changed, 1 missing, 1 new of 3 recorded files" in done.stdout

    # a config against a run's record: the same answer, in this process
    monkeypatch.chdir(work)
    assert cmd_verify(["t.toml", "--against", "run"]) == 1
    assert cmd_verify(["t.toml", "-o", "now.json"]) == 0
    assert len(json.loads((work / "now.json").read_text())["files"]) == 3

    with pytest.warns(ChangedDataWarning, match="part0.csv"):
        twt.resume_job(work / "run", ["--train.epochs=2"], out=None)
