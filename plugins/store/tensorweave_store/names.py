"""The one rule for the names the store keeps: model, dataset and run names (and stages).

A name is 1 to 128 characters of ASCII letters, digits and ``_ . = + -``, starting with a
letter, a digit or ``_`` (no leading dot or dash), with no ``..``: no path separator, no
control character, no look-alike letter from another script. The same characters as a
``[run] name`` of the train pack, so a run's name is always a valid model name. Every entry
point (``register``, ``resolve``, ``tag``, ``stage``, ``datasets``, ``start_run``, the
``tensorweave models/datasets/runs`` commands) checks its names here, and the cache and blob
paths are built from checked names and checked sha256 digests only (``inside`` verifies the
result stays in its root).

>>> check_name("digits-small.v2")
'digits-small.v2'
>>> check_name("../../x")
Traceback (most recent call last):
...
tensorweave_store.errors.BadNameError: model name '../../x' is not allowed: ...
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from tensorweave_store.errors import BadNameError

__all__ = [
    "NAME_PATTERN",
    "MAX_NAME",
    "check_name",
    "check_sha",
    "check_relative",
    "inside",
    "exists",
]

MAX_NAME = 128
#: the pattern every model, dataset and run name matches (and none holds ``..``)
NAME_PATTERN = rf"[A-Za-z0-9_][A-Za-z0-9_.=+-]{{0,{MAX_NAME - 1}}}"
_NAME = re.compile(NAME_PATTERN)
_SHA = re.compile(r"[0-9a-f]{64}")


def check_name(name: object, what: str = "model") -> str:
    """``name`` when it matches ``NAME_PATTERN`` without ``..``; ``BadNameError`` showing
    the pattern otherwise."""
    if isinstance(name, str) and _NAME.fullmatch(name) and ".." not in name:
        return name
    shown = repr(name) if len(repr(name)) <= 80 else repr(name)[:77] + "..."
    raise BadNameError(
        f"{what} name {shown} is not allowed: a name is 1-{MAX_NAME} ASCII letters, digits "
        f"and _ . = + - (the pattern {NAME_PATTERN}), starting with a letter, a digit or _, "
        "without '..', path separators or control characters; the store builds folder names "
        "from it. Fix: choose a plain name, e.g. digits-small"
    )


def check_sha(sha: object) -> str:
    """``sha`` when it is a lower-case hex sha256 (a blob's name), else ``BadNameError``.

    >>> check_sha("0" * 64) == "0" * 64
    True
    """
    if isinstance(sha, str) and _SHA.fullmatch(sha):
        return sha
    raise BadNameError(
        f"{str(sha)[:80]!r} is not a sha256 blob name (64 lower-case hex digits): the "
        "store's records were altered. Fix: re-register the model or dataset from its run."
    )


def check_relative(path: object) -> str:
    """A stored file's path inside its folder (``checkpoints/ckpt-1/x.index``): relative,
    ``/``-separated, no ``..``, ``.`` or empty part, no backslash or control character;
    ``BadNameError`` otherwise.

    >>> check_relative("checkpoints/ckpt-2/a.index")
    'checkpoints/ckpt-2/a.index'
    """
    text = path if isinstance(path, str) else ""
    parts = PurePosixPath(text).parts
    bad = (
        not text
        or text.startswith("/")
        or "\\" in text
        or any(ord(c) < 32 or ord(c) == 127 for c in text)
        or any(p in ("..", ".", "") for p in text.split("/"))
        or not parts
    )
    if bad:
        raise BadNameError(
            f"stored file path {str(path)[:80]!r} would leave its folder (absolute, '..', or "
            "control characters): the store's records were altered; nothing was written. Fix: "
            "re-register the model from its run."
        )
    return text


def exists(path: str | os.PathLike[str], *, folder: bool = False) -> bool:
    """Whether ``path`` exists (is a folder, with ``folder``); ``False`` for text no file
    can be named (too long, NUL) rather than an ``OSError``.

    >>> exists("x" * 5000), exists("/"), exists("a" + chr(0) + "b", folder=True)
    (False, True, False)
    """
    try:
        where = Path(path)
        return where.is_dir() if folder else where.exists()
    except (OSError, ValueError):
        return False


def inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path:
    """``path`` once it is checked to stay in ``root`` after resolving links and ``..``
    (``BadNameError`` otherwise).

    >>> inside("/tmp/a/b", "/tmp/a").name
    'b'
    """
    real, base = Path(path).resolve(), Path(root).resolve()
    if real != base and base not in real.parents:
        raise BadNameError(
            f"{path} resolves to {real}, outside {base}; nothing was written there. Fix: "
            "check the store's cache folder (TENSORWEAVE_STORE_CACHE) for links."
        )
    return Path(path)
