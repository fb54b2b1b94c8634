"""Run directories that never mix: a unique directory per run, and a lock while in use.

- ``new_run_dir(root, name)`` creates ``root/<name>-<time>`` with ``mkdir`` (atomic), adding
  ``-2``, ``-3``… when another run took that name in the same second;
- ``claim(path, overwrite=...)`` prepares an explicit directory: refused when it holds
  anything (unless ``overwrite``), and when another live process uses it;
- tensorweave deletes only what it wrote: every run and save directory it makes holds a
  marker file, ``MARKER`` (``.tensorweave-run``: a small JSON saying what wrote it, when,
  and the run's id; ``write_marker``/``read_marker``); ``overwrite`` empties only a
  directory holding it, and refuses any other saying what is there (``empty_run_dir``,
  ``remove_run_dir``);
- ``write_run_directory(path, config, ...)`` makes a new run's directory (claimed, or new
  under ``runs/``) and writes what makes it a run, its filled config: ``model.save`` and
  ``tensorweave train`` both write a run with it;
- ``RunLock(path)`` holds ``path/.lock`` (the owner's pid) while a run writes there; a second
  user gets ``RunDirError: ... is in use by pid N``; a lock left by a dead process is taken
  over.
- ``OutputPath``: the type of a component's option that names a file or folder it writes
  (``CSVLogger.v1``'s ``filename``...). In a config run by ``tensorweave train`` (or a
  sweep) such a path is relative to the run directory, and one that is absolute or leaves
  it is refused at validation (``output_path_problem``), unless the command line says
  ``--allow-paths-outside``;
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
>>> read_marker(a)["written_by"].startswith("tensorweave")
True
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Annotated, Any

import tensorweave as tw

__all__ = [
    "CONFIG_FILE",
    "LOCK",
    "MARKER",
    "OutputPath",
    "RunDirError",
    "RunLock",
    "check_run_name",
    "checkpoint_guard",
    "claim",
    "empty_run_dir",
    "new_run_dir",
    "output_path_problem",
    "output_params",
    "owner_of",
    "read_marker",
    "remove_run_dir",
    "resolve_run",
    "run_id",
    "write_marker",
    "write_run_directory",
]

LOCK = ".lock"
MARKER = ".tensorweave-run"  # in every directory tensorweave makes: what may be removed
CONFIG_FILE = "config.json"  # what makes a directory a run: its filled config
# the store's name pattern (tensorweave_store.NAME_PATTERN): a run name valid here is one
# the store records (at most 128 characters)
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.=+-]{0,127}")


class _WritesHere:
    """The mark ``OutputPath`` carries: the option names a path its component writes."""

    def __repr__(self) -> str:
        return "OutputPath"


WRITES_HERE = _WritesHere()

OutputPath = Annotated[str | os.PathLike[str], WRITES_HERE]
"""The type of a component option that names a file or folder the component writes.

Annotate such an option with it, and a config run by ``tensorweave train`` (or a sweep)
reads it relative to the run directory, refusing at validation an absolute path or one
that leaves the run (``../x``) with the option's dotted path, unless the command line
says ``--allow-paths-outside``. In Python the value is used as given (relative to the
working directory). To type checkers it is ``str | os.PathLike[str]``.

>>> from tensorweave_train import OutputPath
>>> class SaveSamples:
...     def __init__(self, folder: OutputPath = "samples", every: int = 1): ...
>>> output_params(SaveSamples)
['folder']
"""


def _writes_here(hint: Any) -> bool:
    import typing

    if typing.get_origin(hint) is Annotated:
        return any(m is WRITES_HERE for m in typing.get_args(hint)[1:]) or _writes_here(
            typing.get_args(hint)[0]
        )
    return any(_writes_here(a) for a in typing.get_args(hint))


def output_params(component: Any) -> list[str]:
    """The options of ``component`` (a class or function) typed ``OutputPath`` (or
    ``OutputPath | None``...)."""
    import inspect
    import typing

    target = component.__init__ if inspect.isclass(component) else component
    try:
        hints = typing.get_type_hints(target, include_extras=True)
    except Exception:  # hints that cannot be resolved: no declared output path
        return []
    return [name for name, hint in hints.items() if name != "return" and _writes_here(hint)]


def output_path_problem(value: Any, run_dir: str | os.PathLike[str] | None = None) -> str | None:
    """Why the config value ``value`` of an ``OutputPath`` option would write outside the
    run directory (absolute, ``..`` leaving it, or, given the existing ``run_dir``, a
    symbolic link leading out), or ``None``.

    >>> output_path_problem("logs/x.csv"), output_path_problem("a/../b") is None
    (None, True)
    >>> output_path_problem("../outside/x.csv")
    "'../outside/x.csv' leaves the run directory"
    """
    if not isinstance(value, str | os.PathLike):
        return None  # a type problem, reported by the resolver
    text = os.fspath(value)
    if os.path.isabs(text):
        return f"{text!r} is an absolute path"
    if text.startswith("~"):
        return f"{text!r} names a home folder"
    norm = os.path.normpath(text)
    if norm == ".." or norm.startswith(".." + os.sep):
        return f"{text!r} leaves the run directory"
    if run_dir is not None:
        root = os.path.realpath(run_dir)
        real = os.path.realpath(os.path.join(root, text))
        if real != root and not real.startswith(root + os.sep):
            return f"{text!r} leaves the run directory through a symbolic link (to {real})"
    return None


class RunDirError(tw.TensorweaveError):
    """A run directory cannot be used (exists, in use, not a run): a usage error (exit 2)."""

    exit_code = 2


def check_run_name(name: object) -> str | None:
    """Why ``name`` cannot name a run directory under the runs root, or ``None``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
        return (
            f"{name!r} is not a plain run name (at most 128 letters, digits and _ . = + -; "
            "no path separators, '..' or absolute paths): the run directory stays under runs/. "
            "Fix: choose a plain name, or set [run] dir / --run-dir for another place"
        )
    return None


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


def _listing(names: list[str]) -> str:
    shown = ", ".join(sorted(names)[:4])
    return shown + (", ..." if len(names) > 4 else "")


def _contents(where: Path) -> list[str]:
    """What ``where`` holds, besides a lock and the marker."""
    return [p.name for p in where.iterdir() if p.name not in (LOCK, MARKER)]


def _what_is(where: Path, names: list[str]) -> str:
    """What the non-empty directory ``where`` is, in words: a run, files tensorweave
    wrote, or a folder of other files."""
    n = f"{len(names)} file{'s' if len(names) != 1 else ''}"
    if read_marker(where) is None:
        return f"{where} is a non-empty folder of other files: it holds {n} not written by tensorweave ({_listing(names)})"
    if (where / CONFIG_FILE).is_file():
        return f"{where} already holds a run ({_listing(names)})"
    return f"{where} holds {n} tensorweave wrote, not a run ({_listing(names)})"


def _refuse_unmarked(where: Path, names: list[str]) -> RunDirError:
    n = f"{len(names)} file{'s' if len(names) != 1 else ''}"
    return RunDirError(
        f"{where} holds {n} not written by tensorweave ({_listing(names)}): refusing to "
        f"empty it (tensorweave deletes only what it wrote; it has no {MARKER}). Fix: choose "
        "an empty or new folder."
    )


def empty_run_dir(path: str | os.PathLike[str]) -> None:
    """Empty the directory ``path`` (its lock stays), only when tensorweave wrote it (it
    holds ``MARKER``); else ``RunDirError`` saying what is there, and nothing removed.
    Symbolic links are removed, never followed."""
    where = Path(path)
    names = _contents(where)
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
    tensorweave_train.runs.directory.RunDirError: ... holds 1 file not written by tensorweave (notes.txt): refusing to empty it ...
    """
    where = Path(path)
    if where.is_symlink() or (where.exists() and not where.is_dir()):
        raise RunDirError(
            f"{where} exists and is not a directory{' (a symbolic link)' if where.is_symlink() else ''}. "
            "Fix: choose another path."
        )
    lock = RunLock(where).acquire()
    try:
        names = _contents(where)
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
