"""One reader per file format, for every file a command reads: a bad file is a ``BadFileError``.

Whatever is wrong with a file (missing, a directory, unreadable, truncated, not the format
its name says, an object array that would need unpickling, JSON nested too deep, text that
is not UTF-8, a header declaring more data than the file holds), the reader raises one
``BadFileError`` naming the file, what is wrong and what is expected; on the command line
it exits with code 2 (bad input) and one line, no traceback. Arrays are never unpickled,
and a ``.npy`` header is checked against the size of the file before anything is
allocated: a 100-byte file declaring a 36 TiB array is refused, not attempted.

Here: ``BadFileError``, the checked opening every reader uses (``open_checked``:
regular files only), and the text formats ``read_text``, ``read_json``, ``read_csv``.
Arrays (``read_npy``, ``read_npz``, and ``read_input``, which picks a reader by the file's
suffix: what ``tensorweave predict --input`` takes) are in ``tensorweave_data.array_files``;
image files (``image_files``, ``read_image``) in ``tensorweave_data.images``. The package's
root exports them all.
``fix=`` phrases the error for a file tensorweave itself wrote (``processors.json``…):
``"RUN/processors.json is damaged (line 3, column 5: ...): <fix>"``.

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "bad.json").write_text('{"x": [1, 2,]}')
>>> try:
...     read_json(folder / "bad.json")
... except BadFileError as err:
...     print(str(err).replace(str(folder), "DIR"))
DIR/bad.json is not valid JSON (line 1, column 13: Expecting value). Fix: write it as JSON (json.dump), e.g. [[0.1, 0.2], [0.3, 0.4]] or {"x": [[0.1, 0.2]]}.
"""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from pathlib import Path
from typing import IO, Any

import tensorweave as tw

__all__ = [
    "BadFileError",
    "bad_file",
    "open_checked",
    "read_checked",
    "byte_size",
    "read_json",
    "read_text",
    "read_csv",
]

_JSON_FIX = 'write it as JSON (json.dump), e.g. [[0.1, 0.2], [0.3, 0.4]] or {"x": [[0.1, 0.2]]}'
_TEXT_FIX = "save it as UTF-8 text"


class BadFileError(tw.TensorweaveError, ValueError):
    """A file that cannot be read as what it should be: the message names the file, what is
    wrong and what is expected. Exit code 2 (bad input) on the command line.

    >>> err = BadFileError("data/x.npy", "is truncated", "save it again")
    >>> str(err), err.path, BadFileError.exit_code
    ('data/x.npy is truncated. Fix: save it again.', 'data/x.npy', 2)
    """

    exit_code = 2  # the documented code of bad input (tensorweave.cli.EXIT_USAGE)

    def __init__(
        self,
        path: str | os.PathLike[str],
        problem: str,
        fix: str,
        *,
        owner: str = "",
        damaged: bool = False,
    ) -> None:
        self.path = os.fspath(path)
        self.problem = problem
        self.fix = fix
        where = f"{owner}: " if owner else ""
        if damaged:  # a file tensorweave wrote: say so, and how to get a good one back
            text = f"{where}{self.path} is damaged ({problem}): {fix}"
        else:
            text = f"{where}{self.path} {problem}. Fix: {fix}"
        super().__init__(text.rstrip(".") + ".")


def bad_file(path: Path, problem: str, fix: str, owner: str, written: str | None) -> BadFileError:
    """The error for ``problem`` (``written``: the fix for a file tensorweave wrote)."""
    if written is not None:
        return BadFileError(
            path,
            problem.removeprefix("is ").removeprefix("has "),
            written,
            owner=owner,
            damaged=True,
        )
    return BadFileError(path, problem, fix, owner=owner)


def open_checked(path: Path, fix: str, owner: str, written: str | None) -> IO[bytes]:
    """``path`` opened for reading, or the error saying why it cannot be. Only regular
    files are opened: a pipe, a device (``/dev/zero``) or a socket could block or never end."""
    try:
        if path.exists() and not path.is_dir() and not stat.S_ISREG(path.stat().st_mode):
            raise bad_file(
                path,
                "is not a regular file (a pipe, device or socket, which may never end)",
                "save the input to a file and give its path",
                owner,
                None,
            )
        return path.open("rb")
    except FileNotFoundError:
        raise bad_file(
            path,
            f"does not exist (looked from {Path.cwd()})",
            "check the path; relative paths start at the working directory",
            owner,
            None,
        ) from None
    except IsADirectoryError:
        raise bad_file(
            path, "is a directory, not a file", "give the path of a file", owner, None
        ) from None
    except PermissionError:
        raise bad_file(
            path,
            "cannot be read (permission denied)",
            "make it readable (chmod u+r) or give another file",
            owner,
            None,
        ) from None
    except OSError as err:
        raise bad_file(
            path, f"cannot be opened ({err.strerror or err})", fix, owner, written
        ) from None


def read_checked(path: Path, fix: str, owner: str, written: str | None) -> bytes:
    with open_checked(path, fix, owner, written) as f:
        try:
            return f.read()
        except OSError as err:  # e.g. a directory on some systems, an I/O error
            raise bad_file(
                path, f"cannot be read ({err.strerror or err})", fix, owner, written
            ) from None


def byte_size(n: int) -> str:
    value = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{n} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} bytes"  # pragma: no cover


def read_text(path: str | os.PathLike[str], *, owner: str = "", fix: str | None = None) -> str:
    """The UTF-8 text of the file at ``path``; ``BadFileError`` for one that is not UTF-8
    (naming the byte), missing or unreadable.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> _ = path.write_bytes(b"caf\\xc3\\xa9")
    >>> read_text(path)
    'café'
    """
    file = Path(path)
    data = read_checked(file, _TEXT_FIX, owner, fix)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise bad_file(
            file,
            f"is not UTF-8 text (byte {err.start}: {data[err.start : err.start + 1]!r}, {err.reason})",
            _TEXT_FIX + " (e.g. iconv -f latin1 -t utf-8)",
            owner,
            fix,
        ) from None


def read_json(path: str | os.PathLike[str], *, owner: str = "", fix: str | None = None) -> Any:
    """The JSON value of the file at ``path``; ``BadFileError`` for text that is not JSON
    (with line and column), nested too deep, not UTF-8, missing or unreadable.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "d.json"
    >>> _ = path.write_text('{"x": [1, 2]}')
    >>> read_json(path)
    {'x': [1, 2]}
    """
    file = Path(path)
    text = read_text(file, owner=owner, fix=fix)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise bad_file(
            file,
            f"is not valid JSON (line {err.lineno}, column {err.colno}: {err.msg})",
            _JSON_FIX,
            owner,
            fix,
        ) from None
    except ValueError as err:  # e.g. an integer of more digits than Python converts
        raise bad_file(file, f"is not valid JSON ({err})", _JSON_FIX, owner, fix) from None
    except RecursionError:
        raise bad_file(
            file,
            "is JSON nested too deep to read (thousands of levels of [ or {)",
            _JSON_FIX,
            owner,
            fix,
        ) from None


def read_csv(
    path: str | os.PathLike[str], *, owner: str = "", fix: str | None = None
) -> list[dict[str, str]]:
    """The rows of the UTF-8 CSV file at ``path`` (a header line, then one row per line) as
    ``{column: text}``; ``BadFileError`` for one that is not UTF-8, not CSV, or whose rows
    hold more cells than the header names.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = path.write_text("epoch,loss\\n1,0.5\\n")
    >>> read_csv(path)
    [{'epoch': '1', 'loss': '0.5'}]
    """
    file = Path(path)
    text = read_text(file, owner=owner, fix=fix)
    expected = "a header line of column names, then one row of values per line"
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as err:
        raise bad_file(file, f"is not CSV ({err})", expected, owner, fix) from None
    for number, row in enumerate(rows, start=2):
        if None in row:  # more cells than the header names
            raise bad_file(
                file,
                f"is not CSV (line {number} has more cells than the header)",
                expected,
                owner,
                fix,
            )
    return rows
