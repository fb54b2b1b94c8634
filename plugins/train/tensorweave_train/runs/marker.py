"""The run marker: what tensorweave wrote, and so the only thing it ever deletes.

Every run and save directory tensorweave makes holds a marker file, ``MARKER``
(``.tensorweave-run``: a small JSON saying what wrote it, when, and the run's id;
``write_marker``/``read_marker``). ``empty_run_dir`` and ``remove_run_dir`` delete only a
directory holding it, and refuse any other saying what is there; ``owner_of``/``run_id``
name the run a path belongs to, and ``checkpoint_guard`` keeps a run's checkpoints out of
another run's directory. Apart from the layout (``runs.directory``) because safe deletion
is its own rule, checked in one place.

>>> import tempfile
>>> a = Path(tempfile.mkdtemp())
>>> read_marker(a) is None, write_marker(a)["kind"], read_marker(a)["written_by"].startswith("tensorweave")
(True, 'run', True)
>>> remove_run_dir(a), a.exists()
(True, False)
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import Any

from tensorweave_train.runs.lock import LOCK, RunDirError

__all__ = [
    "CONFIG_FILE",
    "MARKER",
    "checkpoint_guard",
    "contents",
    "empty_run_dir",
    "listing",
    "owner_of",
    "read_marker",
    "remove_run_dir",
    "run_id",
    "write_marker",
]

MARKER = ".tensorweave-run"  # in every directory tensorweave makes: what may be removed
CONFIG_FILE = "config.json"  # what makes a directory a run: its filled config


def write_marker(path: str | os.PathLike[str], kind: str = "run") -> dict[str, Any]:
    """Mark the directory ``path`` as written by tensorweave (``MARKER``: what wrote it,
    when, ``kind`` and a new ``id``); returns what was written. Only for a directory
    tensorweave made (or emptied): the marker is what lets it be emptied later."""
    from importlib import metadata

    try:
        version = metadata.version("tensorweave")
    except metadata.PackageNotFoundError:  # pragma: no cover - a source checkout
        version = "?"
    info = {
        "written_by": f"tensorweave {version}",
        "kind": kind,
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "pid": os.getpid(),
        "id": uuid.uuid4().hex,
    }
    tmp = Path(path) / f"{MARKER}.tmp-{os.getpid()}"
    tmp.write_text(json.dumps(info) + "\n", encoding="utf-8")
    os.replace(tmp, Path(path) / MARKER)
    return info


def read_marker(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The marker of the directory ``path`` (``write_marker``), or ``None`` when it has
    none: no ``MARKER`` regular file (a symlink does not count), or not one tensorweave
    wrote."""
    marker = Path(path) / MARKER
    try:
        if marker.is_symlink() or not marker.is_file():
            return None
        info = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict) or not str(info.get("written_by", "")).startswith("tensorweave"):
        return None
    return info


def owner_of(path: str | os.PathLike[str]) -> tuple[Path, dict[str, Any]] | None:
    """The nearest directory at or above ``path`` that tensorweave marked, with its marker
    (``None`` when there is none): the run a path belongs to."""
    here = Path(os.path.abspath(path))
    for folder in (here, *here.parents):
        info = read_marker(folder)
        if info is not None:
            return folder, info
    return None


def run_id(path: str | os.PathLike[str]) -> str:
    """The id of the run at ``path`` (its marker's; its absolute path when it has none)."""
    info = read_marker(path)
    return str(info["id"]) if info is not None else os.path.abspath(path)


def checkpoint_guard(path: str | os.PathLike[str]) -> Any:
    """A check that a checkpoint directory is not another run's, for the run at ``path``
    (``loop.checkpoints.writing_for``): it raises ``RunDirError`` for a directory inside a
    run (or save) that tensorweave marked with another id."""
    mine = run_id(path)

    def guard(directory: Path) -> None:
        found = owner_of(directory)
        if found is not None and str(found[1].get("id")) != mine:
            folder, info = found
            raise RunDirError(
                f"checkpoint directory {directory} belongs to another run ({folder}, written "
                f"by {info.get('written_by')} at {info.get('created')}): a run writes and "
                "prunes checkpoints only in a directory of its own. Fix: point Checkpoint.v1 "
                "at a folder inside this run (a relative path), or a new folder."
            )

    return guard


def listing(names: list[str]) -> str:
    """``names`` in a message: the first four, sorted, then ``...``."""
    shown = ", ".join(sorted(names)[:4])
    return shown + (", ..." if len(names) > 4 else "")


def contents(where: Path) -> list[str]:
    """What ``where`` holds, besides a lock and the marker."""
    return [p.name for p in where.iterdir() if p.name not in (LOCK, MARKER)]


def _refuse_unmarked(where: Path, names: list[str]) -> RunDirError:
    n = f"{len(names)} file{'s' if len(names) != 1 else ''}"
    return RunDirError(
        f"{where} holds {n} not written by tensorweave ({listing(names)}): refusing to "
        f"empty it (tensorweave deletes only what it wrote; it has no {MARKER}). Fix: choose "
        "an empty or new folder."
    )


def empty_run_dir(path: str | os.PathLike[str]) -> None:
    """Empty the directory ``path`` (its lock stays), only when tensorweave wrote it (it
    holds ``MARKER``); else ``RunDirError`` saying what is there, and nothing removed.
    Symbolic links are removed, never followed."""
    where = Path(path)
    names = contents(where)
    if names and read_marker(where) is None:
        raise _refuse_unmarked(where, names)
    for p in where.iterdir():
        if p.name == LOCK:
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def remove_run_dir(path: str | os.PathLike[str]) -> bool:
    """Remove the directory ``path`` when tensorweave wrote it (``MARKER``); a directory
    without the marker is left as it is. Returns whether it was removed."""
    where = Path(path)
    if where.is_symlink() or not where.is_dir() or read_marker(where) is None:
        return False
    shutil.rmtree(where, ignore_errors=True)
    return True
