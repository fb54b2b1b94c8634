"""Run directories that never mix: a unique directory per run, its layout, and finding one.

- ``new_run_dir(root, name)`` creates ``root/<name>-<time>`` with ``mkdir`` (atomic), adding
  ``-2``, ``-3``… when another run took that name in the same second;
- ``claim(path, overwrite=...)`` prepares an explicit directory: refused when it holds
  anything (unless ``overwrite``, which empties only a directory tensorweave wrote:
  ``runs.marker``), and when another live process uses it (``runs.lock``);
- ``write_run_directory(path, config, ...)`` makes a new run's directory (claimed, or new
  under ``runs/``) and writes what makes it a run, its filled config (``CONFIG_FILE``):
  ``model.save`` and ``tensorweave train`` both write a run with it;
- ``check_run_name(name)`` is why a ``[run] name`` cannot be used (path separators, ``..``,
  absolute paths: a name stays inside the runs root), or ``None``;
- ``resolve_run(reference)`` is the run directory a reference names: a directory holding
  ``config.json``, or what a plugin's ``tensorweave_resolve_run`` hook answers
  (``NAME@VERSION``). Light (no TensorFlow), so commands that only read a run answer fast.

The lock (``runs.lock``), the marker and safe deletion (``runs.marker``) and the type of
an option naming a file a component writes (``runs.output_paths``) are modules of their own.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> a, b = new_run_dir(root, "demo", stamp="20260101-000000"), new_run_dir(root, "demo", stamp="20260101-000000")
>>> a.name, b.name
('demo-20260101-000000', 'demo-20260101-000000-2')
>>> check_run_name("../x") is not None, check_run_name("mnist-1")
(True, None)
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tensorweave_train.runs.lock import RunDirError, RunLock
from tensorweave_train.runs.marker import (
    CONFIG_FILE,
    contents,
    empty_run_dir,
    listing,
    read_marker,
    write_marker,
)

__all__ = [
    "check_run_name",
    "claim",
    "new_run_dir",
    "resolve_run",
    "write_run_directory",
]

# the store's name pattern (tensorweave_store.NAME_PATTERN): a run name valid here is one
# the store records (at most 128 characters)
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.=+-]{0,127}")


def check_run_name(name: object) -> str | None:
    """Why ``name`` cannot name a run directory under the runs root, or ``None``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
        return (
            f"{name!r} is not a plain run name (at most 128 letters, digits and _ . = + -; "
            "no path separators, '..' or absolute paths): the run directory stays under runs/. "
            "Fix: choose a plain name, or set [run] dir / --run-dir for another place"
        )
    return None


def _what_is(where: Path, names: list[str]) -> str:
    """What the non-empty directory ``where`` is, in words: a run, files tensorweave
    wrote, or a folder of other files."""
    n = f"{len(names)} file{'s' if len(names) != 1 else ''}"
    if read_marker(where) is None:
        return f"{where} is a non-empty folder of other files: it holds {n} not written by tensorweave ({listing(names)})"
    if (where / CONFIG_FILE).is_file():
        return f"{where} already holds a run ({listing(names)})"
    return f"{where} holds {n} tensorweave wrote, not a run ({listing(names)})"


def new_run_dir(root: str | os.PathLike[str], name: str, *, stamp: str | None = None) -> Path:
    """Create and return a new, empty ``root/<name>-<stamp>`` (``-2``… when taken)."""
    problem = check_run_name(name)
    if problem:
        raise RunDirError(problem)
    base = Path(root)
    base.mkdir(parents=True, exist_ok=True)
    stamp = stamp or time.strftime("%Y%m%d-%H%M%S")
    for n in range(1, 10_000):
        path = base / (f"{name}-{stamp}" if n == 1 else f"{name}-{stamp}-{n}")
        try:
            path.mkdir()
        except FileExistsError:
            continue
        write_marker(path)
        return path
    raise RunDirError(f"cannot create a new run directory under {base}: too many runs")


def claim(path: str | os.PathLike[str], *, overwrite: bool = False) -> tuple[Path, RunLock]:
    """Lock the explicit run directory ``path`` for a new run (created when missing), and
    mark it (``MARKER``).

    A directory holding anything but a stale lock is refused, saying what it is (a run,
    or a folder of other files); with ``overwrite`` a directory tensorweave wrote (it
    holds ``MARKER``) is emptied, after the lock is taken so that a directory in use is
    never emptied, and any other is refused: tensorweave deletes only what it wrote.

    >>> import tempfile
    >>> mine = Path(tempfile.mkdtemp()); _ = (mine / "notes.txt").write_text("mine")
    >>> claim(mine, overwrite=True)
    Traceback (most recent call last):
    ...
    tensorweave_train.runs.lock.RunDirError: ... holds 1 file not written by tensorweave (notes.txt): refusing to empty it ...
    """
    where = Path(path)
    if where.is_symlink() or (where.exists() and not where.is_dir()):
        raise RunDirError(
            f"{where} exists and is not a directory{' (a symbolic link)' if where.is_symlink() else ''}. "
            "Fix: choose another path."
        )
    lock = RunLock(where).acquire()
    try:
        names = contents(where)
        if names and not overwrite:
            if read_marker(where) is None:
                fix = "choose an empty or new folder (--run-dir)"
            elif (where / CONFIG_FILE).is_file():
                fix = (
                    f"`tensorweave resume {where}` to continue it, --overwrite to replace it, "
                    "or another --run-dir"
                )
            else:
                fix = "--overwrite to replace it, or another --run-dir"
            raise RunDirError(f"{_what_is(where, names)}. Fix: {fix}.")
        if names:
            empty_run_dir(where)  # refuses a folder tensorweave did not write
        write_marker(where)  # a new run: a new id
    except BaseException:
        lock.release()
        raise
    return where, lock


def write_run_directory(
    path: str | os.PathLike[str] | None,
    config: Mapping[str, Any],
    *,
    name: str = "run",
    root: str | os.PathLike[str] = "runs",
    overwrite: bool = False,
    files: Mapping[str, str] | None = None,
) -> tuple[Path, RunLock]:
    """The directory of a new run, written: ``path`` claimed (``claim``: refused when it
    holds a run, unless ``overwrite``), or with ``path=None`` a new ``root/<name>-<time>``
    (``new_run_dir``); then its filled ``config`` (``CONFIG_FILE``, what makes it a run), its
    ``environment.json`` (``runs.environment``) and ``files`` (``{file name: text}``). Returns the directory and its lock, held while the
    run is written (release it); after an error nothing stays locked.

    >>> import tempfile
    >>> where, lock = write_run_directory(tempfile.mkdtemp() + "/r", {"a": 1}, files={"n": "x"})
    >>> lock.release(); sorted(p.name for p in where.iterdir())
    ['.tensorweave-run', 'config.json', 'environment.json', 'n']
    """
    if path is None:
        where = new_run_dir(root, name)
        lock = RunLock(where).acquire()
    else:
        where, lock = claim(path, overwrite=overwrite)
    try:
        import tensorweave.config as twc  # TensorFlow: only once a run is written

        twc.save(config, where / CONFIG_FILE)
        from tensorweave_train.runs.environment import write_environment

        write_environment(where, config)  # environment.json: what reproduces the run
        for file, text in (files or {}).items():
            (where / file).write_text(text)
    except BaseException:
        lock.release()
        raise
    return where, lock


def resolve_run(reference: str | Path) -> Path:
    """The local run directory ``reference`` names: a run directory, or what a plugin's
    ``tensorweave_resolve_run`` answers (``NAME@VERSION``); ``RunDirError`` with the fix."""
    from tensorweave_train.hooks import run_dir_of

    where = Path(reference)
    if (where / CONFIG_FILE).is_file():
        return where
    ref = str(reference)
    found = run_dir_of(ref)
    if found is not None and (found / CONFIG_FILE).is_file():
        return found
    if found is not None and found != where:
        raise RunDirError(
            f"{ref!r} resolved to {found}, which is not a run directory (no {CONFIG_FILE})."
        )
    if "@" in ref and not where.exists():
        raise RunDirError(
            f"cannot resolve {ref!r}: no installed plugin resolves NAME@VERSION references. "
            "Fix: install tensorweave-store (pip install tensorweave-store) and register the "
            "model (tensorweave models register RUN NAME), or pass a run directory."
        )
    what = "does not exist" if not where.exists() else f"is not a run directory (no {CONFIG_FILE})"
    raise RunDirError(
        f"{ref} {what}. Fix: pass the run directory `tensorweave train` printed (or "
        "NAME@VERSION with tensorweave-store installed)."
    )
