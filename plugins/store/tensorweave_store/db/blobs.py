"""A content-addressed blob directory: files named by their sha256, verified on read.

Any ``fsspec`` URL works (a local directory, ``file://``, ``memory://``, ``s3://`` with
its driver installed…); a blob is written to a temporary name then moved into place, so a
reader never sees half a blob, and the same content is stored once (a damaged copy is
replaced when the good content is stored again). ``get``/``fetch``
re-hash what they read and raise ``BlobIntegrityError`` when it does not match its name
(the blob is left in place for inspection; the database is not touched).

>>> import tempfile
>>> b = BlobStore(tempfile.mkdtemp())
>>> sha = b.put_bytes(b"hello")
>>> sha[:12], b.get(sha)
('2cf24dba5fb0', b'hello')
"""

from __future__ import annotations

import hashlib
import os
import uuid
from pathlib import Path
from typing import Any

from tensorweave_store.errors import BlobIntegrityError, StoreError

__all__ = ["BlobStore", "sha256_file", "sha256_bytes"]

_CHUNK = 1 << 20


def sha256_bytes(data: bytes) -> str:
    """The hex sha256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    """The hex sha256 of a local file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


class BlobStore:
    """Blobs under ``root`` (a path or fsspec URL) as ``ab/abcdef…`` files."""

    def __init__(self, root: str | Path) -> None:
        import fsspec

        self.root = str(root)
        self.fs: Any
        self.fs, self.base = fsspec.core.url_to_fs(self.root)
        self.fs.makedirs(self.base, exist_ok=True)

    def __repr__(self) -> str:
        return f"BlobStore({self.root!r})"

    def path(self, sha: str) -> str:
        """Where the blob ``sha`` lives (``sha`` checked: 64 hex digits, nothing else)."""
        from tensorweave_store.names import check_sha

        sha = check_sha(sha)
        return f"{self.base.rstrip('/')}/{sha[:2]}/{sha}"

    def exists(self, sha: str) -> bool:
        """Whether the blob is present (not verified)."""
        return bool(self.fs.exists(self.path(sha)))

    def _write(self, sha: str, data: bytes | None = None, src: Path | None = None) -> None:
        dest = self.path(sha)
        if self.fs.exists(dest):
            if self._intact(sha):
                return  # stored once
            self.fs.rm(dest)  # a damaged copy: the good content heals it
        self.fs.makedirs(dest.rsplit("/", 1)[0], exist_ok=True)
        tmp = f"{dest}.tmp-{uuid.uuid4().hex}"
        if src is not None:
            self.fs.put_file(str(src), tmp)
        else:
            with self.fs.open(tmp, "wb") as f:
                f.write(data)
        self.fs.mv(tmp, dest)

    def _intact(self, sha: str) -> bool:
        h = hashlib.sha256()
        with self.fs.open(self.path(sha), "rb") as f:
            for chunk in iter(lambda: f.read(_CHUNK), b""):
                h.update(chunk)
        return h.hexdigest() == sha

    def put_bytes(self, data: bytes) -> str:
        """Store ``data``; returns its sha256."""
        sha = sha256_bytes(data)
        self._write(sha, data=data)
        return sha

    def put_file(self, path: str | Path) -> str:
        """Store a local file; returns its sha256."""
        sha = sha256_file(path)
        self._write(sha, src=Path(path))
        return sha

    def get(self, sha: str) -> bytes:
        """The blob's bytes, verified against its name."""
        where = self.path(sha)
        try:
            with self.fs.open(where, "rb") as f:
                data: bytes = f.read()
        except FileNotFoundError as err:
            raise StoreError(
                f"blob {sha} is missing from {self.root}. Fix: point TENSORWEAVE_STORE_BLOBS at "
                "the blob directory this store was written with."
            ) from err
        got = sha256_bytes(data)
        if got != sha:
            raise BlobIntegrityError(
                f"blob {where} is corrupt: its sha256 is {got}, its name says {sha} (tampered "
                "or truncated); nothing was loaded. Fix: restore the file from a copy of the "
                "blob directory, or re-register the model/dataset from its run."
            )
        return data

    def fetch(self, sha: str, dest: str | Path) -> Path:
        """Copy the blob to the local file ``dest`` (verified; atomic)."""
        dest = Path(dest)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.tmp-{uuid.uuid4().hex}")
        tmp.write_bytes(self.get(sha))
        os.replace(tmp, dest)
        return dest
