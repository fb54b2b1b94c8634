"""The run marker: tensorweave deletes only a directory it wrote (#33)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tensorweave_train.runs.directory import new_run_dir
from tensorweave_train.runs.lock import RunDirError
from tensorweave_train.runs.marker import (
    MARKER,
    empty_run_dir,
    read_marker,
    remove_run_dir,
    write_marker,
)


def _users_folder(where: Path) -> dict[str, str]:
    """A folder of the user's own files (no marker): a note and a sub-folder."""
    where.mkdir(parents=True)
    (where / "notes.txt").write_text("my notes")
    (where / "data").mkdir()
    (where / "data" / "thesis.tex").write_text("mine")
    return _snapshot(where)


def _snapshot(where: Path) -> dict[str, str]:
    return {
        str(p.relative_to(where)): p.read_text() if p.is_file() else "<dir>"
        for p in sorted(where.rglob("*"))
    }


def test_remove_run_dir_leaves_unmarked_folders(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    before = _users_folder(mine)
    assert remove_run_dir(mine) is False and _snapshot(mine) == before
    ours = new_run_dir(tmp_path, "x")
    assert remove_run_dir(ours) is True and not ours.exists()


def test_empty_run_dir_refuses_unmarked_and_empties_marked(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    before = _users_folder(mine)
    with pytest.raises(
        RunDirError, match=r"holds 2 files not written by tensorweave \(data, notes.txt\)"
    ):
        empty_run_dir(mine)
    assert _snapshot(mine) == before and read_marker(mine) is None
    write_marker(mine)
    empty_run_dir(mine)
    assert list(mine.iterdir()) == [] and not (mine / MARKER).exists()
