"""Run directories that never mix: unique names, claiming a folder, no silent reuse.

Two real ``tensorweave train`` processes started together get two directories (the lock
itself: ``test_lock.py``; the marker and safe deletion: ``test_marker.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from twtrain_helpers import TENSORWEAVE, cli_env

from tensorweave_train.runs.directory import check_run_name, claim, new_run_dir
from tensorweave_train.runs.lock import LOCK, RunDirError
from tensorweave_train.runs.marker import MARKER, read_marker, write_marker

TINY = ["--data.limit=120", "--train.epochs=1", "--train.batch_size=64", "--dims.hidden=4"]


def test_new_run_dirs_in_the_same_second_differ(tmp_path: Path) -> None:
    made = [new_run_dir(tmp_path, "mlp", stamp="20260101-120000") for _ in range(3)]
    assert [p.name for p in made] == [
        "mlp-20260101-120000",
        "mlp-20260101-120000-2",
        "mlp-20260101-120000-3",
    ]
    assert all(p.is_dir() and [q.name for q in p.iterdir()] == [MARKER] for p in made)


@pytest.mark.parametrize("name", ["../escape", "/abs/path", "a/b", "a\\b", "..", "", " x"])
def test_run_names_stay_inside_the_runs_root(tmp_path: Path, name: str) -> None:
    assert check_run_name(name) is not None
    with pytest.raises(RunDirError, match="not a plain run name"):
        new_run_dir(tmp_path / "runs", name)
    assert not (tmp_path / "escape").exists()
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_claim_refuses_a_directory_holding_a_run_unless_overwrite(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    write_marker(run)
    (run / "config.json").write_text("{}")
    with pytest.raises(RunDirError, match=r"already holds a run .*--overwrite"):
        claim(run)
    assert (run / "config.json").exists() and not (run / LOCK).exists()
    old = read_marker(run)
    where, lock = claim(run, overwrite=True)
    try:
        assert sorted(p.name for p in where.iterdir()) == [LOCK, MARKER]
        assert read_marker(run)["id"] != old["id"]  # a new run
    finally:
        lock.release()


# -- tensorweave deletes only what it wrote (#33) ---------------------------------------
def _users_folder(where: Path) -> dict[str, str]:
    """A folder of the user's own files (no marker): a note, a sub-folder, a link."""
    where.mkdir(parents=True)
    (where / "notes.txt").write_text("my notes")
    (where / "data").mkdir()
    (where / "data" / "thesis.tex").write_text("\\section{mine}")
    (where / "config.json").write_text("{}")  # even a file named like a run's
    return _snapshot(where)


def _snapshot(where: Path) -> dict[str, str]:
    return {
        str(p.relative_to(where)): p.read_text() if p.is_file() else "<dir>"
        for p in sorted(where.rglob("*"))
    }


def test_claim_never_empties_a_folder_tensorweave_did_not_write(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    before = _users_folder(mine)
    with pytest.raises(RunDirError) as err:
        claim(mine, overwrite=True)
    text = str(err.value)
    assert "holds 3 files not written by tensorweave (config.json, data, notes.txt)" in text
    assert "refusing to empty it" in text and "choose an empty or new folder" in text
    assert _snapshot(mine) == before  # nothing removed, no lock or marker left


def test_claim_without_overwrite_says_what_the_folder_is(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    _users_folder(mine)
    with pytest.raises(RunDirError, match="non-empty folder of other files") as err:
        claim(mine)
    assert "a run" not in str(err.value)
    run = tmp_path / "run"
    run.mkdir()
    write_marker(run)
    (run / "config.json").write_text("{}")
    with pytest.raises(RunDirError, match="already holds a run"):
        claim(run)


def test_a_copied_or_forged_marker_link_does_not_count(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write_marker(elsewhere)
    mine = tmp_path / "mine"
    before = _users_folder(mine)
    (mine / MARKER).symlink_to(elsewhere / MARKER)
    with pytest.raises(RunDirError, match="not written by tensorweave"):
        claim(mine, overwrite=True)
    assert (mine / "notes.txt").read_text() == "my notes" and (mine / "data").is_dir()
    assert before.items() <= _snapshot(mine).items()


def test_real_train_overwrite_keeps_the_users_files(tmp_path: Path) -> None:
    """The attack: ``tensorweave train --run-dir MY_FOLDER --overwrite``."""
    mine = tmp_path / "mine"
    before = _users_folder(mine)
    proc = subprocess.run(
        [TENSORWEAVE, "train", *TINY, "--quiet", "--run-dir", str(mine), "--overwrite"],
        cwd=tmp_path,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "not written by tensorweave (config.json, data, notes.txt)" in proc.stderr
    assert "refusing to empty it" in proc.stderr
    assert _snapshot(mine) == before
    proc = subprocess.run(
        [TENSORWEAVE, "train", *TINY, "--quiet", "--run-dir", str(mine)],
        cwd=tmp_path,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2 and "non-empty folder of other files" in proc.stderr
    assert "holds a run" not in proc.stderr and _snapshot(mine) == before


@pytest.mark.slow
def test_two_real_trains_started_together_never_share_a_directory(tmp_path: Path) -> None:
    """Two ``tensorweave train`` processes at once, while every name they could pick for
    the coming minutes is taken already: each gets its own new directory, the existing
    ones are untouched, and neither leaves a lock behind."""
    runs = tmp_path / "runs"
    runs.mkdir()
    now = time.time()
    taken = set()
    for dt in range(0, 180):
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now + dt))
        (runs / f"digits-mlp-{stamp}").mkdir(exist_ok=True)
        (runs / f"digits-mlp-{stamp}" / "marker").write_text("someone else's run")
        taken.add(f"digits-mlp-{stamp}")
    procs = [
        subprocess.Popen(
            [TENSORWEAVE, "train", *TINY, "--quiet"],
            cwd=tmp_path,
            env=cli_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1][-2000:] for o in outs]
    dirs = [
        Path(json.loads((runs / d / "summary.json").read_text())["run_dir"]).name
        for d in os.listdir(runs)
        if (runs / d / "summary.json").exists()
    ]
    assert len(dirs) == 2 and len(set(dirs)) == 2 and not set(dirs) & taken
    for d in dirs:
        assert (runs / d / "checkpoints").is_dir()
        rows = (runs / d / "log.csv").read_text().splitlines()
        assert len(rows) == 2  # header + its own single epoch: no interleaving
        assert not (runs / d / LOCK).exists()
    for name in taken:
        assert sorted(os.listdir(runs / name)) == ["marker"]


def test_a_run_name_follows_the_store_pattern_length() -> None:
    """A run name the train pack accepts is one the store records: at most 128 characters."""

    assert check_run_name("r" * 128) is None
    assert "128" in (check_run_name("r" * 129) or "")
