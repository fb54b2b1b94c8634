"""Checkpoints that survive crashes: atomic, checksummed, with a fallback to the previous one.

Layout of a run directory::

    run_dir/checkpoints/
        ckpt-0000000040/
            vars.index, vars.data-00000-of-00001   tf.train.Checkpoint: every layer's
                                                   variables, optimizer slots and
                                                   hyperparameters, the global tf.random
                                                   Generator
            state.json                             step, epoch, data position (batches
                                                   consumed in the epoch), seed, the input
                                                   position ("input": Batches.position, for
                                                   a stream its examples, batch size and
                                                   the epoch's order seed), values,
                                                   history, callbacks' memory
            MANIFEST.json                          sha256 and size of every other file
        ckpt-0000000060/ ...

A checkpoint is written into ``.tmp-ckpt-…`` first, every file fsynced, the manifest last,
then the directory is renamed into place with ``os.replace`` (atomic) and the parent fsynced.
``restore`` checks the manifest's hashes newest first; a corrupt or partial checkpoint is
skipped with a warning and the previous one used. The ``Checkpoint.v1`` callback
(``callbacks.checkpoint``) saves them while training; ``Model.train(resume=...)`` and a
``runs.Run`` restore them.

A checkpoint's manifest names its ``owner``: the run that wrote it (the id of its run
directory, set by whoever trains the run with ``writing_for``), or ``""`` for one written
outside a run (a Python program's ``Checkpoint.v1``). Pruning (``keep``) removes only
checkpoints of the same owner, and a re-saved step replaces only its own: a checkpoint
directory shared with another run loses nothing of that run's. While a run trains, its
``guard`` refuses a checkpoint directory that belongs to another run before anything is
written.

>>> import tempfile
>>> ck = Checkpointer(tempfile.mkdtemp())
>>> ck.checkpoints()
[]
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import shutil
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import tensorflow as tf

import tensorweave as tw

__all__ = [
    "CheckpointOwnerError",
    "Checkpointer",
    "CorruptCheckpointWarning",
    "DamagedCheckpointError",
    "trackables",
    "writing_for",
]

# the run being trained: its id, and a check that a checkpoint directory is not another run's
_WRITING_FOR: contextvars.ContextVar[tuple[str, Callable[[Path], None] | None] | None] = (
    contextvars.ContextVar("tensorweave_checkpoint_owner", default=None)
)


@contextlib.contextmanager
def writing_for(owner: str, guard: Callable[[Path], None] | None = None) -> Iterator[None]:
    """Checkpoints saved inside this block belong to the run ``owner`` (an id), and
    ``guard(directory)`` (raising when ``directory`` belongs to another run) checks every
    checkpoint directory before its first write. Whoever trains a run sets it
    (``runs.fitting``).

    >>> import tempfile
    >>> with writing_for("run-1"):
    ...     Checkpointer(tempfile.mkdtemp()).owner
    'run-1'
    """
    token = _WRITING_FOR.set((owner, guard))
    try:
        yield
    finally:
        _WRITING_FOR.reset(token)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


FORMAT = 1
_PREFIX = "ckpt-"


class CorruptCheckpointWarning(UserWarning):
    """A checkpoint failed its checksum (or was partial) and an older one was used."""


class CheckpointOwnerError(tw.TensorweaveError):
    """A checkpoint directory (or one checkpoint) belongs to another run: a usage error."""

    exit_code = 2


class DamagedCheckpointError(tw.TensorweaveError):
    """A checkpoint that passed its checks but cannot be read (truncated or damaged
    variables): the message names it and the previous checkpoint to fall back to, if any.
    Exit code 2 (bad input) on the command line."""

    exit_code = 2

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as f:
        os.fsync(f.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def trackables(model: Any) -> dict[str, Any]:
    """What a checkpoint of ``model`` holds (layers' state, optimizer, RNG)."""
    return {"model": model, "rng": tf.random.get_global_generator()}


class Checkpointer:
    """Save and restore checkpoints of a model in ``directory/checkpoints``.

    Args:
        directory: the run directory.
        keep: how many of this owner's checkpoints to keep (its oldest are deleted after
            a save; other owners' are never deleted).
        owner: the run the checkpoints belong to (default: the run ``writing_for`` names,
            else ``""``, a checkpoint written outside a run).
    """

    def __init__(
        self, directory: str | os.PathLike[str], keep: int = 3, owner: str | None = None
    ) -> None:
        self.run_dir = Path(directory)
        self.directory = self.run_dir / "checkpoints"
        self.keep = max(1, int(keep))
        self._owner = owner
        self._guarded = False

    @property
    def owner(self) -> str:
        """The run these checkpoints belong to (see ``writing_for``)."""
        if self._owner is not None:
            return self._owner
        current = _WRITING_FOR.get()
        return current[0] if current is not None else ""

    @staticmethod
    def owner_of(path: Path) -> str | None:
        """The owner a checkpoint's manifest names (``""``: written outside a run), or
        ``None`` when it cannot be read (partial, damaged)."""
        try:
            manifest = json.loads((path / "MANIFEST.json").read_text(encoding="utf-8"))
            owner = manifest.get("owner", "")
        except (OSError, ValueError, AttributeError):
            return None
        return owner if isinstance(owner, str) else None

    def _guard(self) -> None:
        current = _WRITING_FOR.get()
        if self._guarded or current is None or current[1] is None:
            return
        current[1](self.run_dir)  # raises: the directory is another run's
        self._guarded = True

    def checkpoints(self) -> list[Path]:
        """Checkpoint directories, oldest first (whether valid or not)."""
        if not self.directory.is_dir():
            return []
        found = [p for p in self.directory.iterdir() if p.is_dir() and p.name.startswith(_PREFIX)]
        return sorted(found, key=lambda p: p.name)

    def save(self, model: Any, snapshot: dict[str, Any]) -> Path:
        """Write a checkpoint of ``model`` and the loop ``snapshot``; returns its path."""
        step = int(snapshot.get("step", 0))
        self._guard()
        owner = self.owner
        self.directory.mkdir(parents=True, exist_ok=True)
        final = self.directory / f"{_PREFIX}{step:010d}"
        tmp = self.directory / f".tmp-{final.name}-{os.getpid()}-{time.monotonic_ns()}"
        tmp.mkdir()
        try:
            tf.train.Checkpoint(**trackables(model)).write(str(tmp / "vars"))
            state = {"format": FORMAT, "created": time.time(), **snapshot}
            (tmp / "state.json").write_text(json.dumps(state, indent=1, default=float))
            files = {}
            for f in sorted(tmp.iterdir()):
                _fsync_file(f)
                files[f.name] = {"sha256": _sha256(f), "size": f.stat().st_size}
            manifest = tmp / "MANIFEST.json"
            manifest.write_text(
                json.dumps({"format": FORMAT, "step": step, "owner": owner, "files": files})
            )
            _fsync_file(manifest)
            _fsync_dir(tmp)
            if final.exists():  # re-saving a step: move the old one aside first
                if self.owner_of(final) not in (owner, None):
                    raise CheckpointOwnerError(
                        f"{final} was written by another run (owner "
                        f"{self.owner_of(final)!r}); refusing to replace it. Fix: give this "
                        "run a checkpoint directory of its own."
                    )
                old = final.with_name(f".old-{final.name}-{time.monotonic_ns()}")
                os.replace(final, old)
                shutil.rmtree(old, ignore_errors=True)
            os.replace(tmp, final)
            _fsync_dir(self.directory)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self._prune()
        return final

    def _prune(self) -> None:
        """Remove this owner's checkpoints beyond ``keep`` (never another owner's, nor one
        whose manifest cannot be read), and the temporary directories that processes no
        longer alive left (``.tmp-ckpt-…-PID-…``)."""
        for stale in self.directory.glob(f".tmp-{_PREFIX}*"):
            try:
                pid = int(stale.name.rsplit("-", 2)[-2])
            except (ValueError, IndexError):
                continue  # not a name this class writes
            if pid != os.getpid() and not _pid_alive(pid):
                shutil.rmtree(stale, ignore_errors=True)
        owner = self.owner
        mine = [p for p in self.checkpoints() if self.owner_of(p) == owner]
        for old in mine[: -self.keep]:
            shutil.rmtree(old, ignore_errors=True)

    @staticmethod
    def verify(path: Path) -> str | None:
        """Why the checkpoint at ``path`` is unusable, or ``None`` when it checks out."""
        manifest = path / "MANIFEST.json"
        if not manifest.is_file():
            return "no MANIFEST.json (partial write)"
        try:
            files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
            if not isinstance(files, dict) or not files:
                return "damaged MANIFEST.json (no file list)"
            for name, meta in files.items():
                f = path / name
                if not isinstance(name, str) or "/" in name or name.startswith("."):
                    return f"damaged MANIFEST.json (bad file name {name!r})"
                if not f.is_file():
                    return f"missing file {name}"
                if f.stat().st_size != meta["size"] or _sha256(f) != meta["sha256"]:
                    return f"checksum mismatch in {name}"
            if "state.json" not in files or not any(n.startswith("vars") for n in files):
                return "damaged MANIFEST.json (it lists neither state.json nor vars)"
        except (ValueError, KeyError, TypeError, AttributeError, OSError) as err:
            return f"damaged MANIFEST.json ({type(err).__name__}: {err})"
        return None

    def latest(self) -> Path | None:
        """The newest checkpoint that passes ``verify`` (warning about newer broken ones)."""
        for path in reversed(self.checkpoints()):
            problem = self.verify(path)
            if problem is None:
                return path
            warnings.warn(
                f"checkpoint {path} is unusable: {problem}; falling back to the previous one.",
                CorruptCheckpointWarning,
                stacklevel=3,
            )
        return None

    def restore(self, model: Any, path: Path | None = None) -> dict[str, Any] | None:
        """Load the newest valid checkpoint (or ``path``) into ``model``; returns its loop
        snapshot, or ``None`` when there is none. Build the model (optimizer slots) first."""
        path = path if path is not None else self.latest()
        if path is None:
            return None
        try:
            status = tf.train.Checkpoint(**trackables(model)).read(str(path / "vars"))
        except (IndexError, EOFError, OSError, tf.errors.DataLossError) as err:
            raise self._damaged(path, "its variables (vars.*) cannot be read", err) from err
        except tf.errors.OpError as err:
            if not isinstance(err, (tf.errors.NotFoundError, tf.errors.OutOfRangeError)):
                raise
            raise self._damaged(path, "its variables (vars.*) cannot be read", err) from err
        status.assert_existing_objects_matched()
        try:
            snapshot: dict[str, Any] = json.loads((path / "state.json").read_text())
            if not isinstance(snapshot, dict):
                raise ValueError(f"a JSON {type(snapshot).__name__}, not an object")
        except (OSError, ValueError, RecursionError) as err:
            raise self._damaged(path, "its state.json cannot be read", err) from err
        return snapshot

    def _damaged(self, path: Path, what: str, err: BaseException) -> DamagedCheckpointError:
        """The error for the checkpoint at ``path`` that cannot be read, naming the previous
        checkpoint that checks out (the one to fall back to), if any."""
        text = (str(err).strip().splitlines() or [""])[0][:200] or type(err).__name__
        older = [p for p in self.checkpoints() if p.name < path.name]
        previous = next((p for p in reversed(older) if self.verify(p) is None), None)
        aside = path.parent.parent / f"damaged-{path.name}"
        if previous is not None:
            fix = (
                f"the previous checkpoint {previous} checks out: move the damaged one aside "
                f"(mv {path} {aside}) and run the command again to use {previous.name} (a "
                "resumed run trains again from there); or train the run again"
            )
        else:
            fix = (
                "no earlier checkpoint checks out: restore the checkpoints from a backup of the "
                "run, or train the run again"
            )
        return DamagedCheckpointError(
            f"checkpoint {path} is damaged: {what} ({type(err).__name__}: {text}). Fix: {fix}.",
            path,
        )
