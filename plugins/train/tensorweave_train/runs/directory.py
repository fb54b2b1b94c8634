"""Run directories that never mix: a unique directory per run, and a lock while in use.

- ``new_run_dir(root, name)`` creates ``root/<name>-<time>`` with ``mkdir`` (atomic), adding
  ``-2``, ``-3``… when another run took that name in the same second;
- ``claim(path, overwrite=...)`` prepares an explicit directory: refused when it already
  holds a run (unless ``overwrite``, which empties it), and when another live process uses it;
- ``write_run_directory(path, config, ...)`` makes a new run's directory (claimed, or new
  under ``runs/``) and writes what makes it a run, its filled config: ``model.save`` and
  ``tensorweave train`` both write a run with it;
- ``RunLock(path)`` holds ``path/.lock`` (the owner's pid) while a run writes there; a second
  user gets ``RunDirError: ... is in use by pid N``; a lock left by a dead process is taken
  over.
- ``check_run_name(name)`` is why a ``[run] name`` cannot be used (path separators, ``..``,
  absolute paths: a name stays inside the runs root), or ``None``;
- ``resolve_run(reference)`` is the run directory a reference names: a directory holding
  ``config.json``, or what a plugin's ``tensorweave_resolve_run`` hook answers
  (``NAME@VERSION``). Light (no TensorFlow), so commands that only read a run answer fast.

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> a, b = new_run_dir(root, "demo", stamp="20260101-000000"), new_run_dir(root, "demo", stamp="20260101-000000")
>>> a.name, b.name
('demo-20260101-000000', 'demo-20260101-000000-2')
>>> with RunLock(a):
...     (a / ".lock").read_text().strip() == str(os.getpid())
True
>>> (a / ".lock").exists(), check_run_name("../x") is not None, check_run_name("mnist-1")
(False, True, None)
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import tensorweave as tw

__all__ = [
    "CONFIG_FILE",
    "LOCK",
    "RunDirError",
    "RunLock",
    "check_run_name",
    "claim",
    "new_run_dir",
    "resolve_run",
    "write_run_directory",
]

LOCK = ".lock"
CONFIG_FILE = "config.json"  # what makes a directory a run: its filled config
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.=+-]*")


class RunDirError(tw.TensorweaveError):
    """A run directory cannot be used (exists, in use, not a run): a usage error (exit 2)."""

    exit_code = 2


def check_run_name(name: object) -> str | None:
    """Why ``name`` cannot name a run directory under the runs root, or ``None``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
        return (
            f"{name!r} is not a plain run name (letters, digits and _ . = + -; no path "
            "separators, '..' or absolute paths): the run directory stays under runs/. "
            "Fix: choose a plain name, or set [run] dir / --run-dir for another place"
        )
    return None


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
        return path
    raise RunDirError(f"cannot create a new run directory under {base}: too many runs")


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def _owner(lock: Path) -> int | None:
    try:
        return int(lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


class RunLock:
    """``path/.lock`` held while a run writes into ``path`` (a context manager)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.lock = self.path / LOCK
        self.held = False

    def acquire(self) -> RunLock:
        """Take the lock, or raise ``RunDirError`` naming the live pid holding it."""
        self.path.mkdir(parents=True, exist_ok=True)
        for _ in range(3):
            try:
                fd = os.open(self.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                pid = _owner(self.lock)
                if pid is None:  # being written right now, or garbage: look again
                    time.sleep(0.05)
                    pid = _owner(self.lock)
                if pid is not None and _alive(pid):
                    raise RunDirError(
                        f"run directory {self.path} is in use by pid {pid}. Fix: wait for it "
                        "to finish, or choose another directory."
                    ) from None
                # stale (a dead process): move it aside, then check it was the one we read
                aside = self.lock.with_name(f"{LOCK}.stale-{os.getpid()}-{time.monotonic_ns()}")
                try:
                    os.replace(self.lock, aside)
                except FileNotFoundError:
                    continue
                if _owner(aside) != pid and _owner(aside) is not None and _alive(_owner(aside)):  # type: ignore[arg-type]  # not None here
                    os.replace(aside, self.lock)  # a live owner's fresh lock: give it back
                    raise RunDirError(
                        f"run directory {self.path} is in use by pid {_owner(self.lock)}."
                    ) from None
                aside.unlink(missing_ok=True)
                continue
            with os.fdopen(fd, "w") as f:
                f.write(f"{os.getpid()}\n")
            self.held = True
            return self
        raise RunDirError(f"cannot lock run directory {self.path}: another process races for it")

    def release(self) -> None:
        """Drop the lock (only if this process holds it)."""
        if self.held and _owner(self.lock) == os.getpid():
            self.lock.unlink(missing_ok=True)
        self.held = False

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def claim(path: str | os.PathLike[str], *, overwrite: bool = False) -> tuple[Path, RunLock]:
    """Lock the explicit run directory ``path`` for a new run (created when missing).

    A directory holding anything but a stale lock is refused unless ``overwrite`` (then
    emptied, after the lock is taken, so a directory in use is never emptied).
    """
    where = Path(path)
    if where.exists() and not where.is_dir():
        raise RunDirError(f"{where} exists and is not a directory. Fix: choose another path.")
    lock = RunLock(where).acquire()
    try:
        others = [p for p in where.iterdir() if p.name != LOCK]
        if others and not overwrite:
            raise RunDirError(
                f"{where} already holds a run ({', '.join(sorted(p.name for p in others)[:4])}"
                f"{', ...' if len(others) > 4 else ''}). Fix: `tensorweave resume {where}` to "
                "continue it, --overwrite to replace it, or another --run-dir."
            )
        for p in others:
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink()
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
    (``new_run_dir``); then its filled ``config`` (``CONFIG_FILE``, what makes it a run) and
    ``files`` (``{file name: text}``). Returns the directory and its lock, held while the
    run is written (release it); after an error nothing stays locked.

    >>> import tempfile
    >>> where, lock = write_run_directory(tempfile.mkdtemp() + "/r", {"a": 1}, files={"n": "x"})
    >>> lock.release(); sorted(p.name for p in where.iterdir())
    ['config.json', 'n']
    """
    if path is None:
        where = new_run_dir(root, name)
        lock = RunLock(where).acquire()
    else:
        where, lock = claim(path, overwrite=overwrite)
    try:
        import tensorweave.config as twc  # TensorFlow: only once a run is written

        twc.save(config, where / CONFIG_FILE)
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
