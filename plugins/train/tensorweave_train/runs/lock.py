"""The lock of a run directory, and the error of every run-directory module.

``RunLock(path)`` holds ``path/.lock`` (``LOCK``: the owner's pid) while a run writes
there; a second user gets ``RunDirError: ... is in use by pid N``; a lock left by a dead
process is taken over. ``RunDirError`` (a usage error, exit 2) is raised by the lock, the
marker (``runs.marker``) and the run directory (``runs.directory``) alike: it lives here,
the lowest of the three. Apart so that what only locks (or only catches the error) does
not pull in how a run directory is laid out.

>>> import tempfile
>>> a = Path(tempfile.mkdtemp())
>>> with RunLock(a):
...     (a / ".lock").read_text().strip() == str(os.getpid())
True
>>> (a / ".lock").exists()
False
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import TracebackType

import tensorweave as tw

__all__ = ["LOCK", "RunDirError", "RunLock"]

LOCK = ".lock"


class RunDirError(tw.TensorweaveError):
    """A run directory cannot be used (exists, in use, not a run): a usage error (exit 2)."""

    exit_code = 2


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
