"""Where a file dataset's files are: local paths, folders, globs, and fsspec URLs
(``file://`` and any URL fsspec can open); ``expand_paths`` lists them.

- A plain path, a glob or a ``file://`` URL is a local file: tf.data reads it directly.
- ``gs://`` (``TF_SCHEMES``): TensorFlow's own file system reads it (``tf.io.gfile``), so
  tf.data streams the objects without fsspec; globs are expanded by ``tf.io.gfile.glob``.
- Any other URL (``s3://``, ``az://``, ``https://``, ``memory://``, ...): tf.data cannot read
  it, so the files it names (a file, a glob or a folder) are copied once through fsspec into a
  local cache (``cache_root()``: ``$XDG_CACHE_HOME/tensorweave-data``, else
  ``~/.cache/tensorweave-data``; one folder per URL, a file fetched again only when its size
  changed) and streamed from there. fsspec must be installed (``pip install fsspec``, plus the
  file system's own package, e.g. ``s3fs``); without it the error says so.

>>> local_path("table.v1", "file:///data/houses.csv")
'/data/houses.csv'
>>> local_path("table.v1", "data/houses.csv")
'data/houses.csv'
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tensorweave_data.files.errors import FileDataError

__all__ = [
    "TF_SCHEMES",
    "expand_paths",
    "scheme",
    "local_path",
    "local_copy",
    "fetch",
    "cache_root",
]

TF_SCHEMES = ("gs",)
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def scheme(path: str) -> str | None:
    """The URL scheme of ``path`` (``"s3"``), or ``None`` for a plain path.

    >>> scheme("s3://bucket/a.csv"), scheme("C:/data/a.csv"), scheme("a.csv")
    ('s3', None, None)
    """
    found = _SCHEME.match(path)
    return found[1].lower() if found else None


def local_path(owner: str, path: str) -> str:
    """``path`` without a ``file://`` prefix; a plain path unchanged; any other URL is
    left to ``fetch`` (returned unchanged)."""
    if scheme(path) == "file":
        return path[len("file://") :]
    return path


def local_copy(owner: str, path: str, *, directory: bool) -> str:
    """A local path for ``path``: a plain path as is, a ``file://`` URL's path, another
    URL's local copy (``fetch``): a folder (``directory``), or a file with its folder (a
    manifest, so that the relative paths it lists resolve)."""
    path = local_path(owner, path)
    if scheme(path) is None:
        return path
    if directory:
        return fetch(owner, path, directory=True)[0]
    folder = fetch(owner, path.rsplit("/", 1)[0], directory=True)[0]
    return os.path.join(folder, path.rsplit("/", 1)[1])


def cache_root() -> Path:
    """Where the files of non-TensorFlow URLs are copied (see the module docstring)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tensorweave-data"


def _fsspec(owner: str, url: str) -> Any:
    try:
        import fsspec
    except ImportError as err:
        raise FileDataError(
            f"{owner}: {url!r} is an fsspec URL, and fsspec is not installed. Fix: pip install "
            "fsspec (and the file system's package, e.g. s3fs for s3://), or give a local path."
        ) from err
    try:
        fs, _, _ = fsspec.get_fs_token_paths(url)
    except (ImportError, ValueError) as err:
        raise FileDataError(
            f"{owner}: fsspec cannot open {url!r}: {err}. Fix: install the file system's "
            "package (pip install s3fs, gcsfs, adlfs, ...), or give a local path."
        ) from err
    return fs


def fetch(owner: str, url: str, *, directory: bool = False) -> list[str]:
    """The local copies of the files ``url`` names (a file, a glob, or a folder's files,
    recursively, sorted; ``directory``: the folder itself is wanted, and the one-element list
    is its local copy). TensorFlow URLs (``TF_SCHEMES``) are not copied: their files' URLs
    are returned. Raises ``FileDataError`` naming ``url`` when it matches nothing."""
    kind = scheme(url)
    if kind in TF_SCHEMES and not directory:
        import tensorflow as tf

        pattern = url
        if tf.io.gfile.isdir(url):
            pattern = url.rstrip("/") + "/*"
        found = sorted(p for p in tf.io.gfile.glob(pattern) if not tf.io.gfile.isdir(p))
        if not found:
            raise FileDataError(f"{owner}: {url!r} matches no file. Fix: check the URL.")
        return found
    fs = _fsspec(owner, url)
    protocol = fs.protocol[0] if isinstance(fs.protocol, tuple | list) else fs.protocol
    bare = fs._strip_protocol(url)
    if any(c in bare for c in "*?["):
        remote = sorted(p for p in fs.glob(bare) if fs.isfile(p))
        top = bare.split("*", 1)[0].rsplit("/", 1)[0]
    elif fs.isdir(bare):
        remote = sorted(fs.find(bare))
        top = bare
    elif fs.isfile(bare):
        remote = [bare]
        top = bare.rsplit("/", 1)[0]
    else:
        remote, top = [], bare
    if not remote:
        raise FileDataError(
            f"{owner}: {url!r} matches no file ({protocol} file system, through fsspec). Fix: "
            "check the URL (a file, a folder or a glob)."
        )
    home = cache_root() / hashlib.sha256(f"{protocol}://{top}".encode()).hexdigest()[:16]
    local: list[str] = []
    for path in remote:
        rel = os.path.relpath(path, top) if path != top else os.path.basename(path)
        if rel.startswith(".."):
            rel = os.path.basename(path)
        target = home / rel
        size = fs.size(path)
        if not (target.is_file() and target.stat().st_size == size):
            target.parent.mkdir(parents=True, exist_ok=True)
            partial = target.with_name(f".{target.name}.part")
            fs.get_file(path, str(partial))
            os.replace(partial, target)
        local.append(str(target))
    if directory:
        return [str(home if fs.isdir(bare) else Path(local[0]).parent)]
    return local


def expand_paths(owner: str, paths: str | os.PathLike[str] | Sequence[Any]) -> list[str]:
    """The files ``paths`` names (a file, a folder's files, a glob, or a list of these;
    each may be an fsspec URL: the module docstring), sorted; a name that matches nothing raises
    ``FileDataError`` naming it.

    >>> expand_paths("x", [__file__]) == [__file__]
    True
    """
    items = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    if not items:
        raise FileDataError(f"{owner}: no paths given. Fix: name a file, a folder or a glob.")
    found: list[str] = []
    for item in items:
        text = local_path(owner, os.fspath(item))
        if scheme(text) is not None:  # an fsspec URL: files.urls
            found += fetch(owner, text)
            continue
        if any(c in text for c in "*?["):
            matched = sorted(p for p in glob.glob(text, recursive=True) if os.path.isfile(p))
        elif os.path.isdir(text):
            matched = sorted(
                str(p) for p in Path(text).rglob("*") if p.is_file() and not p.name.startswith(".")
            )
        elif os.path.isfile(text):
            matched = [text]
        else:
            matched = []
        if not matched:
            raise FileDataError(
                f"{owner}: {text!r} matches no file (working directory {os.getcwd()}). "
                "Fix: give an existing file, a folder of files or a glob such as 'data/*.csv'."
            )
        found += matched
    return found
