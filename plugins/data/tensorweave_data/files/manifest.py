"""Data manifests: exactly which files a file dataset reads, each by path, size and sha256.

``manifest_of(data)`` lists the files every split of a file dataset reads (the public
``Stream.files()`` of ``image_folder.v1``, ``table.v1``, ``text_folder.v1``,
``text_lines.v1``, ``tfrecord.v1``) and hashes them; ``None`` for in-memory data. A file's
hash is computed once and cached by ``(absolute path, size, mtime)`` in
``~/.cache/tensorweave/manifests`` (``$TENSORWEAVE_MANIFEST_CACHE``, else
``$XDG_CACHE_HOME/tensorweave/manifests``): a second run on the same files reads no byte of
them. ``compute(paths, cached=False)`` re-reads every file (what ``tensorweave data verify``
does). ``Manifest.compare`` says which files changed, went missing or are new.

A run keeps the manifest of its data as ``data_manifest.json`` (``MANIFEST_FILE``).

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "a.txt").write_text("hello")
>>> m = compute([folder / "a.txt"], cached=False)
>>> m.files[0].size, m.files[0].sha256[:12]
(5, '2cf24dba5fb0')
>>> _ = (folder / "a.txt").write_text("hullo")
>>> m.compare(compute([folder / "a.txt"], cached=False)).changed == [str(folder / "a.txt")]
True
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "MANIFEST_FILE",
    "CACHE_ENV",
    "FileEntry",
    "Manifest",
    "Changes",
    "cache_dir",
    "compute",
    "files_of",
    "manifest_of",
]

MANIFEST_FILE = "data_manifest.json"
CACHE_ENV = "TENSORWEAVE_MANIFEST_CACHE"
_CHUNK = 1 << 20


@dataclass(frozen=True)
class FileEntry:
    """One file of a manifest: its absolute ``path``, ``size`` in bytes and ``sha256``."""

    path: str
    size: int
    sha256: str


@dataclass(frozen=True)
class Changes:
    """What differs between a recorded manifest and the files now: paths, sorted."""

    changed: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.changed or self.missing or self.new)

    def lines(self) -> list[str]:
        """One line per file: ``changed  PATH``, ``missing  PATH``, ``new      PATH``."""
        return (
            [f"changed  {p}" for p in self.changed]
            + [f"missing  {p}" for p in self.missing]
            + [f"new      {p}" for p in self.new]
        )


@dataclass(frozen=True)
class Manifest:
    """The files a dataset reads, in the order its splits list them."""

    files: list[FileEntry]

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": 1,
            "count": len(self.files),
            "bytes": self.total_bytes,
            "files": [{"path": f.path, "size": f.size, "sha256": f.sha256} for f in self.files],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Manifest:
        return cls(
            [FileEntry(str(f["path"]), int(f["size"]), str(f["sha256"])) for f in data["files"]]
        )

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the manifest as JSON at ``path`` (at once: a temporary file renamed)."""
        target = Path(path)
        _write_atomic(target, json.dumps(self.to_json(), indent=1) + "\n")
        return target

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Manifest:
        return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))

    def compare(self, now: Manifest) -> Changes:
        """What changed from this (recorded) manifest to ``now``: files whose size or hash
        differ, recorded files that ``now`` lacks (missing), and files only ``now`` has."""
        before = {f.path: f for f in self.files}
        after = {f.path: f for f in now.files}
        changed = sorted(
            p
            for p in before.keys() & after.keys()
            if (before[p].size, before[p].sha256) != (after[p].size, after[p].sha256)
        )
        return Changes(
            changed, sorted(before.keys() - after.keys()), sorted(after.keys() - before.keys())
        )


def cache_dir() -> Path:
    """Where file hashes are cached (``$TENSORWEAVE_MANIFEST_CACHE``, else
    ``$XDG_CACHE_HOME/tensorweave/manifests``, else ``~/.cache/tensorweave/manifests``)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tensorweave" / "manifests"


def _write_atomic(target: Path, text: str) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _entry(path: str, *, cached: bool) -> FileEntry | None:
    """The entry of the file at absolute ``path`` (``None`` when it does not exist)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    key = hashlib.sha256(f"{path}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()
    where = cache_dir() / key[:2] / f"{key}.json"
    if cached:
        try:
            return FileEntry(path, st.st_size, json.loads(where.read_text())["sha256"])
        except (OSError, ValueError, KeyError):
            pass  # not cached yet (or a damaged cache file): hash it
    entry = FileEntry(path, st.st_size, _sha256(path))
    try:
        _write_atomic(where, json.dumps({"path": path, "sha256": entry.sha256}))
    except OSError:
        pass  # a read-only cache only costs the hashing next time
    return entry


def compute(paths: Iterable[str | os.PathLike[str]], *, cached: bool = True) -> Manifest:
    """The manifest of the files ``paths`` (made absolute; duplicates once, in order).
    ``cached``: reuse the hash of a file whose path, size and mtime are unchanged (else
    every file is read again). A path that does not exist is left out."""
    seen: dict[str, None] = {}
    for p in paths:
        seen.setdefault(os.path.abspath(os.fspath(p)), None)
    entries = [_entry(p, cached=cached) for p in seen]
    return Manifest([e for e in entries if e is not None])


def files_of(data: Any) -> list[str] | None:
    """The files every split of ``data`` reads (a ``DataSplits`` or a mapping of splits
    whose splits are file streams), absolute, in order, once each; ``None`` when no split
    is read from files (in-memory arrays)."""
    splits: list[Any] = []
    if isinstance(data, Mapping):
        splits = list(data.values())
    else:
        splits = [getattr(data, s) for s in ("train", "valid", "test") if hasattr(data, s)]
    found: dict[str, None] = {}
    streamed = False
    for split in splits:
        stream = split if callable(getattr(split, "files", None)) else None
        if stream is None and isinstance(split, Mapping) and split:
            stream = getattr(next(iter(split.values())), "stream", None)
        if stream is None or not callable(getattr(stream, "files", None)):
            continue
        streamed = True
        for path in stream.files():
            found.setdefault(os.path.abspath(path), None)
    return list(found) if streamed else None


def manifest_of(data: Any, *, cached: bool = True) -> Manifest | None:
    """The manifest of the files ``data`` reads (``files_of``), or ``None`` for data held
    in memory."""
    files = files_of(data)
    return None if files is None else compute(files, cached=cached)
