"""``tensorweave reproduce``'s bad input: each refused with what happened and the fix, and
nothing written beside or into the run. (A real reproduction: runs/test_reproduce_end_to_end.py.)"""

from __future__ import annotations

import json
from pathlib import Path

from twtrain_helpers import copied, files_of, run_cli


def _siblings(run: Path) -> list[str]:
    return sorted(p.name for p in run.parent.iterdir())


def test_a_run_without_environment_cannot_be_reproduced(
    digits_run: Path, tmp_path: Path, capsys: object
) -> None:
    run = copied(digits_run, tmp_path / "old")
    (run / "environment.json").unlink()
    code, _, err = run_cli(capsys, "reproduce", str(run))
    assert code == 2
    assert "has no environment.json" in err and "What can still be compared" in err
    assert _siblings(run) == ["old"]


def test_a_tampered_run_is_refused(digits_run: Path, tmp_path: Path, capsys: object) -> None:
    run = copied(digits_run, tmp_path / "run")
    config = json.loads((run / "config.json").read_text())
    config["train"]["epochs"] = 50
    (run / "config.json").write_text(json.dumps(config))
    before = files_of(run)
    code, _, err = run_cli(capsys, "reproduce", str(run))
    assert code == 2
    assert "config.json was changed after the run recorded it" in err and "Fix:" in err
    assert files_of(run) == before and _siblings(run) == ["run"]


def test_a_version_the_index_lacks_is_named_with_the_fix(
    digits_run: Path, tmp_path: Path, capsys: object
) -> None:
    run = copied(digits_run, tmp_path / "run")
    record = json.loads((run / "environment.json").read_text())
    record["distributions"] = [{"name": "tensorweave-layers", "version": "9.9.9", "pack": True}]
    (run / "environment.json").write_text(json.dumps(record))
    empty = tmp_path / "wheels"
    empty.mkdir()
    code, _, err = run_cli(capsys, "reproduce", str(run), "--find-links", str(empty), "--no-index")
    assert code == 1, err
    assert "cannot install the recorded tensorweave-layers==9.9.9" in err
    assert "--find-links DIR with a wheel of tensorweave-layers==9.9.9" in err
    assert _siblings(run) == ["run", "wheels"]  # no half-made run beside it


def test_no_index_needs_find_links(digits_run: Path, capsys: object) -> None:
    code, _, err = run_cli(capsys, "reproduce", str(digits_run), "--no-index")
    assert code == 2 and "--no-index needs --find-links" in err


def test_keep_env_refuses_a_folder_of_other_files(
    digits_run: Path, tmp_path: Path, capsys: object
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    code, _, err = run_cli(capsys, "reproduce", str(digits_run), "--keep-env", str(mine))
    assert code == 2 and "is not a virtual environment" in err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
